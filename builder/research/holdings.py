"""Quarter books: a manager's filings for one quarter, amendments applied, split rows summed, in dollars."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from builder.records import Amendment, Filing, PutCall, ShareType, slot_setters
from builder.research.changes.carry import Lot

# EDGAR's layout of a filing's folder: /Archives/edgar/data/<CIK without zeros>/<accession without dashes>/, with
# <accession>-index.htm listing its documents (SEC, "Accessing EDGAR Data").
EDGAR_ARCHIVES = "https://www.sec.gov/Archives/edgar/data"
_ACCESSION = re.compile(r"[0-9]{10}-[0-9]{2}-[0-9]{6}")


def edgar_url(filing: Filing) -> str | None:
    """The filing's index page on SEC EDGAR, where its documents can be checked; None when its accession number is
    not known (a file that does not give it)."""
    if not _ACCESSION.fullmatch(filing.accession):
        return None
    return f"{EDGAR_ARCHIVES}/{int(filing.cik)}/{filing.accession.replace('-', '')}/{filing.accession}-index.htm"


@dataclass(frozen=True, slots=True)
class SourceRow:
    """Where a number came from: the filing's accession number and the 1-based information-table row."""

    accession: str
    row: int


@dataclass(frozen=True, slots=True)
class Holding(Lot):
    """Rows of one quarter with the same CUSIP, putCall and share type, summed (SEC tables split them freely); a
    long-equity one is the Lot the change rules read (`rows`: how many `sources`)."""

    put_call: PutCall | None
    share_type: ShareType
    sources: tuple[SourceRow, ...]

    @property
    def long_equity(self) -> bool:
        """Shares held outright: not an option (putCall) and not a principal amount (PRN)."""
        return self.put_call is None and self.share_type == "SH"


@dataclass(frozen=True, slots=True)
class QuarterBook:
    cik: str
    period: date
    filings: tuple[Filing, ...]  # the filings applied, in the order they were applied
    holdings: tuple[Holding, ...]  # sorted by (cusip, put_call, share_type)


class QuarterBooks(Mapping[tuple[str, date], QuarterBook]):
    """Every (cik, quarter) book of the filings; amendments apply in filing order (Form 13F General
    Instructions, amendments). A book's holdings are summed when it is first looked up, so a build that takes
    older quarters' artifacts from an earlier release never sums their rows."""

    def __init__(self, filings: Iterable[Filing]) -> None:
        grouped: dict[tuple[str, date], list[Filing]] = defaultdict(list)
        for filing in filings:
            grouped[(filing.cik, filing.period)].append(filing)
        self._applied = {key: _applied(group) for key, group in sorted(grouped.items())}
        self._books: dict[tuple[str, date], QuarterBook] = {}

    def filings(self, key: tuple[str, date]) -> tuple[Filing, ...]:
        """The filings a book applies, in order, without summing its rows (none when there is no book)."""
        return self._applied.get(key, ())

    def __getitem__(self, key: tuple[str, date]) -> QuarterBook:
        if key not in self._books:
            applied = self._applied[key]
            self._books[key] = QuarterBook(key[0], key[1], applied, _aggregate(applied))
        return self._books[key]

    def __contains__(self, key: object) -> bool:
        return key in self._applied

    def __iter__(self) -> Iterator[tuple[str, date]]:
        return iter(self._applied)

    def __len__(self) -> int:
        return len(self._applied)


def _applied(group: list[Filing]) -> tuple[Filing, ...]:
    ordered = sorted(group, key=lambda f: (f.filed, f.amendment_no, f.accession))
    applied: list[Filing] = []
    for filing in ordered:
        if filing.amendment is Amendment.NEW_HOLDINGS:
            applied.append(filing)  # adds rows to the quarter's table, never replaces it
        else:
            applied = [filing]  # an original or a RESTATEMENT is the whole table
    return tuple(applied)


def _aggregate(filings: Sequence[Filing]) -> tuple[Holding, ...]:
    # key → [issuer, shares, value, source rows]: a list, added to in place (every row of every book comes here)
    sums: dict[tuple[str, PutCall | None, ShareType], list[Any]] = {}
    for filing in filings:
        scale, accession = filing.dollars(1), filing.accession  # a row's value in dollars: value × scale
        for row in filing.rows:  # every row of every book: no call it can spare
            key = (row.cusip, row.put_call, row.share_type)
            entry = sums.get(key)
            if entry is None:
                sums[key] = [row.issuer, row.shares, row.value * scale, [_source_row(accession, row.row)]]
            else:
                entry[1] += row.shares
                entry[2] += row.value * scale
                entry[3].append(_source_row(accession, row.row))
    return tuple(
        _holding(cusip, shares, value, len(sources), issuer, put_call, share_type, tuple(sources))
        for (cusip, put_call, share_type), (issuer, shares, value, sources) in sorted(sums.items(), key=_order)
    )


def _order(item: tuple[tuple[str, str | None, str], object]) -> tuple[str, str, str]:
    """A holding's place in a book: by CUSIP, putCall (none first), share type."""
    (cusip, put_call, share_type), _ = item
    return cusip, put_call or "", share_type


# A frozen dataclass's __init__ sets every field through object.__setattr__, which looks the slot up again each time;
# every row of every book makes a SourceRow and every holding a Holding, so they are made by their slots' setters
# instead (as builder.records.holding_row makes a HoldingRow): the same records, a book summed in 0.7 of the time.
_new = object.__new__


def _source_row(accession: str, row: int) -> SourceRow:
    made = _new(SourceRow)
    _SET_ACCESSION(made, accession)
    _SET_ROW(made, row)
    return made


def _holding(
    cusip: str,
    shares: int,
    value: int,
    rows: int,
    issuer: str,
    put_call: PutCall | None,
    share_type: ShareType,
    sources: tuple[SourceRow, ...],
) -> Holding:
    made = _new(Holding)
    _SET_CUSIP(made, cusip)
    _SET_SHARES(made, shares)
    _SET_VALUE(made, value)
    _SET_ROWS(made, rows)
    _SET_ISSUER(made, issuer)
    _SET_PUT_CALL(made, put_call)
    _SET_TYPE(made, share_type)
    _SET_SOURCES(made, sources)
    return made


# Each field's slot setter, by name (the makers' arguments are the fields, in order; a Holding's include a Lot's).
_SET_ACCESSION, _SET_ROW = slot_setters(SourceRow, _source_row)
_SET_CUSIP, _SET_SHARES, _SET_VALUE, _SET_ROWS, _SET_ISSUER, _SET_PUT_CALL, _SET_TYPE, _SET_SOURCES = slot_setters(
    Holding, _holding
)
