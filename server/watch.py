"""Which release the server answers from: the promoted one, picked up without a restart, dropped if altered.

Watching costs almost nothing while nothing changes. Every tick (WATCH_INTERVAL) lstat's the `current` link,
the release's directories, its manifest and its seal; every SWEEP_INTERVAL a stat sweep of every file re-hashes
only the files whose inode, size, ctime or mtime moved; a scrub re-hashes every file once per VERIFY_INTERVAL,
at most SCRUB_BYTES per tick, its first pass starting at load (so a release up to SCRUB_BYTES is verified
whole before it is served). Hence a file added, removed or renamed is noticed within one tick, an in-place
edit within DETECTION_BOUND, damage that moves no stat field (bit rot) within one scrub pass, and an answer
damaged before it was first read is a 503 at once (builder.release.objects). A promotion, of another id or
of the same one, swaps the link for a new one (a new inode) and is loaded at the next tick: that is how a
repaired release comes back.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from builder.errors import ReleaseError
from builder.release.objects import CACHE_BYTES
from builder.release.store import CURRENT, LoadedRelease, file_problem, load_release, prepare

LOG = logging.getLogger("ras.server")
WATCH_INTERVAL = 1.0  # seconds between ticks: a promotion is served within this, an added or removed file dropped
SWEEP_INTERVAL = 5.0  # seconds between stat sweeps of every file (~40 ms at 500 managers' 12,000 files)
VERIFY_INTERVAL = 600.0  # seconds between the starts of two full re-hash passes (`ras serve --verify-every`)
SCRUB_BYTES = 16 * 1024 * 1024  # hashed per tick at most: the fixture (8 MB) whole at load; 2.2 GB in ~140 ticks
SCRUB_MIN_BYTES = 4096  # a file counts at least this much against the budget (its open and stat cost)
DETECTION_BOUND = WATCH_INTERVAL + SWEEP_INTERVAL  # an in-place edit is dropped within this many seconds
NO_RELEASE = "no release has been promoted"
DAMAGED = "the promoted release is missing or fails its integrity check"

Stamp = tuple[int, int, int, int]  # inode, size, ctime, mtime: any write, truncation or replacement moves one


@dataclass(frozen=True, slots=True)
class Serving:
    """One consistent state: a request reads this once and sees one release, never a mix."""

    release: LoadedRelease | None
    problem: str  # why nothing is served ("" when a release is)


@dataclass(frozen=True, slots=True)
class Pace:
    """How often each check runs (seconds) and how much the scrub hashes per tick (bytes)."""

    tick: float = WATCH_INTERVAL
    sweep: float = SWEEP_INTERVAL
    verify: float = VERIFY_INTERVAL
    scrub_bytes: int = SCRUB_BYTES


def stamp(path: str) -> Stamp | None:
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_ctime_ns, found.st_mtime_ns


def expected_entries(files: Mapping[str, str]) -> dict[str, set[str]]:
    """Each directory of a release (relative, "" for its root) → the names it must list, no more, no less."""
    entries: dict[str, set[str]] = {"": set()}
    for path in files:
        parts = path.split("/")
        for depth in range(len(parts)):
            entries.setdefault("/".join(parts[:depth]), set()).add(parts[depth])
    return entries


class FileWatch:
    """The stat stamps of one loaded release's files and directories, and the scrub's place in its files."""

    def __init__(self, release: LoadedRelease, pace: Pace, now: float) -> None:
        self.root = str(release.directory)
        self.files = release.reader.files
        self.pace = pace
        self.entries = expected_entries(self.files)
        self.stamps: dict[str, Stamp | None] = {}
        self.directories: dict[str, Stamp | None] = {}
        self.cheap = ["manifest.json", "seal.json"]  # stat'ed every tick beside the directories
        self.order = sorted(self.files)
        self.cursor, self.passes = 0, 0
        self.next_sweep, self.next_scrub, self.pass_started = now + pace.sweep, now, now
        # The baseline: stamps taken, then the scrub's first step, so a release up to scrub_bytes (the fixture)
        # is wholly verified before its first answer, and a larger one within its first pass.
        self.problem = self.sweep(now, rehash=False) or self.scrub(now)

    def _path(self, relative: str) -> str:
        return os.path.join(self.root, relative) if relative else self.root

    def tick(self, now: float) -> str:
        """The first problem found by this tick's checks ("" when none)."""
        if now >= self.next_sweep or self._cheap_moved():
            problem = self.sweep(now)
            if problem:
                return problem
        return self.scrub(now)

    def _cheap_moved(self) -> bool:
        return any(stamp(self._path(d)) != seen for d, seen in self.directories.items()) or any(
            stamp(self._path(f)) != self.stamps.get(f) for f in self.cheap
        )

    def sweep(self, now: float, rehash: bool = True) -> str:
        """Stat every directory and file; list a directory whose stamp moved, re-hash a file whose stamp moved."""
        self.next_sweep = now + self.pace.sweep
        for directory, names in self.entries.items():
            seen = stamp(self._path(directory))
            if seen != self.directories.get(directory):
                problem = self._listing_problem(directory, names)
                if problem:
                    return problem
                self.directories[directory] = seen
        for path, sha256 in self.files.items():
            seen = stamp(self._path(path))
            if seen == self.stamps.get(path):
                continue
            problem = (
                f"{path}: missing" if seen is None else file_problem(Path(self.root), path, sha256) if rehash else ""
            )
            if problem:
                return problem
            self.stamps[path] = seen
        return ""

    def _listing_problem(self, directory: str, names: set[str]) -> str:
        try:
            listed = set(os.listdir(self._path(directory)))
        except OSError:
            return f"{directory or '.'}: missing or unreadable"
        prefix = f"{directory}/" if directory else ""
        if listed - names:
            return f"{prefix}{min(listed - names)}: not in the manifest"
        if names - listed:
            return f"{prefix}{min(names - listed)}: missing"
        return ""

    def scrub(self, now: float) -> str:
        """Re-hash the next files of the current pass, up to scrub_bytes; a pass starts every verify interval."""
        if now < self.next_scrub:
            return ""
        if self.cursor == 0:
            self.pass_started = now
        budget = self.pace.scrub_bytes
        while budget > 0 and self.cursor < len(self.order):
            path = self.order[self.cursor]
            problem = file_problem(Path(self.root), path, self.files[path])
            if problem:
                return problem
            seen = self.stamps.get(path)
            budget -= max(seen[1] if seen else 0, SCRUB_MIN_BYTES)
            self.cursor += 1
        if self.cursor == len(self.order):
            self.cursor, self.passes = 0, self.passes + 1
            self.next_scrub = self.pass_started + self.pace.verify
        return ""


def link_state(link: Path) -> tuple[str, int, int] | None:
    """What `current` points at, and the identity of the link itself: each promotion makes a new link."""
    try:
        target = os.readlink(link)
        found = os.lstat(link)
    except OSError:
        return None
    return target, found.st_ino, found.st_ctime_ns


class ReleaseWatch:
    """Holds the current Serving; `refresh()` follows promotions and notices altered files."""

    def __init__(
        self,
        releases: Path,
        pace: Pace = Pace(),
        cache_bytes: int = CACHE_BYTES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.releases = releases
        self.pace = pace
        self.cache_bytes = cache_bytes
        self.clock = clock
        self.serving = Serving(None, NO_RELEASE)
        self.files: FileWatch | None = None
        self._link: tuple[str, int, int] | None = None  # the `current` link last acted on
        self._swap = threading.Lock()  # refresh runs in a thread, drop() on the event loop

    def refresh(self) -> None:
        """Load a newly promoted release, else run this tick's checks of the served one."""
        link = link_state(self.releases / CURRENT)
        if link is None:
            if self._link is not None or self.serving.release is not None:
                LOG.warning("no promoted release in %s", self.releases)
            self._link = None
            self._set(Serving(None, NO_RELEASE), None)
        elif link != self._link:
            self._link = link
            self._load(link[0])
        elif self.serving.release is not None and self.files is not None:
            release = self.serving.release
            problem = release.reader.problem or self.files.tick(self.clock())
            if problem:
                self.drop(release, problem)

    def drop(self, release: LoadedRelease, problem: str) -> None:
        """Stop serving `release` (if it still is the one served) because of `problem`."""
        with self._swap:
            if self.serving.release is not release:
                return
            LOG.error("release %s was altered: %s", release.release_id, problem)
            self.serving, self.files = Serving(None, DAMAGED), None

    def _set(self, serving: Serving, files: FileWatch | None) -> None:
        with self._swap:
            self.serving, self.files = serving, files

    def _load(self, target: str) -> None:
        directory = (self.releases / target).resolve()
        try:
            release = load_release(directory, self.cache_bytes)
            files = FileWatch(release, self.pace, self.clock())
            if files.problem:
                raise ReleaseError(files.problem)
            prepare(release)  # what a first POST would read, before the release is served
        except (ReleaseError, OSError, KeyError, ValueError, TypeError) as exc:
            LOG.error("release %s is not consumable: %s", target, exc)
            self._set(Serving(None, DAMAGED), None)
            return
        self._set(Serving(release, ""), files)
        LOG.info("serving release %s (%d precomputed answers)", release.release_id, len(release.answers))
