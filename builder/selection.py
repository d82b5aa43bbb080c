"""The filers a pack selects by size (packs.toml `[copycat] largest = N`): which ones, ranked at which quarter end, from
which Form 13F data sets, and the line that says so. Made by builder.sources.datasets.largest; the release index, the
audit export and `ras review` describe it (a record every stage may read, as builder.records)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True, slots=True)
class Ranked:
    """One filer the sets rank: its original holdings report for the quarter and the value that report gives."""

    cik: str  # 10 digits
    value: int  # the summary page's total (TABLEVALUETOTAL) in dollars, in the unit our 13F reader decides
    accession: str
    dataset: str  # the zip that holds the report, source-relative


@dataclass(frozen=True, slots=True)
class Selection:
    """The `largest` filers by reported value at `quarter`, largest first (rank 1 first): all of the `ranked` ones
    when the sets hold fewer."""

    largest: int  # N, as packs.toml asks
    quarter: date  # the quarter end ranked
    ranked: int  # filers with an original holdings report for it
    filers: tuple[Ranked, ...]

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
                f"fewer than the {self.largest} largest asked for"
            )
        largest = "the largest filer" if self.largest == 1 else f"the {self.largest} largest filers"
        return f"{largest} by reported value at {self.quarter} ({where})"
