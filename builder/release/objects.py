"""Reading a loaded release's files on demand, each checked against the sha256 that vouches for it.

Loading checks only the manifest and the seal; every other file is read when first needed and hashed: a
content-addressed object against its own name, any other file against its manifest or seal entry. A file
that is missing or differs raises ReleaseDamaged, so a damaged release answers 503, never wrong bytes.
Verified answer bodies stay in a bytes-bounded LRU, so hot answers are served from memory and the memory
held grows with the traffic's hot set, not with the release.
"""

from __future__ import annotations

import gc
import gzip
import json
import os
import pickle
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple, TypedDict, TypeVar

from builder.api.methods import ARTIFACT_SUFFIX, artifact_file
from builder.canonical import sha256_hex
from builder.errors import ReleaseError
from builder.recent import Recent
from builder.research.schema import PackArtifact

# Verified bodies kept in memory. The fixture's whole answer set (~8 MB) fits; at 500 managers the bound keeps
# a worker within 2× the fixture's resident memory (bench.memory). A body over a quarter of it is never kept
# (500 managers' 33 MB `latest`): it is read per request, its hash checked once (see _verified).
CACHE_BYTES = 24 * 1024 * 1024
OBJECT_PREFIX = "objects/"
# Artifacts are stored as gzip at level 4: on one 2,000-manager artifact (122.4 MB of JSON) 16.14 MB in 0.77 s, against
# 15.31 MB in 1.46 s at level 6 and 14.91 MB in 3.95 s at level 9 (docs/performance.md); each build worker compresses one
# a quarter, on the publish's path.
ARTIFACT_LEVEL = 4
GZIP_WBITS = 31  # zlib's window bits for one gzip member
GZIP_MAGIC = b"\x1f\x8b"
LEGACY_SUFFIX = ".json"  # an artifact file of a release published before they were stored compressed
# What a publish's process keeps of artifacts decoded, at most, and never fewer than the two a diff reads whole.
# Objects parsed from JSON take ~4.4× it (133 MB for the 30.6 MB of a 500-manager version); decoded from the held
# form, which keeps the strings the build shared, 3.0× (92 MB): the budget keeps the larger figure, a margin.
DECODED_BUDGET = 640 << 20
DECODED_PER_BYTE = 4.5
# How a publish holds an artifact to decode it (`held_artifact`): pickled, zlib level 1. One 500-manager version
# (30.6 MB of JSON; 3.8 MB as its file) is 3.6 MB, and decodes in 0.16–0.17 s into 92 MB of objects, against
# 0.34 s and 125 MB from its file: the pickle keeps the strings the build shared (docs/performance.md).
HELD_LEVEL = 1


@dataclass(frozen=True, slots=True)
class Answer:
    """One precomputed answer, ready to send."""

    status: int
    body: bytes
    etag: str


class RouteEntry(TypedDict):
    """One precomputed answer as routes.json names it: its status and the sha256 of its body."""

    status: int
    sha256: str


class Route(NamedTuple):
    """What the route index holds of one precomputed answer, before its body is read: enough for a 304."""

    status: int
    sha256: str  # of the body, which names its object file
    etag: str  # the strong ETag of those bytes


class ReleaseDamaged(ReleaseError):
    """A file of a loaded release is missing or no longer has the bytes its sha256 vouches for."""


def object_path(sha256: str) -> str:
    return f"{OBJECT_PREFIX}{sha256}.json"


def _bytes(_sha256: str, body: bytes) -> int:
    return len(body)


class ReleaseReader:
    """Verified reads of one release's files, and the LRU of verified answer bodies."""

    def __init__(self, directory: Path, files: Mapping[str, str], cache_bytes: int = CACHE_BYTES) -> None:
        self.directory = directory
        self.files = files  # every file the manifest and the seal vouch for → sha256
        self.problem = ""  # the first damage a read found ("" while none): the watcher drops the release on it
        # one huge answer must not flush the whole hot set: a body over a quarter of the bytes is read each time
        self._bodies: Recent[str, bytes] = Recent(budget=cache_bytes, weight=_bytes, largest=cache_bytes // 4)
        self._hashed: dict[str, tuple[int, int, int]] = {}  # path → the stamp of the file when its bytes matched

    def read(self, path: str) -> bytes:
        """The bytes of a vouched-for file, hashed now (not cached: callers keep what they parse)."""
        expected = self.files.get(path)
        if expected is None:
            raise ReleaseError(f"release {self.directory.name}: {path} is not in its manifest")
        return self._verified(path, expected)

    @property
    def cached_bytes(self) -> int:
        """The bytes of the verified bodies kept."""
        return self._bodies.held

    def body(self, sha256: str) -> bytes:
        """The answer object named `sha256`: from the LRU, else read, verified against its name and kept."""
        body = self._bodies.get(sha256)
        if body is None:
            body = self._verified(object_path(sha256), sha256)
            self._bodies.put(sha256, body)
        return body

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


Value = TypeVar("Value")


class _Keyed(Mapping[str, Value]):
    """A mapping over a known collection of keys (`_keys`), each value made when asked for."""

    _keys: Collection[str]

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


class Answers(_Keyed[Answer]):
    """Canonical request → Answer, the body read through the reader when asked for (routes.json in memory)."""

    def __init__(self, routes: Mapping[str, RouteEntry], reader: ReleaseReader) -> None:
        # the ETag built once: a 304 needs nothing else
        self._routes = self._keys = {
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


class Artifacts(_Keyed[PackArtifact]):
    """13f-copycat artifacts by version, each decoded from its stored bytes (`stored(version)`: a release's file read
    and verified) when first asked for. `keep`: how many stay decoded, the last asked for (a publish: each is 3–4.5× its
    JSON in objects); None keeps every one for the life of the process (ras serve: each is a PackArtifact whose bytes
    match the sha256 the manifest vouches for, validated by the publish). `held`: what a publish decodes instead, the
    form held_artifact gives; it then hands over each version's stored bytes once (`stored`), to write its file."""

    def __init__(
        self,
        versions: Iterable[str],
        stored: Callable[[str], bytes],
        keep: int | None = None,
        held: Callable[[str], bytes] | None = None,
    ) -> None:
        self._keys = list(versions)
        self._stored = stored
        self._held = held
        self.keep = keep
        self._loaded: Recent[str, PackArtifact] = Recent(keep)
        self.decoded = 0  # how many times an artifact was decoded (a publish's LRU is sized by it)

    def __getitem__(self, version: str) -> PackArtifact:
        artifact = self._loaded.get(version)
        if artifact is not None:
            return artifact
        if version not in self:
            raise KeyError(version)
        if self.keep is None:
            artifact = _kept(unpacked_artifact(self._stored(version)))
            self._loaded.put(version, artifact)
            self.decoded += 1
            return artifact
        self._loaded.make_room()  # before decoding: never one more held than kept
        artifact = self.read(version)
        if self.keep > 0:
            self._loaded.put(version, artifact)
        return artifact

    def read(self, version: str) -> PackArtifact:
        """A version's artifact read, verified and decoded, and not kept (for what is derived from it once)."""
        self.decoded += 1
        if self._held is not None:
            artifact: PackArtifact = pickle.loads(zlib.decompress(self._held(version)))
            return artifact
        return artifact_of(self._stored(version))

    def stored(self, version: str) -> bytes:
        """The version's artifact as stored: its canonical JSON, compressed (packed_artifact). A publish's are handed
        over once, to write their files: what it holds after is the `held` form alone."""
        return self._stored(version)


def kept_decoded(size: int) -> int:
    """How many artifacts of `size` canonical bytes a publish keeps decoded: DECODED_BUDGET's worth, at least the 2 a
    diff reads whole (every one at the fixture's size; 4 at 500 managers; 2 at 2,000)."""
    return max(2, int(DECODED_BUDGET // (DECODED_PER_BYTE * max(size, 1))))


def held_artifact(artifact: PackArtifact) -> bytes:
    """How a publish holds a version it decodes (Artifacts `held`): its objects pickled, compressed at HELD_LEVEL.
    Only ever read by the process tree that made it (a pickle is never read from a file)."""
    return zlib.compress(pickle.dumps(artifact, protocol=pickle.HIGHEST_PROTOCOL), HELD_LEVEL)


def packed_artifact(canonical: bytes) -> bytes:
    """An artifact's stored form, in a release and in a publish's memory: its canonical JSON as one gzip member at
    ARTIFACT_LEVEL with no time or name in the header, so the same content is the same bytes on every publish."""
    return gzip.compress(canonical, compresslevel=ARTIFACT_LEVEL, mtime=0)


def unpacked_artifact(stored: bytes) -> bytes:
    """The canonical JSON of a stored artifact (its sha256 is the artifact's: artifactSha256, contentHash); a release
    published before artifacts were stored compressed holds that JSON as it is (JSON never starts with gzip's magic)."""
    return zlib.decompress(stored, wbits=GZIP_WBITS) if stored[:2] == GZIP_MAGIC else stored


def stored_artifact_file(version: str, present: Callable[[str], bool]) -> str:
    """The file holding `version`'s artifact in a release where `present(path)` says which files exist:
    artifact_file, or in a release published before artifacts were stored compressed, its plain `.json`."""
    path = artifact_file(version)
    legacy = path.removesuffix(ARTIFACT_SUFFIX) + LEGACY_SUFFIX
    return legacy if not present(path) and present(legacy) else path


def artifact_path(directory: Path, version: str) -> Path:
    """stored_artifact_file of `version` in the release `directory`, as a path."""
    return directory / stored_artifact_file(version, lambda path: (directory / path).exists())


def artifact_of(stored: bytes) -> PackArtifact:
    """The artifact of its stored bytes: every reader of an artifact file or of a publish's packed artifacts."""
    return _decoded(unpacked_artifact(stored))


def _decoded(canonical: bytes) -> PackArtifact:
    """An artifact's canonical JSON as objects. The standard library's parser builds them as it reads; orjson first
    builds a whole document of its own, so at 500 managers it peaked at 497 MB for the 129 MB of objects of a 30.6 MB
    artifact, against 156 MB here, in the same 0.3 s (the same values: docs/performance.md)."""
    parsed: PackArtifact = json.loads(canonical)
    return parsed


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
        artifact = _decoded(body)
        gc.freeze()
    finally:
        if enabled:
            gc.enable()
    return artifact
