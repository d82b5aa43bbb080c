"""Publish cost per row on trees shaped like the real 13F population (`bench.synthetic --shape largest:N`).

Usage: `python -m bench.shape [--shapes largest:20,largest:100] [--quarters 3] [--work DIR] [--baseline CHECKOUT]
[--baseline-shapes largest:2] [--checkout CHECKOUT]`.
Per shape: the tree (kept under --work, reused when its packs.toml stamp matches), then one cold `ras publish` of
it as its own process: wall and CPU seconds (the publish and every worker it waited for, wait4's rusage), CPU
microseconds per row, the peak of the PSS summed over its processes, the largest process's RSS, the release's bytes
and the load before and after. Each shape's CPU per row against the smallest shape's: no step may grow faster than
its rows. --baseline: another checkout publishes the same trees in the same run, for the ratio of CPU per row
(only those of --baseline-shapes, when the baseline would take hours on the larger ones); --checkout: the checkout
measured, when not this one (a branch not yet merged, in a worktree of its own). --next-quarter: also what an operator's
quarterly publish costs: with a version fewer (so that the quarter before fills the window too), the tree published
cold, then into a release of the same tree without its newest quarter (every manager's newest filing and the newest
data set gone), against the cold one.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import shutil
from pathlib import Path

from bench import report, synthetic
from bench.datasets_writer import named_window
from bench.processes import measure, ras, removed_set_aside, set_aside, settled_disk
from bench.publish import without_newest_quarter

WORK = Path("/tmp/ras-bench")  # trees and releases: gigabytes, never inside the checkout
SHAPES = "largest:20,largest:100"  # the largest of these is the 100 largest (843,825 rows a quarter)
QUARTERS = 3  # two diffs and the quarters' explanations: what a publish does per quarter, at a size two cores take
GROWTH_LIMIT = 1.3  # CPU per row of the largest shape at most 1.3 × the smallest's
NO_GATES = ("--gate", "none")
NEXT_QUARTER_LIMIT = 0.4  # the next quarter's publish at most 0.4 × the cold one, in CPU seconds
LABELS = {"this": "", "baseline": ", baseline", "window": ", a version fewer", "nextQuarter": ", next quarter"}


def tree_for(shape: str, args: argparse.Namespace) -> Path:
    """The tree of `shape` under --work with its Form 13F data sets (the pack's source, as `ras fetch` brings them),
    generated unless one with the same stamp and its sets is there."""
    params = dataclasses.replace(synthetic.shaped(shape, args.quarters), datasets=True)  # the sets: the source
    out = args.work / f"syn-{shape.replace(':', '')}x{args.quarters}"
    packs = out / "packs.toml"
    kept = packs.exists() and params.stamp() in packs.read_text().splitlines()
    if not (kept and (out / "sec13f-datasets").is_dir()):
        made = measure(params.command(out), timeout=3600)
        if made.returncode:
            raise SystemExit(f"bench.synthetic failed: {made.stderr[-2000:]}")
    return out


def windowed(tree: Path, out: Path, newest: bool) -> Path:
    """A copy of `tree` (hard links) publishing one version fewer, so that a quarter earlier fills its window too;
    without its newest quarter unless `newest` (every manager's newest filing and the newest data set gone: the
    newest quarter's filings are all in the set of the filing window after it)."""
    if newest:
        shutil.rmtree(out, ignore_errors=True)
        shutil.copytree(tree, out, copy_function=os.link)
    else:
        without_newest_quarter(tree, out)
        max((out / "sec13f-datasets").glob("*_form13f.zip"), key=lambda path: named_window(path.name)).unlink()
    packs = out / "packs.toml"
    text = packs.read_text()
    packs.unlink()  # a link to the tree's own: written anew
    packs.write_text(re.sub(r"^versions = (\d+)$", lambda m: f"versions = {int(m[1]) - 1}", text, count=1, flags=re.M))
    return out


def publish_cold(tree: Path, releases: Path, checkout: Path, fresh: bool = True) -> dict:
    """One publish of `tree` by `checkout` into `releases` (an empty one when `fresh`: cold): what it cost."""
    if fresh:
        set_aside(releases)
    settled_disk()
    load = os.getloadavg()[0]
    done = measure(ras("publish", "--releases", str(releases), "--source", str(tree), *NO_GATES), 3600, checkout)
    if done.returncode:
        raise SystemExit(f"publish of {tree} failed: {done.stderr[-3000:]}")
    rows = re.search(r"^read \d+ filings \((\d+) rows\)", done.stderr, re.M)
    events = re.search(r"^corporate actions: (\d+) decided by the holders' evidence", done.stderr, re.M)
    undecided = re.search(r"^undecided changes \(`ras review` lists them\): (\d+)", done.stderr, re.M)
    release = (releases / "current").resolve()
    return {
        "rows": int(rows[1]) if rows else 0,
        "events": int(events[1]) if events else 0,  # the tree has no corporate action: each one is false
        "undecided": int(undecided[1]) if undecided else 0,
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
        for side in ("this", "baseline", "window", "nextQuarter"):
            c = case.get(side)
            if c:
                per_row = c["cpuSeconds"] / c["rows"]
                table.append(
                    [
                        case["shape"] + LABELS[side],
                        f"{c['rows']:,}",
                        f"{c['seconds']:.1f}",
                        f"{c['cpuSeconds']:.1f}",
                        f"{1e6 * per_row:.1f}",
                        f"{per_row / (smallest['cpuSeconds'] / smallest['rows']):.2f}",
                        f"{c['treePssMb'] / 1024:.2f}",
                        f"{c['maxRssMb'] / 1024:.2f}",
                        f"{c['releaseMb'] / 1000:.2f}",
                        f"{c.get('events', 0)} / {c.get('undecided', 0)}",
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
    parser.add_argument("--next-quarter", action="store_true", help="also the next quarter's publish against cold")
    args = parser.parse_args(argv)
    cases = []
    for shape in args.shapes.split(","):
        tree = tree_for(shape, args)
        case = {"shape": shape, "this": publish_cold(tree, args.work / "releases-shape", args.checkout)}
        if args.baseline and shape in (args.baseline_shapes or args.shapes).split(","):
            case["baseline"] = publish_cold(tree, args.work / "releases-shape-baseline", args.baseline)
        if args.next_quarter:  # the same window length both times: a version fewer than the tree's quarters
            step, whole = args.work / "releases-shape-next", windowed(tree, args.work / f"{tree.name}-window", True)
            case["window"] = publish_cold(whole, step, args.checkout)
            publish_cold(windowed(tree, args.work / f"{tree.name}-before", False), step, args.checkout)
            case["nextQuarter"] = publish_cold(whole, step, args.checkout, fresh=False)
            set_aside(step)
        set_aside(args.work / "releases-shape")
        set_aside(args.work / "releases-shape-baseline")
        cases.append(case)
        print(rows_of(cases)[-1], flush=True)
    growth = (cases[-1]["this"]["cpuSeconds"] / cases[-1]["this"]["rows"]) / (
        cases[0]["this"]["cpuSeconds"] / cases[0]["this"]["rows"]
    )
    headers = ["tree", "rows", "wall s", "CPU s", "CPU µs/row", "per row ×", "PSS GiB", "RSS GiB", "GB", "false events / undecided", "load"]  # fmt: skip
    targets = [report.target(f"CPU per row within {GROWTH_LIMIT}×", growth <= GROWTH_LIMIT, f"{growth:.2f}×")]
    for case in cases:
        if "nextQuarter" in case:
            step = case["nextQuarter"]["cpuSeconds"] / case["window"]["cpuSeconds"]
            what = f"{case['shape']}: the next quarter's publish at most {NEXT_QUARTER_LIMIT} × the cold one (CPU)"
            targets.append(report.target(what, step <= NEXT_QUARTER_LIMIT, f"{step:.2f}×"))
    notes = [
        f"{args.quarters} quarters; PSS: the peak of the sum over the publish and its workers; GB: the release",
        "The trees hold no corporate action: every event the holders' evidence decides is false, and every change"
        " published undecided a trade hidden.",
    ]
    false = sum(c["this"]["events"] + c["this"]["undecided"] for c in cases)
    targets.append(report.target("no event invented, no trade hidden (this checkout)", false == 0, f"{false}"))
    raw = [{k: {**v, "stderr": v["stderr"][-4000:]} if isinstance(v, dict) else v for k, v in c.items()} for c in cases]
    removed_set_aside()
    report.save(
        "shape", "Publish of trees shaped like the largest filers", headers, rows_of(cases), targets, notes, raw
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
