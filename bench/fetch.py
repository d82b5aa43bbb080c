"""Fetch pacing: `ras fetch` and `ras securities` against the local stand-ins of EDGAR (with the SEC's data-set page)
and OpenFIGI.

Usage: `python -m bench.fetch [--work DIR]` (needs ../shared/realdata beside the checkout). Measures a first
fetch of Berkshire's 30 real quarters (the data sets of tests/berkshire_universe.py as the SEC's page listed them on
2020-11-30, then the filings: requests, bytes, wall time, average and peak requests per second against the SEC's 10
per second), a re-run with nothing new (requests made, files written), and `ras securities` for the same filings
without and with an API key (requests made). Loopback answers in microseconds, so the pace is the client's own:
this measures the limiter, not the SEC.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tests.fetching import SINCE, USER_AGENT, empty_tree
from tests.servers import child_env
from tests.standin import serving
from tests.standin_datasets import DataSetsPage, sec_app
from tests.standin_edgar import Edgar
from tests.standin_openfigi import OpenFigi

SEC_CAP = 10.0  # requests per second, SEC fair access


def ras(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "builder.cli", *args],
        env={**child_env(), **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def bench_fetch(root: Path) -> None:
    edgar = Edgar.berkshire()
    page = DataSetsPage.berkshire(edgar.listed_until)
    with serving(sec_app(edgar, page)) as base:
        started = time.perf_counter()
        first = ras("fetch", "--source", str(root), "--edgar-url", base, "--since", SINCE, "--user-agent", USER_AGENT)
        seconds = time.perf_counter() - started
        seen = sorted(s.at for s in edgar.log.seen)
        span = seen[-1] - seen[0]
        average = (len(seen) - 1) / span
        sets = sorted(root.glob("sec13f-datasets/*.zip"))
        filings = sorted(root.glob("sec13f/*/*.txt"))
        print(
            f"first fetch: exit {first.returncode}, {len(seen)} requests in {seconds:.2f} s wall "
            f"({span:.2f} s first to last request): {len(sets)} data sets "
            f"({sum(p.stat().st_size for p in sets):,} bytes), {len(filings)} filings "
            f"({sum(p.stat().st_size for p in filings):,} bytes)"
        )
        print(
            f"  average {average:.2f} req/s = {average / SEC_CAP:.3f} of the {SEC_CAP:.0f}/s cap; "
            f"most in any one second {edgar.log.most_in_one_second()}"
        )
        before = {p: p.stat().st_mtime_ns for p in root.rglob("*")}
        count = len(edgar.log.seen)
        again = ras("fetch", "--source", str(root), "--edgar-url", base, "--since", SINCE, "--user-agent", USER_AGENT)
        changed = sum(1 for p in root.rglob("*") if before.get(p) != p.stat().st_mtime_ns)
        print(
            f"re-run: exit {again.returncode}, {len(edgar.log.seen) - count} requests, {changed} files written or changed"
        )


def bench_securities(root: Path) -> None:
    for key in (None, "bench-key-not-real"):
        tree = root.parent / f"securities-{'key' if key else 'keyless'}"
        shutil.copytree(root, tree)
        (tree / "securities.csv").write_text("cusip,ticker,name\n", encoding="utf-8")
        openfigi = OpenFigi()
        with serving(openfigi.app()) as base:
            env = {"OPENFIGI_API_KEY": key} if key else {}
            started = time.perf_counter()
            result = ras("securities", "--source", str(tree), "--openfigi-url", base, **env)
            seconds = time.perf_counter() - started
        print(
            f"securities {'with' if key else 'without'} an API key: exit {result.returncode}, {sum(openfigi.jobs)} CUSIPs "
            f"in {len(openfigi.jobs)} requests, {seconds:.2f} s (stand-in window {openfigi.limit}/{openfigi.window:.0f} s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/ras-bench-fetch"))
    work = parser.parse_args().work
    shutil.rmtree(work, ignore_errors=True)
    root = empty_tree(work / "source")
    print(
        f"machine: {os.cpu_count()} CPUs, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} (shared, noisy)"
    )
    bench_fetch(root)
    bench_securities(root)


if __name__ == "__main__":
    main()
