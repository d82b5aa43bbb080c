"""Which release the server answers from: the promoted one, picked up without a restart, dropped if altered."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from builder.errors import ReleaseError
from builder.release.store import CURRENT, LoadedRelease, load_release, verify_release

LOG = logging.getLogger("ras.server")
WATCH_INTERVAL = 1.0  # seconds between checks of `current` and of the release's files; a stat walk is cheap


@dataclass(frozen=True, slots=True)
class Serving:
    """One consistent state: a request reads this once and sees one release, never a mix."""

    release: LoadedRelease | None
    problem: str  # why nothing is served ("" when a release is)


def _snapshot(directory: Path) -> dict[str, tuple[int, int, int]]:
    """(size, mtime, inode) of every file: any write, truncation, deletion or addition changes it."""
    found = {}
    for root, _dirs, files in os.walk(directory):
        for name in files:
            stat = os.stat(os.path.join(root, name))
            found[os.path.join(root, name)] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    return found


class ReleaseWatch:
    """Holds the current Serving; `refresh()` follows promotions and notices altered files."""

    def __init__(self, releases: Path) -> None:
        self.releases = releases
        self.serving = Serving(None, "no release has been promoted")
        self._target: str | None = None
        self._snapshot: dict[str, tuple[int, int, int]] = {}

    def refresh(self) -> None:
        """Load a newly promoted release, or re-verify the current one if any of its files changed."""
        try:
            target = os.readlink(self.releases / CURRENT)
        except OSError:
            if self._target is not None or self.serving.release is not None:
                LOG.warning("no promoted release in %s", self.releases)
            self._target, self.serving = None, Serving(None, "no release has been promoted")
            return
        if target != self._target:
            self._load(target)
        elif self.serving.release is not None and _snapshot(self.serving.release.directory) != self._snapshot:
            self._recheck()

    def _load(self, target: str) -> None:
        directory = (self.releases / target).resolve()
        self._target = target
        try:
            snapshot = _snapshot(directory)
            release = load_release(directory)
        except (ReleaseError, OSError, KeyError, ValueError) as exc:
            LOG.error("release %s is not consumable: %s", target, exc)
            self.serving = Serving(None, "the promoted release is missing or fails its integrity check")
            return
        self._snapshot = snapshot
        self.serving = Serving(release, "")
        LOG.info("serving release %s (%d precomputed answers)", release.release_id, len(release.answers))

    def _recheck(self) -> None:
        release = self.serving.release
        assert release is not None
        problems = verify_release(release.directory)
        if problems:
            LOG.error("release %s was altered: %s", release.release_id, problems[0])
            self.serving = Serving(None, "the promoted release fails its integrity check")
        else:
            self._snapshot = _snapshot(release.directory)
