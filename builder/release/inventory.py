"""What the releases directory holds (`ras releases`) and removing the oldest releases (`ras prune`)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import orjson

from builder.errors import ReleaseError
from builder.release.atomic import fsync_directory
from builder.release.store import INDEX, SEAL, STAGING_PREFIX, current_release, list_releases


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
        return (f"{mark} {self.release_id}  as of {self.as_of}  {len(self.quarters)} quarters {span}  "
                f"{self.managers} managers  {self.warnings} warnings")


def release_summaries(releases: Path) -> list[ReleaseSummary]:
    """Every release in the directory, oldest written first."""
    current = current_release(releases)
    found = [_summary(releases / name, current) for name in list_releases(releases)]
    return sorted(found, key=lambda s: (s.written, s.release_id))


def _summary(directory: Path, current: Path | None) -> ReleaseSummary:
    promoted = current is not None and current.name == directory.name
    written = (directory / SEAL).stat().st_mtime if (directory / SEAL).exists() else directory.stat().st_mtime
    try:
        index = orjson.loads((directory / INDEX).read_bytes())
        quarters = tuple(v.removeprefix("multi-manager-").rsplit("-v", 1)[0] for v in index["copycat"]["versions"])
        return ReleaseSummary(directory.name, index["asOf"], quarters, len(index["copycat"]["managers"]),
                              len(index["warnings"]), promoted, written)
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return ReleaseSummary(directory.name, None, (), 0, 0, promoted, written)


def prune(releases: Path, keep: int) -> list[str]:
    """Remove the oldest releases beyond the newest `keep`, never the promoted one; the ids removed.

    Only release directories go: the ledger (releases/ledger.jsonl) keeps every id they held, so their ids
    are never handed out again. Call under the releases lock.
    """
    if keep < 1:
        raise ReleaseError("--keep must be at least 1: the promoted release is never pruned")
    summaries = release_summaries(releases)
    kept = {s.release_id for s in summaries[-keep:]} | {s.release_id for s in summaries if s.promoted}
    removed = [s.release_id for s in summaries if s.release_id not in kept]
    for release_id in removed:
        doomed = releases / f"{STAGING_PREFIX}pruned-{release_id}"
        os.rename(releases / release_id, doomed)  # gone from the listing at once; a killed prune leaves only this
        fsync_directory(releases)
        shutil.rmtree(doomed)
    return removed
