"""Reading a full-size Form 13F data set: a cold read (zip → witnesses, cache written) and a cached read.

Usage: `python -m bench.datasets [--rows 3800000] [--cusips 1400] [--repeat 2] [--work DIR]`.
The set is synthetic (bench.datasets_set: the real columns, 8,000 filers, 3.8 million INFOTABLE rows, ~400 MB
inflated, ~110 MB zipped), generated once under --work. Each read runs `read_witnesses` in its own process;
its time and peak RSS (wait4) are measured. The reference, in the same run: inflating INFOTABLE.tsv from the
zip to the end in a process that has imported the reader (what any in-place read costs at the least).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

from bench import report
from bench.datasets_set import universe
from bench.processes import Measured, measure

WORK = Path("/tmp/ras-bench-datasets")
COLD_SECONDS = 30.0  # the brief: one set read in under 30 s on a 2-core machine
PEAK_MB = 1536.0  # … and well under 1.5 GB of peak memory
READ = (
    "import sys, time\nfrom pathlib import Path\nfrom builder.sources.files import DEFAULT_LIMITS\n"
    "from builder.sources.datasets.reader import read_witnesses\nstarted = time.perf_counter()\n"
    "cache = Path(sys.argv[2]) if sys.argv[2] else None\n"
    "result = read_witnesses(Path(sys.argv[1]), frozenset(sys.argv[3].split(',')), cache, DEFAULT_LIMITS)\n"
    "assert not result.problems, result.problems\n"
    "print(f'{time.perf_counter() - started:.3f}', result.reports[0], file=sys.stderr)\n"
)
INFLATE = (
    "import sys, time, zipfile\nimport builder.sources.datasets.reader\nstarted = time.perf_counter()\n"
    "with zipfile.ZipFile(sys.argv[1]) as archive:\n"
    "    name = next(n for n in archive.namelist() if n.endswith('INFOTABLE.tsv'))\n"
    "    with archive.open(name) as stream:\n"
    "        while stream.read(1 << 20):\n            pass\n"
    "print(f'{time.perf_counter() - started:.3f}', file=sys.stderr)\n"
)


def tree_for(rows: int, work: Path) -> Path:
    """A source tree holding the generated set (made once; the zip is kept between runs)."""
    tree = work / f"tree-{rows}"
    zipped = tree / "sec13f-datasets" / "01jun2025-31aug2025_form13f.zip"
    if not zipped.exists():
        zipped.parent.mkdir(parents=True, exist_ok=True)
        print(f"generating {rows:,} INFOTABLE rows into {zipped} …", flush=True)
        # In a child: a child's ru_maxrss counts the memory of the process it was forked from (Linux carries the
        # old mm's high-water mark over exec), so the generator's memory must not stay in this one.
        script = "import sys\nfrom pathlib import Path\nfrom bench.datasets_set import write_set\n"
        run(
            script + "write_set(Path(sys.argv[1]), int(sys.argv[2]))\nprint('done', file=sys.stderr)\n",
            str(zipped),
            str(rows),
        )
    return tree


def run(script: str, *arguments: str) -> tuple[Measured, str]:
    result = measure([sys.executable, "-c", script, *arguments])
    if result.returncode:
        raise SystemExit(f"failed: {result.stderr[-2000:]}")
    line = result.stderr.strip().splitlines()[-1]
    return result, line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_800_000)
    parser.add_argument("--cusips", type=int, default=1400)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args(argv)
    tree = tree_for(args.rows, args.work)
    zipped = next((tree / "sec13f-datasets").glob("*.zip"))
    asked = ",".join(universe()[: args.cusips])
    cache = args.work / "cache"
    runs: dict[str, list[Measured]] = {"inflate": [], "cold": [], "cached": []}
    said = ""
    for _ in range(args.repeat):
        runs["inflate"].append(run(INFLATE, str(zipped))[0])
        shutil.rmtree(cache, ignore_errors=True)
        measured, line = run(READ, str(tree), str(cache), asked)
        said = line.split(" ", 1)[1]  # after the seconds: the report line
        runs["cold"].append(measured)
        runs["cached"].append(run(READ, str(tree), str(cache), asked)[0])
    seconds = {name: statistics.median(m.seconds for m in found) for name, found in runs.items()}
    peak = {name: max(m.max_rss_mb for m in found) for name, found in runs.items()}
    rows = [
        [name, f"{seconds[name]:.2f}", f"{seconds[name] / seconds['inflate']:.2f}", f"{peak[name]:.0f}"]
        for name in ("inflate", "cold", "cached")
    ]
    targets = [
        report.target(f"cold read < {COLD_SECONDS:.0f} s", seconds["cold"] < COLD_SECONDS, f"{seconds['cold']:.1f} s"),
        report.target(f"peak < {PEAK_MB:.0f} MB", peak["cold"] < PEAK_MB, f"{peak['cold']:.0f} MB"),
        report.target(
            "cached read ≤ ¼ of the cold", seconds["cached"] <= seconds["cold"] / 4, f"{seconds['cached']:.2f} s"
        ),
    ]
    notes = [
        f"{args.rows:,} INFOTABLE rows, {zipped.stat().st_size / 1e6:.0f} MB zipped; {args.cusips:,} CUSIPs asked; "
        f"median of {args.repeat} runs, each its own process (time includes hashing the zip for provenance).",
        "inflate: the reference, INFOTABLE.tsv inflated to the end and thrown away; × inflate: seconds over it.",
        f"cold: {said}",
    ]
    headers = ["read", "seconds (median)", "× inflate", "peak RSS MB (max)"]
    report.save(
        "datasets", "Form 13F data sets: cold and cached read of a full-size set", headers, rows, targets, notes
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
