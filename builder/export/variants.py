"""Precompressed variants of an answer: gzip always, brotli when the `brotli` package is importable.

Compression runs in a pool of processes, one per core by default, each reading its answers from the release
itself. Every variant is checked to decompress to its answer when it is made, and kept in a cache beside the
export trees, named by the answer's sha256, the coding, the level and its own sha256: the next export
compresses only answers it has never seen (a new quarter's), and takes a cached variant only if its bytes
still hash to its name.
"""

from __future__ import annotations

import gzip
import multiprocessing
import os
import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

from builder.canonical import sha256_hex
from builder.cores import die_with_parent
from builder.errors import PublishError

try:  # brotli is an optional extra: without it an export is gzip-only, and says so
    import brotli
except ImportError:  # pragma: no cover - depends on the environment
    brotli = None

# Chosen by bench.export's survey of a synthetic release's answers (docs/performance.md, "Export"): brotli 4 takes
# 0.65 of quality 5's time for 4 % more bytes, and 1/50 of quality 10's (where brotli's slow optimal parsing starts)
# for 23 % more; gzip, the coding of the few clients without brotli, at 1 takes 0.57 of level 4's time for 9 % more.
# An export's time is its compression: at 500 managers these levels take it from 0.57 to 0.43-0.46 of the cold
# publish (25.1 s against 18.9-20.0 s, beside a 43.8 s publish).
GZIP_LEVEL = 1
BROTLI_QUALITY = 4
EXTENSIONS = {"gzip": ".gz", "br": ".br"}
BROTLI_MISSING = "brotli is not installed: writing gzip variants only (pip install brotli, then export again)"
CACHE = Path(".cache") / "variants"  # under the export directory: every variant ever written, by content
PROGRESS_SECONDS = 5.0  # at most one progress line this often while compressing
# Answers go to a worker together until they reach this many bytes (or BATCH_ANSWERS): handing a small answer over
# alone cost more than compressing it (the 11,000 explanations of 500 managers, 22 kB each).
BATCH_BYTES = 4 << 20
BATCH_ANSWERS = 256

Progress = Callable[[str], None]


def encodings() -> tuple[str, ...]:
    """The content codings this export writes, in nginx's order of preference."""
    return ("br", "gzip") if brotli is not None else ("gzip",)


def levels() -> dict[str, int]:
    """Coding → the level its variants are compressed at (part of each cached variant's name)."""
    return {"br": BROTLI_QUALITY, "gzip": GZIP_LEVEL}


def _compress(coding: str, body: bytes, level: int) -> bytes:
    if coding == "gzip":
        return gzip.compress(body, compresslevel=level, mtime=0)  # mtime 0: same bytes on every export
    compressed: bytes = brotli.compress(body, quality=level)  # brotli ships no types
    return compressed


def decompresses_to(coding: str, data: bytes, body: bytes) -> bool:
    failures: tuple[type[Exception], ...] = (OSError, EOFError, zlib.error)
    try:
        if coding == "gzip":
            return gzip.decompress(data) == body
        decompressed: bytes = brotli.decompress(data)
        return decompressed == body
    except failures + ((brotli.error,) if brotli is not None else ()):  # noqa: B030 (a tuple of exception classes)
        return False


def cache_path(cache: Path, sha256: str, coding: str, level: int, variant: str) -> Path:
    """A variant's cache file: the answer's sha256, coding and level, then the sha256 of the variant itself,
    so that an entry is checked by hashing it (it was checked to decompress to its answer when written)."""
    return cache / sha256[:2] / f"{sha256}.{coding}-{level}.{variant}"


def cached_variants(cache: Path) -> dict[tuple[str, str], Path]:
    """(answer sha256, "coding-level") → its cache file, for every entry the cache holds."""
    found = {}
    for folder in cache.iterdir() if cache.is_dir() else ():
        for entry in folder.iterdir() if folder.is_dir() else ():
            parts = entry.name.split(".")
            if len(parts) == 3 and not entry.name.startswith("."):
                found[(parts[0], parts[1])] = entry
    return found


@dataclass(frozen=True, slots=True)
class Job:
    """One answer to check and compress: where the release holds its bytes, and per coding wanted its level
    and the cache entry that may hold the variant already."""

    sha256: str
    source: Path
    codings: tuple[tuple[str, int, Path | None], ...]
    cache: Path


Variants = dict[str, tuple[str, Path]]  # extension → (sha256 of the variant, the cache file holding it)


def variants_of(job: Job) -> tuple[str, Variants, int]:
    """(the answer's sha256, its checked variants, how many came from the cache); runs in a worker. The
    answer's own bytes are checked against its name here too: the tree copies the release's file."""
    body = job.source.read_bytes()
    if sha256_hex(body) != job.sha256:
        raise PublishError(f"{job.source}: its bytes are not the answer {job.sha256} (run `ras verify`)")
    found, cached = {}, 0
    for coding, level, entry in job.codings:
        data = _read(entry) if entry is not None else None
        if entry is not None and data is not None and sha256_hex(data) == entry.name.rsplit(".", 1)[1]:
            found[EXTENSIONS[coding]] = (entry.name.rsplit(".", 1)[1], entry)
            cached += 1
            continue
        if entry is not None:
            entry.unlink(missing_ok=True)  # damaged: another is written under the name of its bytes
        data = _compress(coding, body, level)
        if not decompresses_to(coding, data, body):
            raise PublishError(f"{job.sha256}: the {coding} variant does not decompress to the answer")
        variant = sha256_hex(data)
        path = cache_path(job.cache, job.sha256, coding, level, variant)
        _keep(path, data)
        found[EXTENSIONS[coding]] = (variant, path)
    return job.sha256, found, cached


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _keep(path: Path, data: bytes) -> None:
    """Into the cache in one rename: a reader sees a whole variant or none. Made durable with the tree (one flush of
    the filesystem), and whatever is read from the cache is checked."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}-{os.getpid()}")
    temporary.write_bytes(data)
    os.replace(temporary, path)


def compress_all(
    answers: dict[str, Path],
    sizes: dict[str, int],
    wanted: Sequence[str],
    cache: Path,
    workers: int,
    progress: Progress,
) -> dict[str, Variants]:
    """sha256 → its variants in the `wanted` codings, for every answer (`answers`: sha256 → the file holding it),
    on `workers` processes, largest first so that no big answer is left for the end."""
    codings = tuple((coding, levels()[coding]) for coding in wanted)
    held = cached_variants(cache)
    jobs = [
        Job(sha, answers[sha], tuple((c, n, held.get((sha, f"{c}-{n}"))) for c, n in codings), cache)
        for sha in sorted(answers, key=lambda s: (-sizes[s], s))
    ]
    total, done, reused, done_bytes = len(jobs), 0, 0, 0
    found: dict[str, Variants] = {}
    last = time.perf_counter()
    for sha256, variants, cached in _run(_batches(jobs, sizes), workers):
        found[sha256] = variants
        done, reused, done_bytes = done + 1, reused + cached, done_bytes + sizes[sha256]
        if time.perf_counter() - last >= PROGRESS_SECONDS and done < total:
            last = time.perf_counter()
            progress(
                f"compressing: {done} of {total} answers ({done_bytes / 1e6:.0f} of "
                f"{sum(sizes.values()) / 1e6:.0f} MB), {reused} variants from the cache"
            )
    made = total * len(codings) - reused
    kinds = f" ({', '.join(f'{c} {n}' for c, n in codings)})" if codings else " (none wanted: answers checked only)"
    progress(
        f"compressed {total} answers on {workers} processes: {reused} of {total * len(codings)} variants from "
        f"the cache, {made} compressed{kinds}"
    )
    return found


def _batches(jobs: list[Job], sizes: dict[str, int]) -> list[list[Job]]:
    """`jobs` in their order, as consecutive batches of BATCH_BYTES or BATCH_ANSWERS (a larger answer alone)."""
    found: list[list[Job]] = [[]]
    held = 0
    for job in jobs:
        if found[-1] and (held + sizes[job.sha256] > BATCH_BYTES or len(found[-1]) >= BATCH_ANSWERS):
            found.append([])
            held = 0
        found[-1].append(job)
        held += sizes[job.sha256]
    return [batch for batch in found if batch]


def _variants_of_batch(batch: list[Job]) -> list[tuple[str, Variants, int]]:
    return [variants_of(job) for job in batch]


def _run(batches: list[list[Job]], workers: int) -> Iterable[tuple[str, Variants, int]]:
    if workers <= 1 or len(batches) <= 1:
        for batch in batches:
            yield from _variants_of_batch(batch)
        return
    # Forked (the inherited lock is let go: builder.atomic), and killed with this process: a worker's queue
    # never ends while its siblings hold it, so a killed export left its workers waiting for ever.
    with ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork"), initializer=die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        for future in as_completed([pool.submit(_variants_of_batch, batch) for batch in batches]):
            yield from future.result()


def prune_cache(cache: Path, keep: set[str]) -> int:
    """Remove the cached variants of answers not in `keep` (sha256s); how many files went."""
    removed = 0
    if not cache.is_dir():
        return 0
    for folder in cache.iterdir():
        for entry in folder.iterdir() if folder.is_dir() else ():
            if entry.name.split(".", 1)[0] not in keep:
                entry.unlink(missing_ok=True)
                removed += 1
    return removed
