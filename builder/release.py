"""Build a release in two phases (everything in memory, then one directory written and renamed) and promote it."""

from __future__ import annotations

import fcntl
import gc
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import orjson

from builder.api import ApiError, canonical_json, failure, sha256_hex, success
from builder.contract import OPERATIONS, Operation
from builder.errors import PublishError, ReleaseError
from builder.release_data import ReleaseData, assemble
from builder.research.versions import content_digest
from builder.research.previews import build_previews
from builder.sources.tree import read_sources
from builder.store import (
    CURRENT, INDEX, LEDGER, MANIFEST, ROUTES, SEAL, STAGING_PREFIX, current_release, object_path, verify_release,
)

Progress = Callable[[str], None]
LOCK = ".lock"


@dataclass(frozen=True, slots=True)
class Rendered:
    status: int
    body: bytes


def render(operation: Operation, data: ReleaseData, params: dict) -> Rendered:
    """One answer of an operation: the envelope bytes and its status."""
    try:
        payload = operation.handler(data, params)
        return Rendered(200, canonical_json(success(operation.id, payload) if operation.envelope else payload))
    except ApiError as error:
        return Rendered(error.status, canonical_json(failure(operation.id, error)))


def render_all(data: ReleaseData, sealed: bool) -> dict[str, Rendered]:
    """Every precomputed GET answer of one layer, by canonical request key; a key twice is a build error."""
    answers: dict[str, Rendered] = {}
    for operation in OPERATIONS:
        if operation.method != "GET" or operation.sealed != sealed or operation.precompute is None:
            continue
        for params in operation.precompute(data):
            key = operation.request_key(params)
            if key in answers:
                raise PublishError(f"two answers for one request: {key}")
            answers[key] = render(operation, data, params)
    return answers


@dataclass(frozen=True, slots=True)
class Built:
    """Phase one's result: every file of the release, in memory, before anything is written."""

    release_id: str
    files: dict[str, bytes]  # relative path → bytes, manifest and seal included
    routes: int
    reused_versions: int


def build_release(source: Path, releases: Path, as_of: date | None, progress: Progress) -> Built:
    """Read, validate and render everything in memory (phase one)."""
    progress(f"reading sources from {source.name or source}")
    started = time.perf_counter()
    sources, reports = read_sources(source, as_of)
    for line in reports:
        progress(line)
    progress(f"read sources in {_seconds(started)}")
    started = time.perf_counter()
    previous = current_release(releases)
    ledger = _read_ledger(previous)
    data, new_ledger = assemble(sources, ledger, build_previews(sources.previews, as_of=sources.as_of))
    _refuse_reused_ids(previous, data)
    progress(f"built {len(data.versions)} versions of 13f-copycat ({data.versions[0]} … {data.versions[-1]}) "
             f"in {_seconds(started)}")
    started = time.perf_counter()
    with _frozen_heap():
        content = render_all(data, sealed=False)
    files = {
        INDEX: canonical_json(data.index),
        LEDGER: canonical_json(new_ledger),
        **{f"artifacts/13f-copycat/{v}.json": canonical_json(a) for v, a in data.artifacts.items()},
        **{object_path(sha256_hex(r.body)): r.body for r in content.values()},
    }
    hashes = {path: sha256_hex(body) for path, body in sorted(files.items())}
    release_id = f"{data.index['asOf']}-{sha256_hex(canonical_json(hashes))[:12]}"
    manifest = canonical_json({"releaseId": release_id, "asOf": data.index["asOf"], "files": hashes})
    sealed_data = data.with_identity({"releaseId": release_id, "manifestSha256": sha256_hex(manifest)})
    with _frozen_heap():
        sealed = render_all(sealed_data, sealed=True)
    seal_files = {object_path(sha256_hex(r.body)): r.body for r in sealed.values()}
    routes = {key: {"status": r.status, "sha256": sha256_hex(r.body)} for key, r in {**content, **sealed}.items()}
    seal_files[ROUTES] = canonical_json(routes)
    seal = {"releaseId": release_id, "manifestSha256": sha256_hex(manifest),
            "files": {p: sha256_hex(b) for p, b in sorted(seal_files.items()) if p not in hashes}}
    files.update(seal_files)
    files[MANIFEST] = manifest
    files[SEAL] = canonical_json(seal)
    size = sum(len(body) for body in files.values())
    progress(f"rendered {len(routes)} answers ({len(content)} content, {len(sealed)} sealed) into {len(files)} files "
             f"({size / 1e6:.1f} MB) in {_seconds(started)}")
    reused = sum(1 for entry in ledger if entry["versionId"] in data.artifacts)
    return Built(release_id, files, len(routes), reused)


@contextmanager
def _frozen_heap() -> Iterator[None]:
    """Keep what exists now (the release data) out of the cyclic collector's passes while rendering.

    At 100 managers those passes over millions of live dicts cost 3× the view computations they interrupt.
    """
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _seconds(started: float) -> str:
    return f"{time.perf_counter() - started:.1f} s"


def _read_ledger(previous: Path | None) -> list[dict]:
    if previous is None:
        return []
    try:
        return orjson.loads((previous / LEDGER).read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise ReleaseError(f"the promoted release {previous.name} has no readable version ledger") from exc


def _refuse_reused_ids(previous: Path | None, data: ReleaseData) -> None:
    """A published version id always names the same content: refuse to publish it with other content."""
    if previous is None:
        return
    for version, artifact in data.artifacts.items():
        published = previous / "artifacts" / "13f-copycat" / f"{version}.json"
        if published.exists() and content_digest(orjson.loads(published.read_bytes())) != content_digest(artifact):
            raise PublishError(f"version {version} is published with other content; refusing to re-use its id")


@contextmanager
def releases_lock(releases: Path) -> Iterator[None]:
    """One writer at a time; a lock held by a killed process is released by the kernel."""
    releases.mkdir(parents=True, exist_ok=True)
    with open(releases / LOCK, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise PublishError(f"another publish is writing to {releases}") from exc
        yield


def clean_staging(releases: Path) -> list[str]:
    """Remove what killed publishes left behind (only called under the lock)."""
    removed = []
    for entry in releases.iterdir():
        if entry.name.startswith(STAGING_PREFIX) or entry.name.startswith(".current-"):
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
            removed.append(entry.name)
    return removed


def write_release(built: Built, releases: Path, progress: Progress) -> Path:
    """Phase two: write a staging directory, fsync it, rename it into place. Idempotent for the same release.

    A file whose bytes the promoted release already holds under the same path (content-addressed objects,
    unchanged artifacts) is hard-linked from it instead of written again; where linking fails, it is written.
    """
    started = time.perf_counter()
    target = releases / built.release_id
    if target.exists():
        if verify_release(target):
            raise PublishError(f"release {built.release_id} exists but fails verification; remove it and publish again")
        progress(f"release {built.release_id} already written; reusing it ({len(built.files)} files)")
        return target
    previous = current_release(releases)
    reusable = _reusable(built, previous)
    staging = releases / f"{STAGING_PREFIX}{built.release_id}-{os.getpid()}"
    staging.mkdir()
    progress(f"writing {len(built.files)} files to {staging.name} ({len(reusable)} may be linked from {previous.name if previous else '-'})")
    reused = 0
    for path, body in sorted(built.files.items(), key=lambda item: item[0] in (MANIFEST, SEAL)):
        destination = staging / path
        destination.parent.mkdir(parents=True, exist_ok=True)
        if path in reusable and _link(previous / path, destination, reusable[path]):
            reused += 1
            continue
        with open(destination, "wb") as handle:
            handle.write(body)
            handle.flush()
            os.fsync(handle.fileno())
    _fsync_directory(staging)
    os.rename(staging, target)
    _fsync_directory(releases)
    progress(f"wrote {len(built.files)} files ({reused} reused from the previous release) to release "
             f"{built.release_id} in {_seconds(started)}")
    return target


def _reusable(built: Built, previous: Path | None) -> dict[str, str]:
    """Paths (→ sha256) whose bytes the previous release's manifest or seal vouches for with the same sha256."""
    if previous is None:
        return {}
    try:
        before = {**orjson.loads((previous / MANIFEST).read_bytes())["files"],
                  **orjson.loads((previous / SEAL).read_bytes())["files"]}
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return {}  # nothing to reuse from a release we cannot read; every file is written
    now = {**orjson.loads(built.files[MANIFEST])["files"], **orjson.loads(built.files[SEAL])["files"]}
    return {path: sha256 for path, sha256 in now.items() if before.get(path) == sha256}


def _link(source: Path, destination: Path, sha256: str) -> bool:
    """Hard-link an identical file of the previous release, re-hashed first (an altered one is written anew)."""
    try:
        if sha256_hex(source.read_bytes()) != sha256:
            return False
        os.link(source, destination)
    except OSError:
        return False
    return True


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
    _fsync_directory(releases)


def _fsync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def publish(source: Path, releases: Path, as_of: date | None, progress: Progress) -> str:
    """Build, write and promote; a failure anywhere leaves `current` on the previous complete release."""
    with releases_lock(releases):
        for name in clean_staging(releases):
            progress(f"removed {name} left by an interrupted publish")
        built = build_release(source, releases, as_of, progress)
        write_release(built, releases, progress)
        started = time.perf_counter()
        promote(releases, built.release_id)
    progress(f"verified and promoted {built.release_id} in {_seconds(started)}")
    return built.release_id
