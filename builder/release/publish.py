"""A publish, told once: lock the releases directory, tidy it, read and build the release in memory, write and seal
it; then check it against its gates and promote it. `ras build` is the same story stopped after the write.

What a publish makes is acyclic (sources.tree.collector_paused), so the collector stays off from the read to the
seal, for `ras build` as for `ras publish`: let back on between phases, each first pass walked the millions of
objects the phase before had made.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

from builder.api.data import ReleaseData
from builder.release.build import (
    DATASETS_CACHE,
    DEFAULT_MAX_UNMAPPED,
    PARSE_CACHE,
    Asked,
    Progress,
    prepare_release,
    seconds,
    write_release,
)
from builder.release.inputs import (
    SourceTree,
    inputs_digest,
    record_inputs,
    recorded_release,
    remove_temporaries,
    source_tree,
)
from builder.release.ledger import repair_ledger
from builder.release.promote import CURRENT_PREFIX, promote, refuse_fixture_over_real, releases_lock
from builder.release.store import STAGING_PREFIX, current_release, verify_release
from builder.sources.packs import read_packs_config
from builder.sources.sec13f.cache import remove_temporaries as remove_cache_temporaries
from builder.sources.tree import collector_paused

Check = Callable[[str, ReleaseData], None]  # given a written release's id and data, raises to keep it unpromoted


def build(
    source: Path,
    releases: Path,
    as_of: date | None,
    progress: Progress,
    *,
    max_unmapped: float = DEFAULT_MAX_UNMAPPED,
    workers: int = 1,
) -> str:
    """Build and write a release without promoting it (`ras build`); its id."""
    with releases_lock(releases):
        tidy(releases, progress)
        return _written(Asked(source, releases, as_of, max_unmapped, workers), progress)


def publish(
    source: Path,
    releases: Path,
    as_of: date | None,
    progress: Progress,
    max_unmapped: float = DEFAULT_MAX_UNMAPPED,
    check: Check | None = None,
    replace_real: bool = False,
    workers: int = 1,
) -> str:
    """Build, write and promote; a failure anywhere leaves `current` on the previous complete release.

    `check`, given the written release's id and its data, may raise to keep it unpromoted (the review gate); `workers`:
    processes reading, building and rendering (the release is the same bytes on any number).
    """
    with releases_lock(releases):
        tidy(releases, progress)
        refuse_fixture_over_real(releases, source_is_fixture(source), replace_real)  # before the work, not after
        # The source tree as the publish found it, hashed once: what it is checked against now and recorded
        # against after (a file edited mid-publish then differs from the record and the next publish builds).
        tree = source_tree(source, workers)
        checks = {"maxUnmapped": max_unmapped}
        unchanged = _unchanged(tree, releases, as_of, checks, progress)
        if unchanged is not None:
            return unchanged
        release_id = _written(Asked(source, releases, as_of, max_unmapped, workers), progress, check)
        started = time.perf_counter()
        warning = record_inputs(releases, inputs_digest(tree, as_of, release_id, checks), release_id)
        warnings = [warning] if warning else []
        warnings += promote(releases, release_id, replace_real)
    for line in warnings:
        progress(f"warning: {line}")
    progress(f"verified and promoted {release_id} in {seconds(started)}")
    return release_id


def _written(asked: Asked, progress: Progress, check: Check | None = None) -> str:
    """The two phases (read and build in memory, then write and seal) with the collector off, and `check` of what
    was written; the release's id."""
    with collector_paused():
        prepared = prepare_release(asked, progress)
        release_id = write_release(prepared, progress)
        if check is not None:  # reads the versions as the publish holds them, not from their files
            check(release_id, prepared.data)
        del prepared  # freed before the collector is back on, so its first pass walks what is left
    return release_id


def clean_staging(releases: Path) -> list[str]:
    """Remove what killed publishes left behind (only called under the lock): staging directories, a new
    `current` link never renamed, temporary records and half-written parse-cache entries."""
    removed = []
    for entry in sorted(releases.iterdir()):
        if entry.name.startswith((STAGING_PREFIX, CURRENT_PREFIX)):
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
            removed.append(entry.name)
    removed += remove_temporaries(releases)
    entries = sum(remove_cache_temporaries(releases / cache) for cache in (PARSE_CACHE, DATASETS_CACHE))
    return removed + ([f"{entries} half-written parse-cache entries"] if entries else [])


def tidy(releases: Path, progress: Progress) -> None:
    """Before a publish or build writes (under the lock): remove what an interrupted one left, cut a torn last
    line off the ledger; say what was done."""
    for name in clean_staging(releases):
        progress(f"removed {name} left by an interrupted publish")
    repaired = repair_ledger(releases)
    if repaired:
        progress(repaired)


def source_is_fixture(source: Path) -> bool:
    """Whether packs.toml marks the tree as fixture data (False when it cannot be read: the build says why)."""
    config, _problems = read_packs_config(source.resolve() / "packs.toml", source.resolve())
    return config is not None and config.fixture


def _unchanged(
    tree: SourceTree, releases: Path, as_of: date | None, checks: dict[str, float], progress: Progress
) -> str | None:
    """The promoted release's id when these inputs built it and it still verifies; else None (build)."""
    started = time.perf_counter()
    current = current_release(releases)
    promoted = current.name if current is not None else None
    if (
        current is None
        or promoted is None
        or recorded_release(releases, inputs_digest(tree, as_of, promoted, checks)) != promoted
    ):
        return None
    problems = verify_release(current)
    if problems:
        progress(f"the promoted release {promoted} fails verification ({problems[0]}): building it again")
        return None
    progress(
        f"unchanged: the sources, --as-of and code built the promoted release {promoted}, which verifies; "
        f"nothing to do ({seconds(started)})"
    )
    return promoted
