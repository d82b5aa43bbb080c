"""A release's staging directory, filled as answers are rendered: each file written once.

Only hashes stay in memory, so a release far larger than memory can be written. Every release owns its
files: a file the previous release already holds with the same bytes is cloned from it (FICLONE, a reflink
sharing blocks copy-on-write, where the filesystem has one) and otherwise written anew. Never a hard link:
an in-place edit of a shared inode would damage every release holding it, rollback targets included. An export
tree gets its own files the same way (`owned_copy`: a reflink, else a copy).
"""

from __future__ import annotations

import copy
import errno
import fcntl
import shutil
from pathlib import Path
from typing import NamedTuple

import orjson

from builder.canonical import sha256_hex
from builder.errors import PublishError
from builder.release.store import MANIFEST, SEAL

FICLONE = 0x40049409  # linux/fs.h _IOW(0x94, 9, int): share the source's blocks, copy-on-write
# Why a clone is refused: the filesystem has no reflinks (ext4, tmpfs), or source and target differ in device.
_NO_CLONE = {errno.EOPNOTSUPP, errno.ENOTTY, errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EPERM}


class Share(NamedTuple):
    hashes: dict[str, str]
    sizes: dict[str, int]
    reused: int
    copied: int


class StagingWriter:
    def __init__(self, directory: Path, previous: Path | None) -> None:
        self.directory = directory
        self.hashes: dict[str, str] = {}  # every file written, path → sha256
        self.reused = 0  # files cloned from the previous release
        self.copied = 0  # answers taken from the previous release instead of computed (see builder.release.inputs)
        self.clones = previous is not None  # until the filesystem says it has no reflinks
        self.sizes: dict[str, int] = {}  # every file written, path → bytes
        self._previous = previous
        self._before = _vouched(previous)

    def put(self, path: str, body: bytes, sha256: str | None = None, *, source_checked: bool = False) -> str:
        """Write `body` (whose sha256 the caller may know) at `path`, once: content-addressed paths repeat.

        `source_checked`: the caller has just read the previous release's file and found these bytes.
        """
        if path in self.hashes:
            return self.hashes[path]
        sha256 = sha256 or sha256_hex(body)
        destination = self.directory / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        if not (self._before.get(path) == sha256 and self._clone(path, destination, sha256, source_checked)):
            _write(destination, body)
        self.hashes[path] = sha256
        self.sizes[path] = len(body)
        return sha256

    @property
    def size(self) -> int:
        """Bytes of the release."""
        return sum(self.sizes.values())

    def branch(self) -> StagingWriter:
        """A writer of the same directory with nothing written yet (a worker's share, merged back with `merge`)."""
        other = copy.copy(self)
        other.hashes, other.sizes, other.reused, other.copied = {}, {}, 0, 0
        return other

    def share(self) -> Share:
        """What this writer wrote, to be merged into the parent's (builder.release.build renders on processes)."""
        return Share(self.hashes, self.sizes, self.reused, self.copied)

    def merge(self, share: Share) -> None:
        """Take in what a worker wrote into the same directory; a path two workers wrote holds the same bytes
        (paths are content-addressed), so it is counted once."""
        for path, sha256 in share.hashes.items():
            if self.hashes.setdefault(path, sha256) != sha256:
                raise PublishError(f"{path}: two workers wrote different bytes")
            self.sizes[path] = share.sizes[path]
        self.reused += share.reused
        self.copied += share.copied

    def copy(self, path: str, sha256: str) -> bool:
        """Take `path` from the previous release if its manifest vouches for these bytes and they are intact."""
        if path in self.hashes:
            return self.hashes[path] == sha256
        if self._previous is None or self._before.get(path) != sha256:
            return False
        try:
            body = (self._previous / path).read_bytes()
        except OSError:
            return False
        if sha256_hex(body) != sha256:
            return False
        self.put(path, body, sha256, source_checked=True)
        self.copied += 1
        return True

    def _clone(self, path: str, destination: Path, sha256: str, checked: bool = False) -> bool:
        """Reflink the previous release's file if it still has those bytes; False when it cannot (write it then)."""
        assert self._previous is not None
        if not self.clones:
            return False
        source = self._previous / path
        try:
            if not checked and sha256_hex(source.read_bytes()) != sha256:
                return False
            if not reflink(source, destination):
                self.clones = False  # the same answer for every file: stop asking
                return False
        except OSError:
            return False
        self.reused += 1
        return True


def reflink(source: Path, destination: Path) -> bool:
    """Make `destination` a copy of `source` that shares its blocks copy-on-write (FICLONE): an in-place write to
    either never reaches the other. False where the filesystem has no reflinks (`destination` is then empty: the
    caller writes it); any other failure raises."""
    with open(source, "rb") as original, open(destination, "wb") as clone:
        try:
            fcntl.ioctl(clone.fileno(), FICLONE, original.fileno())
        except OSError as exc:
            if exc.errno in _NO_CLONE:
                return False
            raise
    return True


def owned_copy(source: Path, destination: Path) -> bool:
    """`destination` as a file of its own with `source`'s bytes: a reflink where the filesystem has one (True), else
    a plain copy (False). Never a hard link, which shares the one file: a write into either lands in both."""
    if reflink(source, destination):
        return True
    shutil.copyfile(source, destination)
    return False


def _write(destination: Path, body: bytes) -> None:
    """Written, not yet durable: the release step flushes the whole directory once (atomic.sync_filesystem)."""
    destination.write_bytes(body)


def _vouched(previous: Path | None) -> dict[str, str]:
    """The files the previous release's manifest and seal vouch for; nothing if it cannot be read."""
    if previous is None:
        return {}
    try:
        return {
            **orjson.loads((previous / MANIFEST).read_bytes())["files"],
            **orjson.loads((previous / SEAL).read_bytes())["files"],
        }
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return {}
