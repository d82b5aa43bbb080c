"""Which source tree a build reads, and reading it whole (packs.toml, securities.csv, sec13f/, previews) into
validated records.

The source is never a surprise: `--source DIR` is that tree; without it, a current folder holding packs.toml
is the source. The embedded fictional fixture is built only when asked for by name (`--fixture`) or when the
current folder holds no source at all; a folder holding filings or a securities map without packs.toml is an
error, never a reason to fall back to invented data. The command's first line names the tree it chose.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from importlib import resources
from multiprocessing import get_context
from pathlib import Path

from builder.errors import PublishError, SourceError, escaped
from builder.records import Filing, ScopeWarning, SourceFile, SourceProblem, Sources
from builder.sources.datasets.read import DatasetsRead, Warmed
from builder.sources.files import DATASETS, Limits, tree_problems
from builder.sources.identity import link_by_figi, linked_tickers
from builder.sources.packs import read_packs_config
from builder.sources.previews import read_previews
from builder.sources.provenance import source_file
from builder.sources.sec13f.cache import ParseCache
from builder.sources.sec13f.filings import read_copycat_filings
from builder.sources.tables.corporate_actions import FILE_NAME as CORPORATE_ACTIONS
from builder.sources.tables.corporate_actions import read_corporate_actions
from builder.sources.tables.securities import read_securities

SOURCE_SIGNS = ("sec13f", "securities.csv", CORPORATE_ACTIONS)  # what only an operator's source tree holds


def fixture_source() -> Path:
    """The embedded fictional source tree shipped inside the package."""
    return Path(str(resources.files("builder") / "fixture" / "source"))


@dataclass(frozen=True, slots=True)
class ChosenSource:
    path: Path
    description: str  # the first line of the command's output: which tree, and why that one


def resolve_source(source: Path | None, fixture: bool, here: Path) -> ChosenSource:
    """The tree to build from `--source`, `--fixture` and the current folder `here`; PublishError when unclear."""
    if source is not None and fixture:
        raise PublishError("--source and --fixture name two source trees: give one")
    if source is not None:
        return ChosenSource(source, f"{escaped(source.resolve())} (--source)")
    if fixture:
        return ChosenSource(fixture_source(), "the embedded fictional fixture (--fixture)")
    if (here / "packs.toml").is_file():
        return ChosenSource(here, f"{escaped(here.resolve())} (packs.toml in the current folder)")
    signs = [name for name in SOURCE_SIGNS if (here / name).exists()]
    if signs:
        raise PublishError(
            f"{escaped(here.resolve())}: holds {' and '.join(signs)} but no packs.toml — add packs.toml to publish this "
            f"folder, or give --source DIR (or --fixture for the fictional demo data)"
        )
    return ChosenSource(
        fixture_source(),
        f"the embedded fictional fixture (no packs.toml in {escaped(here.resolve())}; --source DIR builds real filings)",
    )


def read_sources(
    root: Path,
    as_of: date | None = None,
    cache: ParseCache | None = None,
    datasets_cache: Path | None = None,
    workers: int = 1,
) -> tuple[Sources, tuple[str, ...]]:
    """Every record of the tree, or SourceError listing every fatal problem; also one report line per reader.

    13F files are parsed through `cache` when one is given (see builder.sources.sec13f.cache), on `workers`
    processes (the same records on any number), the Form 13F data sets through `datasets_cache` (see
    builder.sources.datasets.cache).
    """
    root = root.resolve()
    if not root.is_dir():
        raise SourceError([SourceProblem(str(root), "source directory does not exist")])
    config, problems = read_packs_config(root / "packs.toml", root)
    if config is None:
        raise SourceError(problems)
    edges = tree_problems(root, config.limits)  # names, links and sizes, for every kind of file at once
    if edges:
        raise SourceError(edges)
    securities, security_problems = read_securities(root / "securities.csv", root, config.limits.file)
    actions, action_problems = read_corporate_actions(root, config.limits.file)
    with _warming(root, datasets_cache, config.limits) as warmed:  # the data sets' cache, while the 13F files parse
        with collector_paused():
            filings = read_copycat_filings(root, config.copycat.managers, cache, config.limits, workers)
        previews = read_previews(root, config.sections, config.limits.file)
    latest = max((filing.filed for filing in filings.filings), default=None)
    point = as_of or config.as_of or latest
    datasets = _read_datasets(
        root, filings.filings, datasets_cache, config.limits, point, warmed[0] if warmed else None
    )
    problems = (*security_problems, *action_problems, *filings.problems, *previews.problems, *datasets.problems)
    if problems:
        raise SourceError(problems)
    as_of = as_of or config.as_of or max(filing.filed for filing in filings.filings)
    known, later = _filed_by(filings.filings, as_of)
    mapped, securities = securities, link_by_figi(securities, known)
    sources = Sources(
        fixture=config.fixture,
        as_of=as_of,
        copycat=config.copycat,
        securities=securities,
        filings=known,
        files=tuple(
            sorted(
                (*_files_of(filings.files, later), *previews.files, *datasets.files, *_config_files(root)),
                key=lambda f: f.path,
            )
        ),
        warnings=(*(w for filing in known for w in filing.warnings), *_fixture_warning(config.fixture)),
        skipped=filings.skipped,
        previews=dict(previews.sources),
        corporate_actions=actions,
        witnesses=datasets.witnesses,
    )
    reports = (
        f"read {len(filings.filings)} filings ({sum(len(f.rows) for f in filings.filings)} rows) "
        f"of {len(config.copycat.managers)} managers, {len(securities)} securities, {len(actions)} corporate-action legs",
        *([cache.report()] if cache is not None else []),
        *linked_tickers(mapped, securities),
        *(f"skipped {entry.source}: {entry.message}" for entry in filings.skipped),
        *_later_report(later, as_of),
        *previews.reports,
        *datasets.reports,
    )
    return sources, reports


def _read_datasets(
    root: Path,
    filings: tuple[Filing, ...],
    cache_dir: Path | None,
    limits: Limits,
    as_of: date | None,
    warmed: Warmed | None,
) -> DatasetsRead:
    """The Form 13F data sets' witnesses of every CUSIP in the pack's filings, point in time; pyarrow is imported
    only for a tree that has them."""
    if not (root / DATASETS).is_dir():
        return DatasetsRead(None, (), (), ())
    from builder.sources.datasets.reader import read_witnesses

    cusips = frozenset(row.cusip for f in filings for row in f.rows)
    return read_witnesses(root, cusips, cache_dir, limits, as_of, warmed)


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


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic garbage collection while the filings are parsed (and, in a publish, while the artifacts are
    built). Their records are acyclic (frozen dataclasses, tuples, element trees without parent links, JSON
    dicts), so the collector's passes over the growing heap find nothing: at 100 managers they were a quarter
    of the read, and at 500 they doubled the loading of the artifacts a new quarter takes from the promoted
    release. A cycle made meanwhile waits for the next pass once collection is back on (the state it was in:
    a caller may have paused it too)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _filed_by(filings: tuple[Filing, ...], as_of: date) -> tuple[tuple[Filing, ...], tuple[Filing, ...]]:
    """Point in time: the filings filed on or before `as_of`, and those filed after it (left out entirely)."""
    known = tuple(f for f in filings if f.filed <= as_of)
    if not known:
        first = min(f.filed for f in filings)
        raise SourceError(
            [SourceProblem("sec13f", f"no filing was filed by the as-of date {as_of} (the first was filed {first})")]
        )
    return known, tuple(f for f in filings if f.filed > as_of)


def _files_of(files: tuple[SourceFile, ...], later: tuple[Filing, ...]) -> tuple[SourceFile, ...]:
    """Provenance without the files of filings made after the as-of date: a release does not see them."""
    unseen = {path for filing in later for path in filing.source.split(" + ")}
    return tuple(f for f in files if f.path not in unseen)


def _later_report(later: tuple[Filing, ...], as_of: date) -> tuple[str, ...]:
    if not later:
        return ()
    return (f"left out {len(later)} filings filed after the as-of date {as_of} (point in time)",)


def _config_files(root: Path) -> tuple[SourceFile, ...]:
    names = ("packs.toml", "securities.csv", *((CORPORATE_ACTIONS,) if (root / CORPORATE_ACTIONS).exists() else ()))
    return tuple(source_file(root / name, root) for name in names)


def _fixture_warning(fixture: bool) -> tuple[ScopeWarning, ...]:
    if not fixture:
        return ()
    return (
        ScopeWarning(
            "fixture-data", "fictional fixture data: invented managers and holdings, not investment data", "packs.toml"
        ),
    )
