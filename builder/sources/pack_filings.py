"""The pack managers' 13F filings, from their files under sec13f/<cik>/ and from the Form 13F data sets
(sec13f-datasets/), with the sets' witnesses of every CUSIP they hold: one read for a publish and for
`ras securities`.

A manager's filing comes from its file when one holds it (a file may be newer than the last published set), else
from the sets; a manager with neither is a problem naming both places. pyarrow is imported only for a tree that has
data sets.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

from builder.records import Filing, ManagerConfig, ManagerSource, SourceProblem
from builder.selection import Selection
from builder.sources.datasets.read import DatasetsRead, OwnRead, Warmed
from builder.sources.files import DATASETS, Limits
from builder.sources.packs import PacksConfig
from builder.sources.sec13f.cache import ParseCache
from builder.sources.sec13f.filings import (
    FilingsRead,
    absent_managers,
    folders_of,
    joined,
    read_copycat_filings,
    unconfigured_folders,
)

if TYPE_CHECKING:
    from builder.sources.datasets.reader import OpenSets


@dataclass(frozen=True, slots=True)
class PackFilings:
    """Every filing of the pack's managers (`read`: sorted, with every problem of the files, the sets and of a
    manager with none), the part the sets gave, and the sets' witnesses (as of the point in time asked); the managers
    (those packs.toml lists, then those `largest` selected, by CIK alone) and the selection."""

    read: FilingsRead
    own: OwnRead
    datasets: DatasetsRead
    managers: tuple[ManagerConfig, ...] = ()
    selection: Selection | None = None

    def from_sets(self) -> str:
        """The progress line's note of the filings the sets gave ("" when none)."""
        if not self.own.filings:
            return ""
        rows = sum(len(f.rows) for f in self.own.filings)
        return f" ({len(self.own.filings)} of them, {rows} rows, from the Form 13F data sets)"

    def selected(self, listed: int) -> tuple[str, ...]:
        """The progress line of the selection beside the `listed` managers of packs.toml (none without one)."""
        return () if self.selection is None else (selection_line(self.selection, listed, len(self.managers)),)


def selection_line(selection: Selection, listed: int, managers: int) -> str:
    """What the selection adds to the `listed` managers of packs.toml, making `managers`, in one line."""
    added = managers - listed
    also = len(selection.filers) - added
    return f"selected {selection.described()}: {added} manager{'s' * (added != 1)} beside the {listed} listed" + (
        f" ({also} of the selected listed too: their listed settings hold)" if also else ""
    )


def with_selected(listed: Sequence[ManagerConfig], selection: Selection) -> tuple[ManagerConfig, ...]:
    """The managers packs.toml lists, then each selected filer they do not list, by its CIK alone."""
    ciks = {manager.cik for manager in listed}
    return (*listed, *(ManagerConfig("", "", filer.cik) for filer in selection.filers if filer.cik not in ciks))


def read_pack_filings(
    root: Path,
    config: PacksConfig,
    cache: ParseCache | None = None,
    datasets_cache: Path | None = None,
    workers: int = 1,
    as_of: date | None = None,
    witnesses: bool = True,
) -> PackFilings:
    """The managers' filings of the tree at `root`; the sets' witnesses of their CUSIPs too unless `witnesses` is
    False, point in time at `as_of`, else packs.toml's, else the latest filing date. With `largest`, the managers
    are those listed and the largest filers of the sets at that point in time: the listed managers' files are read
    while the sets' cache is warmed, the selected others' once the sets have chosen them."""
    listed, has_sets, selects = config.copycat.managers, (root / DATASETS).is_dir(), config.largest is not None
    with _warming(root, datasets_cache, config.limits) as warmed:  # the data sets' cache, while the 13F files parse
        disk = read_copycat_filings(root, listed, cache, config.limits, workers, elsewhere=has_sets, others=not selects)
    with _opened_sets(root, datasets_cache, config.limits, warmed[0] if warmed else None) as sets:
        managers, selection, unselectable = _chosen(sets, config, as_of or config.as_of)
        if selects:
            added = managers[len(listed) :]
            more = read_copycat_filings(root, added, cache, config.limits, workers, elsewhere=True, others=False)
            skipped = unconfigured_folders(root, {m.cik for m in managers})
            disk = joined(disk, more, FilingsRead((), (), tuple(skipped), (), ()))
        own = _own_filings(root, sets, managers, disk)
        found = tuple(sorted((*disk.filings, *own.filings), key=_filing_order))
        absent = absent_managers(managers, folders_of(root), {f.cik for f in found}, datasets=True) if has_sets else []
        point = as_of or config.as_of or max((filing.filed for filing in found), default=None)
        cusips = frozenset(row.cusip for f in found for row in f.rows) if witnesses else frozenset()
        datasets = _witnesses(sets, cusips, point, warmed[0] if warmed else None)
    problems = (*unselectable, *disk.problems, *own.problems, *absent)
    read = FilingsRead(found, disk.warnings, disk.skipped, problems, disk.files)
    return PackFilings(read, own, datasets, managers, selection)


def _chosen(
    sets: OpenSets | None, config: PacksConfig, as_of: date | None
) -> tuple[tuple[ManagerConfig, ...], Selection | None, tuple[SourceProblem, ...]]:
    """The pack's managers: those listed, then (with `largest`) the largest filers of the sets not listed, each by its
    CIK alone; the selection; what keeps it from being made (a zip that cannot be read is reported as a witness)."""
    listed, largest = config.copycat.managers, config.largest
    if largest is None or (sets is not None and sets.problems):
        return listed, None, ()
    from builder.sources.datasets.largest import largest_filers

    listing = [(opened.file.path, opened.extract.filings) for opened in sets.sets] if sets is not None else []
    medians = {opened.file.path: opened.extract.medians for opened in sets.sets} if sets is not None else {}
    selection = largest_filers(largest.count, listing, lambda _: medians, as_of, largest.versions) if listing else None
    if selection is None:
        where = "holds no holdings report" if listing else f"has no Form 13F data sets in {DATASETS}/"
        return listed, None, (largest.problem(f"selects from the data sets, and the tree {where}: run `ras fetch`"),)
    return with_selected(listed, selection), selection, ()


@contextmanager
def _opened_sets(
    root: Path, cache_dir: Path | None, limits: Limits, warmed: Warmed | None
) -> Iterator[OpenSets | None]:
    """The tree's Form 13F data sets opened (None when it has none); pyarrow is imported only for a tree that has them."""
    if not (root / DATASETS).is_dir():
        yield None
        return
    from builder.sources.datasets.reader import open_sets

    with open_sets(root, cache_dir, limits, warmed) as sets:
        yield sets


def _own_filings(root: Path, sets: OpenSets | None, managers: Sequence[ManagerConfig], disk: FilingsRead) -> OwnRead:
    """The pack managers' filings the data sets hold and no file does."""
    if sets is None or sets.problems:
        return OwnRead((), ())
    from builder.sources.datasets.own import OwnAsk, own_filings

    undated = frozenset((f.cik, f.period) for f in disk.filings if f.accession.startswith("local:"))
    asked = frozenset(m.cik for m in managers if m.source is ManagerSource.DATASETS)  # "filings": its files alone
    ask = OwnAsk(asked, frozenset(f.accession for f in disk.filings), undated)
    return own_filings(sets, ask, root)


def _witnesses(
    sets: OpenSets | None, cusips: frozenset[str], as_of: date | None, warmed: Warmed | None
) -> DatasetsRead:
    """Every filer's holding of the pack's CUSIPs in the data sets, point in time."""
    if sets is None:
        return DatasetsRead(None, (), (), ())
    return sets.witnesses(cusips, as_of, warmed.written if warmed is not None else 0)


def _filing_order(filing: Filing) -> tuple[str, date, date, int, str]:
    return filing.cik, filing.period, filing.filed, filing.amendment_no, filing.accession


@contextmanager
def _warming(root: Path, cache_dir: Path | None, limits: Limits) -> Iterator[list[Warmed]]:
    """The data-set zips hashed (once: the read after the block takes their hashes), and within the block a
    process of its own writing the cache entries they lack (spawned, not forked: pyarrow's threads do not survive a
    fork; and only when an entry is missing). On leaving, wait for it; the list yielded then holds the `Warmed`.
    Its failure only leaves the entries to the read after it, which reports any problem."""
    found: list[Warmed] = []
    if not (root / DATASETS).is_dir():
        yield found
        return
    from builder.sources.datasets.reader import hashed_sets, unwarmed, warm

    sets = hashed_sets(root, limits)
    missing = unwarmed(sets, cache_dir) if cache_dir is not None else []
    process = get_context("spawn").Process(target=warm, args=(missing, os.getpid()), daemon=True) if missing else None
    if process is not None:
        process.start()
    try:
        yield found
    finally:
        if process is not None:
            process.join()
    found.append(Warmed(sets, sum(1 for _, entry in missing if entry.exists())))
