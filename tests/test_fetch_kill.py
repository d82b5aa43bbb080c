"""`ras fetch` killed with SIGKILL at random moments, or in the middle of a data set: only complete files ever, and the
next run completes (a data set from where it stopped)."""

from __future__ import annotations

import random
import subprocess
import sys
import time

import pytest

from builder.fetch.datasets.download import FOLDER, read_record
from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from builder.sources.sec13f.filing_dates import parse_filing_dates
from tests.fetching import BERKSHIRE_CIK, SINCE, USER_AGENT, empty_tree, incomplete_files
from tests.servers import child_env
from tests.standin import serving
from tests.standin_datasets import DataSetsPage, padded_zip
from tests.standin_edgar import Edgar

TRIALS = 20
KILL_WITHIN = 4.0  # seconds: a whole fetch of the 30 quarters takes about 3.5 s at 10 requests per second


def fetch_command(root, base) -> list[str]:
    """`ras fetch` of the tree from the stand-in at `base`."""
    options = ["--source", str(root), "--edgar-url", base, "--since", SINCE, "--user-agent", USER_AGENT]
    return [sys.executable, "-m", "builder.cli", "fetch", "--no-datasets", *options]


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


SET = "01mar2026-31may2026_form13f.zip"
SET_BYTES = 3_000_000  # a set sent at PACE takes ten seconds: long enough to kill in the middle
PACE = 300_000  # bytes a second


def sets_command(root, base) -> list[str]:
    """`ras fetch --datasets` of the window that the one set SET covers."""
    options = ["--source", str(root), "--edgar-url", base, "--since", "2026-01-01", "--user-agent", USER_AGENT]
    return [sys.executable, "-m", "builder.cli", "fetch", "--datasets", *options]


@pytest.mark.slow
def test_sigkill_in_the_middle_of_a_set_keeps_no_set_and_the_next_run_resumes_it(tmp_path):
    root = empty_tree(tmp_path / "source")
    partial = root / FOLDER / f".{SET}.partial"
    body = padded_zip(SET, SET_BYTES)
    listed = [row for row in DataSetsPage().listed if row[0] == SET]
    page = DataSetsPage(listed=list(listed), zips={SET: body}, bytes_per_second=PACE)
    with serving(page.app()) as base:
        process = subprocess.Popen(sets_command(root, base), env=child_env(), stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not (partial.is_file() and partial.stat().st_size > len(body) // 4) and time.monotonic() < deadline:
            time.sleep(0.05)
        process.kill()
        process.wait()
    held = partial.stat().st_size
    assert len(body) // 4 < held < len(body)  # killed in the middle, with what had arrived on disk
    assert not (root / FOLDER / SET).exists() and read_record(root / FOLDER) == {}
    page = DataSetsPage(listed=list(listed), zips={SET: body})
    with serving(page.app()) as base:
        final = subprocess.run(sets_command(root, base), env=child_env(), capture_output=True, text=True, timeout=120)
    assert final.returncode == 0, final.stderr
    assert [seen.range for seen in page.log.seen if seen.path.endswith(SET)] == [f"bytes={held}-"]
    assert (root / FOLDER / SET).read_bytes() == body and not partial.exists()
    assert f"{SET}  {len(body):,} bytes  fetched (resumed at {held:,})" in final.stdout
    assert f": 1 fetched ({len(body) - held:,} bytes in " in final.stdout
