"""What reading the Form 13F data sets gives the source tree (kept apart from the reader: no pyarrow to import)."""

from __future__ import annotations

from dataclasses import dataclass

from builder.records import SourceFile, SourceProblem, Witnesses


@dataclass(frozen=True, slots=True)
class DatasetsRead:
    """The witnesses (None: the tree has no sec13f-datasets/ folder), the zips' provenance, one problem per bad
    zip, and progress lines."""

    witnesses: Witnesses | None
    files: tuple[SourceFile, ...]
    problems: tuple[SourceProblem, ...]
    reports: tuple[str, ...]
