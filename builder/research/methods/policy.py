"""Research policy: checks over a view, each pass / warn / block. Execution is never enabled."""

from __future__ import annotations

import enum
import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Annotated, Literal, TypedDict

from builder.research.caveats import for_managers
from builder.research.quarters import FILING_DEADLINE_DAYS, Freshness, freshness
from builder.research.schema import ArtifactWarning, PackArtifact
from builder.research.views import SummaryView, View, entries
from builder.typed import KEY, Count, Date, Fraction, Keywords

# IRC §851(b)(3): a regulated investment company may not put more than 25% of its assets in one issuer;
# a view past that is a single-stock bet, not a cross-section of managers' ideas.
TOP_TICKER_MAX_SHARE = 0.25
# UCITS Directive 2009/65/EC art. 52(2): positions above 5% may total at most 40%; five names carrying more than
# that is a concentrated view.
TOP_FIVE_MAX_SHARE = 0.40
TOP_GROUP = 5  # the "top five" of the concentration check
SHARE_DIGITS = 4  # shares of value are reported as fractions to 4 places (0.01%)
CONFIDENTIAL = ("confidential-omitted", "confidential-omitted-previous")  # a filing of the quarter or the one before
OWN_CHECK_WARNINGS = ("fixture-data", "unmapped-cusip", *CONFIDENTIAL)  # scope warnings that have a check of their own
LISTED = 5  # a reason names at most this many positions or CUSIPs; the count gives the rest


Signal = Literal["research-only", "no-signal"]  # no-signal when any check blocks: stay in cash


class Outcome(enum.StrEnum):
    """The outcome of one check; any BLOCK turns the view's signal into 'no-signal'."""

    PASS = "pass"
    WARN = "warn"
    BLOCK = "block"


@dataclass(frozen=True, slots=True)
class BookFacts:
    """What the position-level checks need of an artifact, found in one pass over it: the same for every view,
    so a release judging several views of one version (four modes, diffs) reads its books once. Kept for the
    release's life for each version (and pickled from each publish worker to its parent): tuples of interned
    strings, no counter per manager (a version's facts at 500 managers: 0.7 MB, not 6.7 MB)."""

    entries: dict[str, tuple[str, ...]]  # manager id → the ticker of each of its entries (positions and exits), sorted
    uncited: tuple[tuple[str, str], ...]  # (manager, ticker) of entries that cite no source row
    stray: tuple[tuple[str, str], ...]  # (manager, ticker) of held positions citing a filing outside the manager's book
    unmapped: tuple[tuple[str, str, str], ...]  # (manager, ticker, CUSIP) of entries keyed by CUSIP
    unmapped_other: tuple[tuple[str, str], ...]  # (manager, CUSIP) of option and PRN rows without a ticker


def book_facts(artifact: PackArtifact) -> BookFacts:
    tickers: dict[str, tuple[str, ...]] = {}
    uncited, stray, unmapped = [], [], []
    other = [
        (sys.intern(m["id"]), sys.intern(h["cusip"]))
        for m in artifact["managers"]
        for h in m["otherHoldings"]
        if not h["mapped"]
    ]
    for manager in artifact["managers"]:
        manager_id, filed = sys.intern(manager["id"]), {f["accession"] for f in manager["filings"]}
        found = []
        for held, entry in entries(manager):
            ticker = sys.intern(entry["ticker"])
            found.append(ticker)
            if not entry["sources"]:
                uncited.append((manager_id, ticker))
            # an ended entry cites last quarter's rows
            elif held and any(s["accession"] not in filed for s in entry["sources"]):
                stray.append((manager_id, ticker))
            if not entry["mapped"]:
                unmapped.append((manager_id, ticker, sys.intern(entry["cusip"])))
        tickers[manager_id] = tuple(sorted(found))
    return BookFacts(tickers, tuple(uncited), tuple(stray), tuple(unmapped), tuple(other))


@dataclass
class Subject:
    """What the checks judge: a view of an artifact, as of a date, and the facts of the artifact's books."""

    view: View | SummaryView  # a View, or a census's summary of one (the fields the checks read)
    artifact: PackArtifact
    as_of: date
    facts: BookFacts

    @functools.cached_property
    def selected(self) -> set[str]:
        return set(self.view["managers"])

    @functools.cached_property
    def warnings(self) -> list[ArtifactWarning]:
        """The version's warnings about the pack and the selected managers: what the view is told, nothing else."""
        return for_managers(self.artifact["warnings"], self.selected)

    @functools.cached_property
    def tickers(self) -> set[str]:
        return {row["ticker"] for row in self.view["tickers"]}

    def in_view(self, manager: str, ticker: str) -> bool:
        return manager in self.selected and ticker in self.tickers

    def entry_count(self) -> int:
        """The artifact's positions and exits behind the view's (manager, ticker) pairs."""
        found, tickers = self.facts.entries, self.tickers
        return sum(1 for m in self.selected if m in found for t in found[m] if t in tickers)


_Check = Callable[[Subject], tuple[Outcome, str]]


def _execution_disabled(subject: Subject) -> tuple[Outcome, str]:
    return Outcome.PASS, "Research only: no broker, no account, no orders; executionEnabled is false."


def _source_coverage(subject: Subject) -> tuple[Outcome, str]:
    uncited = sorted({f"{m}/{t}" for m, t in subject.facts.uncited if subject.in_view(m, t)})
    if uncited:
        return Outcome.BLOCK, f"{len(uncited)} position(s) cite no source row: {', '.join(uncited[:LISTED])}."
    stray = sorted({f"{m}/{t}" for m, t in subject.facts.stray if subject.in_view(m, t)})
    if stray:
        listed = ", ".join(stray[:LISTED])
        return Outcome.BLOCK, f"{len(stray)} position(s) cite a filing outside the manager's book: {listed}."
    return Outcome.PASS, f"All {subject.entry_count()} manager positions in the view cite their 13F source rows."


def _fixture_data(subject: Subject) -> tuple[Outcome, str]:
    artifact = subject.artifact
    if artifact["fixture"]:
        return Outcome.WARN, "Fixture data: the managers are fictional; the numbers are not investment data."
    return Outcome.PASS, "Built from the operator's filings, not from the fixture."


def _unmapped_securities(subject: Subject) -> tuple[Outcome, str]:
    unmapped = sorted({cusip for m, t, cusip in subject.facts.unmapped if subject.in_view(m, t)})
    rows = sorted({cusip for m, cusip in subject.facts.unmapped_other if m in subject.selected} - set(unmapped))
    if unmapped or rows:
        found = [*unmapped, *rows]
        listed = ", ".join(found[:LISTED])
        also = f" ({len(rows)} of them in option or PRN rows only)" if rows else ""
        return Outcome.WARN, f"{len(found)} security(ies) have no ticker and are keyed by CUSIP{also}: {listed}."
    return Outcome.PASS, "Every security in the view, option and PRN rows included, maps to a ticker."


def _concentration(subject: Subject) -> tuple[Outcome, str]:
    view = subject.view
    values = sorted(((row["value"], row["ticker"]) for row in view["tickers"]), key=lambda v: (-v[0], v[1]))
    total = sum(value for value, _ in values)
    if total == 0:
        return Outcome.PASS, "The view holds no current value to be concentrated."
    top = round(values[0][0] / total, SHARE_DIGITS)
    five = round(sum(value for value, _ in values[:TOP_GROUP]) / total, SHARE_DIGITS)
    message = f"{values[0][1]} is {top:.2%} of the view's value; the top five are {five:.2%}"
    if top > TOP_TICKER_MAX_SHARE or five > TOP_FIVE_MAX_SHARE:
        limits = f"limits {TOP_TICKER_MAX_SHARE:.0%} and {TOP_FIVE_MAX_SHARE:.0%}"
        return Outcome.WARN, f"Concentrated: {message} ({limits})."
    return Outcome.PASS, f"{message}: within limits."


def _empty_view(subject: Subject) -> tuple[Outcome, str]:
    view = subject.view
    held = [row["ticker"] for row in view["tickers"] if row["holderCount"] > 0]
    if not held:
        mode = view["mode"]
        return Outcome.BLOCK, f"No ticker is held in mode '{mode}' by the selected managers: no signal, stay in cash."
    return Outcome.PASS, f"{len(held)} ticker(s) are held in the view."


def _confidential_omissions(subject: Subject) -> tuple[Outcome, str]:
    found = [w for w in subject.warnings if w["code"] in CONFIDENTIAL]
    if not found:
        return Outcome.PASS, "No filing of the view's managers for this quarter or the one before omits positions."
    named = sorted({f"{w['manager']} {w['accession']} ({w['quarter']})" for w in found})
    listed = ", ".join(named[:LISTED]) + (f" and {len(named) - LISTED} more" if len(named) > LISTED else "")
    return Outcome.WARN, (
        f"{len(named)} filing(s) omit positions under confidential treatment: {listed}; the book is "
        "incomplete and a position first reported after it may have been held all along."
    )


def _scope_warnings(subject: Subject) -> tuple[Outcome, str]:
    others = [w for w in subject.warnings if w["code"] not in OWN_CHECK_WARNINGS]
    if others:
        codes = ", ".join(sorted({w["code"] for w in others}))
        return Outcome.WARN, f"{len(others)} scope warning(s) limit the filings behind this view: {codes}."
    return Outcome.PASS, "The filings behind this view carry no scope warnings."


CHECKS: tuple[tuple[str, str, str, _Check], ...] = (
    (
        "execution-disabled",
        "Execution stays disabled",
        "always pass: the service has no broker, account or order access",
        _execution_disabled,
    ),
    (
        "source-coverage",
        "Every position cites its source rows",
        "block if a position of the view cites no source row, or a held position cites a filing that is not in its "
        "manager's book for the quarter; else pass",
        _source_coverage,
    ),
    (
        "fixture-data",
        "Fixture data",
        "warn if the artifact is built from the fictional fixture; else pass",
        _fixture_data,
    ),
    (
        "unmapped-securities",
        "Securities without a ticker",
        "warn if a position of the view, or an option or PRN row of a selected manager, is keyed by CUSIP (not in "
        "securities.csv); else pass",
        _unmapped_securities,
    ),
    (
        "concentration",
        "Concentration of the view's value",
        f"share = round(ticker value / view value, {SHARE_DIGITS}) over current holdings; warn if the top ticker's "
        f"share > {TOP_TICKER_MAX_SHARE} or the top {TOP_GROUP} tickers' > {TOP_FIVE_MAX_SHARE}; pass when the view "
        "holds no value",
        _concentration,
    ),
    (
        "empty-view",
        "A view with no holdings gives no signal",
        "block if no ticker of the view has a current holder (no signal: stay in cash); else pass",
        _empty_view,
    ),
    (
        "confidential-omissions",
        "Positions omitted under confidential treatment",
        "warn, naming each manager, accession and quarter, if a filing of a selected manager for the quarter omits "
        "positions under confidential treatment (isConfidentialOmitted), or one for the quarter before does and no NEW "
        "HOLDINGS amendment disclosed them; else pass",
        _confidential_omissions,
    ),
    (
        "scope-warnings",
        "Scope warnings of the filings",
        f"warn if the version carries a scope warning about the pack or a selected manager other than "
        f"{', '.join(OWN_CHECK_WARNINGS)} (those have their own checks); else pass",
        _scope_warnings,
    ),
)
CHECK_IDS: tuple[str, ...] = tuple(check[0] for check in CHECKS)
CheckId = Annotated[str, Keywords(examples=list(CHECK_IDS))]  # checks may be added: the known ones as examples


class CheckResult(TypedDict):
    id: CheckId
    name: str
    outcome: Outcome
    reason: str


# `from` is a keyword: the functional form. A check whose outcome differs between two versions; null where the check
# did not exist on that side.
PolicyChange = TypedDict(
    "PolicyChange",
    {  # KEY: what compare_versions' compact answer promises of each
        "id": Annotated[str, KEY],
        "from": Annotated[Outcome | None, KEY],
        "to": Annotated[Outcome | None, KEY],
        "fromReason": str | None,
        "toReason": str | None,
    },
)


class PolicyResult(TypedDict):
    versionId: str
    asOf: Date
    freshness: Freshness
    checks: list[CheckResult]
    blockingReasons: list[str]
    warnings: list[str]
    executionEnabled: Literal[False]  # research only: no broker, no orders
    signal: Signal


class CheckRule(TypedDict):
    id: CheckId
    name: str
    rule: str


class PolicyConfig(TypedDict):
    executionEnabled: Literal[False]
    filingDeadlineDays: Count
    topTickerMaxShare: Fraction
    topFiveMaxShare: Fraction
    scopeWarningsCoveredElsewhere: list[str]
    signal: str
    asOf: str
    checks: list[CheckRule]


# Published with every audit export: the thresholds and the rule of each check.
POLICY_CONFIG: PolicyConfig = {
    "executionEnabled": False,
    "filingDeadlineDays": FILING_DEADLINE_DAYS,
    "topTickerMaxShare": TOP_TICKER_MAX_SHARE,
    "topFiveMaxShare": TOP_FIVE_MAX_SHARE,
    "scopeWarningsCoveredElsewhere": list(OWN_CHECK_WARNINGS),
    "signal": "research-only unless a check blocks, then no-signal (stay in cash)",
    "asOf": "the release's as-of date, given by the operator or the newest filing date; never the clock",
    "checks": [{"id": i, "name": n, "rule": r} for i, n, r, _ in CHECKS],
}


def evaluate_policy(
    view: View | SummaryView, artifact: PackArtifact, *, as_of: date, facts: BookFacts | None = None
) -> PolicyResult:
    """Every check over `view` as of `as_of` (never the clock); any block makes the signal 'no-signal'.

    `facts`: book_facts(artifact), when the caller keeps them for several views of one artifact.
    """
    checks: list[CheckResult] = []
    subject = Subject(view, artifact, as_of, facts or book_facts(artifact))
    for check_id, name, _, check in CHECKS:
        outcome, reason = check(subject)
        checks.append({"id": check_id, "name": name, "outcome": outcome, "reason": reason})
    blocking = [c["reason"] for c in checks if c["outcome"] == Outcome.BLOCK]
    return {
        "versionId": artifact["versionId"],
        "asOf": as_of.isoformat(),
        "freshness": freshness(artifact["quarter"]),
        "checks": checks,
        "blockingReasons": blocking,
        "warnings": [c["reason"] for c in checks if c["outcome"] == Outcome.WARN],
        "executionEnabled": False,
        "signal": "no-signal" if blocking else "research-only",
    }


def policy_changes(older: PolicyResult, newer: PolicyResult) -> list[PolicyChange]:
    """Checks whose outcome differs between two policy results, in check order: from → to, with both reasons."""
    before = {c["id"]: c for c in older["checks"]}
    after = {c["id"]: c for c in newer["checks"]}
    ordered = [*CHECK_IDS, *sorted((before.keys() | after.keys()) - set(CHECK_IDS))]
    changes: list[PolicyChange] = []
    for check_id in ordered:
        old, new = before.get(check_id), after.get(check_id)
        if old is not None and new is not None and old["outcome"] == new["outcome"]:
            continue
        changes.append(
            {
                "id": check_id,
                "from": old["outcome"] if old else None,
                "to": new["outcome"] if new else None,
                "fromReason": old["reason"] if old else None,
                "toReason": new["reason"] if new else None,
            }
        )
    return changes
