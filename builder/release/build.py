"""Build a release in two phases (builder.release.publish runs them, and promote then moves `current` to it).

Phase one reads and validates the sources and assembles the release data in memory: any problem stops
here, before a byte is written. Phase two renders every answer straight into a staging directory (only
hashes stay in memory), writes the manifest and, last, the seal, and renames the directory into place.
`current` then moves with one os.replace. A release is complete or absent; a killed publish leaves only
a staging directory, which the next publish removes.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from builder.api.contract import OPERATIONS, Operation
from builder.api.data import ReleaseData
from builder.api.methods import artifact_sha256
from builder.api.render import render
from builder.api.wire import Params
from builder.atomic import fsync_directory, staged, sync_filesystem
from builder.canonical import canonical_json, sha256_hex
from builder.cores import forked_map, in_child
from builder.errors import PublishError, SourceError, escaped
from builder.records import Sources
from builder.release.assemble import assemble, checked, documented, warning_lines
from builder.release.inputs import Reuse
from builder.release.ledger import read_ledger, record_ledger
from builder.release.objects import Artifacts, artifact_path, object_path, unpacked_artifact
from builder.release.staging import Share, StagingWriter
from builder.release.store import (
    INDEX,
    LEDGER,
    MANIFEST,
    ROUTES,
    SEAL,
    STAGING_PREFIX,
    Manifest,
    Seal,
    artifact_file,
    current_release,
    verify_release,
)
from builder.research.changes.actions import actions_line
from builder.research.changes.listing import undecided_lines
from builder.research.coverage import common_problem, coverage_lines, quarter_coverage, unmapped_share
from builder.research.methods.audit import ReleaseIdentity
from builder.research.previews.build import build_previews
from builder.research.versions import LedgerEntry
from builder.sources.sec13f.cache import ParseCache
from builder.sources.tree import collector_paused, read_sources

Progress = Callable[[str], None]
PARSE_CACHE = Path(".cache") / "sec13f"  # beside the releases: a dot-directory, so never taken for one
DATASETS_CACHE = Path(".cache") / "sec13f-datasets"  # what each Form 13F data-set zip yields, by its sha256

# A book keyed by CUSIP is still correct but unreadable; past 1% of its value the map is missing real
# names (run `ras securities`), not the odd warrant or delisted line.
DEFAULT_MAX_UNMAPPED = 0.01


def precomputed(data: ReleaseData, sealed: bool) -> Iterable[tuple[Operation, Params]]:
    """Every precomputed request of one layer: GETs, and the POSTs' all-manager views (whose keys are no
    request target, so `ras export` leaves them out)."""
    for operation in OPERATIONS:
        if operation.sealed == sealed and operation.precompute is not None:
            for params in operation.precompute(data):
                yield operation, params


@dataclass(frozen=True, slots=True)
class Asked:
    """What a build is asked for: the source tree, the releases directory, the as-of date (None: the sources'), the
    share of value in unmapped CUSIPs it refuses past, and the processes it reads, builds and renders on."""

    source: Path
    releases: Path
    as_of: date | None = None
    max_unmapped: float = DEFAULT_MAX_UNMAPPED
    workers: int = 1


@dataclass(frozen=True, slots=True)
class Prepared:
    """Phase one's result: the validated release data, before anything is written."""

    asked: Asked
    data: ReleaseData
    ledger: list[LedgerEntry]  # every version id ever assigned in the releases directory, this release's included
    previous: Path | None  # the promoted release, if any
    reuse: Reuse  # what the promoted release's build lends this one


def prepare_release(asked: Asked, progress: Progress) -> Prepared:
    """Phase one: read and validate the sources and assemble the release data, all in memory, the 13F files read
    and the artifacts built on the processes asked for."""
    previous = current_release(asked.releases)

    def read_and_assemble(progress: Progress) -> tuple[ReleaseData, list[LedgerEntry], Reuse, float]:
        # In a process of its own (cores.in_child): the filings' records, and the heap that reading them left,
        # die with it. Only the release data comes back, so the processes forked after (rendering) do not
        # each count 0.9 GB of a 2,000-manager read.
        progress(f"reading sources from {escaped(asked.source.name or asked.source)}")
        started = time.perf_counter()
        sources, reports = read_sources(
            asked.source,
            asked.as_of,
            ParseCache(asked.releases / PARSE_CACHE),
            asked.releases / DATASETS_CACHE,
            asked.workers,
        )
        for line in reports:
            progress(line)
        progress(f"read sources in {seconds(started)}")
        _check_coverage(sources, progress)
        started = time.perf_counter()
        reuse = Reuse(asked.releases, previous)
        previews = build_previews(sources.previews, as_of=sources.as_of)
        with collector_paused():
            data, ledger = assemble(sources, read_ledger(asked.releases), previews, reuse.artifact, asked.workers)
        return data, ledger, reuse, started

    with _stopping("reading the sources and building the artifacts"):
        data, ledger, reuse, started = in_child(read_and_assemble, progress)
    _refuse_reused_ids(previous, data)
    for line in warning_lines(data.index["warnings"]):
        progress(line)
    actions, undecided, unmapped = checked(data)
    data = documented(data)
    progress(actions_line(actions))
    for line in undecided_lines(undecided, "undecided changes (`ras review` lists them)"):
        progress(line)
    report_unmapped(unmapped, asked.max_unmapped, progress)
    lent = sum(1 for version in data.versions if data.pinned.get(("taken", version)))
    taken = f", {lent} taken unchanged from the promoted release" if lent else ""
    progress(
        f"built {len(data.versions)} versions of 13f-copycat ({data.versions[0]} … {data.versions[-1]}){taken} "
        f"in {seconds(started)}"
    )
    return Prepared(asked, data, ledger, previous, reuse)


def write_release(prepared: Prepared, progress: Progress) -> str:
    """Phase two: render every answer into a staging directory (on the processes asked for), seal it and rename it
    into place; its id.

    A failure anywhere removes the staging directory (and the release, if this call renamed it into place):
    what stays is the promoted release as it was, the append-only ledger and caches that are only a saving.
    """
    releases = prepared.asked.releases
    staging = releases / f"{STAGING_PREFIX}{os.getpid()}"
    with staged(staging) as place:
        staging.mkdir()
        release_id, writer = _fill(prepared, StagingWriter(staging, prepared.previous), progress)
        started = time.perf_counter()
        sync_filesystem(staging)  # every file durable before the directory may become a release
        fsync_directory(staging)
        record_ledger(releases, prepared.ledger)  # durable before any release holding the new ids is in place
        warning = prepared.reuse.record(release_id, prepared.data.versions)
        if warning:
            progress(f"warning: {warning}")
        target = releases / release_id
        if target.exists():
            shutil.rmtree(staging)
            if verify_release(target):
                raise PublishError(f"release {release_id} exists but fails verification; remove it and publish again")
            progress(f"release {release_id} already written; reusing it ({len(writer.hashes)} files)")
            return release_id
        place(target)
    progress(
        f"wrote {len(writer.hashes)} files ({writer.reused} reused from the previous release) to release "
        f"{release_id} in {seconds(started)}"
    )
    return release_id


def _fill(prepared: Prepared, writer: StagingWriter, progress: Progress) -> tuple[str, StagingWriter]:
    """Content answers and data files, the manifest, then the answers that name the release, and the seal."""
    started = time.perf_counter()
    data = prepared.data
    routes: dict[str, tuple[int, str]] = {}  # request key → (status, sha256): a dict each only in routes.json
    for version in data.versions:  # first: the rendering processes do not inherit these bytes (Artifacts.stored)
        writer.put(artifact_file(version), _held(data).stored(version))
    with collector_paused():  # the answers and memos are acyclic: at 200 managers its passes were 40 % of rendering
        decoded = _put_answers(writer, data, False, routes, prepared.reuse, prepared.asked.workers)
    writer.put(INDEX, canonical_json(data.index))
    writer.put(LEDGER, canonical_json(prepared.ledger))
    content = dict(sorted(writer.hashes.items()))
    release_id = f"{data.index['asOf']}-{sha256_hex(canonical_json(content))[:12]}"
    manifest = canonical_json(Manifest(releaseId=release_id, asOf=data.index["asOf"], files=content))
    identity: ReleaseIdentity = {"releaseId": release_id, "manifestSha256": sha256_hex(manifest)}
    with collector_paused():
        _put_answers(writer, data.with_identity(identity), True, routes, prepared.reuse)
    writer.put(
        ROUTES, canonical_json({key: {"status": status, "sha256": sha} for key, (status, sha) in routes.items()})
    )
    sealed = {path: sha256 for path, sha256 in sorted(writer.hashes.items()) if path not in content}
    writer.put(MANIFEST, manifest)
    writer.put(SEAL, canonical_json(Seal(**identity, files=sealed)))  # last: a release with a seal is whole
    taken = f", {writer.copied} of them taken unchanged from the promoted release" if writer.copied else ""
    progress(
        f"rendered {len(routes)} answers{taken} on {prepared.asked.workers} processes into {len(writer.hashes)} files ({writer.size / 1e6:.1f} MB) "
        f"in {seconds(started)}, decoding the {len(data.versions)} versions' artifacts {decoded} times"
    )
    return release_id, writer


def _put_answers(
    writer: StagingWriter,
    data: ReleaseData,
    sealed: bool,
    routes: dict[str, tuple[int, str]],
    reuse: Reuse,
    workers: int = 1,
) -> int:
    """Write each answer as its content-addressed object; a request answered twice is a build error. The content
    answers are rendered on `workers` processes, the few that name the release here. Returns how many times the
    processes decoded an artifact (objects.Artifacts: a publish holds them compressed).

    An answer whose inputs are those behind the promoted release's answer is copied from it, not computed.
    """
    requests = list(precomputed(data, sealed))
    if not sealed and len(requests) > 1:
        shares, decoded = _render_on_processes(writer, data, requests, reuse, workers)
    else:
        before = _held(data).decoded
        shares = [_render_requests(writer, data, requests, reuse, range(len(requests)))]
        decoded = _held(data).decoded - before
    for share in shares:
        for key, status, sha256 in share:
            if key in routes:
                raise PublishError(f"two answers for one request: {key}")
            routes[key] = (status, sha256)
    return decoded


def _held(data: ReleaseData) -> Artifacts:
    """A publish's artifacts: held as their stored bytes and decoded when read (release.assemble)."""
    artifacts = data.artifacts
    assert isinstance(artifacts, Artifacts), "a publish holds its artifacts compressed (assemble)"
    return artifacts


Request = tuple[Operation, Params]
Rendered = list[tuple[str, int, str]]  # (request key, status, sha256 of the answer)
MEMO_PARAMS = ("from", "to", "version")  # a request's memos are those of its operation and these (the modes share them)
LATEST = ("latest",)  # the group of the requests that name no version (_groups)


def _render_requests(
    writer: StagingWriter, data: ReleaseData, requests: list[Request], reuse: Reuse, indices: Iterable[int]
) -> Rendered:
    found = []
    for index in indices:
        operation, params = requests[index]
        key = operation.request_key(params)
        earlier = None if operation.inputs is None else reuse.reused_route(key, operation.inputs(data, params))
        if earlier is not None and writer.copy(object_path(earlier["sha256"]), earlier["sha256"]):
            found.append((key, earlier["status"], earlier["sha256"]))
            continue
        rendered = render(operation, data, params)
        sha256 = sha256_hex(rendered.body)
        found.append((key, rendered.status, writer.put(object_path(sha256), rendered.body, sha256)))
    return found


def _render_on_processes(
    writer: StagingWriter, data: ReleaseData, requests: list[Request], reuse: Reuse, workers: int
) -> tuple[list[Rendered], int]:
    """The requests in groups that share their memos (the same operation and version), each group rendered by
    whichever process is free (builder.cores: forked, they share the parent's data copy-on-write) into a writer of
    its own on the same directory, merged into `writer` after. The large memos a group makes are let go after it
    (ReleaseData.scoped); the rest die with each worker. The objects are content-addressed, so the release is the
    same bytes on any count, one included (the groups then render here, in turn). What answers of every kind read
    of a version the build workers computed already (assemble.derived): the processes inherit it."""

    def rendered(group: list[int]) -> tuple[Rendered, Share, int]:
        branch, before = writer.branch(), _held(data).decoded
        with data.scoped():
            found = _render_requests(branch, data, requests, reuse, group)
        return found, branch.share(), _held(data).decoded - before

    kept = _held(data).keep
    groups = _groups(requests, data.versions, len(data.versions) if kept is None else max(1, kept - 2))
    shares, decoded = [], 0
    with _stopping("rendering the answers"):
        done = forked_map(rendered, groups, workers)
    for found, written, decodes in done:
        writer.merge(written)
        shares.append(found)
        decoded += decodes
    return shares, decoded


def _groups(requests: list[Request], versions: list[str], block: int) -> list[list[int]]:
    """The requests grouped by what their memos are made of (operation and versions: the modes share them), largest
    group first: a group is rendered by one process, so no memo is computed twice, and the processes' shares even
    out. The requests that name no version read the latest one, and share its views, scores and policy in each mode
    (an explanation, the latest pack, compareEthos and validatePolicy of one view): one group, by mode (at 2,000
    managers a compareEthos rendered apart from the explanations scored the views again, 26 s).

    The diffs from `block` consecutive versions are one group, in the order of their newer version: while a process
    renders it, those older versions stay decoded and each newer one is decoded once (objects.Artifacts keeps
    `block` + 2: a pair reads its newer version last, so one slot more than the block keeps the LRU from evicting an
    older one), so the 28 pairs of 8 versions decode 17 times with 4 kept, 34 with 2, 8 with every one."""
    groups: dict[tuple[str, ...] | tuple[str, int], list[int]] = {}
    position = {version: index for index, version in enumerate(versions)}
    for index, (operation, params) in enumerate(requests):
        if "from" in params and "to" in params:
            key: tuple[str, ...] | tuple[str, int] = (operation.id, position[params["from"]] // block)
        elif any(name in params for name in MEMO_PARAMS):
            key = (operation.id, *(str(params.get(name)) for name in MEMO_PARAMS))
        else:
            key = LATEST
        groups.setdefault(key, []).append(index)
    for key, group in groups.items():  # each pair's modes stay together (they share the pair's memos)
        if key == LATEST:
            group.sort(key=lambda index: (str(requests[index][1].get("mode")), index))
        else:
            group.sort(key=lambda index: (position.get(str(requests[index][1].get("to")), 0), index))
    return sorted(groups.values(), key=lambda group: (-len(group), group[0]))


@contextmanager
def _stopping(what: str) -> Iterator[None]:
    """A process of the publish killed (out of memory?) before it could say why: one line saying `what` stopped."""
    try:
        yield
    except ChildProcessError as exc:
        raise PublishError(f"{what} stopped: {exc}") from None


def seconds(started: float) -> str:
    return f"{time.perf_counter() - started:.1f} s"


def _check_coverage(sources: Sources, progress: Progress) -> None:
    """Print each manager's quarters of the window; stop, one line per manager, on any not allowed to be missing."""
    common = common_problem(sources)
    if common is not None:
        raise SourceError([common])
    coverage = quarter_coverage(sources)
    for line in coverage_lines(coverage):
        progress(line)
    if coverage.problems:
        raise SourceError(coverage.problems)


def _refuse_reused_ids(previous: Path | None, data: ReleaseData) -> None:
    """A published version id always names the same content: refuse to publish it with other content."""
    if previous is None:
        return
    for version in data.artifacts:
        published = artifact_path(previous, version)
        # Both name the same id, so the same content is the same canonical bytes: compared by hash, not parsed.
        if published.exists() and sha256_hex(unpacked_artifact(published.read_bytes())) != artifact_sha256(
            data, version
        ):
            raise PublishError(f"version {version} is published with other content; refusing to re-use its id")


def report_unmapped(
    unmapped: Mapping[str, tuple[set[str], float]], limit: float, progress: Callable[[str], None]
) -> None:
    """Report the unmapped CUSIPs, given each version's and their share of its value (coverage.unmapped_in, from the
    checks pass); refuse the publish when their share of a version passes `limit`."""
    cusips, worst, where = unmapped_share(unmapped)
    if not cusips:
        progress(
            "securities.csv maps every CUSIP of the published versions (positions, positions no longer held, "
            "option and PRN rows)"
        )
        return
    share = f"{len(cusips)} unmapped CUSIPs, at most {worst:.2%} of a version's reported value ({where})"
    if worst > limit:
        raise PublishError(
            f"{share}, above --max-unmapped-value {limit:.2%}: run `ras securities` or add them to securities.csv"
        )
    progress(f"{share}; within --max-unmapped-value {limit:.2%}")
