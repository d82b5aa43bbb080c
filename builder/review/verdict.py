"""The verdict at the top of a review: what promoting would change for agents, which gates would stop it, which
warnings are new, how many undecided changes are open, and the exact next command."""

from __future__ import annotations

from builder.research.changes import TRADED
from builder.review.shapes import Decision, Facts

# What to do about each gate before promoting; the operator may also promote what they reviewed and accept.
FIXES = {
    "new-warnings": "resolve the new warnings in the sources (listed below), or accept them",
    "restatement": "check that the restated quarters (listed below) are what the filings now say",
    "shrink": "bring back the missing quarters or managers, or accept a smaller pack",
    "corporate-actions": "record the open undecided changes in corporate_actions.csv (each listed below with its "
    "line), then build again",
}


def verdict(result: Facts, tripped: list[str], releases_option: str = "") -> Decision:
    """The decision a review supports: `tripped` holds the line of each gate the review trips (all gates asked)."""
    candidate, against = result["candidate"], result["against"]
    if candidate == against:
        return {
            "agents": [f"nothing: {candidate} is the promoted release"],
            "gates": [],
            "gateNames": [],
            "newWarnings": 0,
            "undecidedOpen": 0,
            "promotable": False,
            "fix": [],
            "next": None,
        }
    gates = [line.split(":", 1)[0] for line in tripped]
    return {
        "agents": _agents(result),
        "gates": tripped,
        "gateNames": gates,
        "newWarnings": len(result["warnings"]["new"]),
        "undecidedOpen": result["undecided"]["open"],
        "promotable": not tripped,
        "fix": [FIXES[gate] for gate in gates],
        # A release a gate stops (or would stop) takes --override-gates to promote; with no stop recorded it is a no-op.
        "next": f"ras promote {candidate}{' --override-gates' if tripped else ''}{releases_option}",
    }


def _agents(result: Facts) -> list[str]:
    """What agents would read differently once the candidate is promoted."""
    versions = result["versions"]
    latest = result["latest"]
    lines = [
        f"latest version {latest['candidate'] or 'none'}"
        + (f" (promoted: {latest['against']})" if latest["against"] != latest["candidate"] else " (as promoted)")
    ]
    counts = [f"{len(versions[k])} {k}" for k in ("added", "restated", "dropped") if versions[k]]
    lines.append(f"versions: {', '.join(counts) if counts else 'the same ones, the same bytes'}")
    kinds = {entry["kind"]: entry["count"] for entry in result["kinds"]}
    traded = ", ".join(f"{kinds[k]} {k}" for k in TRADED)
    lines.append(f"the latest quarter's trades: {traded}; {kinds['undecided']} undecided, counted as neither")
    warnings = result["warnings"]
    lines.append(f"warnings: {warnings['count']}, {len(warnings['new'])} new, {len(warnings['resolved'])} resolved")
    return lines


def verdict_lines(decided: Decision) -> list[str]:
    """The verdict on a terminal: what changes for agents, the gates, then the next command."""
    lines = ["verdict:", *(f"  for agents: {line}" for line in decided["agents"])]
    if decided["next"] is None:
        return lines
    lines += [f"  gate {line}" for line in decided["gates"]] or ["  no gate would stop it"]
    lines.append(f"  undecided changes open: {decided['undecidedOpen']}; new warnings: {decided['newWarnings']}")
    if decided["promotable"]:
        lines.append(f"  next: {decided['next']}")
    else:
        lines += [f"  fix: {fix}" for fix in decided["fix"]]
        lines.append(f"  next: fix the above and build again, or, having reviewed it, {decided['next']}")
    return lines
