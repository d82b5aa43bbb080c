"""The filers a pack selects by size (packs.toml `[copycat] largest = N`): which ones, ranked at which quarter end, from
which Form 13F data sets, and the line that says so. Made by builder.sources.datasets.largest; the release index, the
audit export and `ras review` describe it (a record every stage may read, as builder.records)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

PASSED_LISTED = 3  # filers passed over named in the selection's line (the ranks of those taken show every gap)


@dataclass(frozen=True, slots=True)
class Ranked:
    """One filer the sets rank: its original holdings report for the quarter and the value that report gives."""

    cik: str  # 10 digits
    value: int  # the summary page's total (TABLEVALUETOTAL) in dollars, in the unit our 13F reader decides
    accession: str
    dataset: str  # the zip that holds the report, source-relative
    rank: int = 0  # 1 for the largest of every filer ranked (a filer passed over keeps its place)


@dataclass(frozen=True, slots=True)
class Passed:
    """A filer large enough to be taken, passed over: the sets hold no holdings report of it for `lacking`, quarter
    ends of the window the pack publishes (a young filer, or one that stopped and started again)."""

    filer: Ranked
    lacking: tuple[date, ...]


@dataclass(frozen=True, slots=True)
class Selection:
    """The `largest` filers by reported value at `quarter`, largest first (rank 1 first): all of the `ranked` ones
    when the sets hold fewer."""

    largest: int  # N, as packs.toml asks
    quarter: date  # the quarter end ranked
    ranked: int  # filers with an original holdings report for it
    filers: tuple[Ranked, ...]
    passed: tuple[Passed, ...] = ()  # larger than the last one taken, but lacking a quarter of the window

    @property
    def datasets(self) -> tuple[str, ...]:
        """The zips that hold the selected filers' reports."""
        return tuple(sorted({filer.dataset for filer in self.filers}))

    def described(self) -> str:
        """ "the 25 largest filers by reported value at 2025-03-31 (data set sec13f-datasets/….zip)"."""
        sets = self.datasets
        where = f"data set{'s' * (len(sets) > 1)} {', '.join(sets)}" if sets else "no data set"
        if len(self.filers) < self.largest:
            return (
                f"all {len(self.filers)} filers with a holdings report at {self.quarter} ({where}), "
                f"fewer than the {self.largest} largest asked for{self._passing()}"
            )
        largest = "the largest filer" if self.largest == 1 else f"the {self.largest} largest filers"
        return f"{largest} by reported value at {self.quarter} ({where}){self._passing()}"

    def _passing(self) -> str:
        """ "; 2 larger filers passed over, lacking a holdings report of a quarter end the pack publishes (CIK … at
        rank 3: 2024-12-31; …)"."""
        if not self.passed:
            return ""
        listed = "; ".join(
            f"CIK {p.filer.cik} at rank {p.filer.rank}: {', '.join(q.isoformat() for q in p.lacking)}"
            for p in self.passed[:PASSED_LISTED]
        )
        more = f"; and {len(self.passed) - PASSED_LISTED} more" if len(self.passed) > PASSED_LISTED else ""
        many = f"{len(self.passed)} larger filer{'s' * (len(self.passed) > 1)}"
        return f"; {many} passed over, lacking a holdings report of a quarter end the pack publishes ({listed}{more})"
