"""The inputs of a publish and of its answers, as digests: what was built from the same inputs is not built again.

A build is a function of the source tree's bytes, the `--as-of` date, the builder's code and the promoted
release (its ledger of versions). After each publish the digest of those inputs, with the new release as
the promoted one, is kept in `releases/.cache/publish.json`; the next publish with the same digest finds
the release it would build already promoted, and stops after checking it.

Finer grained, each artifact (research.artifact.artifact_inputs: the files behind its quarter's books) and each
answer whose operation names its inputs (`Operation.inputs`: a diff's two artifacts and their as-of dates)
gets a fingerprint of them and of the code; `releases/.cache/answers/<release id>.json` keeps the
fingerprints of each release built here (`ras build` or `ras publish`). A publish takes from the promoted
release each artifact and answer whose fingerprint is unchanged instead of computing it (after a new
quarter: every older quarter's artifact, and the diffs between quarters both releases hold). Deleting the
records only costs the computing.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Mapping
from datetime import date
from itertools import chain
from pathlib import Path
from typing import TypedDict

import orjson

import builder
from builder.canonical import canonical_json, sha256_hex
from builder.cores import forked_map
from builder.errors import at_path, escaped
from builder.release.objects import RouteEntry, artifact_of, stored_artifact_file
from builder.release.store import GATE_VERDICTS, MANIFEST, ROUTES
from builder.research.artifact import ArtifactInputs, Reader
from builder.research.schema import PackArtifact
from builder.sources.files import relative, walk

TEMPORARY_PREFIX = ".tmp-"  # a record being written: `.tmp-<name>-<pid>`, removed by the next publish if left
RECORD = Path(".cache") / "publish.json"  # beside the releases, in the dot-directory `ras releases` ignores
ANSWERS = Path(".cache") / "answers"  # <release id>.json: the fingerprints of that release's answers
_CODE = Path(builder.__file__).parent
_SKIPPED_DIRECTORIES = frozenset({"__pycache__"})
HASHED_TOGETHER = 512  # files a process hashes at a time (a 13F folder holds 20)


SourceTree = list[tuple[str, str]]  # (relative path, sha256) of every file of a source tree, sorted


def source_tree(source: Path, workers: int = 1) -> SourceTree:
    """Every file of the source tree with its sha256, hashed on `workers` processes (at 2,000 managers 42,000 files,
    1.6 GB: a core hashes them in 3 s from the page cache, in 9-26 s from the disk)."""
    return _tree(source.resolve(), workers=workers)


def inputs_digest(tree: SourceTree, as_of: date | None, promoted: str | None, checks: Mapping[str, object]) -> str:
    """sha256 over every file of the source tree, the builder's code, the as-of date, the promoted id and the
    publish's checks (a stricter `--max-unmapped-value` must run its check again)."""
    digest = hashlib.sha256()
    digest.update(
        orjson.dumps(
            {"asOf": as_of and as_of.isoformat(), "promoted": promoted, "checks": dict(checks), "code": code_digest()}
        )
    )
    for name, sha256 in tree:  # a name that is not UTF-8 still counts (the build then refuses it)
        digest.update(f"source\0{name}\0{sha256}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def recorded_release(releases: Path, digest: str) -> str | None:
    """The release the last publish made from inputs with this digest, if that is what was recorded."""
    try:
        record = orjson.loads((releases / RECORD).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(record, dict) or record.get("inputs") != digest:
        return None
    release_id = record.get("releaseId")
    return release_id if isinstance(release_id, str) else None


def record_inputs(releases: Path, digest: str, release_id: str) -> str:
    """Keep the digest of the inputs that build `release_id` when it is the promoted release; a warning ("" if
    none): the record only saves the next publish its work, so failing to write it fails nothing."""
    return write_record(releases / RECORD, {"inputs": digest, "releaseId": release_id})


def write_record(path: Path, record: Mapping[str, object]) -> str:
    """Replace a cache record beside the releases atomically (a reader sees the old one or the new one); a
    warning naming the file when it cannot be written ("" when written). Its temporary file never stays."""
    temporary = path.with_name(f"{TEMPORARY_PREFIX}{path.name}-{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with at_path(temporary):
            temporary.write_bytes(orjson.dumps(record))
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        return f"{escaped(path)}: not written ({exc.strerror}); the next publish only works longer"
    return ""


def remove_temporaries(releases: Path) -> list[str]:
    """Remove the records' (and gate verdicts') temporary files a killed publish left (under the releases lock)."""
    found = [
        path
        for folder in (releases / RECORD.parent, releases / ANSWERS, releases / GATE_VERDICTS)
        for path in (folder.glob(f"{TEMPORARY_PREFIX}*") if folder.is_dir() else ())
    ]
    for path in found:
        path.unlink(missing_ok=True)
    return [path.relative_to(releases).as_posix() for path in found]


@functools.cache
def code_digest() -> str:
    """sha256 over the builder's files: an answer computed by other code is never taken for this code's."""
    digest = hashlib.sha256()
    for name, sha256 in _tree(_CODE, _SKIPPED_DIRECTORIES):
        digest.update(f"{name}\0{sha256}\n".encode())
    return digest.hexdigest()


class ReuseRecord(TypedDict):
    """What a publish keeps for the next one (ANSWERS/<release id>.json): the fingerprint of each answer and artifact
    it made, with the code that made them."""

    releaseId: str
    code: str
    answers: dict[str, str]  # request key → fingerprint of its inputs
    artifacts: dict[str, str]  # fingerprint of an artifact's inputs → its version id


class Reuse:
    """What the promoted release's build lends this one: the answers and artifacts whose inputs are unchanged."""

    def __init__(self, releases: Path, previous: Path | None) -> None:
        self.releases, self.previous = releases, previous
        self.answers: dict[str, str] = {}  # request key → fingerprint, for the release being built
        self.artifacts: list[str] = []  # each artifact's fingerprint, in version order
        self._record: ReuseRecord | None = None
        self._routes: dict[str, RouteEntry] = {}
        self._files: dict[str, str] = {}
        if previous is None:
            return
        try:
            record: ReuseRecord = orjson.loads((releases / ANSWERS / f"{previous.name}.json").read_bytes())
            whole = isinstance(record["answers"], dict) and isinstance(record["artifacts"], dict)
            if whole and record["releaseId"] == previous.name and record["code"] == code_digest():
                self._routes = orjson.loads((previous / ROUTES).read_bytes())
                self._files = orjson.loads((previous / MANIFEST).read_bytes())["files"]
                self._record = record
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
            self._record = None  # no usable record: everything is computed

    def reused_route(self, key: str, inputs: object) -> RouteEntry | None:
        """Note the answer's fingerprint; the promoted release's route for `key` if its inputs were the same."""
        fingerprint = self.answers[key] = _fingerprint(inputs, key)
        if self._record is None or self._record["answers"].get(key) != fingerprint:
            return None
        return self._routes.get(key)

    def artifact(self, inputs: ArtifactInputs) -> Reader | None:
        """Note the artifact's fingerprint; where the promoted release holds an artifact of the same inputs, what reads
        it (intact, else None). The build workers call it, each for its quarter: reading and decoding an artifact costs
        about what building it does, so the versions a new quarter leaves unchanged are read on every core."""
        fingerprint = _fingerprint(inputs)
        self.artifacts.append(fingerprint)
        version = self._record["artifacts"].get(fingerprint) if self._record is not None else None
        if version is None or self.previous is None:
            return None
        path = stored_artifact_file(version, self._files.__contains__)
        if path not in self._files:
            return None
        return functools.partial(_intact_artifact, self.previous / path, self._files[path])

    def record(self, release_id: str, versions: list[str]) -> str:
        """Keep the fingerprints of `release_id`'s answers and artifacts for the next publish (only a cache: a
        warning, "" when written)."""
        artifacts = dict(zip(self.artifacts, versions, strict=True))
        record: ReuseRecord = {
            "releaseId": release_id,
            "code": code_digest(),
            "answers": self.answers,
            "artifacts": artifacts,
        }
        return write_record(self.releases / ANSWERS / f"{release_id}.json", record)


def _intact_artifact(path: Path, sha256: str) -> PackArtifact | None:
    """The artifact of a promoted release's file, without its version id (the release assigns ids: the same content,
    the same id); None when the file is gone or its bytes are not those its manifest names."""
    try:
        body = path.read_bytes()
    except OSError:
        return None
    if sha256_hex(body) != sha256:
        return None
    return {**artifact_of(body), "versionId": ""}


def _fingerprint(*inputs: object) -> str:
    return sha256_hex(canonical_json([code_digest(), *inputs]))


def _tree(root: Path, skipped: frozenset[str] = frozenset(), workers: int = 1) -> list[tuple[str, str]]:
    """(relative path, sha256) of every file the source readers may see under root: dot-names are skipped as
    they skip them, links to folders named, not followed. Hashed in shares of HASHED_TOGETHER files, one process
    per worker."""
    paths = list(walk(root, skipped))
    shares = [paths[start : start + HASHED_TOGETHER] for start in range(0, len(paths), HASHED_TOGETHER)]
    hashed = forked_map(lambda share: ["link" if path.is_dir() else _sha256(path) for path in share], shares, workers)
    return sorted(zip((relative(path, root) for path in paths), chain.from_iterable(hashed), strict=True))


def _sha256(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"  # the build itself reports it; here it only has to differ
