"""`ras fetch` killed with SIGKILL at random moments: only complete files ever, and the next run completes."""

from __future__ import annotations

import random
import subprocess
import sys
import time

import pytest

from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from builder.sources.sec13f.filing_dates import parse_filing_dates
from tests.fetching import BERKSHIRE_CIK, SINCE, USER_AGENT, empty_tree, incomplete_files
from tests.servers import child_env
from tests.standin import serving
from tests.standin_edgar import Edgar

TRIALS = 20
KILL_WITHIN = 4.0  # seconds: a whole fetch of the 30 quarters takes about 3.5 s at 10 requests per second


def fetch_command(root, base) -> list[str]:
    """`ras fetch` of the tree from the stand-in at `base`."""
    options = ["--source", str(root), "--edgar-url", base, "--since", SINCE, "--user-agent", USER_AGENT]
    return [sys.executable, "-m", "builder.cli", "fetch", *options]


def start_fetch(root, base) -> subprocess.Popen:
    return subprocess.Popen(
        fetch_command(root, base), env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


@pytest.mark.slow
def test_sigkill_at_any_moment_leaves_only_complete_files_and_the_next_run_completes(tmp_path):
    root = empty_tree(tmp_path / "source")
    folder = root / "sec13f" / BERKSHIRE_CIK
    edgar = Edgar.berkshire()
    chance = random.Random(20261123)  # fixed seed: a failure can be replayed
    with serving(edgar.app()) as base:
        for trial in range(TRIALS):
            held = sorted(folder.glob("*.txt")) if folder.is_dir() else []
            for path in chance.sample(held, len(held) // 2):  # every trial has downloads to interrupt
                path.unlink()
            process = start_fetch(root, base)
            time.sleep(chance.uniform(0.3, KILL_WITHIN))
            process.kill()
            process.wait()
            assert incomplete_files(folder) == [], f"trial {trial}"
            temporary = [p.name for p in folder.glob(".*")] if folder.is_dir() else []
            assert all(name.endswith(".part") for name in temporary), temporary
        final = subprocess.run(fetch_command(root, base), env=child_env(), capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stderr
    assert sorted(p.name for p in folder.iterdir()) == sorted([*(f"{a}.txt" for a in edgar.filings), DATES_FILE])
    dates, problems = parse_filing_dates((folder / DATES_FILE).read_bytes(), DATES_FILE)  # whole, as every file here
    assert problems == () and set(dates) == set(edgar.filings)
    for accession, original in edgar.filings.items():
        assert (folder / f"{accession}.txt").read_bytes() == original.read_bytes()
