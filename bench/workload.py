"""What the latency benchmarks run against: a published release, its data in-process, manager subsets, percentiles."""

from __future__ import annotations

import gc
import random
import shutil
import statistics
import time
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

import orjson

from bench.processes import measure, ras
from builder.api.data import ReleaseData
from builder.release.objects import artifact_of
from builder.release.store import INDEX, artifact_file, current_release

SEED = 7  # which manager subsets are drawn; fixed so two runs ask the same questions
SUBSET_SIZES = (2, 3)  # small selections: the views an agent asks for that no release precomputes


def published(releases: Path | None, work: Path, name: str) -> Path:
    """`releases` if given, else a fresh releases directory under `work` holding the fixture's release."""
    if releases is not None:
        return releases
    target = work / f"releases-{name}"
    shutil.rmtree(target, ignore_errors=True)
    result = measure(ras("publish", "--releases", str(target)))
    if result.returncode:
        raise SystemExit(f"publish failed: {result.stderr[-2000:]}")
    return target


def release_data(releases: Path) -> ReleaseData:
    """The promoted release's index and artifacts as the server holds them, with an empty memo (cold)."""
    directory = current_release(releases)
    if directory is None:
        raise SystemExit(f"no promoted release in {releases}")
    index = orjson.loads((directory / INDEX).read_bytes())
    artifacts = {v: artifact_of((directory / artifact_file(v)).read_bytes()) for v in index["copycat"]["versions"]}
    gc.freeze()  # as `ras serve` does once the release is loaded (server/app.py)
    return ReleaseData(index, artifacts)


def fresh(data: ReleaseData) -> ReleaseData:
    """The same release data with an empty memo: every derived value computed again."""
    return ReleaseData(data.index, data.artifacts, data.identity)


def manager_subsets(data: ReleaseData, count: int, seed: int = SEED) -> list[list[str]]:
    """`count` distinct small manager selections, in a seeded order (fewer if the pack has fewer)."""
    managers = sorted(m["id"] for m in data.index["copycat"]["managers"])
    rng = random.Random(seed)
    if len(managers) <= 12:  # few managers: every small subset, shuffled
        found = [list(c) for size in SUBSET_SIZES for c in combinations(managers, size)]
        rng.shuffle(found)
        return found[:count]
    seen: set[tuple[str, ...]] = set()
    while len(seen) < count:
        seen.add(tuple(sorted(rng.sample(managers, rng.choice(SUBSET_SIZES)))))
    return [list(s) for s in sorted(seen, key=lambda s: rng.random())]


def timed(call: Callable[[], Any]) -> float:
    """Milliseconds of one call."""
    started = time.perf_counter()
    call()
    return 1000 * (time.perf_counter() - started)


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    pick = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"p50": statistics.median(ordered), "p99": pick(0.99), "n": len(ordered)}
