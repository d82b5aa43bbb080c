"""The `ras fetch` and `ras securities` commands: options, the User-Agent rule, and the printed summary."""

from __future__ import annotations

import os
import re
from datetime import date, datetime
from pathlib import Path

import click

from builder.errors import SourceError
from builder.fetch.client import REQUEST_TIMEOUT, SEC_MAX_RATE, FetchError
from builder.fetch.datasets.download import FOLDER as DATASETS_FOLDER
from builder.fetch.datasets.download import SetsResult
from builder.fetch.edgar import Hosts
from builder.fetch.mapping import RECHECK_AFTER, append_resolved, held_cusips, record_unresolved, wanted_cusips
from builder.fetch.openfigi import OPENFIGI_URL, Resolved, Unresolved
from builder.fetch.run import FetchPlan, fetch_all, fetch_splits, resolve_all
from builder.fetch.splits import MASSIVE_RATE, MASSIVE_URL, append_rows, split_rows
from builder.fetch.summary import summary_lines
from builder.fetch.window import deadline, previous_quarter_end, window_quarters
from builder.sources.packs import PacksConfig, read_packs_config
from builder.sources.tables.securities import read_securities

# seconds: a first fetch of 9 quarters is 9 data sets (~900 MB, one per three months of filings) and, for 10 managers,
# ~100 filings: minutes on a common line. An hour is a hang, and a re-run resumes where it stopped.
DEFAULT_MAX_TIME = 3600.0
# SEC fair access asks for a User-Agent declaring who you are and how to reach you: we require an e-mail in it.
_CONTACT = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
USER_AGENT_HELP = (
    'SEC EDGAR requires a User-Agent naming you and a contact e-mail: pass --user-agent "Your Name you@example.com", '
    'set RAS_SEC_USER_AGENT, or add user_agent = "…" under [source] in packs.toml'
)

SOURCE_DIR = click.option(
    "--source",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Source tree to fill (packs.toml at its root).",
)


def read_config(source: Path) -> PacksConfig:
    config, problems = read_packs_config(source / "packs.toml", source)
    if config is None:
        raise SourceError(problems)
    return config


def user_agent_of(given: str | None, config: PacksConfig) -> str:
    """The declared User-Agent: option, then environment, then packs.toml; refused without a contact."""
    source_table = config.sections.get("source", {})
    agent = given or os.environ.get("RAS_SEC_USER_AGENT") or source_table.get("user_agent")
    if not isinstance(agent, str) or not _CONTACT.search(agent):
        raise FetchError(USER_AGENT_HELP)
    return agent.strip()


@click.command("fetch")
@SOURCE_DIR
@click.option(
    "--since",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Fetch quarters ending on or after this date. Default: the pack's versions + 1.",
)
@click.option(
    "--edgar-url",
    envvar="RAS_EDGAR_URL",
    default=None,
    help="Send every request to this base URL (a mirror or a test stand-in). Default: the SEC's hosts.",
)
@click.option("--user-agent", default=None, help="Who you are and a contact e-mail (SEC fair access).")
@click.option(
    "--datasets",
    "only_datasets",
    is_flag=True,
    help=f"Only the Form 13F data sets into {DATASETS_FOLDER}/: no EDGAR listing, no filing, no split.",
)
@click.option(
    "--no-datasets",
    is_flag=True,
    help="No data sets: every filing of each manager from EDGAR, one by one (and the splits). A publish then has only "
    "the pack's own books as evidence of corporate actions.",
)
@click.option(
    "--rate",
    type=click.FloatRange(0.1, SEC_MAX_RATE),
    default=SEC_MAX_RATE,
    show_default=True,
    help="Requests per second, over the whole run.",
)
@click.option(
    "--max-time",
    type=click.FloatRange(1),
    default=DEFAULT_MAX_TIME,
    show_default=True,
    help="Seconds the whole fetch may take.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(0.1),
    default=REQUEST_TIMEOUT,
    show_default=True,
    help="Seconds one response may take before it is asked for again (a data set's: may go without a byte).",
)
@click.option(
    "--massive-url",
    envvar="RAS_MASSIVE_URL",
    default=MASSIVE_URL,
    show_default=True,
    help="Base URL of Massive's API, for split records (a mirror or a test stand-in replaces it).",
)
@click.option(
    "--massive-rate",
    type=click.FloatRange(0.01),
    default=MASSIVE_RATE,
    show_default=True,
    help="Requests per second to Massive (the free plan allows 5 a minute; a paid plan more).",
)
def fetch_command(
    source: Path,
    since: datetime | None,
    edgar_url: str | None,
    user_agent: str | None,
    only_datasets: bool,
    no_datasets: bool,
    rate: float,
    max_time: float,
    timeout: float,
    massive_url: str,
    massive_rate: float,
) -> None:
    """Download what the pack's window needs from the SEC: the Form 13F data sets whose filing windows hold the
    window's quarters into sec13f-datasets/ (every filer's 13F tables, about 95 MB a set), then from EDGAR into
    sec13f/<cik>/ each manager's 13F-HR and 13F-HR/A filings of the window that no set holds (the newest, before the
    SEC posts their set; every one of a manager with source = "filings"), then the splits of the held securities
    into corporate_actions.csv (with MASSIVE_API_KEY set). Re-run it to resume or refresh: it fetches only what is
    missing."""
    if only_datasets and no_datasets:
        raise click.UsageError("--datasets (only the data sets) and --no-datasets (none) exclude each other")
    config = read_config(source)
    agent = user_agent_of(user_agent, config)
    today = date.today()
    quarters = window_quarters(today, config.copycat.versions, since.date() if since else None)
    hosts = Hosts.one(edgar_url) if edgar_url else Hosts()
    if config.largest is not None and no_datasets and not any((source / DATASETS_FOLDER).glob("*.zip")):
        fix = "run `ras fetch` without --no-datasets: it brings the sets first"
        raise SourceError(
            [config.largest.problem(f"selects from the Form 13F data sets, which --no-datasets skips: {fix}")]
        )
    managers = config.copycat.managers
    plan = FetchPlan(source, managers, quarters, hosts, agent, rate, max_time, timeout, config.largest, config.as_of)
    result = fetch_all(plan, _progress, click.echo, sets=not no_datasets, filings=not only_datasets)
    if result.sets is not None:
        datasets_summary(result.sets, quarters)
    if only_datasets:
        return
    for line in summary_lines(result, quarters, today):
        click.echo(line)
    failed = [line for manager in result.managers for line in manager.failed]
    if failed:
        raise FetchError(f"{len(failed)} filings not fetched (listed above); run `ras fetch` again to retry them")
    for line in splits_step(source, config, massive_url, massive_rate, previous_quarter_end(quarters[0]), today):
        click.echo(line)


def _progress(line: str) -> None:
    """How the downloads move, on stderr: the summary on stdout stays what a script reads."""
    click.echo(line, err=True)


def datasets_summary(result: SetsResult, quarters: tuple[date, ...]) -> None:
    """Say what the data sets of the window are here and which quarters the SEC has published no set for yet."""
    if len(result.uncovered) == 1:
        end = result.uncovered[0]
        click.echo(
            f"  {end}: no listed data set holds its filings yet (due {deadline(end)}); run again once the SEC posts it"
        )
    elif result.uncovered:
        first, last = result.uncovered[0], result.uncovered[-1]
        click.echo(
            f"  {first} … {last} ({len(result.uncovered)} quarters): no listed data set holds their filings yet; "
            "run again once the SEC posts them"
        )
    kept, requests = len(result.chosen) - len(result.fetched), result.requests
    received = f" ({result.received:,} bytes in {result.seconds:.1f} s)" if result.fetched else ""
    click.echo(
        f"{len(result.chosen)} data sets for {quarters[0]} … {quarters[-1]} in {DATASETS_FOLDER}/: "
        f"{len(result.fetched)} fetched{received}, {kept} already here ({requests} request{'' if requests == 1 else 's'})"
    )


def splits_step(source: Path, config: PacksConfig, base: str, rate: float, after: date, through: date) -> list[str]:
    """Fill corporate_actions.csv with the window's splits of held securities; the lines to print."""
    api_key = os.environ.get("MASSIVE_API_KEY")
    if not api_key:
        return [
            "splits: MASSIVE_API_KEY is not set, none fetched; write corporate_actions.csv by hand "
            "(`ras review` lists the changes that look like corporate actions, each with a line to paste)"
        ]
    securities, problems = read_securities(source / "securities.csv", source)
    if problems:
        return [
            f"splits: not matched to CUSIPs, securities.csv cannot be read ({problems[0]}); run `ras securities`, "
            "then `ras fetch` again"
        ]
    held = held_cusips(source, config)
    listing, requests = fetch_splits(base, api_key, rate, after, through, source)
    rows = split_rows(listing.splits, securities, held)
    added = append_rows(source, rows)
    left_out = f", {listing.left_out} stock dividends or other adjustments left out" if listing.left_out else ""
    return [
        f"splits: {len(listing.splits)} executed {after} … {through} ({requests} requests to Massive{left_out}), "
        f"{len(rows)} of held securities, {added} new in corporate_actions.csv"
    ]


@click.command("securities")
@SOURCE_DIR
@click.option(
    "--openfigi-url",
    envvar="RAS_OPENFIGI_URL",
    default=OPENFIGI_URL,
    show_default=True,
    help="Base URL of the OpenFIGI API (a test stand-in replaces it).",
)
def securities_command(source: Path, openfigi_url: str) -> None:
    """Map the filings' CUSIPs that securities.csv lacks with OpenFIGI (OPENFIGI_API_KEY: larger batches, faster)."""
    config = read_config(source)
    today = date.today()
    asked, skipped = wanted_cusips(source, config, today)
    if skipped:
        click.echo(
            f"{len(skipped)} CUSIPs OpenFIGI did not know in the last {RECHECK_AFTER.days} days: not asked again"
        )
    if not asked:
        click.echo("securities.csv maps every CUSIP of the filings that OpenFIGI can")
        return
    answers, requests = resolve_all(openfigi_url, asked, os.environ.get("OPENFIGI_API_KEY") or None)
    resolved = [a for a in answers if isinstance(a, Resolved)]
    unresolved = [a for a in answers if isinstance(a, Unresolved)]
    append_resolved(source, resolved)
    record_unresolved(source, unresolved, today)
    click.echo(f"resolved {len(resolved)} of {len(asked)} CUSIPs in {requests} requests; added to securities.csv")
    for item in unresolved:
        click.echo(f"  unresolved {item.cusip}: {item.reason} (stays unmapped-cusip; add it to securities.csv by hand)")
