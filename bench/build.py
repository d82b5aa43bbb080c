"""The build phase alone: every 13f-copycat artifact of one tree built by this checkout and by a baseline, alternately.

Usage: `python -m bench.build --baseline CHECKOUT [--managers 100 | --tree DIR] [--repeat 3] [--work DIR]
[--target 1.5]`. The tree (--tree, else the synthetic one of bench.publish, generated under --work when missing;
either only read) is read once per checkout, through
a parse cache under --work, and its Sources pickled; each run then unpickles them in a fresh process and times
`built_artifacts` on that one process: CPU seconds (user and system: steadier than wall time on a shared box) and
wall seconds. Each run also hashes every artifact's canonical JSON: the two checkouts must build the same bytes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from bench import report
from bench.processes import REPO, measure
from bench.publish import tree_for, tree_options

WORK = Path("/tmp/ras-bench-build")
BUILD_SPEEDUP_TARGET = 1.5  # the default: the baseline spends 1.5× the CPU of this checkout
READ = """
import pickle, sys
from pathlib import Path
from builder.sources.sec13f.cache import ParseCache
from builder.sources.tree import read_sources
work = Path(sys.argv[2])
sources, _ = read_sources(Path(sys.argv[1]), None, ParseCache(work / "cache"), work / "datasets-cache")
Path(sys.argv[3]).write_bytes(pickle.dumps(sources, protocol=5))
"""
TIMED = """
import gc, hashlib, pickle, resource, sys, time
from pathlib import Path
from builder.canonical import canonical_json
from builder.research.artifact import built_artifacts, in_turn
def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime
sources = pickle.loads(Path(sys.argv[1]).read_bytes())
gc.collect()
gc.disable()  # as a publish builds them (builder.sources.tree.collector_paused)
started, used = time.perf_counter(), cpu()
artifacts = built_artifacts(sources, None, in_turn)
def artifact(made):  # what a checkout's built_artifacts gives: a Made, an (artifact, taken) tuple, or the artifact
    if hasattr(made, "artifact"):
        return made.artifact
    return made[0] if isinstance(made, tuple) else made
artifacts = [artifact(made) for made in artifacts]
seconds, used = time.perf_counter() - started, cpu() - used
digest = hashlib.sha256(b"".join(hashlib.sha256(canonical_json(a)).digest() for a in artifacts)).hexdigest()
print(f"{seconds:.3f} {used:.3f} {len(artifacts)} {digest}", file=sys.stderr)
"""


def pickled(checkout: Path, tree: Path, work: Path) -> Path:
    """The tree's Sources as `checkout` reads them, pickled under `work` (read once per checkout)."""
    path = work / f"sources-{checkout.name}-{tree.name}.pickle"
    if not path.exists():
        result = measure([sys.executable, "-c", READ, str(tree), str(work), str(path)], cwd=checkout)
        if result.returncode:
            raise SystemExit(f"read_sources in {checkout} failed: {result.stderr[-2000:]}")
    return path


def build_once(checkout: Path, sources: Path) -> tuple[float, float, int, str]:
    """Wall and CPU seconds of built_artifacts, the artifacts built, and the digest of their bytes."""
    result = measure([sys.executable, "-c", TIMED, str(sources)], cwd=checkout)
    if result.returncode:
        raise SystemExit(f"built_artifacts in {checkout} failed: {result.stderr[-2000:]}")
    seconds, used, built, digest = result.stderr.strip().splitlines()[-1].split()
    return float(seconds), float(used), int(built), digest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--managers", type=int, default=100)
    tree_options(parser)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--target", type=float, default=BUILD_SPEEDUP_TARGET, help="the CPU ratio asked for")
    parser.add_argument("--tree", type=Path, help="an existing source tree (instead of a synthetic one)")
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    tree = args.tree.resolve() if args.tree else tree_for(args.managers, args)[0]
    checkouts = {"baseline": args.baseline.resolve(), "this": REPO}
    for name in checkouts:
        (args.work / name).mkdir(exist_ok=True)
    sources = {name: pickled(checkout, tree, args.work / name) for name, checkout in checkouts.items()}
    runs: dict[str, list[tuple[float, float, int, str]]] = {"this": [], "baseline": []}
    for repeat in range(args.repeat):
        order = list(checkouts.items())
        for name, checkout in order if repeat % 2 == 0 else order[::-1]:
            runs[name].append(build_once(checkout, sources[name]))
    wall = {name: statistics.median(seconds for seconds, _, _, _ in found) for name, found in runs.items()}
    cpu = {name: statistics.median(used for _, used, _, _ in found) for name, found in runs.items()}
    digests = {digest for found in runs.values() for _, _, _, digest in found}
    rows = [
        [
            tree.name,
            runs["this"][0][2],
            f"{cpu['baseline']:.2f}",
            f"{cpu['this']:.2f}",
            f"{cpu['baseline'] / cpu['this']:.2f}",
            " / ".join(f"{b[1] / t[1]:.2f}" for b, t in zip(runs["baseline"], runs["this"], strict=True)),
            f"{wall['baseline']:.2f}",
            f"{wall['this']:.2f}",
            "yes" if len(digests) == 1 else "NO",
        ]
    ]
    speedup = cpu["baseline"] / cpu["this"]
    same = "the same artifact bytes as the baseline"
    targets = report.same_and_faster(same, len(digests), "build phase CPU speed-up", speedup, args.target)
    notes = [
        f"built_artifacts of every published quarter on one process, from Sources read once and pickled, in a "
        f"fresh process per run, {args.repeat} runs per checkout taking turns; baseline: {args.baseline}. CPU s: "
        "user and system time of the building process (medians); the machine is shared: compare the ratios.",
        "Same bytes: the sha256 of every artifact's canonical JSON, in order, equal across all runs of both.",
    ]
    headers = ["tree", "artifacts", "baseline CPU s", "this CPU s", "CPU speed-up", "speed-up per pair"]
    headers += ["baseline wall s", "this wall s", "same bytes"]
    report.save("build", "Build phase: this checkout vs a baseline", headers, rows, targets, notes, raw=runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
