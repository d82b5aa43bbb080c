"""Read a whole source tree (packs.toml, securities.csv, sec13f/, previews) into validated records."""

from __future__ import annotations

from datetime import date
from importlib import resources
from pathlib import Path

from builder.errors import SourceError
from builder.records import ScopeWarning, SourceFile, SourceProblem, Sources
from builder.sources.identity import link_by_figi, linked_tickers
from builder.sources.packs import read_packs_config
from builder.sources.previews import read_previews
from builder.sources.provenance import source_file
from builder.sources.sec13f.filings import read_copycat_filings
from builder.sources.securities import read_securities


def fixture_source() -> Path:
    """The embedded fictional source tree shipped inside the package."""
    return Path(str(resources.files("builder") / "fixture" / "source"))


def read_sources(root: Path, as_of: date | None = None) -> tuple[Sources, tuple[str, ...]]:
    """Every record of the tree, or SourceError listing every fatal problem; also one report line per reader."""
    root = root.resolve()
    if not root.is_dir():
        raise SourceError([SourceProblem(str(root), "source directory does not exist")])
    config, problems = read_packs_config(root / "packs.toml", root)
    if config is None:
        raise SourceError(problems)
    securities, security_problems = read_securities(root / "securities.csv", root)
    filings = read_copycat_filings(root, config.copycat.managers)
    previews = read_previews(root, config.sections)
    problems = (*security_problems, *filings.problems, *previews.problems)
    if problems:
        raise SourceError(problems)
    newest_filing = max(filing.filed for filing in filings.filings)
    mapped, securities = securities, link_by_figi(securities, filings.filings)
    sources = Sources(
        fixture=config.fixture,
        as_of=as_of or config.as_of or newest_filing,
        copycat=config.copycat,
        securities=securities,
        filings=filings.filings,
        files=tuple(sorted((*filings.files, *previews.files, *_config_files(root)), key=lambda f: f.path)),
        warnings=(*filings.warnings, *_fixture_warning(config.fixture)),
        skipped=filings.skipped,
        previews=dict(previews.sources),
    )
    reports = (
        f"read {len(filings.filings)} filings ({sum(len(f.rows) for f in filings.filings)} rows) "
        f"of {len(config.copycat.managers)} managers, {len(securities)} securities",
        *linked_tickers(mapped, securities),
        *(f"skipped {entry.source}: {entry.message}" for entry in filings.skipped),
        *previews.reports,
    )
    return sources, reports


def _config_files(root: Path) -> tuple[SourceFile, ...]:
    return tuple(source_file(root / name, root) for name in ("packs.toml", "securities.csv"))


def _fixture_warning(fixture: bool) -> tuple[ScopeWarning, ...]:
    if not fixture:
        return ()
    return (ScopeWarning("fixture-data", "fictional fixture data: invented managers and holdings, not investment data", "packs.toml"),)
