"""INFOTABLE.tsv of one data set → each accession's long-equity rows summed by CUSIP, and its median price; and,
when asked, every row as filed (`rows.RowsWriter`).

pyarrow's streaming CSV reader takes the inflated member in blocks, so a 400 MB table is never whole in memory:
each block is narrowed at once to the long-equity rows (SSHPRNAMTTYPE SH, no PUTCALL) and four columns, and
only those are kept. Rows of one CUSIP in one accession are summed, never de-duplicated (a table splits a
position over several rows: about a fifth of the keys repeat). A row with a bad CUSIP, number or field count
is counted, not fatal (a witness's row; a pack manager's own filing checks its rows again, by our 13F reader's
rules, and a bad one is fatal there); a missing column is.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as csv

from builder.sources.datasets.members import DatasetError
from builder.sources.datasets.rows import COLUMNS as ROW_COLUMNS
from builder.sources.datasets.rows import Broken, RowsWriter, broken_row

BLOCK_BYTES = 4 * 1024 * 1024  # a CSV block: small enough that few blocks in flight stay a few tens of MB
PARTITIONS = 4  # the final sum runs over a quarter of the accessions at a time: its hash table stays small
COLUMNS = ("ACCESSION_NUMBER", "CUSIP", "VALUE", "SSHPRNAMT", "SSHPRNAMTTYPE", "PUTCALL")
HOLDINGS = pa.schema([("accession", pa.int64()), ("cusip", pa.string()), ("shares", pa.int64()), ("value", pa.int64())])


@dataclass(frozen=True, slots=True)
class Aggregated:
    """One INFOTABLE's long equity: (accession key, CUSIP) → shares, value as filed; each accession's median
    value per share (as filed, over its share rows with shares > 0); the rows read and the bad rows skipped."""

    holdings: pa.Table  # HOLDINGS, sorted by cusip then accession
    medians: dict[int, float]
    rows: int
    bad: int
    broken: tuple[Broken, ...] = ()  # the lines that could not be split, where they name an accession


def accession_key(accession: str) -> int:
    """`0000950123-25-003235` → 95012325003235: 18 digits, an int64."""
    return int(accession.replace("-", ""))


def header(stream: IO[bytes]) -> list[str]:
    """The column names of a tab-separated table (its first line)."""
    return stream.readline(1 << 16).decode("utf-8", "replace").rstrip("\r\n").split("\t")


def aggregate_infotable(stream: IO[bytes], rows: RowsWriter | None = None) -> Aggregated:
    """Read the INFOTABLE member `stream` (its header line first) to the end; with `rows`, write every row to it."""
    broken: list[Broken] = []

    def skip(row: csv.InvalidRow) -> str:
        broken.append(broken_row(row.text))
        return "skip"

    wanted = list(dict.fromkeys((*COLUMNS, *(ROW_COLUMNS if rows is not None else ()))))
    reader = csv.open_csv(
        stream,
        read_options=csv.ReadOptions(block_size=BLOCK_BYTES),
        parse_options=csv.ParseOptions(delimiter="\t", invalid_row_handler=skip),
        convert_options=csv.ConvertOptions(
            include_columns=wanted, column_types=dict.fromkeys(wanted, pa.string()), strings_can_be_null=False
        ),
    )
    kept, prices, read, bad = [], [], 0, 0
    try:
        for batch in reader:
            read += batch.num_rows
            block = pa.Table.from_batches([batch])
            accession = pc.replace_substring(block["ACCESSION_NUMBER"], "-", "")
            well_formed = pc.and_(_digits(accession, 18, 18), pc.equal(pc.utf8_length(block["ACCESSION_NUMBER"]), 20))
            if rows is not None:
                rows.write(block, accession, well_formed)
            table, invalid = _long_equity(block, accession, well_formed)
            bad += invalid
            kept.append(table)
            prices.append(_prices(table))
    except (pa.ArrowException, UnicodeDecodeError) as exc:
        raise DatasetError(f"INFOTABLE.tsv cannot be read: {exc}") from exc
    named = tuple(found for found in broken if found.accession)
    return Aggregated(_summed(kept), _medians(prices), read + len(broken), bad + len(broken), named)


def _long_equity(table: pa.Table, accession: pa.ChunkedArray, well_formed: pa.ChunkedArray) -> tuple[pa.Table, int]:
    """The block's SH rows without PUTCALL, in HOLDINGS columns, and how many of them were invalid (`accession`: each
    row's ACCESSION_NUMBER without its dashes, `well_formed` where that is one)."""
    equity = pc.and_(pc.equal(table["SSHPRNAMTTYPE"], "SH"), pc.equal(pc.utf8_trim_whitespace(table["PUTCALL"]), ""))
    table, accession, well_formed = table.filter(equity), accession.filter(equity), well_formed.filter(equity)
    valid = pc.and_(
        well_formed,
        pc.and_(
            pc.and_(pc.ascii_is_alnum(table["CUSIP"]), pc.equal(pc.utf8_length(table["CUSIP"]), 9)),
            pc.and_(_digits(table["VALUE"], 1, 18), _digits(table["SSHPRNAMT"], 1, 18)),
        ),
    )
    good = table.filter(valid)
    narrow = pa.table(
        [
            pc.cast(accession.filter(valid), pa.int64()),
            pc.utf8_upper(good["CUSIP"]),
            pc.cast(good["SSHPRNAMT"], pa.int64()),
            pc.cast(good["VALUE"], pa.int64()),
        ],
        schema=HOLDINGS,
    )
    return narrow, table.num_rows - good.num_rows


def _digits(column: pa.ChunkedArray, shortest: int, longest: int) -> pa.ChunkedArray:
    """Whole numbers of `shortest`–`longest` ASCII digits (18 fit an int64)."""
    length = pc.utf8_length(column)
    return pc.and_(
        pc.and_(pc.ascii_is_decimal(column), pc.greater_equal(length, shortest)), pc.less_equal(length, longest)
    )


def _prices(table: pa.Table) -> pa.Table:
    """(accession, value per share) of the rows with shares: the implied prices of the unit check."""
    rows = table.filter(pc.greater(table["shares"], 0))
    price = pc.divide(pc.cast(rows["value"], pa.float64()), pc.cast(rows["shares"], pa.float64()))
    return pa.table({"accession": rows["accession"], "price": price})


def _summed(parts: list[pa.Table]) -> pa.Table:
    """Rows of one (accession, CUSIP) summed; a partition of the accessions at a time."""
    whole = pa.concat_tables(parts) if parts else HOLDINGS.empty_table()
    parts.clear()
    sums = []
    for partition in range(PARTITIONS):
        part = whole.filter(pc.equal(pc.bit_wise_and(whole["accession"], PARTITIONS - 1), partition))
        grouped = part.group_by(["accession", "cusip"]).aggregate([("shares", "sum"), ("value", "sum")])
        sums.append(grouped.rename_columns(["accession", "cusip", "shares", "value"]).cast(HOLDINGS))
    summed = pa.concat_tables(sums)
    return summed.take(pc.sort_indices(summed, [("cusip", "ascending"), ("accession", "ascending")]))


def _medians(parts: Iterable[pa.Table]) -> dict[int, float]:
    """Each accession's median price, the mean of the two middle ones for an even count (as rules.median_price)."""
    table = pa.concat_tables(list(parts)) if parts else pa.table({"accession": [], "price": []})
    if table.num_rows == 0:
        return {}
    table = table.take(pc.sort_indices(table, [("accession", "ascending"), ("price", "ascending")]))
    counts = table.group_by("accession", use_threads=False).aggregate([("price", "count")])
    keys, sizes = counts["accession"].to_pylist(), counts["price_count"].to_pylist()
    starts, start = [], 0
    for size in sizes:
        starts.append(start)
        start += size
    low = table["price"].take([s + (n - 1) // 2 for s, n in zip(starts, sizes, strict=True)]).to_pylist()
    high = table["price"].take([s + n // 2 for s, n in zip(starts, sizes, strict=True)]).to_pylist()
    return {key: (a + b) / 2 for key, a, b in zip(keys, low, high, strict=True)}
