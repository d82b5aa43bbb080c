"""The release watcher: what a quiet tick, a stat sweep and a scrub pass cost by release size, and how fast an
in-place edit is caught and a re-promotion served, against the old watcher's stat walk of every file.

Usage: `python -m bench.watch [--managers 100,500] [--work DIR] [--trials 5]`.
In-process, per release (the fixture and the synthetic releases bench.memory builds under --work): the
first scrub pass is run to its end (seconds, ticks, longest tick), then QUIET_TICKS quiet refreshes and
SWEEPS stat sweeps are timed, and the reference: the old watcher's per-second walk (os.walk and a stat of
every file, as server/watch.py did before), timed the same way in the same run. With real processes, on a
copy of the fixture's releases: `ras serve` with its default pace, a byte flipped in place (same size) at a
random moment, seconds until health answers 503; the bytes restored and `ras promote` of the same id,
seconds until it answers 200 again.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import statistics
import time
from pathlib import Path

from bench import report
from bench.memory import WORK, synthetic_release
from bench.processes import HOST, free_port, get, measure, ras, server
from bench.workload import published
from builder.release.store import current_release
from server.watch import DETECTION_BOUND, Pace, ReleaseWatch

QUIET_TICKS = 200
SWEEPS = 5
WALKS = 5
SEED = 11  # when, within a tick, each trial's edit lands
STATED_BOUND = 10.0  # seconds: docs/reliability.md's promise for an in-place edit and for a promotion to be served


def old_walk(directory: Path) -> dict[str, tuple[int, int, int]]:
    """The old watcher's check, run every second: (size, mtime, inode) of every file of the release."""
    found = {}
    for root, _dirs, files in os.walk(directory):
        for name in files:
            stat = os.stat(os.path.join(root, name))
            found[os.path.join(root, name)] = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
    return found


def milliseconds(call, count: int) -> list[float]:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        samples.append(1000 * (time.perf_counter() - started))
    return samples


def costs(name: str, releases: Path) -> dict:
    """One release's watcher costs in this process, and the old walk's as the reference."""
    watch = ReleaseWatch(releases, Pace(sweep=math.inf, verify=math.inf))
    started = time.perf_counter()
    watch.refresh()  # loads the release: stamps every file, scrubs the first SCRUB_BYTES
    load_s = time.perf_counter() - started
    files = watch.files
    assert files is not None, watch.serving.problem
    ticks = milliseconds(watch.refresh, 1)
    while files.passes == 0:
        ticks += milliseconds(watch.refresh, 1)
    assert watch.serving.release is not None, watch.serving.problem
    quiet = milliseconds(watch.refresh, QUIET_TICKS)
    sweep = milliseconds(lambda: files.sweep(time.monotonic()), SWEEPS)
    walk = milliseconds(lambda: old_walk(Path(files.root)), WALKS)
    return {
        "release": name,
        "files": len(files.files),
        "loadS": load_s,
        "scrubTicks": len(ticks) + 1,
        "scrubS": sum(ticks) / 1000,
        "scrubMaxTickMs": max(ticks),
        "quietMs": statistics.median(quiet),
        "sweepMs": statistics.median(sweep),
        "oldWalkMs": statistics.median(walk),
    }


def status(port: int) -> int:
    try:
        return get(port, "/api/v1/health")[0]
    except OSError:
        return 0


def seconds_until(port: int, wanted: int, limit: float) -> float:
    started = time.perf_counter()
    while status(port) != wanted:
        if time.perf_counter() - started > limit:
            return math.inf
        time.sleep(0.02)
    return time.perf_counter() - started


def detection(work: Path, trials: int) -> list[dict]:
    """Real `ras serve` on a copy of the fixture: in-place edit → 503, restore + same-id promote → 200."""
    releases = work / "releases-watch"
    shutil.rmtree(releases, ignore_errors=True)
    shutil.copytree(published(None, work, "memory"), releases, symlinks=True)
    directory = current_release(releases)
    victim = sorted((directory / "objects").iterdir())[3]
    original = victim.read_bytes()
    chance = random.Random(SEED)
    port = free_port()
    found = []
    with server(ras("serve", "--releases", str(releases), "--port", str(port)), port, work / "watch-serve.log"):
        for _ in range(trials):
            time.sleep(chance.uniform(0, 1))  # a random phase of the tick
            flipped = bytearray(original)
            flipped[10] ^= 1
            victim.write_bytes(bytes(flipped))
            caught = seconds_until(port, 503, 3 * STATED_BOUND)
            victim.write_bytes(original)
            result = measure(ras("promote", directory.name, "--releases", str(releases)))
            if result.returncode:
                raise SystemExit(f"ras promote failed: {result.stderr[-2000:]}")
            back = seconds_until(port, 200, 3 * STATED_BOUND)
            found.append({"caughtS": caught, "backS": back, "promoteS": result.seconds})
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--managers", default="100,500", help="synthetic release sizes besides the fixture")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    releases = {"fixture": published(None, args.work, "memory")}
    for managers in [int(m) for m in args.managers.split(",") if m]:
        releases[f"{managers}x10x150"] = synthetic_release(managers, args.work)
    found = [costs(name, path) for name, path in releases.items()]
    trials = detection(args.work, args.trials)
    rows = [
        [
            c["release"],
            c["files"],
            f"{c['loadS']:.2f}",
            f"{c['quietMs']:.3f}",
            f"{c['sweepMs']:.1f}",
            f"{c['oldWalkMs']:.1f}",
            f"{c['oldWalkMs'] / c['quietMs']:.0f}×",
            f"{c['scrubS']:.1f} s in {c['scrubTicks']} ticks (longest {c['scrubMaxTickMs']:.0f} ms)",
        ]
        for c in found
    ]
    caught, back = [t["caughtS"] for t in trials], [t["backS"] for t in trials]
    targets = [
        report.target(
            f"in-place edit answered 503 within {STATED_BOUND:.0f} s (bound {DETECTION_BOUND:.0f} s)",
            max(caught) <= STATED_BOUND,
            f"median {statistics.median(caught):.2f} s, max {max(caught):.2f} s of {len(caught)}",
        ),
        report.target(
            f"same-id re-promotion served within {STATED_BOUND:.0f} s",
            max(back) <= STATED_BOUND,
            f"median {statistics.median(back):.2f} s, max {max(back):.2f} s after `ras promote`",
        ),
    ]
    headers = [
        "release",
        "files",
        "load s",
        "quiet tick ms",
        "stat sweep ms (every 5 s)",
        "old walk ms (every 1 s)",
        "old walk / quiet tick",
        "first scrub pass (16 MiB a tick)",
    ]
    notes = [
        f"In-process, one thread; medians of {QUIET_TICKS} quiet ticks, {SWEEPS} sweeps and {WALKS} old walks, "
        "files in the page cache (a quiet machine's steady state). The old walk is the reference, same run.",
        f"Detection: `ras serve` default pace (tick 1 s, sweep 5 s), {len(trials)} trials on the fixture, "
        f"edits at random phases; {HOST} health polled every 20 ms; 'back' is measured after `ras promote` exits.",
    ]
    report.save(
        "watch",
        "Release watcher: cost by release size and detection bound",
        headers,
        rows,
        targets,
        notes,
        raw={"costs": found, "trials": trials},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
