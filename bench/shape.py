"""Publish cost per row on trees shaped like the real 13F population (`bench.synthetic --shape largest:N`).

Usage: `python -m bench.shape [--shapes largest:20,largest:100] [--quarters 3] [--work DIR] [--baseline CHECKOUT]
[--baseline-shapes largest:2] [--checkout CHECKOUT]`.
Per shape: the tree (kept under --work, reused when its packs.toml stamp matches), then one cold `ras publish` of
it as its own process: wall and CPU seconds (the publish and every worker it waited for, wait4's rusage), CPU
microseconds per row, the peak of the PSS summed over its processes, the largest process's RSS, the release's bytes
and the load before and after. Each shape's CPU per row against the smallest shape's: no step may grow faster than
its rows. --baseline: another checkout publishes the same trees in the same run, for the ratio of CPU per row
(only those of --baseline-shapes, when the baseline would take hours on the larger ones); --checkout: the checkout measured, when not this one (a branch not yet merged, in a worktree of its own).
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from bench import report, synthetic
from bench.processes import measure, ras, removed_set_aside, set_aside, settled_disk

WORK = Path("/tmp/ras-bench")  # trees and releases: gigabytes, never inside the checkout
SHAPES = "largest:20,largest:100"  # the largest of these is the 100 largest (843,825 rows a quarter)
QUARTERS = 3  # two diffs and the quarters' explanations: what a publish does per quarter, at a size two cores take
GROWTH_LIMIT = 1.3  # CPU per row of the largest shape at most 1.3 × the smallest's
NO_GATES = ("--gate", "none")


def tree_for(shape: str, args: argparse.Namespace) -> Path:
    """The tree of `shape` under --work, generated unless one with the same stamp is there."""
    params = synthetic.shaped(shape, args.quarters)
    out = args.work / f"syn-{shape.replace(':', '')}x{args.quarters}"
    packs = out / "packs.toml"
    if not (packs.exists() and params.stamp() in packs.read_text().splitlines()):
        made = measure(params.command(out), timeout=3600)
        if made.returncode:
            raise SystemExit(f"bench.synthetic failed: {made.stderr[-2000:]}")
    return out


def publish_cold(tree: Path, releases: Path, checkout: Path) -> dict:
    """One cold publish of `tree` by `checkout` into an empty `releases`: what it cost."""
    set_aside(releases)
    settled_disk()
    load = os.getloadavg()[0]
    done = measure(ras("publish", "--releases", str(releases), "--source", str(tree), *NO_GATES), 3600, checkout)
    if done.returncode:
        raise SystemExit(f"publish of {tree} failed: {done.stderr[-3000:]}")
    rows = re.search(r"^read \d+ filings \((\d+) rows\)", done.stderr, re.M)
    release = next(p for p in releases.iterdir() if p.is_dir() and not p.is_symlink() and p.name[:2] == "20")
    return {
        "rows": int(rows[1]) if rows else 0,
        "seconds": done.seconds,
        "cpuSeconds": done.cpu_seconds,
        "treePssMb": done.tree_pss_mb,
        "maxRssMb": done.max_rss_mb,
        "releaseMb": sum(f.stat().st_size for f in release.rglob("*") if f.is_file()) / 1e6,
        "load": [round(load, 1), round(os.getloadavg()[0], 1)],
        "stderr": done.stderr,
    }


def rows_of(cases: list[dict]) -> list[list]:
    smallest = cases[0]["this"]
    table = []
    for case in cases:
        for side in ("this", "baseline"):
            c = case.get(side)
            if c:
                per_row = c["cpuSeconds"] / c["rows"]
                table.append(
                    [
                        case["shape"] if side == "this" else f"{case['shape']}, baseline",
                        f"{c['rows']:,}",
                        f"{c['seconds']:.1f}",
                        f"{c['cpuSeconds']:.1f}",
                        f"{1e6 * per_row:.1f}",
                        f"{per_row / (smallest['cpuSeconds'] / smallest['rows']):.2f}",
                        f"{c['treePssMb'] / 1024:.2f}",
                        f"{c['maxRssMb'] / 1024:.2f}",
                        f"{c['releaseMb'] / 1000:.2f}",
                        f"{c['load'][0]}–{c['load'][1]}",
                    ]
                )
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", default=SHAPES)
    parser.add_argument("--quarters", type=int, default=QUARTERS)
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--baseline", type=Path, help="another checkout publishing the same trees")
    parser.add_argument("--baseline-shapes", help="the shapes the baseline publishes (default: every one)")
    parser.add_argument("--checkout", type=Path, default=Path.cwd(), help="the checkout measured (default: this)")
    args = parser.parse_args(argv)
    cases = []
    for shape in args.shapes.split(","):
        tree = tree_for(shape, args)
        case = {"shape": shape, "this": publish_cold(tree, args.work / "releases-shape", args.checkout)}
        if args.baseline and shape in (args.baseline_shapes or args.shapes).split(","):
            case["baseline"] = publish_cold(tree, args.work / "releases-shape-baseline", args.baseline)
        set_aside(args.work / "releases-shape")
        set_aside(args.work / "releases-shape-baseline")
        cases.append(case)
        print(rows_of(cases)[-1], flush=True)
    growth = (cases[-1]["this"]["cpuSeconds"] / cases[-1]["this"]["rows"]) / (
        cases[0]["this"]["cpuSeconds"] / cases[0]["this"]["rows"]
    )
    headers = ["tree", "rows", "wall s", "CPU s", "CPU µs/row", "per row ×", "PSS GiB", "RSS GiB", "GB", "load"]
    targets = [report.target(f"CPU per row within {GROWTH_LIMIT}×", growth <= GROWTH_LIMIT, f"{growth:.2f}×")]
    notes = [f"{args.quarters} quarters; PSS: the peak of the sum over the publish and its workers; GB: the release"]
    raw = [{k: {**v, "stderr": v["stderr"][-4000:]} if isinstance(v, dict) else v for k, v in c.items()} for c in cases]
    removed_set_aside()
    report.save(
        "shape", "Publish of trees shaped like the largest filers", headers, rows_of(cases), targets, notes, raw
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
