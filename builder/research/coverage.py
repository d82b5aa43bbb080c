"""Coverage of the 13f-copycat pack: which quarters each manager filed (and what may be published), and how
much of the books' value has a ticker (unmapped CUSIPs).

The window runs back from the newest quarter that is due at the as-of date (its filing deadline passed)
or that some manager already filed, until it holds `versions` quarters. Every manager must have filed every
quarter of it: a missing quarter is never dropped in silence, because a gap turns the next quarter's changes
into `unknown` and a manager that stopped filing shrinks the pack. A quarter packs.toml lets the managers
that lack it miss (`allow_missing`) is passed over: not published, not counted, the window reaches one
quarter further back. The versions published are the window's quarters every manager filed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from builder.records import ManagerConfig, SourceProblem, Sources
from builder.research.quarters import filing_deadline, is_quarter_end, previous_quarter
from builder.research.schema import PackArtifact

# 17 CFR 240.0-3: a deadline on a weekend or holiday moves to the next business day; three days covers a
# Saturday deadline before a Monday holiday, so a quarter is due only once that can no longer happen.
DEADLINE_GRACE_DAYS = 3


@dataclass(frozen=True, slots=True)
class ManagerCoverage:
    manager: ManagerConfig
    filed: tuple[date, ...]  # quarters of the window the manager filed, oldest first
    missing: tuple[date, ...]  # quarters of the window it did not file and may not miss
    allowed: tuple[date, ...]  # quarters of the window it did not file and may miss (allow_missing)


@dataclass(frozen=True, slots=True)
class Coverage:
    window: tuple[date, ...]  # oldest first, passed-over quarters included
    managers: tuple[ManagerCoverage, ...]
    published: tuple[date, ...]  # the window's quarters every manager filed: the versions
    versions: int  # how many packs.toml asks for

    @property
    def problems(self) -> tuple[SourceProblem, ...]:
        found = [_missing_problem(entry, self.window) for entry in self.managers if entry.missing]
        counted = len(self.published) + len({q for entry in self.managers for q in entry.missing})
        if counted < self.versions:
            found.append(_short_problem(self))
        return tuple(found)


def filed_quarters(sources: Sources) -> dict[str, set[date]]:
    """Quarter ends each manager's CIK filed a holdings report for (amendments included)."""
    quarters: dict[str, set[date]] = {m.cik: set() for m in sources.copycat.managers}
    for filing in sources.filings:
        quarters.setdefault(filing.cik, set()).add(filing.period)
    return quarters


def quarter_coverage(sources: Sources) -> Coverage:
    """The window, each manager's coverage of it and the quarters that can be published."""
    quarters, managers = filed_quarters(sources), sources.copycat.managers
    window = _window(managers, quarters, _newest(sources.as_of, quarters), sources.copycat.versions)
    entries = tuple(_manager_coverage(m, window, quarters[m.cik]) for m in managers)
    published = tuple(q for q in window if all(q in quarters[m.cik] for m in managers))
    return Coverage(window, entries, published, sources.copycat.versions)


def common_problem(sources: Sources) -> SourceProblem | None:
    """One line when the managers have no quarter in common at all (then nothing can be published)."""
    quarters = filed_quarters(sources)
    managers = sources.copycat.managers
    if not managers or set.intersection(*(quarters[m.cik] for m in managers)):
        return None
    spans = ", ".join(f"{m.id} {_span(sorted(quarters[m.cik]))}" for m in managers)
    return SourceProblem("packs.toml", f"the {len(managers)} managers of [copycat] have no quarter in common ({spans})")


def coverage_lines(coverage: Coverage) -> list[str]:
    """One console line per manager: the quarters of the window it has, and what it lacks."""
    lines = [f"window: {len(coverage.window)} quarters {_span(coverage.window)}, {len(coverage.published)} published"]
    for entry in coverage.managers:
        line = f"  {entry.manager.id}: {len(entry.filed)}/{len(coverage.window)} quarters"
        if entry.allowed:
            line += f"; allowed missing {', '.join(q.isoformat() for q in entry.allowed)}"
        if entry.missing:
            line += f"; MISSING {', '.join(q.isoformat() for q in entry.missing)}"
        lines.append(line)
    return lines


def _newest(as_of: date, quarters: dict[str, set[date]]) -> date:
    """The newest quarter due at `as_of`, or a newer one already filed by some manager."""
    due = previous_quarter(_next_quarter_end(as_of))
    while filing_deadline(due) + timedelta(days=DEADLINE_GRACE_DAYS) >= as_of:
        due = previous_quarter(due)
    filed = [q for periods in quarters.values() for q in periods]
    return max([due, *filed])


def _next_quarter_end(day: date) -> date:
    """The quarter end on or after `day`."""
    while not is_quarter_end(day):
        day += timedelta(days=1)
    return day


def _window(
    managers: Sequence[ManagerConfig], quarters: dict[str, set[date]], newest: date, versions: int
) -> tuple[date, ...]:
    """Quarters from `newest` back until `versions` count; passed-over ones do not count; never before any filing."""
    oldest = min((q for periods in quarters.values() for q in periods), default=newest)
    window, counted, quarter = [], 0, newest
    while counted < versions and quarter >= oldest:
        window.append(quarter)
        absent = [m for m in managers if quarter not in quarters[m.cik]]
        counted += not absent or not all(quarter in m.allow_missing for m in absent)
        quarter = previous_quarter(quarter)
    return tuple(reversed(window))


def _manager_coverage(manager: ManagerConfig, window: Sequence[date], filed: set[date]) -> ManagerCoverage:
    absent = [q for q in window if q not in filed]
    return ManagerCoverage(
        manager,
        tuple(q for q in window if q in filed),
        tuple(q for q in absent if q not in manager.allow_missing),
        tuple(q for q in absent if q in manager.allow_missing),
    )


def _missing_problem(entry: ManagerCoverage, window: Sequence[date]) -> SourceProblem:
    listed = ", ".join(f'"{q.isoformat()}"' for q in entry.missing)
    message = (
        f"{entry.manager.name} has no 13F-HR for {len(entry.missing)} quarter(s) of the {len(window)}-quarter window "
        f"{_span(window)}: {listed}; add the filings, or set allow_missing = [{listed}] on the manager "
        f"or a smaller [copycat] versions in packs.toml"
    )
    return SourceProblem(f"sec13f/{entry.manager.cik}", message)


def _short_problem(coverage: Coverage) -> SourceProblem:
    message = (
        f"[copycat] versions = {coverage.versions}, but the filings reach back only {len(coverage.window)} quarters "
        f"({_span(coverage.window)}), {len(coverage.published)} of them filed by every manager; "
        f"set a smaller versions in packs.toml"
    )
    return SourceProblem("packs.toml", message)


def _span(quarters: Sequence[date]) -> str:
    if not quarters:
        return "(none)"
    return f"{quarters[0].isoformat()} … {quarters[-1].isoformat()}"


def unmapped_in(artifact: PackArtifact) -> tuple[set[str], float]:
    """The CUSIPs of one version that securities.csv does not map, wherever they surface (positions, positions no
    longer held, option and PRN rows), and the share of the version's reported value (positions and option and PRN
    rows, the latter at the value filed) they hold."""
    held = [h for manager in artifact["managers"] for h in (*manager["positions"], *manager["otherHoldings"])]
    ended = [e for manager in artifact["managers"] for e in manager["ended"] if not e["mapped"]]
    total = sum(h["value"] for h in held)
    unmapped = [h for h in held if not h["mapped"]]
    share = sum(h["value"] for h in unmapped) / total if total else 0.0
    return {h["cusip"] for h in (*unmapped, *ended)}, share


def unmapped_share(versions: Mapping[str, tuple[set[str], float]]) -> tuple[set[str], float, str]:
    """Unmapped CUSIPs of every version, and the largest share of a version's long book value they hold, from each
    version's unmapped_in (read one version at a time: a publish holds its versions compressed)."""
    cusips: set[str] = set()
    worst, where = 0.0, ""
    for version, (found, share) in sorted(versions.items()):
        cusips |= found
        if share > worst:
            worst, where = share, version
    return cusips, worst, where
