"""What the releases directory holds (`ras releases`) and removing the oldest releases (`ras prune`)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import orjson

from builder.atomic import fsync_directory
from builder.errors import ReleaseError
from builder.release.store import GATE_VERDICTS, INDEX, SEAL, STAGING_PREFIX, current_release, list_releases


@dataclass(frozen=True, slots=True)
class ReleaseSummary:
    release_id: str
    as_of: str | None  # None when the release cannot be read
    quarters: tuple[str, ...]  # quarters of its 13f-copycat versions, oldest first
    managers: int
    warnings: int
    promoted: bool
    written: float  # mtime of its seal: when it was completed

    def line(self) -> str:
        mark = "*" if self.promoted else " "
        if self.as_of is None:
            return f"{mark} {self.release_id}  (unreadable: run `ras verify {self.release_id}`)"
        span = f"{self.quarters[0]} … {self.quarters[-1]}" if self.quarters else "none"
        return (
            f"{mark} {self.release_id}  as of {self.as_of}  {len(self.quarters)} quarters {span}  "
            f"{self.managers} managers  {self.warnings} warnings"
        )


def release_summaries(releases: Path) -> list[ReleaseSummary]:
    """Every release in the directory, oldest written first."""
    current = current_release(releases)
    found = [_summary(releases / name, current) for name in list_releases(releases)]
    return sorted(found, key=lambda s: (s.written, s.release_id))


def by_as_of(summaries: list[ReleaseSummary]) -> list[ReleaseSummary]:
    """Oldest as-of first, then oldest written: the data's age, not the order of building (a point-in-time release
    built today for an old date is an old release). Unreadable releases, with no as-of, come first."""
    return sorted(summaries, key=lambda s: (s.as_of or "", s.written, s.release_id))


@dataclass(frozen=True, slots=True)
class Pruned:
    kept: list[ReleaseSummary]  # oldest as-of first
    removed: list[ReleaseSummary]
    newest: frozenset[str]  # the ids kept for being among the newest `keep`

    def lines(self, keep: int) -> list[str]:
        """What `ras prune` prints: each release kept and why, each removed, and a count, also when none goes."""

        def why(summary: ReleaseSummary) -> str:
            reasons = (("promoted", summary.promoted), (f"among the newest {keep}", summary.release_id in self.newest))
            return ", ".join(reason for reason, holds in reasons if holds)

        lines = [f"kept    {s.release_id}  as of {s.as_of}  ({why(s)})" for s in self.kept]
        lines += [f"removed {s.release_id}  as of {s.as_of}" for s in self.removed]
        lines.append(
            f"{len(self.removed) or 'no'} release(s) removed, {len(self.kept)} kept (the newest {keep} by as-of "
            "and the promoted one); the ledger keeps every version id"
        )
        return lines


def _summary(directory: Path, current: Path | None) -> ReleaseSummary:
    promoted = current is not None and current.name == directory.name
    written = (directory / SEAL).stat().st_mtime if (directory / SEAL).exists() else directory.stat().st_mtime
    try:
        index = orjson.loads((directory / INDEX).read_bytes())
        quarters = tuple(v.removeprefix("multi-manager-").rsplit("-v", 1)[0] for v in index["copycat"]["versions"])
        return ReleaseSummary(
            directory.name,
            index["asOf"],
            quarters,
            len(index["copycat"]["managers"]),
            len(index["warnings"]),
            promoted,
            written,
        )
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return ReleaseSummary(directory.name, None, (), 0, 0, promoted, written)


def prune(releases: Path, keep: int) -> Pruned:
    """Remove the releases older (by as-of, then build time) than the newest `keep`, never the promoted one; what
    was kept and what removed.

    Only release directories (and their gates' verdicts) go: the ledger (releases/ledger.jsonl) keeps every id they held, so their ids
    are never handed out again. Call under the releases lock.
    """
    if keep < 1:
        raise ReleaseError("--keep must be at least 1: the promoted release is never pruned")
    summaries = by_as_of(release_summaries(releases))
    newest = frozenset(s.release_id for s in summaries[-keep:])
    kept = newest | {s.release_id for s in summaries if s.promoted}
    result = Pruned(
        [s for s in summaries if s.release_id in kept], [s for s in summaries if s.release_id not in kept], newest
    )
    for release_id in (s.release_id for s in result.removed):
        doomed = releases / f"{STAGING_PREFIX}pruned-{release_id}"
        os.rename(releases / release_id, doomed)  # gone from the listing at once; a killed prune leaves only this
        fsync_directory(releases)
        shutil.rmtree(doomed)
        (releases / GATE_VERDICTS / f"{release_id}.json").unlink(missing_ok=True)  # its gates' verdict goes with it
    return result
