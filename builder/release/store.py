"""The releases directory: layout, verification against the manifests, and loading a release to serve.

releases/<id>/                 one immutable release
    manifest.json              {releaseId, asOf, files: {path: sha256}} for every content file
    seal.json                  {releaseId, manifestSha256, files: {path: sha256}} for the files that name
                               the release (routes.json, health and audit answers); written last
    routes.json                canonical request → {status, sha256}
    objects/<sha256>.json      every precomputed answer, content-addressed
    artifacts/13f-copycat/<version>.json, data/release.json, data/ledger.json
releases/current -> <id>       the promoted release, swapped atomically with os.replace
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from builder.api.contract import BY_ID
from builder.api.data import ReleaseData
from builder.canonical import strong_etag
from builder.errors import ReleaseError

CURRENT = "current"
MANIFEST = "manifest.json"
SEAL = "seal.json"
ROUTES = "routes.json"
INDEX = "data/release.json"
LEDGER = "data/ledger.json"
STAGING_PREFIX = ".staging-"


@dataclass(frozen=True, slots=True)
class Answer:
    """One precomputed answer, ready to send."""

    status: int
    body: bytes
    etag: str


@dataclass(frozen=True, slots=True)
class LoadedRelease:
    release_id: str
    directory: Path
    data: ReleaseData
    answers: dict[str, Answer]  # canonical request key → answer


def object_path(sha256: str) -> str:
    return f"objects/{sha256}.json"


def current_release(releases: Path) -> Path | None:
    """The promoted release directory, or None when nothing was promoted yet."""
    link = releases / CURRENT
    if not link.is_symlink() and not link.exists():
        return None
    target = link.resolve()
    return target if target.is_dir() else None


def list_releases(releases: Path) -> list[str]:
    if not releases.is_dir():
        return []
    return sorted(p.name for p in releases.iterdir() if p.is_dir() and not p.is_symlink() and not p.name.startswith("."))


def _read_json(directory: Path, name: str) -> dict:
    try:
        return orjson.loads((directory / name).read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise ReleaseError(f"release {directory.name}: {name} is missing or unreadable") from exc


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _walk(directory: Path) -> Iterator[str]:
    for root, _dirs, files in os.walk(directory):
        for name in files:
            yield (Path(root) / name).relative_to(directory).as_posix()


def verify_release(directory: Path) -> list[str]:
    """Every integrity problem of a release: a file missing, altered or not vouched for by a manifest."""
    try:
        manifest, seal = _read_json(directory, MANIFEST), _read_json(directory, SEAL)
    except ReleaseError as exc:
        return [str(exc)]
    problems = []
    if seal.get("manifestSha256") != _sha256_file(directory / MANIFEST):
        problems.append(f"{MANIFEST}: sha256 differs from the one sealed in {SEAL}")
    expected = {**manifest.get("files", {}), **seal.get("files", {})}
    present = set(_walk(directory)) - {MANIFEST, SEAL}
    for path in sorted(expected.keys() - present):
        problems.append(f"{path}: missing")
    for path in sorted(present - expected.keys()):
        problems.append(f"{path}: not in the manifest")
    for path in sorted(expected.keys() & present):
        if _sha256_file(directory / path) != expected[path]:
            problems.append(f"{path}: sha256 does not match the manifest")
    return problems


def load_release(directory: Path) -> LoadedRelease:
    """A release verified file by file and held in memory, or ReleaseError naming the first problem."""
    problems = verify_release(directory)
    if problems:
        raise ReleaseError(f"release {directory.name} fails verification: {problems[0]}")
    manifest, seal = _read_json(directory, MANIFEST), _read_json(directory, SEAL)
    index = _read_json(directory, INDEX)
    artifacts = {
        version: _read_json(directory, f"artifacts/13f-copycat/{version}.json") for version in index["copycat"]["versions"]
    }
    identity = {"releaseId": manifest["releaseId"], "manifestSha256": seal["manifestSha256"]}
    answers = {}
    for key, route in _read_json(directory, ROUTES).items():
        body = (directory / object_path(route["sha256"])).read_bytes()
        answers[key] = Answer(route["status"], body, strong_etag(body))
    openapi = answers.get(BY_ID["getOpenApiDocument"].request_key({}))
    data = ReleaseData(index, artifacts, identity, orjson.loads(openapi.body) if openapi else None)
    return LoadedRelease(manifest["releaseId"], directory, data, answers)
