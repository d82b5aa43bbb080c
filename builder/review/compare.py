"""Compare two releases: versions added, dropped and restated, coverage, warnings, unmapped value, the latest quarter's
trades, undecided changes, and the verdict (builder.review.verdict) that sums them up."""

from __future__ import annotations

import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from builder.api.data import IndexWarning, ReleaseIndex
from builder.cores import forked_map
from builder.errors import ReleaseError
from builder.release.objects import artifact_of, artifact_path
from builder.release.store import INDEX
from builder.research.caveats import about, identity, sortable
from builder.research.changes.actions import action_listing
from builder.research.changes.listing import UndecidedEntry, VersionFacts, actions_of, version_facts
from builder.research.schema import PackArtifact
from builder.research.versions import LedgerEntry
from builder.research.views import MODES, manager_ids, view_tickers
from builder.review.shapes import (
    BookPoint,
    BookSeries,
    Coverage,
    Facts,
    LatestPart,
    OpenUndecided,
    Restated,
    Review,
    Selections,
    Undecided,
    Versions,
    ViewCount,
    Warnings,
)
from builder.review.trades import kind_counts, trades_and_bridges
from builder.review.verdict import verdict

MODES_NEED = 2  # managers a view mode needs to tell tickers apart: the mode chart shows from two on
# What `ras publish --gate` may stop on, each with what it means (`ras publish --help` lists them).
GATE_MEANINGS = {
    "new-warnings": "a warning the promoted release does not have",
    "restatement": "a published quarter whose content changed",
    "shrink": "fewer versions than the promoted release, or a manager gone (not a filer that left `largest`)",
    "corporate-actions": "an undecided change (it looks like a corporate action that no record settles) the "
    "promoted release does not publish",
}
GATES = frozenset(GATE_MEANINGS)


@dataclass(frozen=True, slots=True)
class Reviewed:
    """What a review reads of one release: its index and its 13f-copycat artifacts by version id (read_reviewed: each
    read from its file when asked)."""

    release_id: str
    index: ReleaseIndex
    artifacts: Mapping[str, PackArtifact]  # as published: the publish validated each against its schema
    facts: Mapping[str, VersionFacts] = field(default_factory=dict)  # what is known of its versions (a publish's)

    @property
    def versions(self) -> list[str]:
        """Its version ids, oldest first."""
        return self.index["copycat"]["versions"]


class _Stored(Mapping[str, PackArtifact]):
    """A release's artifacts, each decoded from its file when asked and never kept: a review reads each once, in a
    process of its own (at 2,000 managers the eight decoded at once held 8.6 GB)."""

    def __init__(self, directory: Path, versions: list[str]) -> None:
        self._directory, self._versions = directory, versions

    def __getitem__(self, version: str) -> PackArtifact:
        if version not in self._versions:
            raise KeyError(version)
        path = artifact_path(self._directory, version)
        try:
            return artifact_of(path.read_bytes())
        except (OSError, ValueError, zlib.error) as exc:  # ValueError: JSON that does not parse
            raise ReleaseError(f"{self._directory.name} is not a readable release: {path.name}: {exc}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._versions)

    def __len__(self) -> int:
        return len(self._versions)


def read_reviewed(directory: Path) -> Reviewed:
    """The index of a release directory and its artifacts, read when asked (ReleaseError when it is no readable
    release: its index, or an artifact file missing, here; an artifact that does not decode, when read)."""
    try:
        index: ReleaseIndex = orjson.loads((directory / INDEX).read_bytes())
        versions = list(index["copycat"]["versions"])
        missing = [version for version in versions if not artifact_path(directory, version).is_file()]
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError) as exc:
        raise ReleaseError(f"{directory.name} is not a readable release") from exc
    if missing:
        raise ReleaseError(f"{directory.name} is not a readable release: no artifact file of {', '.join(missing)}")
    return Reviewed(directory.name, index, _Stored(directory, versions))


def review(candidate: Reviewed, against: Reviewed | None, releases_option: str = "", workers: int = 1) -> Review:
    """Everything `ras review` shows, as plain data (the text and the HTML page render this); `releases_option` is
    what the next command needs to name the releases directory (" --releases DIR", or "" for the default).
    `workers`: processes reading the versions (the same review on any number)."""
    read, latest_part = _read(candidate, against, workers)
    after = {version: read[version] for version in candidate.versions}
    before = {version: read[version] for version in against.versions} if against else {}
    latest, latest_against = candidate.versions[-1:], against.versions[-1:] if against else []
    facts: Facts = {
        "candidate": candidate.release_id,
        "against": against.release_id if against else None,
        "asOf": {"candidate": candidate.index["asOf"], "against": against.index["asOf"] if against else None},
        "latest": {
            "candidate": latest[0] if latest else None,
            "against": latest_against[0] if latest_against else None,
        },
        "versions": _versions(after, before),
        "coverage": _coverage(candidate, against, after, before),
        "selection": _selections(candidate.index, against.index if against else None),
        "warnings": _warnings(candidate.index, against.index if against else None),
        "unmapped": {
            "candidate": _unmapped_share(after, latest),
            "against": _unmapped_share(before, latest_against) if against else None,
        },
        **latest_part,
        "undecided": _undecided(after, before if against else None),
        "actions": action_listing(actions_of(after.values()), actions_of(before.values())),
        "bookValues": _book_values(after),
    }
    return {**facts, "verdict": verdict(facts, tripped(facts, GATES), releases_option)}


def _read(candidate: Reviewed, against: Reviewed | None, workers: int) -> tuple[dict[str, VersionFacts], LatestPart]:
    """Each version of both sides read once (a version both publish: once; one whose facts a side knows: never),
    on `workers` processes forked for it, each giving back its small part: the version's facts, and what the
    candidate's latest quarter shows (`_latest_part`, read with the version before it: the first, largest share)."""
    read: dict[str, VersionFacts] = {**(against.facts if against else {}), **candidate.facts}
    pair = tuple(candidate.versions[-2:])
    jobs: list[tuple[Reviewed, tuple[str, ...]]] = [(candidate, pair)] if pair else []
    seen = {*read, *pair}
    for side in (candidate, *([against] if against else [])):
        for version in side.versions:
            if version not in seen:
                seen.add(version)
                jobs.append((side, (version,)))

    def task(job: tuple[Reviewed, tuple[str, ...]]) -> tuple[dict[str, VersionFacts], LatestPart | None]:
        side, versions = job
        artifacts = {version: side.artifacts[version] for version in versions}
        part = _latest_part(list(artifacts.values())) if versions == pair and side is candidate else None
        return {version: version_facts(found) for version, found in artifacts.items() if version not in read}, part

    latest_part: LatestPart = {"trades": [], "bridges": [], "kinds": [], "viewCounts": []}
    for found, part in forked_map(task, jobs, workers, here=False, fresh=True):
        read.update(found)
        latest_part = part or latest_part
    return read, latest_part


def _latest_part(artifacts: list[PackArtifact]) -> LatestPart:
    """What the review shows of the latest version (the last of `artifacts`), against the one before (if given)."""
    latest, previous = artifacts[-1], artifacts[-2] if len(artifacts) > 1 else None
    trades, bridges = trades_and_bridges(previous, latest)
    return {"trades": trades, "bridges": bridges, "kinds": kind_counts(latest), "viewCounts": _view_counts(latest)}


def _unmapped_share(versions: Mapping[str, VersionFacts], latest: list[str]) -> float:
    """Share of the latest version's long book value held in CUSIPs securities.csv does not map."""
    return round(versions[latest[0]].unmapped_share, 6) if latest else 0.0


def _by_quarter(versions: Mapping[str, VersionFacts]) -> list[VersionFacts]:
    """The versions oldest first."""
    return sorted(versions.values(), key=lambda found: found.quarter)


def _versions(after: Mapping[str, VersionFacts], before: Mapping[str, VersionFacts]) -> Versions:
    quarters_before = {found.quarter: version for version, found in before.items()}
    added: list[LedgerEntry] = []
    restated: list[Restated] = []
    for version, found in after.items():
        if version in before:
            continue
        old = quarters_before.get(found.quarter)
        entry: LedgerEntry = {"versionId": version, "quarter": found.quarter, "contentSha256": found.digest}
        if old is None:
            added.append(entry)
        else:
            restated.append({**entry, "replaces": old, "replacedSha256": before[old].digest})
    quarters_after = {found.quarter for found in after.values()}
    dropped: list[LedgerEntry] = [
        {"versionId": version, "quarter": found.quarter, "contentSha256": found.digest}
        for version, found in before.items()
        if found.quarter not in quarters_after
    ]
    return {
        "count": {"candidate": len(after), "against": len(before)},
        "added": added,
        "dropped": dropped,
        "restated": restated,
    }


def _coverage(
    candidate: Reviewed, against: Reviewed | None, after: Mapping[str, VersionFacts], before: Mapping[str, VersionFacts]
) -> list[Coverage]:
    """Per manager: the quarters each release publishes for it."""

    def quarters(versions: Mapping[str, VersionFacts], manager: str) -> list[str]:
        return sorted(found.quarter for found in versions.values() if manager in found.values)

    names = {m["id"]: m["name"] for side in (against, candidate) if side for m in side.index["copycat"]["managers"]}
    return [
        {"id": m, "name": names[m], "candidate": quarters(after, m), "against": quarters(before, m)}
        for m in sorted(names)
    ]


def _selections(after: ReleaseIndex, before: ReleaseIndex | None) -> Selections:
    """How `largest` chose managers in each release, and which filers (by CIK, named by their manager ids) entered or
    left the selection between them."""
    now = after["copycat"].get("selection")
    then = before["copycat"].get("selection") if before is not None else None
    ids_now = {filer["cik"]: filer["managerId"] for filer in now["filers"]} if now else {}
    ids_then = {filer["cik"]: filer["managerId"] for filer in then["filers"]} if then else {}
    return {
        "candidate": now,
        "against": then,
        "entered": sorted(ids_now[cik] for cik in ids_now.keys() - ids_then.keys()) if then else [],
        "left": sorted(ids_then[cik] for cik in ids_then.keys() - ids_now.keys()) if now else [],
    }


def _warnings(after: ReleaseIndex, before: ReleaseIndex | None) -> Warnings:
    def keyed(index: ReleaseIndex | None) -> dict[tuple[str | None, ...], IndexWarning]:
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


def _undecided(after: Mapping[str, VersionFacts], before: Mapping[str, VersionFacts] | None) -> Undecided:
    """The candidate's undecided changes, oldest first, and which of them are open: not published undecided by the
    release it is compared with (once promoted after review, an undecided change no longer stops the
    corporate-actions gate)."""
    seen = {_undecided_key(u) for found in (before or {}).values() for u in found.undecided}
    found: list[OpenUndecided] = [
        {**entry, "open": _undecided_key(entry) not in seen}
        for version in _by_quarter(after)
        for entry in version.undecided
    ]
    return {"count": len(found), "open": sum(entry["open"] for entry in found), "changes": found}


def _undecided_key(entry: UndecidedEntry) -> tuple[str, str, str, bool, tuple[str, ...]]:
    return entry["quarter"], entry["manager"], entry["ticker"], entry["held"], tuple(entry["rules"])


def _book_values(versions: Mapping[str, VersionFacts]) -> list[BookSeries]:
    """Each manager's book value per published quarter, oldest first (one chart line each)."""
    series: dict[str, list[BookPoint]] = {}
    for version in _by_quarter(versions):
        for manager, value in version.values.items():
            series.setdefault(manager, []).append({"quarter": version.quarter, "value": value})
    return [{"manager": manager, "points": points} for manager, points in sorted(series.items())]


def _view_counts(latest: PackArtifact) -> list[ViewCount]:
    """How many tickers each view mode holds in the latest version over all managers; nothing with one manager, whose
    modes cannot tell tickers apart."""
    if len(latest["managers"]) < MODES_NEED:
        return []
    managers = manager_ids(latest)
    return [{"mode": mode, "tickers": len(view_tickers(latest, managers, mode))} for mode in MODES]


def tripped(result: Facts, gates: frozenset[str]) -> list[str]:
    """One line per named gate the review trips: new-warnings, restatement, shrink, corporate-actions."""
    lines = []
    if "new-warnings" in gates and result["warnings"]["new"]:
        lines.append(f"new-warnings: {len(result['warnings']['new'])} warning(s) the promoted release does not have")
    if "restatement" in gates and result["versions"]["restated"]:
        listed = ", ".join(r["versionId"] for r in result["versions"]["restated"])
        lines.append(f"restatement: {len(result['versions']['restated'])} published quarter(s) restated: {listed}")
    count = result["versions"]["count"]
    # a filer that left the `largest` selection is a manager gone by the selection's rule, not lost: the review lists it
    left = set(result["selection"]["left"])
    shrunk = [c["id"] for c in result["coverage"] if c["against"] and not c["candidate"] and c["id"] not in left]
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
