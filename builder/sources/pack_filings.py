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

from builder.records import Filing, ManagerConfig, ManagerSource
from builder.sources.datasets.read import DatasetsRead, OwnRead, Warmed
from builder.sources.files import DATASETS, Limits
from builder.sources.packs import PacksConfig
from builder.sources.sec13f.cache import ParseCache
from builder.sources.sec13f.filings import FilingsRead, absent_managers, folders_of, read_copycat_filings

if TYPE_CHECKING:
    from builder.sources.datasets.reader import OpenSets


@dataclass(frozen=True, slots=True)
class PackFilings:
    """Every filing of the pack's managers (`read`: sorted, with every problem of the files, the sets and of a
    manager with none), the part the sets gave, and the sets' witnesses (as of the point in time asked)."""

    read: FilingsRead
    own: OwnRead
    datasets: DatasetsRead

    def from_sets(self) -> str:
        """The progress line's note of the filings the sets gave ("" when none)."""
        if not self.own.filings:
            return ""
        rows = sum(len(f.rows) for f in self.own.filings)
        return f" ({len(self.own.filings)} of them, {rows} rows, from the Form 13F data sets)"


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
    False, point in time at `as_of`, else packs.toml's, else the latest filing date."""
    managers, has_sets = config.copycat.managers, (root / DATASETS).is_dir()
    with _warming(root, datasets_cache, config.limits) as warmed:  # the data sets' cache, while the 13F files parse
        disk = read_copycat_filings(root, managers, cache, config.limits, workers, elsewhere=has_sets)
    with _opened_sets(root, datasets_cache, config.limits, warmed[0] if warmed else None) as sets:
        own = _own_filings(root, sets, managers, disk)
        found = tuple(sorted((*disk.filings, *own.filings), key=_filing_order))
        absent = absent_managers(managers, folders_of(root), {f.cik for f in found}, datasets=True) if has_sets else []
        point = as_of or config.as_of or max((filing.filed for filing in found), default=None)
        cusips = frozenset(row.cusip for f in found for row in f.rows) if witnesses else frozenset()
        datasets = _witnesses(sets, cusips, point, warmed[0] if warmed else None)
    problems = (*disk.problems, *own.problems, *absent)
    return PackFilings(FilingsRead(found, disk.warnings, disk.skipped, problems, disk.files), own, datasets)


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
