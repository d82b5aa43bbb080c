"""What reading the Form 13F data sets gives the source tree (kept apart from the reader: no pyarrow to import)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from builder.records import Filing, SourceFile, SourceProblem, Witnesses
from builder.sources.datasets.members import DatasetError


@dataclass(frozen=True, slots=True)
class DatasetsRead:
    """The witnesses (None: the tree has no sec13f-datasets/ folder), the zips' provenance, one problem per bad
    zip, and progress lines."""

    witnesses: Witnesses | None
    files: tuple[SourceFile, ...]
    problems: tuple[SourceProblem, ...]
    reports: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Warmed:
    """The data-set zips, each hashed once (its provenance, or why it cannot be read), in name order, and how many
    cache entries were written for them while the 13F files parsed."""

    sets: dict[Path, SourceFile | DatasetError]
    written: int


@dataclass(frozen=True, slots=True)
class OwnRead:
    """The pack managers' own filings read from the data sets (`datasets.own`), and what is wrong with them."""

    filings: tuple[Filing, ...]
    problems: tuple[SourceProblem, ...]
