"""Every filer's book per quarter end from the data sets' filings, amendments and units applied as our own 13F
reader applies them, summed into `Holders` per CUSIP.

A filer's filings for one PERIODOFREPORT apply in filing order, across sets (an amendment may come in a later
set): an original or a RESTATEMENT is the whole table, a NEW HOLDINGS amendment adds rows to it (as
builder.research.holdings, which sources may not import). VALUE is thousands before 2023-01-03 and dollars
after, checked by implied price with the reader's own rule (`rules.unit_by_price`).
"""

from __future__ import annotations

from array import array
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction

import pyarrow as pa
import pyarrow.compute as pc

from builder.records import Amendment, Holders, ValueUnit
from builder.sources.datasets.cache import SetExtract
from builder.sources.datasets.filers import SetFiling
from builder.sources.sec13f.rules import unit_by_price

SCALE = {ValueUnit.DOLLARS: 1, ValueUnit.THOUSANDS: 1000}
ROWS = pa.schema(
    [
        ("period", pa.date32()),
        ("cusip", pa.string()),
        ("cik", pa.int64()),
        ("shares", pa.int64()),
        ("value", pa.int64()),
    ]
)


@dataclass(frozen=True, slots=True)
class Books:
    quarters: dict[date, dict[str, Holders]]
    filers: dict[date, int]
    behind: dict[date, tuple[str, ...]]  # quarter end → the sets whose filings it applies
    by_price: int  # filings whose unit the implied price decided against their filing date
    later: int  # filings made after the as-of date, left out


def books(extracts: Sequence[tuple[str, SetExtract]], as_of: date | None = None) -> Books:
    """The Holders of every CUSIP in the extracts' (already narrowed) holdings, by quarter end, of the filings
    made by `as_of` (point in time: a later filing is left out, as the pack's own)."""
    filings: dict[str, tuple[int, SetFiling, float | None]] = {}
    later = set()
    for index, (_, extract) in enumerate(extracts):  # a re-uploaded set (`_2`) repeats accessions: the later wins
        for filing in extract.filings:
            if as_of is not None and filing.filed > as_of:
                later.add(filing.accession)
            else:
                filings[filing.accession] = (index, filing, extract.medians.get(filing.key))
    books: dict[int, list[tuple[SetFiling, int]]] = defaultdict(list)  # by the extract holding their rows
    by_price = 0
    for accession in _applied([filing for _, filing, _ in filings.values()]):
        index, filing, median = filings[accession]
        source = f"{extracts[index][0]}: {accession}"
        decision = unit_by_price(None if median is None else Fraction(median), filing.filed, source)
        books[index].append((filing, SCALE[decision.unit]))
        by_price += decision.rule == "implied-price-check"
    scaled = [_scaled(extract.holdings, books[index]) for index, (_, extract) in enumerate(extracts)]
    rows = (
        (pa.concat_tables(scaled) if scaled else ROWS.empty_table())
        .group_by(["period", "cusip", "cik"], use_threads=False)
        .aggregate([("shares", "sum"), ("value", "sum")])
    )
    rows = rows.sort_by([("period", "ascending"), ("cusip", "ascending"), ("cik", "ascending")])
    applied = [filing for book in books.values() for filing, _ in book]
    quarters: dict[date, dict[str, Holders]] = {p: {} for p in sorted({f.period for f in applied})}
    columns = [rows[name].combine_chunks() for name in ("cik", "shares_sum", "value_sum")]
    for period, cusip, start, stop in _runs(rows):
        quarters[period][cusip] = Holders(*(_int64s(column, start, stop) for column in columns))
    filers, behind = defaultdict(set), defaultdict(set)
    for index, book in books.items():
        for filing, _ in book:
            filers[filing.period].add(filing.cik)
            behind[filing.period].add(extracts[index][0])
    return Books(
        quarters,
        {period: len(ciks) for period, ciks in sorted(filers.items())},
        {period: tuple(sorted(sets)) for period, sets in sorted(behind.items())},
        by_price,
        len(later),
    )


def _scaled(holdings: pa.Table, book: list[tuple[SetFiling, int]]) -> pa.Table:
    """The rows of the applied accessions among `holdings`, with their filer, quarter end and value in dollars."""
    applied = pa.table(
        {
            "accession": pa.array([f.key for f, _ in book], pa.int64()),
            "cik": pa.array([int(f.cik) for f, _ in book], pa.int64()),
            "period": pa.array([f.period for f, _ in book], pa.date32()),
            "scale": pa.array([scale for _, scale in book], pa.int64()),
        }
    )
    joined = holdings.join(applied, "accession", join_type="inner")
    value = pc.multiply_checked(joined["value"], joined["scale"])
    return pa.table([joined["period"], joined["cusip"], joined["cik"], joined["shares"], value], schema=ROWS)


def _runs(rows: pa.Table) -> Iterator[tuple[date, str, int, int]]:
    """(quarter end, CUSIP, first row, row after the last) of each run of `rows` sorted by them."""
    counts = rows.group_by(["period", "cusip"], use_threads=False).aggregate([("cik", "count")])
    counts = counts.sort_by([("period", "ascending"), ("cusip", "ascending")])  # a group_by keeps no order
    start = 0
    for period, cusip, count in zip(*(counts[c].to_pylist() for c in ("period", "cusip", "cik_count")), strict=True):
        yield period, cusip, start, start + count
        start += count


def _int64s(column: pa.Array, start: int, stop: int) -> array[int]:
    """Rows `start`–`stop` of an int64 column without nulls, copied from its buffer (no Python int per value)."""
    values = array("q")
    first = column.offset + start
    values.frombytes(column.buffers()[1][first * 8 : (first + stop - start) * 8])
    return values


def _applied(filings: list[SetFiling]) -> list[str]:
    """The accessions each (cik, quarter) book applies: in filing order, a NEW HOLDINGS amendment adds, anything
    else replaces."""
    grouped: dict[tuple[str, date], list[SetFiling]] = defaultdict(list)
    for filing in filings:
        grouped[(filing.cik, filing.period)].append(filing)
    applied: list[str] = []
    for group in grouped.values():
        book: list[str] = []
        for filing in sorted(group, key=lambda f: (f.filed, f.amendment_no, f.accession)):
            book = [*book, filing.accession] if filing.amendment is Amendment.NEW_HOLDINGS else [filing.accession]
        applied.extend(book)
    return applied
