"""Quarter books: a manager's filings for one quarter, amendments applied, split rows summed, in dollars."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from builder.records import Amendment, Filing


@dataclass(frozen=True, slots=True)
class SourceRow:
    """Where a number came from: the filing's accession number and the 1-based information-table row."""

    accession: str
    row: int


@dataclass(frozen=True, slots=True)
class Holding:
    """Rows of one quarter with the same CUSIP, putCall and share type, summed (SEC tables split them freely)."""

    cusip: str
    put_call: str | None
    share_type: str
    issuer: str
    shares: int
    value: int  # dollars
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
    sums: dict[tuple[str, str | None, str], list] = {}
    for filing in filings:
        scale, accession = filing.dollars(1), filing.accession  # a row's value in dollars: value × scale
        for row in filing.rows:  # every row of every book: no call it can spare
            key = (row.cusip, row.put_call, row.share_type)
            entry = sums.get(key)
            if entry is None:
                sums[key] = [row.issuer, row.shares, row.value * scale, [SourceRow(accession, row.row)]]
            else:
                entry[1] += row.shares
                entry[2] += row.value * scale
                entry[3].append(SourceRow(accession, row.row))
    return tuple(
        Holding(cusip, put_call, share_type, issuer, shares, value, tuple(sources))
        for (cusip, put_call, share_type), (issuer, shares, value, sources) in sorted(sums.items(), key=_order)
    )


def _order(item: tuple[tuple[str, str | None, str], object]) -> tuple[str, str, str]:
    """A holding's place in a book: by CUSIP, putCall (none first), share type."""
    (cusip, put_call, share_type), _ = item
    return cusip, put_call or "", share_type
