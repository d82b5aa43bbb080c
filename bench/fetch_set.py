"""One full-size Form 13F data set through `ras fetch --datasets`: its time and peak memory against a bare download.

Usage: `python -m bench.fetch_set [--rows 3800000] [--repeat 2] [--work DIR]`. The set is bench.datasets' synthetic one
(the real columns and seven tables, 8,000 filers, 3.8 million INFOTABLE rows, ~110 MB zipped; made once under
/tmp/ras-bench-datasets), served over loopback by the data-set stand-in of the tests, which states its size on the
page. Each run is its own process: `ras fetch --datasets` into an empty tree (streamed to disk, then checked: the
central directory, every member inflated to its end for its CRC, the seven tables; fsynced, renamed, its sha256
recorded); the reference, in the same run, a bare aiohttp download of the same URL to a file, chunk by chunk, with
nothing checked. Loopback carries the bytes in about a second, so what is measured is the client's own work: a
real download takes as long as the line needs, and the check adds what it adds here.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

from bench import report
from bench.datasets import WORK, tree_for
from bench.processes import Measured, measure, ras
from tests.fetching import USER_AGENT
from tests.standin import serving
from tests.standin_datasets import OLD_PATH, DataSetsPage

NAME = "01jun2025-31aug2025_form13f.zip"  # the set bench.datasets writes; it holds the 2025-06-30 filings
BARE = (
    "import asyncio, sys, aiohttp\n"
    "async def main():\n"
    "    async with aiohttp.ClientSession() as session, session.get(sys.argv[1]) as response:\n"
    "        with open(sys.argv[2], 'wb') as out:\n"
    "            async for chunk in response.content.iter_chunked(1 << 20):\n"
    "                out.write(chunk)\n"
    "asyncio.run(main())\n"
)


def fetch_once(base: str, work: Path) -> Measured:
    tree = work / "tree"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    (tree / "packs.toml").write_text('[[copycat.managers]]\nid = "a"\nname = "A"\ncik = "1"\n', encoding="utf-8")
    command = ras("fetch", "--datasets", "--source", str(tree), "--edgar-url", base, "--since", "2025-04-01")
    result = measure([*command, "--user-agent", USER_AGENT])
    if result.returncode or not (tree / "sec13f-datasets" / NAME).is_file():
        raise SystemExit(f"ras fetch failed: {result.stderr[-2000:]}")
    return result


def bare_once(url: str, work: Path) -> Measured:
    result = measure([sys.executable, "-c", BARE, url, str(work / "bare.zip")])
    if result.returncode:
        raise SystemExit(f"the bare download failed: {result.stderr[-2000:]}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=3_800_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path("/tmp/ras-bench-fetch-set"))
    args = parser.parse_args(argv)
    body = next((tree_for(args.rows, WORK) / "sec13f-datasets").glob("*.zip")).read_bytes()
    args.work.mkdir(parents=True, exist_ok=True)
    page = DataSetsPage(listed=[(NAME, OLD_PATH, "2025 June July August 13F")], zips={NAME: body})
    runs: dict[str, list[Measured]] = {"bare": [], "ras fetch": []}
    with serving(page.app()) as base:
        for _ in range(args.repeat):
            runs["bare"].append(bare_once(f"{base}{OLD_PATH}/{NAME}", args.work))
            runs["ras fetch"].append(fetch_once(base, args.work))
    shutil.rmtree(args.work, ignore_errors=True)
    seconds = {name: statistics.median(m.seconds for m in found) for name, found in runs.items()}
    # sampled PSS, not ru_maxrss: a child's ru_maxrss starts from this process's, which holds the served set
    peak = {name: max(m.tree_pss_mb for m in found) for name, found in runs.items()}
    rows = [
        [name, f"{seconds[name]:.2f}", f"{seconds[name] / seconds['bare']:.2f}", f"{peak[name]:.0f}"]
        for name in ("bare", "ras fetch")
    ]
    size_mb = len(body) / 1e6  # never whole in memory: the fetch's peak stays under the set's own size
    met = peak["ras fetch"] < size_mb
    targets = [report.target(f"peak < the set's {size_mb:.0f} MB", met, f"{peak['ras fetch']:.0f} MB")]
    notes = [
        f"one set of {len(body) / 1e6:.0f} MB zipped ({args.rows:,} INFOTABLE rows), over loopback; median of "
        f"{args.repeat} runs, each its own process.",
        "bare: aiohttp streams the set to a file, nothing checked; ras fetch: the same, then the set checked whole "
        "(every member inflated for its CRC, the seven tables), fsynced, hashed and renamed.",
    ]
    headers = ["download", "seconds (median)", "× bare", "peak PSS MB (max, sampled)"]
    report.save("fetch_set", "One full-size data set through ras fetch", headers, rows, targets, notes)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
