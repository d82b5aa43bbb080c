"""A release's staging directory, filled as answers are rendered: each file written once, durably.

Only hashes stay in memory, so a release far larger than memory can be written. A file whose bytes the
previous release already holds under the same path is hard-linked from it after re-hashing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from builder.canonical import sha256_hex
from builder.release.store import MANIFEST, SEAL


class StagingWriter:
    def __init__(self, directory: Path, previous: Path | None) -> None:
        self.directory = directory
        self.hashes: dict[str, str] = {}  # every file written, path → sha256
        self.reused = 0
        self.size = 0  # bytes of the release
        self._previous = previous
        self._before = _vouched(previous)

    def put(self, path: str, body: bytes) -> str:
        """Write `body` at `path` (once: content-addressed paths repeat) and return its sha256."""
        sha256 = self.hashes.get(path) or sha256_hex(body)
        if path in self.hashes:
            return sha256
        destination = self.directory / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        if self._before.get(path) == sha256 and self._link(path, destination, sha256):
            self.reused += 1
        else:
            with open(destination, "wb") as handle:
                handle.write(body)
                handle.flush()
                os.fsync(handle.fileno())
        self.hashes[path] = sha256
        self.size += len(body)
        return sha256

    def _link(self, path: str, destination: Path, sha256: str) -> bool:
        """Hard-link the previous release's file if it still has those bytes (an altered one is written anew)."""
        assert self._previous is not None
        source = self._previous / path
        try:
            if sha256_hex(source.read_bytes()) != sha256:
                return False
            os.link(source, destination)
        except OSError:
            return False
        return True


def _vouched(previous: Path | None) -> dict[str, str]:
    """The files the previous release's manifest and seal vouch for; nothing if it cannot be read."""
    if previous is None:
        return {}
    try:
        return {**orjson.loads((previous / MANIFEST).read_bytes())["files"], **orjson.loads((previous / SEAL).read_bytes())["files"]}
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return {}
