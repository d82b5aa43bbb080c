"""Reading a loaded release's files on demand, each checked against the sha256 that vouches for it.

Loading checks only the manifest and the seal; every other file is read when first needed and hashed: a
content-addressed object against its own name, any other file against its manifest or seal entry. A file
that is missing or differs raises ReleaseDamaged, so a damaged release answers 503, never wrong bytes.
Verified answer bodies stay in a bytes-bounded LRU, so hot answers are served from memory and the memory
held grows with the traffic's hot set, not with the release.
"""

from __future__ import annotations

import gc
import os
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import orjson

from builder.canonical import sha256_hex
from builder.errors import ReleaseError
from builder.research.schema import PackArtifact

# Verified bodies kept in memory. The fixture's whole answer set (~8 MB) fits; at 500 managers the bound keeps
# a worker within 2× the fixture's resident memory (bench.memory). A body over a quarter of it is never kept
# (500 managers' 33 MB `latest`): it is read per request, its hash checked once (see _verified).
CACHE_BYTES = 24 * 1024 * 1024
OBJECT_PREFIX = "objects/"


@dataclass(frozen=True, slots=True)
class Answer:
    """One precomputed answer, ready to send."""

    status: int
    body: bytes
    etag: str


class Route(NamedTuple):
    """What the route index holds of one precomputed answer, before its body is read: enough for a 304."""

    status: int
    sha256: str  # of the body, which names its object file
    etag: str  # the strong ETag of those bytes


class ReleaseDamaged(ReleaseError):
    """A file of a loaded release is missing or no longer has the bytes its sha256 vouches for."""


def object_path(sha256: str) -> str:
    return f"{OBJECT_PREFIX}{sha256}.json"


class ReleaseReader:
    """Verified reads of one release's files, and the LRU of verified answer bodies."""

    def __init__(self, directory: Path, files: Mapping[str, str], cache_bytes: int = CACHE_BYTES) -> None:
        self.directory = directory
        self.files = files  # every file the manifest and the seal vouch for → sha256
        self.cache_bytes = cache_bytes
        self.cached_bytes = 0
        self.problem = ""  # the first damage a read found ("" while none): the watcher drops the release on it
        self._bodies: OrderedDict[str, bytes] = OrderedDict()
        self._hashed: dict[str, tuple[int, int, int]] = {}  # path → the stamp of the file when its bytes matched

    def read(self, path: str) -> bytes:
        """The bytes of a vouched-for file, hashed now (not cached: callers keep what they parse)."""
        expected = self.files.get(path)
        if expected is None:
            raise ReleaseError(f"release {self.directory.name}: {path} is not in its manifest")
        return self._verified(path, expected)

    def body(self, sha256: str) -> bytes:
        """The answer object named `sha256`: from the LRU, else read, verified against its name and kept."""
        body = self._bodies.get(sha256)
        if body is not None:
            self._bodies.move_to_end(sha256)
            return body
        body = self._verified(object_path(sha256), sha256)
        self._keep(sha256, body)
        return body

    def _keep(self, sha256: str, body: bytes) -> None:
        if len(body) > self.cache_bytes // 4:  # one huge answer must not flush the whole hot set
            return
        self._bodies[sha256] = body
        self.cached_bytes += len(body)
        while self.cached_bytes > self.cache_bytes:
            _, dropped = self._bodies.popitem(last=False)
            self.cached_bytes -= len(dropped)

    def _verified(self, path: str, expected: str) -> bytes:
        """The file's bytes, hashed unless this very file (inode, size, ctime) was hashed before: an answer too
        large for the LRU is then read again without being hashed again; any write moves its ctime."""
        try:
            with open(self.directory / path, "rb") as handle:
                found = os.fstat(handle.fileno())
                data = handle.read()
        except OSError as exc:
            raise self._damaged(f"{path}: missing or unreadable") from exc
        stamp = (found.st_ino, found.st_size, found.st_ctime_ns)
        if self._hashed.get(path) != stamp:
            if len(data) != found.st_size or sha256_hex(data) != expected:
                raise self._damaged(f"{path}: sha256 does not match the manifest")
            self._hashed[path] = stamp
        return data

    def _damaged(self, problem: str) -> ReleaseDamaged:
        self.problem = self.problem or problem
        return ReleaseDamaged(f"release {self.directory.name}: {problem}")


class Answers(Mapping[str, Answer]):
    """Canonical request → Answer, the body read through the reader when asked for (routes.json in memory)."""

    def __init__(self, routes: Mapping[str, Mapping], reader: ReleaseReader) -> None:
        # the ETag built once: a 304 needs nothing else
        self._routes = {
            key: Route(route["status"], route["sha256"], f'"{route["sha256"]}"') for key, route in routes.items()
        }
        self._reader = reader

    def __getitem__(self, key: str) -> Answer:
        return self.answer(self._routes[key])

    def route(self, key: str) -> Route | None:  # the GET hot path: one dict lookup
        return self._routes.get(key)

    def answer(self, route: Route) -> Answer:
        """The answer of a route, its body read (and verified when first read)."""
        return Answer(route.status, self._reader.body(route.sha256), route.etag)

    def get(self, key: str, default: Answer | None = None) -> Answer | None:  # type: ignore[override]  # one default type
        route = self._routes.get(key)
        return default if route is None else self.answer(route)

    def __contains__(self, key: object) -> bool:
        return key in self._routes

    def __iter__(self) -> Iterator[str]:
        return iter(self._routes)

    def __len__(self) -> int:
        return len(self._routes)


class Artifacts(Mapping[str, PackArtifact]):
    """13f-copycat artifacts by version, each read, verified and parsed when first used, then kept (each is a
    PackArtifact: its bytes match the sha256 the manifest vouches for, and the publish validated it)."""

    def __init__(self, reader: ReleaseReader, paths: dict[str, str]) -> None:
        self._reader = reader
        self._paths = paths  # version → its file in the release
        self._loaded: dict[str, PackArtifact] = {}

    def __getitem__(self, version: str) -> PackArtifact:
        artifact = self._loaded.get(version)
        if artifact is None:
            artifact = self._loaded[version] = _kept(self._reader.read(self._paths[version]))
        return artifact

    def read(self, version: str) -> PackArtifact:
        """A version's artifact read, verified and parsed, and not kept (for what is derived from it once)."""
        parsed: PackArtifact = orjson.loads(self._reader.read(self._paths[version]))
        return parsed

    def __contains__(self, version: object) -> bool:
        return version in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


def _kept(body: bytes) -> PackArtifact:
    """An artifact parsed for the rest of the process: its million objects are acyclic JSON and never freed
    while the release is served, so the cyclic collector neither runs while they are made (at 500 managers
    it doubled the load of the seven older artifacts that a first compareEthos of a subset reads) nor scans
    them afterwards (they go to the permanent generation, as the release data does at start). What was
    garbage before is collected first, so freezing keeps nothing that was meant to go."""
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        artifact = orjson.loads(body)
        gc.freeze()
    finally:
        if enabled:
            gc.enable()
    return artifact
