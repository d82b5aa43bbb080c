"""The end-of-run summary of `ras fetch`: per manager what was found, written, and what is still missing."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

from builder.fetch.run import FetchResult, ManagerResult, named
from builder.fetch.window import deadline
from builder.records import ManagerSource


def summary_lines(result: FetchResult, quarters: tuple[date, ...], today: date) -> Iterator[str]:
    """Readable lines, one block per manager, then the request count."""
    for manager in result.managers:
        yield from _manager_lines(manager, quarters, today)
    yield f"{result.requests} requests ({result.retries} retries)"


def _manager_lines(result: ManagerResult, quarters: tuple[date, ...], today: date) -> Iterator[str]:
    holdings = [f for f in result.listed if f.holdings]
    notices = [f for f in result.listed if not f.holdings]
    amendments = [f for f in holdings if f.form.endswith("/A")]
    found = sorted({f.period for f in holdings if f.period is not None})
    in_sets = f", {result.in_sets} in the data sets" if result.in_sets else ""
    manager = result.manager
    pinned = '; source = "filings": each filing from EDGAR' if manager.source is ManagerSource.FILINGS else ""
    who = f"{manager.id} (CIK {manager.cik})" if manager.id else named(manager)
    yield (
        f"{who}: {len(found)} quarters found ({_span(found)}), "
        f"{len(result.new)} new files{in_sets}, {len(amendments)} amendments, {len(notices)} notices{pinned}"
    )
    for notice in notices:
        yield f"  {notice.form} {notice.accession} for {notice.period or notice.filed}: listed, not downloaded"
    for quarter in quarters:
        if quarter not in found:
            yield f"  {quarter}: no 13F-HR yet; {_due(deadline(quarter), today)}"
    for name in result.leftovers:
        yield f"  removed {name}, left by an interrupted fetch"
    for line in result.failed:
        yield f"  not fetched: {line}"


def _span(found: list[date]) -> str:
    return f"{found[0]} … {found[-1]}" if found else "none"


def _due(due: date, today: date) -> str:
    return f"late: it was due {due}" if due < today else f"not due until {due}"
