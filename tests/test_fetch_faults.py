"""`ras fetch --no-datasets` when the EDGAR stand-in misbehaves: each fault retried, or reported in one line naming the accession."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from tests.fetching import BERKSHIRE_CIK, empty_tree, incomplete_files, run_fetch
from tests.standin import serving
from tests.standin_edgar import FAULTS, Edgar

FIRST = "0000950123-13-006925"  # Berkshire's 2013-06-30 report, the only one listed by 2013-09-01
FILINGS = ("--no-datasets",)  # the filings one by one: the faults are EDGAR's
TIMEOUT = ("--timeout", "1")  # the stand-in's slow answer takes 3 s


def one_filing_edgar(*faults: str) -> Edgar:
    edgar = Edgar.berkshire()
    edgar.listed_until = "2013-09-01"
    edgar.faults[FIRST] = list(faults)
    return edgar


def filings_in(root: Path) -> list[str]:
    """The files of the manager's folder but the filing-date record (ras fetch writes it from the listing)."""
    folder = root / "sec13f" / BERKSHIRE_CIK
    return sorted(p.name for p in folder.iterdir() if p.name != DATES_FILE) if folder.exists() else []


def archive_requests(edgar: Edgar):
    return [seen for seen in edgar.log.seen if seen.path.endswith(f"{FIRST}.txt")]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_once_is_retried_and_the_filing_lands_whole(tmp_path, fault):
    root = empty_tree(tmp_path / "source")
    edgar = one_filing_edgar(fault)
    with serving(edgar.app()) as base:
        result = run_fetch(root, base, *FILINGS, *TIMEOUT)
    assert result.exit_code == 0, result.output
    assert len(archive_requests(edgar)) == 2
    folder = root / "sec13f" / BERKSHIRE_CIK
    assert sorted(p.name for p in folder.iterdir()) == [f"{FIRST}.txt", DATES_FILE]
    assert incomplete_files(folder) == []
    assert "1 new files" in result.stdout and "(1 retries)" in result.stdout


def test_retry_after_is_honoured_before_asking_again(tmp_path):
    root = empty_tree(tmp_path / "source")
    edgar = one_filing_edgar("429")
    with serving(edgar.app()) as base:
        run_fetch(root, base, *FILINGS)
    refused, granted = archive_requests(edgar)
    assert refused.status == 429 and granted.status == 200
    assert granted.at - refused.at >= 1.0  # the stand-in's Retry-After: 1


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_that_persists_is_one_line_naming_the_accession_and_nothing_half_written(tmp_path, fault):
    root = empty_tree(tmp_path / "source")
    edgar = one_filing_edgar(*[fault] * 5)
    with serving(edgar.app()) as base:
        result = run_fetch(root, base, *FILINGS, *TIMEOUT)
    assert result.exit_code == 1
    failed = [line for line in result.stdout.splitlines() if line.startswith("  not fetched:")]
    assert len(failed) == 1 and failed[0].startswith(f"  not fetched: {FIRST} (berkshire): ")
    assert "gave up after 5 attempts" in failed[0]
    assert result.output.splitlines()[-1].startswith("Error: 1 filings not fetched (listed above)")
    assert filings_in(root) == []  # EDGAR's filing dates are recorded whole; no filing is half written


def test_the_next_run_after_a_persistent_fault_completes(tmp_path):
    root = empty_tree(tmp_path / "source")
    with serving(one_filing_edgar(*["503"] * 5).app()) as base:
        assert run_fetch(root, base, *FILINGS).exit_code == 1
    with serving(one_filing_edgar().app()) as base:
        result = run_fetch(root, base, *FILINGS)
    assert result.exit_code == 0, result.output
    assert incomplete_files(root / "sec13f") == [] and (root / "sec13f" / BERKSHIRE_CIK / f"{FIRST}.txt").is_file()


def test_the_whole_fetch_stops_at_its_time_limit_naming_what_it_did_not_fetch(tmp_path):
    root = empty_tree(tmp_path / "source")
    edgar = one_filing_edgar(*["slow"] * 5)
    with serving(edgar.app()) as base:
        result = run_fetch(root, base, *FILINGS, "--max-time", "2")
    assert result.exit_code == 1
    assert f"  not fetched: {FIRST} (berkshire): " in result.stdout and "ran out of its time limit" in result.stdout
    assert len(archive_requests(edgar)) <= 2  # one slow answer cut at the limit, at most one more try
    assert filings_in(root) == []
