"""The releases directory: layout, verification against the manifests, and loading a release to serve.

releases/<id>/                 one immutable release
    manifest.json              {releaseId, asOf, files: {path: sha256}} for every content file
    seal.json                  {releaseId, manifestSha256, files: {path: sha256}} for the files that name
                               the release (routes.json, health and audit answers); written last
    routes.json                canonical request → {status, sha256}
    objects/<sha256>.json      every precomputed answer, content-addressed
    artifacts/13f-copycat/<version>.json.gz   each 13f-copycat version's canonical JSON, gzip (objects.packed_artifact)
    data/release.json, data/ledger.json
releases/current -> <id>       the promoted release, swapped atomically with os.replace
releases/.gates/<id>.json      the verdict of the gates a publish asked for that release (builder.review.gates)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict, TypeVar

import click
import orjson

from builder.api.contract import BY_ID
from builder.api.data import ReleaseData
from builder.api.methods import ARTIFACT_SUFFIX as ARTIFACT_SUFFIX  # the layout names the files answers cite
from builder.api.methods import ARTIFACTS as ARTIFACTS
from builder.api.methods import artifact_file as artifact_file
from builder.api.methods import facts_of
from builder.errors import ReleaseError
from builder.release.objects import CACHE_BYTES, Answers, Artifacts, ReleaseReader, stored_artifact_file
from builder.research.methods.audit import ReleaseIdentity

CURRENT = "current"
DEFAULT_RELEASES = Path("releases")  # where every command looks when --releases is not given
# The --releases option of every command that reads or writes releases.
RELEASES_OPTION = click.option(
    "--releases",
    "releases",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEFAULT_RELEASES,
    show_default=True,
    help="Directory holding the releases and the `current` link.",
)
MANIFEST = "manifest.json"
SEAL = "seal.json"
ROUTES = "routes.json"
INDEX = "data/release.json"
LEDGER = "data/ledger.json"
STAGING_PREFIX = ".staging-"
Read = TypeVar("Read")
GATE_VERDICTS = ".gates"  # beside the releases, a dot-directory: never taken for a release


@dataclass(frozen=True, slots=True)
class LoadedRelease:
    """A release whose manifest and seal check out; its other files are read and verified when first used."""

    release_id: str
    directory: Path
    data: ReleaseData
    answers: Answers  # canonical request → answer, bodies through the reader's bounded LRU
    reader: ReleaseReader  # knows every vouched-for file (path → sha256) and the first damage a read found


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
    return sorted(
        p.name for p in releases.iterdir() if p.is_dir() and not p.is_symlink() and not p.name.startswith(".")
    )


class Manifest(TypedDict):
    """manifest.json: the release's id and as-of, and the sha256 of every content file."""

    releaseId: str
    asOf: str
    files: dict[str, str]


class Seal(ReleaseIdentity):
    """seal.json, written last: the release's identity and the sha256 of the files that name it."""

    files: dict[str, str]


def _read_json(directory: Path, name: str, _shape: type[Read]) -> Read:
    """The file `name` of a release, parsed as the shape it is written in (what it holds is checked by its reader)."""
    try:
        found: Read = orjson.loads((directory / name).read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise ReleaseError(f"release {directory.name}: {name} is missing or unreadable") from exc
    return found


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
        manifest, seal = _read_json(directory, MANIFEST, Manifest), _read_json(directory, SEAL, Seal)
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
    checked = sorted(expected.keys() & present)
    for path, sha256 in zip(checked, sha256_files([directory / path for path in checked]), strict=True):
        if sha256 != expected[path]:
            problems.append(f"{path}: sha256 does not match the manifest")
    return problems


def sha256_files(paths: list[Path]) -> list[str]:
    """The sha256 of each file, on every core: reading and hashing release the interpreter lock. (A 2.2 GB
    release: 1.8 s against 2.35 s in one thread on 2 cores; a source tree's 40 KB files hash faster in one.)"""
    if len(paths) < 64:
        return [_sha256_file(path) for path in paths]
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        return list(pool.map(_sha256_file, paths, chunksize=32))


def _sealed(directory: Path) -> tuple[Manifest, Seal, dict[str, str]]:
    """Manifest, seal and every file with its sha256 (those two included), once the seal vouches for the
    manifest; ReleaseError otherwise. What loading checks eagerly; the rest is checked as it is read."""
    manifest, seal = _read_json(directory, MANIFEST, Manifest), _read_json(directory, SEAL, Seal)
    manifest_sha256 = _sha256_file(directory / MANIFEST)
    if seal.get("manifestSha256") != manifest_sha256:
        raise ReleaseError(f"release {directory.name}: {MANIFEST}: sha256 differs from the one sealed in {SEAL}")
    files = {**manifest.get("files", {}), **seal.get("files", {})}
    return manifest, seal, {**files, MANIFEST: manifest_sha256, SEAL: _sha256_file(directory / SEAL)}


def file_problem(directory: Path, path: str, sha256: str) -> str:
    """Why one file of a release is not the one vouched for ("" when it is)."""
    try:
        return "" if _sha256_file(directory / path) == sha256 else f"{path}: sha256 does not match the manifest"
    except OSError:
        return f"{path}: missing or unreadable"


def prepare(release: LoadedRelease) -> None:
    """Read now what a first POST would wait for: the latest artifact whole (every POST reads it), the policy's facts
    of its whole book (every validatePolicy reads them) and the holdings of every older version (a compareEthos reads
    their streaks), those without keeping the artifacts. ReleaseError when one is damaged."""
    data = release.data
    if not data.versions:
        return
    facts_of(data, data.versions[-1])  # the latest artifact read, verified, parsed and kept, and its book's facts
    artifacts = data.artifacts
    read = artifacts.read if isinstance(artifacts, Artifacts) else artifacts.__getitem__
    for version in data.versions[:-1]:
        data.holdings(version, read)


def load_release(directory: Path, cache_bytes: int = CACHE_BYTES) -> LoadedRelease:
    """A release ready to serve, its manifest and seal checked; ReleaseError naming the first problem.

    Only the route index, the release index and the OpenAPI document are read now, each verified, so start-up
    and memory do not grow with the release; answers and artifacts are verified as they are first read (`ras serve`
    reads every artifact before it serves the release: server.watch).
    """
    manifest, seal, files = _sealed(directory)
    reader = ReleaseReader(directory, files, cache_bytes)
    index = orjson.loads(reader.read(INDEX))
    answers = Answers(orjson.loads(reader.read(ROUTES)), reader)
    openapi_key = BY_ID["getOpenApiDocument"].request_key({})
    openapi = orjson.loads(answers[openapi_key].body) if openapi_key in answers else None
    identity: ReleaseIdentity = {"releaseId": manifest["releaseId"], "manifestSha256": seal["manifestSha256"]}
    artifacts = Artifacts(
        index["copycat"]["versions"], lambda version: reader.read(stored_artifact_file(version, files.__contains__))
    )
    data = ReleaseData(index, artifacts, identity, openapi)
    return LoadedRelease(manifest["releaseId"], directory, data, answers, reader)
