"""Which source tree a build reads, and reading it whole (packs.toml, securities.csv, sec13f/, previews) into
validated records.

The source is never a surprise: `--source DIR` is that tree; without it, a current folder holding packs.toml
is the source. The embedded fictional fixture is built only when asked for by name (`--fixture`) or when the
current folder holds no source at all; a folder holding filings or a securities map without packs.toml is an
error, never a reason to fall back to invented data. The command's first line names the tree it chose.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date
from importlib import resources
from pathlib import Path

from builder.errors import PublishError, SourceError, escaped
from builder.records import Filing, ScopeWarning, SourceFile, SourceProblem, Sources, Witnesses
from builder.sources.files import tree_problems
from builder.sources.identity import link_by_figi, linked_tickers
from builder.sources.named import named_managers
from builder.sources.pack_filings import read_pack_filings
from builder.sources.packs import read_packs_config
from builder.sources.previews import read_previews
from builder.sources.provenance import source_file
from builder.sources.sec13f.cache import ParseCache
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
    with collector_paused():
        pack = read_pack_filings(root, config, cache, datasets_cache, workers, as_of)
    previews = read_previews(root, config.sections, config.limits.file)
    filings, datasets = pack.read, pack.datasets
    problems = (*security_problems, *action_problems, *filings.problems, *previews.problems, *datasets.problems)
    if problems:
        raise SourceError(problems)
    as_of = as_of or config.as_of or max(filing.filed for filing in filings.filings)
    known, later = _filed_by(filings.filings, as_of)
    mapped, securities = securities, link_by_figi(securities, known)
    copycat = replace(config.copycat, managers=named_managers(pack.managers, filings.filings))
    sources = Sources(
        fixture=config.fixture,
        as_of=as_of,
        copycat=copycat,
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
        selection=pack.selection,
    )
    reports = (
        f"read {len(filings.filings)} filings ({sum(len(f.rows) for f in filings.filings)} rows) "
        f"of {len(copycat.managers)} managers{pack.from_sets()}, {len(securities)} securities, "
        f"{len(actions)} corporate-action legs",
        *pack.selected(len(config.copycat.managers)),
        *([cache.report()] if cache is not None else []),
        *linked_tickers(mapped, securities),
        *(f"skipped {entry.source}: {entry.message}" for entry in filings.skipped),
        *_later_report(later, as_of),
        *previews.reports,
        *datasets.reports,
        *_evidence_report(datasets.witnesses, known, len(copycat.managers)),
    )
    return sources, reports


def _evidence_report(witnesses: Witnesses | None, filings: tuple[Filing, ...], managers: int) -> tuple[str, ...]:
    """What evidence of corporate actions the publish lacks, and what that costs, in one line (none when the data
    sets cover every quarter end the filings report)."""
    ends = sorted({filing.period for filing in filings})
    bare = [end for end in ends if witnesses is None or end not in witnesses.quarters]
    if not bare:
        return ()
    which = (
        "no Form 13F data sets in sec13f-datasets/"
        if witnesses is None
        else (f"the Form 13F data sets cover {len(ends) - len(bare)} of the {len(ends)} quarter ends filed")
    )
    return (
        f"evidence: {which}; for {bare[0]} … {bare[-1]} the pack's own {managers} book(s) are the only witnesses of "
        "corporate actions, so a change they cannot decide is published as undecided, never as bought or sold "
        "(`ras fetch` brings every filer's books: the SEC's data sets, about 100 MB a quarter)",
    )


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
