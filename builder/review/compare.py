"""Compare two releases: versions added, dropped and restated, coverage, warnings, unmapped value, the latest quarter's
trades, undecided changes, and the verdict (builder.review.verdict) that sums them up."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path

import orjson

from builder.errors import ReleaseError
from builder.release.objects import artifact_of, artifact_path
from builder.release.store import INDEX
from builder.research.caveats import about, identity, sortable
from builder.research.changes.actions import action_listing
from builder.research.changes.listing import undecided_changes
from builder.research.coverage import unmapped_in
from builder.research.schema import PackArtifact
from builder.research.versions import content_digest
from builder.research.views import MODES, manager_ids, view_tickers
from builder.review.trades import kind_counts, ranked_trades, value_bridges
from builder.review.verdict import verdict

MODES_NEED = 2  # managers a view mode needs to tell tickers apart: the mode chart shows from two on
# What `ras publish --gate` may stop on, each with what it means (`ras publish --help` lists them).
GATE_MEANINGS = {
    "new-warnings": "a warning the promoted release does not have",
    "restatement": "a published quarter whose content changed",
    "shrink": "fewer versions than the promoted release, or a manager gone",
    "corporate-actions": "an undecided change (it looks like a corporate action that no record settles) the "
    "promoted release does not publish",
}
GATES = frozenset(GATE_MEANINGS)


@dataclass(frozen=True, slots=True)
class Side:
    """What a review reads of one release: its index and its 13f-copycat artifacts by version id."""

    release_id: str
    index: dict
    artifacts: dict[str, PackArtifact]  # as published: the publish validated each against its schema


def read_side(directory: Path) -> Side:
    """The index and artifacts of a release directory (ReleaseError when it is no readable release)."""
    try:
        index = orjson.loads((directory / INDEX).read_bytes())
        artifacts = {
            version: artifact_of(artifact_path(directory, version).read_bytes())
            for version in index["copycat"]["versions"]
        }
    except (OSError, orjson.JSONDecodeError, zlib.error, KeyError, TypeError) as exc:
        raise ReleaseError(f"{directory.name} is not a readable release") from exc
    return Side(directory.name, index, artifacts)


def review(candidate: Side, against: Side | None, releases_option: str = "") -> dict:
    """Everything `ras review` shows, as plain data (the text and the HTML page render this); `releases_option` is
    what the next command needs to name the releases directory (" --releases DIR", or "" for the default)."""
    before = against.artifacts if against else {}
    latest, previous, latest_against = _latest(candidate), _previous(candidate), _latest(against)
    result = {
        "candidate": candidate.release_id,
        "against": against.release_id if against else None,
        "asOf": {"candidate": candidate.index["asOf"], "against": against.index["asOf"] if against else None},
        "latest": {
            "candidate": latest["versionId"] if latest else None,
            "against": latest_against["versionId"] if latest_against else None,
        },
        "versions": _versions(candidate.artifacts, before),
        "coverage": _coverage(candidate, against),
        "warnings": _warnings(candidate.index, against.index if against else None),
        "unmapped": {"candidate": _unmapped_share(candidate), "against": _unmapped_share(against) if against else None},
        "trades": ranked_trades(previous, latest) if latest else [],
        "bridges": value_bridges(previous, latest) if latest else [],
        "kinds": kind_counts(latest) if latest else [],
        "undecided": _undecided(candidate, against),
        "actions": action_listing(candidate.artifacts.values(), against.artifacts.values() if against else ()),
        "bookValues": _book_values(candidate),
        "viewCounts": _view_counts(candidate),
    }
    result["verdict"] = verdict(result, tripped(result, GATES), releases_option)
    return result


def _versions(after: dict[str, PackArtifact], before: dict[str, PackArtifact]) -> dict:
    quarters_before = {a["quarter"]: v for v, a in before.items()}
    added, restated = [], []
    for version, artifact in after.items():
        if version in before:
            continue
        old = quarters_before.get(artifact["quarter"])
        entry = {"versionId": version, "quarter": artifact["quarter"], "contentSha256": content_digest(artifact)}
        if old is None:
            added.append(entry)
        else:
            restated.append({**entry, "replaces": old, "replacedSha256": content_digest(before[old])})
    quarters_after = {a["quarter"] for a in after.values()}
    dropped = [
        {"versionId": v, "quarter": a["quarter"], "contentSha256": content_digest(a)}
        for v, a in before.items()
        if a["quarter"] not in quarters_after
    ]
    return {
        "count": {"candidate": len(after), "against": len(before)},
        "added": added,
        "dropped": dropped,
        "restated": restated,
    }


def _coverage(candidate: Side, against: Side | None) -> list[dict]:
    """Per manager: the quarters each release publishes for it."""

    def quarters(side: Side | None, manager: str) -> list[str]:
        if side is None:
            return []
        return sorted(a["quarter"] for a in side.artifacts.values() if manager in manager_ids(a))

    names = {m["id"]: m["name"] for side in (against, candidate) if side for m in side.index["copycat"]["managers"]}
    return [
        {"id": m, "name": names[m], "candidate": quarters(candidate, m), "against": quarters(against, m)}
        for m in sorted(names)
    ]


def _warnings(after: dict, before: dict | None) -> dict:
    def keyed(index: dict | None) -> dict[tuple, dict]:
        """Each warning by what it is about: one a new quarter only carries on (an unmapped CUSIP held on) is not new."""
        if index is None:
            return {}
        return {about(w): w for w in sorted(index["warnings"], key=lambda w: sortable(identity(w)))}

    new, old = keyed(after), keyed(before)
    return {
        "count": len(after["warnings"]),
        "new": [new[k] for k in sorted(new.keys() - old.keys(), key=sortable)],
        "resolved": [old[k] for k in sorted(old.keys() - new.keys(), key=sortable)],
    }


def _latest(side: Side | None) -> PackArtifact | None:
    if side is None or not side.artifacts:
        return None
    return side.artifacts[side.index["copycat"]["versions"][-1]]


def _unmapped_share(side: Side) -> float:
    """Share of the latest version's long book value held in CUSIPs securities.csv does not map."""
    latest = _latest(side)
    return round(unmapped_in(latest)[1], 6) if latest else 0.0


def _previous(side: Side) -> PackArtifact | None:
    """The version before the latest one (what the latest quarter's trades are measured against), if published."""
    versions = side.index["copycat"]["versions"]
    return side.artifacts[versions[-2]] if len(versions) > 1 else None


def _undecided(candidate: Side, against: Side | None) -> dict:
    """The candidate's undecided changes, and which of them are open: not published undecided by the release it is
    compared with (once promoted after review, an undecided change no longer stops the corporate-actions gate)."""
    found = undecided_changes(candidate.artifacts.values())
    seen = {_undecided_key(u) for u in undecided_changes(against.artifacts.values())} if against else set()
    for entry in found:
        entry["open"] = _undecided_key(entry) not in seen
    return {"count": len(found), "open": sum(entry["open"] for entry in found), "changes": found}


def _undecided_key(entry: dict) -> tuple:
    return entry["quarter"], entry["manager"], entry["ticker"], entry["held"], tuple(entry["rules"])


def _book_values(side: Side) -> list[dict]:
    """Each manager's book value per published quarter, oldest first (one chart line each)."""
    series: dict[str, list[dict]] = {}
    for artifact in sorted(side.artifacts.values(), key=lambda a: a["quarter"]):
        for manager in artifact["managers"]:
            series.setdefault(manager["id"], []).append({"quarter": artifact["quarter"], "value": manager["bookValue"]})
    return [{"manager": manager, "points": points} for manager, points in sorted(series.items())]


def _view_counts(side: Side) -> list[dict]:
    """How many tickers each view mode holds in the latest version over all managers; nothing with one manager, whose
    modes cannot tell tickers apart."""
    latest = _latest(side)
    if latest is None or len(latest["managers"]) < MODES_NEED:
        return []
    managers = manager_ids(latest)
    return [{"mode": mode, "tickers": len(view_tickers(latest, managers, mode))} for mode in MODES]


def tripped(result: dict, gates: frozenset[str]) -> list[str]:
    """One line per named gate the review trips: new-warnings, restatement, shrink, corporate-actions."""
    lines = []
    if "new-warnings" in gates and result["warnings"]["new"]:
        lines.append(f"new-warnings: {len(result['warnings']['new'])} warning(s) the promoted release does not have")
    if "restatement" in gates and result["versions"]["restated"]:
        listed = ", ".join(r["versionId"] for r in result["versions"]["restated"])
        lines.append(f"restatement: {len(result['versions']['restated'])} published quarter(s) restated: {listed}")
    count = result["versions"]["count"]
    shrunk = [c["id"] for c in result["coverage"] if c["against"] and not c["candidate"]]
    if "shrink" in gates and (count["candidate"] < count["against"] or shrunk):
        lines.append(
            f"shrink: {count['candidate']} versions where the promoted release has {count['against']}"
            + (f"; managers gone: {', '.join(shrunk)}" if shrunk else "")
        )
    if "corporate-actions" in gates and result["undecided"]["open"]:
        lines.append(
            f"corporate-actions: {result['undecided']['open']} undecided change(s) the promoted release does "
            "not publish: record them in corporate_actions.csv, or review them and promote with --override-gates"
        )
    return lines
