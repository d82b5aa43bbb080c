"""Promote a release with one atomic rename, one writer at a time; `publish` is build, write, promote."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from builder.errors import ReleaseError
from builder.release.atomic import exclusive, fsync_directory
from builder.release.build import DEFAULT_MAX_UNMAPPED, Progress, prepare_release, seconds, write_release
from builder.release.inputs import SourceTree, inputs_digest, record_inputs, recorded_release, source_tree
from builder.release.store import CURRENT, STAGING_PREFIX, current_release, verify_release


def releases_lock(releases: Path):
    """One publish, build or promote at a time in a releases directory."""
    return exclusive(releases, "publish")


def clean_staging(releases: Path) -> list[str]:
    """Remove what killed publishes left behind (only called under the lock)."""
    removed = []
    for entry in releases.iterdir():
        if entry.name.startswith(STAGING_PREFIX) or entry.name.startswith(".current-"):
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
            removed.append(entry.name)
    return removed


def promote(releases: Path, release_id: str) -> None:
    """Point `current` at a verified release with one atomic rename (readers see the old or the new)."""
    target = releases / release_id
    if not target.is_dir() or target.is_symlink() or release_id.startswith("."):
        raise ReleaseError(f"no release {release_id!r} in {releases}")
    problems = verify_release(target)
    if problems:
        raise ReleaseError(f"release {release_id} fails verification: {problems[0]}")
    link = releases / f".current-{os.getpid()}"
    if link.is_symlink():
        link.unlink()
    os.symlink(release_id, link)
    os.replace(link, releases / CURRENT)
    fsync_directory(releases)


def publish(
    source: Path,
    releases: Path,
    as_of: date | None,
    progress: Progress,
    max_unmapped: float = DEFAULT_MAX_UNMAPPED,
    check: Callable[[str], None] | None = None,
) -> str:
    """Build, write and promote; a failure anywhere leaves `current` on the previous complete release.

    `check`, given the written release's id, may raise to keep it unpromoted (the review gate).
    """
    with releases_lock(releases):
        for name in clean_staging(releases):
            progress(f"removed {name} left by an interrupted publish")
        # The source tree as the publish found it, hashed once: what it is checked against now and recorded
        # against after (a file edited mid-publish then differs from the record and the next publish builds).
        tree = source_tree(source)
        checks = {"maxUnmapped": max_unmapped}
        unchanged = _unchanged(tree, releases, as_of, checks, progress)
        if unchanged is not None:
            return unchanged
        release_id = write_release(prepare_release(source, releases, as_of, progress, max_unmapped), releases, progress)
        if check is not None:
            check(release_id)
        started = time.perf_counter()
        promote(releases, release_id)
        record_inputs(releases, inputs_digest(tree, as_of, release_id, checks), release_id)
    progress(f"verified and promoted {release_id} in {seconds(started)}")
    return release_id


def _unchanged(tree: SourceTree, releases: Path, as_of: date | None, checks: dict, progress: Progress) -> str | None:
    """The promoted release's id when these inputs built it and it still verifies; else None (build)."""
    started = time.perf_counter()
    current = current_release(releases)
    promoted = current.name if current is not None else None
    if current is None or promoted is None or recorded_release(releases, inputs_digest(tree, as_of, promoted, checks)) != promoted:
        return None
    problems = verify_release(current)
    if problems:
        progress(f"the promoted release {promoted} fails verification ({problems[0]}): building it again")
        return None
    progress(f"unchanged: the sources, --as-of and code built the promoted release {promoted}, which verifies; "
             f"nothing to do ({seconds(started)})")
    return promoted
