"""The cold read phase alone: `read_sources` of one tree by this checkout and by a baseline, alternately.

Usage: `python -m bench.read --baseline CHECKOUT [--managers 50] [--workers 1] [--repeat 3] [--work DIR]
[--target 2.0]`. Each read runs in its own process, no parse cache, the two checkouts taking turns, so both see
the same moments of a shared machine; the median of each side and their ratio are reported, and the memory the
records hold once read: the process's VmRSS after the read (and a collection) less before it, per row. The tree
is the synthetic one of bench.publish (generated under --work when missing).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from bench import report
from bench.processes import REPO, measure
from bench.publish import tree_for, tree_options

WORK = Path("/tmp/ras-bench")
READ_SPEEDUP_TARGET = 2.0  # the default: the cold read phase ≥ 2× faster than the baseline's
# The records of 2,000 managers × 10 quarters × 150 positions (3,000,000 rows) in at most half the 2 GiB that
# their whole publish may peak at: the other half is for the artifacts built from them.
ROW_BYTES_TARGET = 2**30 // 3_000_000
TIMED = """
import gc, resource, sys, time
from pathlib import Path
from builder.sources.tree import read_sources
def cpu():
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))
def rss():
    return next(int(line.split()[1]) * 1024 for line in open("/proc/self/status") if line.startswith("VmRSS"))
workers = int(sys.argv[2])
before = rss()
started, used = time.perf_counter(), cpu()
sources, _ = read_sources(Path(sys.argv[1]), **({"workers": workers} if workers > 1 else {}))
seconds, used = time.perf_counter() - started, cpu() - used
gc.collect()
print(f"{seconds:.3f} {sum(len(f.rows) for f in sources.filings)} {rss() - before} {used:.3f}", file=sys.stderr)
"""


def read_once(checkout: Path, tree: Path, workers: int) -> tuple[float, int, int, float]:
    """Seconds of the read, rows read, the bytes the process holds more after it, and the CPU seconds of the read
    (its own and its forked readers')."""
    result = measure([sys.executable, "-c", TIMED, str(tree), str(workers)], cwd=checkout)
    if result.returncode:
        raise SystemExit(f"read_sources in {checkout} failed: {result.stderr[-2000:]}")
    seconds, rows, held, used = result.stderr.strip().splitlines()[-1].split()
    return float(seconds), int(rows), int(held), float(used)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--managers", type=int, default=50)
    tree_options(parser)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=1, help="read_sources on this many processes")
    parser.add_argument("--target", type=float, default=READ_SPEEDUP_TARGET, help="the speed-up asked for")
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    tree, _ = tree_for(args.managers, args)
    runs: dict[str, list[tuple[float, int, int, float]]] = {"this": [], "baseline": []}
    for repeat in range(args.repeat):
        order = (("baseline", args.baseline), ("this", REPO))
        for name, checkout in order if repeat % 2 == 0 else order[::-1]:
            runs[name].append(read_once(checkout, tree, args.workers))
    times = {name: [seconds for seconds, _, _, _ in found] for name, found in runs.items()}
    cpu = {name: statistics.median(used for _, _, _, used in found) for name, found in runs.items()}
    this, baseline = statistics.median(times["this"]), statistics.median(times["baseline"])
    rows_read = runs["this"][0][1]
    held = {name: statistics.median(held for _, _, held, _ in found) for name, found in runs.items()}
    per_row = {name: held[name] / rows_read for name in held}
    rows = [
        [
            tree.name,
            args.workers,
            rows_read,
            f"{baseline:.2f}",
            f"{this:.2f}",
            f"{baseline / this:.2f}",
            " / ".join(f"{b / t:.2f}" for b, t in zip(times["baseline"], times["this"], strict=True)),
            f"{cpu['baseline']:.1f}",
            f"{cpu['this']:.1f}",
            f"{cpu['this'] / max(cpu['baseline'], 1e-9):.2f}",
            f"{held['baseline'] / 2**20:.0f}",
            f"{held['this'] / 2**20:.0f}",
            f"{per_row['baseline']:.0f}",
            f"{per_row['this']:.0f}",
            f"{held['this'] / held['baseline']:.2f}",
        ]
    ]
    targets = [
        report.target(
            f"cold read phase ≥ {args.target:g}× the baseline's speed",
            baseline / this >= args.target,
            f"{baseline / this:.2f}×",
        ),
        report.target(
            f"records held in ≤ {ROW_BYTES_TARGET} bytes a row (3,000,000 rows in 1 GiB)",
            per_row["this"] <= ROW_BYTES_TARGET,
            f"{per_row['this']:.0f} bytes",
        ),
    ]
    notes = [
        f"read_sources of the tree in a fresh process per run on {args.workers} process(es), no parse cache, "
        f"{args.repeat} runs per checkout taking turns; baseline: {args.baseline}. The machine is shared: compare "
        "the ratios.",
        "Held MB: the reading process's VmRSS after the read and a collection less before it (medians); the forked "
        "readers' own memory is gone by then. Bytes a row: held over the rows read. CPU s: user and system time of "
        "the reading process and its forked readers (medians), steadier than wall time on a shared box.",
    ]
    headers = ["tree", "workers", "rows", "baseline s (median)", "this s (median)", "speed-up", "speed-up per pair"]
    headers += [
        "baseline CPU s",
        "this CPU s",
        "CPU × baseline",
        "baseline held MB",
        "this held MB",
        "baseline B/row",
        "this B/row",
        "held × baseline",
    ]
    report.save("read", "Cold read phase: this checkout vs a baseline", headers, rows, targets, notes, raw=runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
