"""The cold read phase alone: `read_sources` of one tree by this checkout and by a baseline, alternately.

Usage: `python -m bench.read --baseline CHECKOUT [--managers 50] [--repeat 3] [--work DIR]`.
Each read runs in its own process, no parse cache, the two checkouts taking turns, so both see the same
moments of a shared machine; the median of each side and their ratio are reported. The tree is the
synthetic one of bench.publish (generated under --work when missing).
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
READ_SPEEDUP_TARGET = 2.0  # issue 14: the cold read phase ≥ 2× faster than before
TIMED = (
    "import sys, time\nfrom pathlib import Path\nfrom builder.sources.tree import read_sources\n"
    "started = time.perf_counter()\nread_sources(Path(sys.argv[1]))\n"
    "print(f'{time.perf_counter() - started:.3f}', file=sys.stderr)\n"
)


def read_seconds(checkout: Path, tree: Path) -> float:
    result = measure([sys.executable, "-c", TIMED, str(tree)], cwd=checkout)
    if result.returncode:
        raise SystemExit(f"read_sources in {checkout} failed: {result.stderr[-2000:]}")
    return float(result.stderr.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--managers", type=int, default=50)
    tree_options(parser)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    tree, _ = tree_for(args.managers, args)
    times: dict[str, list[float]] = {"this": [], "baseline": []}
    for repeat in range(args.repeat):
        order = (("baseline", args.baseline), ("this", REPO))
        for name, checkout in order if repeat % 2 == 0 else order[::-1]:
            times[name].append(read_seconds(checkout, tree))
    this, baseline = statistics.median(times["this"]), statistics.median(times["baseline"])
    rows = [
        [
            tree.name,
            f"{baseline:.2f}",
            f"{this:.2f}",
            f"{baseline / this:.2f}",
            " / ".join(f"{b / t:.2f}" for b, t in zip(times["baseline"], times["this"], strict=True)),
        ]
    ]
    targets = [
        report.target(
            f"cold read phase ≥ {READ_SPEEDUP_TARGET:.0f}× faster than the baseline's",
            baseline / this >= READ_SPEEDUP_TARGET,
            f"{baseline / this:.2f}×",
        )
    ]
    notes = [
        f"read_sources of the tree in a fresh process per run, no parse cache, {args.repeat} runs per checkout "
        f"taking turns; baseline: {args.baseline}. The machine is shared: compare the ratios."
    ]
    report.save(
        "read",
        "Cold read phase: this checkout vs a baseline",
        ["tree", "baseline s (median)", "this s (median)", "speed-up", "speed-up per pair"],
        rows,
        targets,
        notes,
        raw=times,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
