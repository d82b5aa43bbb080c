"""`ras fetch`: the data sets of the window into sec13f-datasets/, then each manager's 13F filings of it that no set
holds into sec13f/<cik>/ (every one of a manager pinned to its filings), resumable, over one session at one pace;
with a summary."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from builder.errors import SourceError
from builder.fetch.archive import download_filing, held_accessions, record_filing_dates, remove_leftovers
from builder.fetch.client import SEC_MAX_RATE, Client, FetchError, open_session
from builder.fetch.datasets.download import FOLDER, SetsResult, fetch_sets
from builder.fetch.datasets.held import accessions_in_sets
from builder.fetch.edgar import Hosts, Listed, list_13f
from builder.fetch.openfigi import Resolved, Unresolved, resolve_cusips
from builder.fetch.splits import Listing, list_splits
from builder.records import ManagerConfig, ManagerSource
from builder.sources.pack_filings import selection_line, with_selected
from builder.sources.packs import Largest

RESOLVER_AGENT = "research-artifact-service (ras securities)"
RESOLVE_MAX_TIME = 3600.0  # seconds: 10,000 CUSIPs keyless is 1,000 requests, 40 windows of a minute
DOWNLOADS_AT_ONCE = 4  # overlaps latency; the pacer still holds every request to the one rate
Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class FetchPlan:
    """What one run fetches: from where, into which tree, for which managers and quarters."""

    source: Path
    managers: tuple[ManagerConfig, ...]
    quarters: tuple[date, ...]  # the window's quarter ends, oldest first
    hosts: Hosts
    user_agent: str
    rate: float
    deadline: float  # seconds for the whole run
    timeout: float  # seconds for one response
    largest: Largest | None = None  # packs.toml's `largest`: its filers are chosen once the sets are here
    as_of: date | None = None  # packs.toml's point in time, at which the selection is made


@dataclass(slots=True)
class ManagerResult:
    """One manager's part of the summary."""

    manager: ManagerConfig
    listed: tuple[Listed, ...] = ()
    new: list[str] = field(default_factory=list)  # accessions written this run
    in_sets: int = 0  # holdings reports of the window that a data set holds and no file does: not downloaded
    failed: list[str] = field(default_factory=list)  # one line per accession that could not be fetched
    leftovers: list[str] = field(default_factory=list)  # temporary files of a killed run, removed


@dataclass(frozen=True, slots=True)
class FetchResult:
    managers: tuple[ManagerResult, ...]
    requests: int
    retries: int
    sets: SetsResult | None = None  # None: the run fetched no data set


def fetch_all(
    plan: FetchPlan, progress: Progress, report: Progress, *, sets: bool = True, filings: bool = True
) -> FetchResult:
    """Run the whole fetch: the data sets (`sets`), then the filings (`filings`); `progress` hears how the downloads
    move, `report` what became of each set. Network failures of single filings are collected, not raised."""
    return asyncio.run(_fetch_all(plan, progress, report, sets, filings))


async def _fetch_all(plan: FetchPlan, progress: Progress, report: Progress, sets: bool, filings: bool) -> FetchResult:
    async with open_session(plan.user_agent) as session:
        client = Client(session, plan.rate, plan.deadline, plan.timeout)  # one pace for sets and filings together
        found = await fetch_sets(client, plan.source, plan.quarters, plan.hosts, progress, report) if sets else None
        managers = plan.managers
        if plan.largest is not None and filings:  # chosen from the sets of the tree, whichever run brought them
            managers = await asyncio.to_thread(selected_managers, plan, report)
        covered: frozenset[str] = frozenset()
        if sets and filings:  # the data sets of the tree, whichever run brought them
            ciks = [manager.cik for manager in managers]
            covered = await asyncio.to_thread(accessions_in_sets, plan.source / FOLDER, ciks)
        results = []
        for manager in managers if filings else ():
            results.append(await _fetch_manager(client, plan, manager, covered, progress))
        return FetchResult(tuple(results), client.requests, client.retries, found)


def selected_managers(plan: FetchPlan, report: Progress) -> tuple[ManagerConfig, ...]:
    """The managers packs.toml lists and the largest filers of the tree's data sets (as a publish of the tree would
    choose them), said in one line; SourceError when the tree has no set to choose from."""
    from builder.sources.datasets.largest import in_zips  # pyarrow, imported only for a pack that selects

    assert plan.largest is not None, "only a plan with `largest` selects"
    report(f"choosing the filers of largest = {plan.largest.count} from the data sets in {FOLDER}/ …")
    selection = in_zips(plan.source, plan.largest.count, plan.as_of, plan.largest.versions)
    if selection is None:
        fix = "run `ras fetch` without --no-datasets, or again once the SEC lists a set for the window"
        raise SourceError(
            [plan.largest.problem(f"selects from the Form 13F data sets, and {FOLDER}/ holds none: {fix}")]
        )
    managers = with_selected(plan.managers, selection)
    report(selection_line(selection, len(plan.managers), len(managers)))
    return managers


async def _fetch_manager(
    client: Client, plan: FetchPlan, manager: ManagerConfig, covered: frozenset[str], progress: Progress
) -> ManagerResult:
    """The manager's listing and filing dates, then its holdings reports that neither a file nor a data set holds
    (`covered`; a manager pinned to its filings takes none from the sets)."""
    folder = plan.source / "sec13f" / manager.cik
    result = ManagerResult(manager, leftovers=remove_leftovers(folder))
    result.listed = await list_13f(client, plan.hosts, manager.cik, plan.quarters[0])
    await asyncio.to_thread(record_filing_dates, folder, result.listed)  # EDGAR's filing dates, beside the filings
    held = held_accessions(folder)
    in_sets = frozenset() if manager.source is ManagerSource.FILINGS else covered
    missing = [f for f in result.listed if f.holdings and f.accession not in held]
    wanted = [f for f in missing if f.accession not in in_sets]
    result.in_sets = len(missing) - len(wanted)
    done = 0
    progress(_bar(manager, done, len(wanted)))
    gate = asyncio.Semaphore(DOWNLOADS_AT_ONCE)

    async def one(filing: Listed) -> None:
        nonlocal done
        async with gate:
            try:
                await download_filing(client, plan.hosts, manager.cik, filing, folder)
                result.new.append(filing.accession)
            except FetchError as exc:
                result.failed.append(f"{filing.accession} ({named(manager)}): {exc.message}")
        done += 1
        progress(_bar(manager, done, len(wanted)))

    await asyncio.gather(*(one(filing) for filing in wanted))
    return result


def fetch_splits(base: str, api_key: str, rate: float, after: date, through: date, root: Path) -> tuple[Listing, int]:
    """Massive's splits executed in (after, through] and the number of requests it took."""
    return asyncio.run(_fetch_splits(base, api_key, rate, after, through, root))


async def _fetch_splits(
    base: str, api_key: str, rate: float, after: date, through: date, root: Path
) -> tuple[Listing, int]:
    async with open_session(RESOLVER_AGENT) as session:
        client = Client(session, rate, RESOLVE_MAX_TIME)
        return await list_splits(client, base, api_key, after, through, root), client.requests


def resolve_all(base: str, cusips: list[str], api_key: str | None) -> tuple[list[Resolved | Unresolved], int]:
    """OpenFIGI's answer for every CUSIP and the number of requests it took."""
    return asyncio.run(_resolve_all(base, cusips, api_key))


async def _resolve_all(base: str, cusips: list[str], api_key: str | None) -> tuple[list[Resolved | Unresolved], int]:
    async with open_session(RESOLVER_AGENT) as session:
        client = Client(session, SEC_MAX_RATE, RESOLVE_MAX_TIME)  # OpenFIGI's own headers set the pace
        answers = await resolve_cusips(client, base, cusips, api_key)
        return answers, client.requests


BAR_WIDTH = 20


def _bar(manager: ManagerConfig, done: int, total: int) -> str:
    filled = BAR_WIDTH * done // total if total else BAR_WIDTH
    return f"{named(manager):<16} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total} new filings"


def named(manager: ManagerConfig) -> str:
    """The manager as the fetch names it: its id, or its CIK when packs.toml gives only that (the id is then made
    from its filings when a publish reads them)."""
    return manager.id or f"CIK {manager.cik}"
