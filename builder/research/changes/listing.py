"""The undecided changes of a set of versions, as an operator decides them: where, what they may be, what to paste;
and the facts of a version the publish checks and a review shows (VersionFacts)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple, TypedDict

from builder.research.changes.actions import QuarterActions
from builder.research.coverage import unmapped_in
from builder.research.schema import ActionRecord, CandidateRule, PackArtifact
from builder.research.versions import content_digest
from builder.research.views import entries

LISTED = 50  # undecided changes printed in full on a terminal; the count (and the review page) give the rest


class UndecidedEntry(TypedDict):
    """An undecided change as an operator decides it: where it is, the rules that flagged it, its first candidate's
    text and the corporate_actions.csv line of its best candidate (None when no record can settle it)."""

    quarter: str
    manager: str
    ticker: str
    held: bool  # a position of the version, not one it no longer holds
    rules: list[CandidateRule]
    text: str
    record: str | None


def undecided_changes(artifacts: Iterable[PackArtifact]) -> list[UndecidedEntry]:
    """Every undecided change of the versions, oldest first: where it is, what it may be, and the
    corporate_actions.csv line of its best candidate (None when no record can settle it: a confidential omission)."""
    found: list[UndecidedEntry] = []
    for artifact in sorted(artifacts, key=lambda a: a["quarter"]):
        for manager in artifact["managers"]:
            for held, entry in entries(manager):
                change = entry["change"]
                if change["kind"] != "undecided":
                    continue
                record = next((c["record"] for c in change["candidates"] if c["record"]), None)
                found.append(
                    {
                        "quarter": artifact["quarter"],
                        "manager": manager["id"],
                        "ticker": entry["ticker"],
                        "held": held,
                        "rules": [c["rule"] for c in change["candidates"]],
                        "text": change["candidates"][0]["text"],
                        "record": record,
                    }
                )
    return found


def undecided_lines(changes: Sequence[UndecidedEntry], heading: str) -> list[str]:
    """Terminal lines: the heading with the count, then each change (at most LISTED) with the line to paste."""
    wanting = sum("no-evidence" in entry["rules"] for entry in changes)
    cost = (
        f"; {wanting} of them for want of a witness (no Form 13F data set covers their quarter ends)" if wanting else ""
    )
    lines = [f"{heading}: {len(changes)}; each counts as neither bought nor sold{cost}"] if changes else []
    for entry in changes[:LISTED]:
        where = f"{entry['quarter']} {entry['manager']}/{entry['ticker']}{'' if entry['held'] else ' (ended)'}"
        lines.append(f"  {where}: {entry['text']}")
        lines.append(f"    {_settling(entry)}")
    if len(changes) > LISTED:
        lines.append(f"  and {len(changes) - LISTED} more (`ras review --html` lists all)")
    return lines


def _settling(entry: UndecidedEntry) -> str:
    """What settles an undecided change: its candidate's line to paste, the data sets, or a disclosure."""
    if entry["record"]:
        return f"corporate_actions.csv: {entry['record']}"
    if "no-evidence" in entry["rules"]:
        return (
            "no witness: `ras fetch` brings the Form 13F data sets (every filer's book decides it), or write the "
            "public record into corporate_actions.csv"
        )
    if "confidential-omission" in entry["rules"]:
        return "no record settles it (confidential treatment); a NEW HOLDINGS amendment that discloses the omitted position settles it"
    return "no line to paste: write the public record into corporate_actions.csv"


class VersionFacts(NamedTuple):
    """What the publish checks and a review shows of one version, read while its artifact is at hand: small, so
    whoever holds every version's holds no artifact whole."""

    quarter: str
    digest: str  # content_digest
    values: dict[str, int]  # each manager's book value, by manager id
    undecided: list[UndecidedEntry]
    actions: list[ActionRecord]  # the corporate-action records it applies
    unmapped: set[str]  # the CUSIPs securities.csv does not map (coverage.unmapped_in) …
    unmapped_share: float  # … and the share of its reported value they hold


def version_facts(artifact: PackArtifact, digest: str | None = None) -> VersionFacts:
    """`digest`: its content_digest when known (the ledger entry the publish made)."""
    unmapped, share = unmapped_in(artifact)
    return VersionFacts(
        artifact["quarter"],
        digest or content_digest(artifact),
        {manager["id"]: manager["bookValue"] for manager in artifact["managers"]},
        undecided_changes([artifact]),
        artifact["corporateActions"],
        unmapped,
        share,
    )


def actions_of(versions: Iterable[VersionFacts]) -> list[QuarterActions]:
    """Each version's quarter and the corporate-action records it applies (what actions.action_listing reads)."""
    return [(found.quarter, found.actions) for found in versions]
