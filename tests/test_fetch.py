"""`ras fetch --no-datasets` (every filing from EDGAR, one by one) against the EDGAR stand-in serving real Berkshire
filings in EDGAR's real URL layout."""

from __future__ import annotations

import shutil
from datetime import date

import pytest

from builder.fetch.edgar import Listed
from builder.fetch.run import FetchResult, ManagerResult
from builder.fetch.summary import summary_lines
from builder.fetch.window import deadline, window_quarters
from builder.records import ManagerConfig
from builder.release.publish import publish
from builder.release.store import load_release
from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from tests.conftest import quiet
from tests.fetching import BERKSHIRE_CIK, PACKS, USER_AGENT, empty_tree, incomplete_files, run_fetch, run_fetch_process
from tests.standin import serving
from tests.standin_edgar import Edgar, header_of


@pytest.fixture(scope="module")
def fetched(tmp_path_factory: pytest.TempPathFactory):
    """One first fetch into an empty tree: the tree, the stand-in and the CLI result."""
    root = empty_tree(tmp_path_factory.mktemp("fetched") / "source")
    edgar = Edgar.berkshire()
    with serving(edgar.app()) as base:
        result = run_fetch_process(root, base, "--no-datasets")
    return root, edgar, result


def test_a_first_fetch_writes_every_listed_13f_as_its_accession(fetched):
    root, edgar, result = fetched
    assert result.exit_code == 0, result.output
    folder = root / "sec13f" / BERKSHIRE_CIK
    assert sorted(p.name for p in folder.iterdir()) == sorted([*(f"{a}.txt" for a in edgar.filings), DATES_FILE])
    assert incomplete_files(folder) == []
    for accession, original in edgar.filings.items():
        assert (folder / f"{accession}.txt").read_bytes() == original.read_bytes()
    assert "30 quarters found (2013-06-30 … 2020-09-30), 30 new files, 0 amendments, 0 notices" in result.stdout


def test_the_overflow_page_is_asked_for_because_the_window_reaches_before_the_listing(fetched):
    _, edgar, _ = fetched
    assert edgar.log.paths()[:2] == [
        f"/submissions/CIK{BERKSHIRE_CIK}.json",
        f"/submissions/CIK{BERKSHIRE_CIK}-submissions-001.json",
    ]


def test_every_request_declares_the_user_agent_and_no_second_holds_more_than_ten(fetched):
    _, edgar, _ = fetched
    assert len(edgar.log.seen) == 32
    assert {seen.user_agent for seen in edgar.log.seen} == {USER_AGENT}
    assert edgar.log.most_in_one_second() <= 10


def test_the_record_beside_the_filings_holds_edgars_filing_date_of_every_accession(fetched):
    root, edgar, _ = fetched
    record = (root / "sec13f" / BERKSHIRE_CIK / DATES_FILE).read_text().splitlines()
    assert record[0] == "accession,form,period,filed"
    # each listed date is the one the submission's own SGML header gives (the listing comes from EDGAR, not from it)
    headers = {a: header_of(path) for a, path in edgar.filings.items()}
    assert sorted(record[1:]) == sorted(
        f"{a},{h['form']},{h['reportDate']},{h['filingDate']}" for a, h in headers.items()
    )
    assert "0000950123-16-015025,13F-HR,2015-12-31,2016-02-16" in record  # signed 2016-02-12


def test_publishing_the_fetched_tree_gives_the_artifacts_of_the_hand_made_tree(fetched, tmp_path):
    root, edgar, _ = fetched
    by_hand = empty_tree(tmp_path / "by-hand")
    folder = by_hand / "sec13f" / BERKSHIRE_CIK
    folder.mkdir(parents=True)
    for accession, original in edgar.filings.items():
        shutil.copyfile(original, folder / f"{accession}.txt")
    fetched = load_release(tmp_path / "releases-fetched" / publish(root, tmp_path / "releases-fetched", None, quiet))
    made = load_release(tmp_path / "releases-by-hand" / publish(by_hand, tmp_path / "releases-by-hand", None, quiet))
    assert fetched.data.artifacts == made.data.artifacts  # the record dates nothing a header already dates


def test_a_rerun_with_nothing_new_asks_only_for_the_listing_and_its_page_and_writes_nothing(fetched, tmp_path):
    root, _, _ = fetched
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    before = {p: p.stat().st_mtime_ns for p in copy.rglob("*")}
    edgar = Edgar.berkshire()
    with serving(edgar.app()) as base:
        result = run_fetch(copy, base, "--no-datasets")
    assert result.exit_code == 0, result.output
    assert len(edgar.log.seen) == 2
    assert {p: p.stat().st_mtime_ns for p in copy.rglob("*")} == before
    assert "0 new files" in result.stdout


def test_a_rerun_fetches_only_the_filings_that_are_missing(fetched, tmp_path):
    root, _, _ = fetched
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    gone = sorted((copy / "sec13f" / BERKSHIRE_CIK).iterdir())[:3]
    for path in gone:
        path.unlink()
    edgar = Edgar.berkshire()
    with serving(edgar.app()) as base:
        result = run_fetch(copy, base, "--no-datasets")
    assert result.exit_code == 0, result.output
    asked = [path for path in edgar.log.paths() if path.startswith("/Archives/")]
    assert sorted(path.rsplit("/", 1)[1] for path in asked) == [path.name for path in gone]
    assert incomplete_files(copy / "sec13f") == []


@pytest.mark.parametrize("agent", [None, "just-a-name", "   "])
def test_fetch_refuses_to_start_without_a_user_agent_with_a_contact(tmp_path, agent):
    root = empty_tree(tmp_path / "source")
    edgar = Edgar.berkshire()
    with serving(edgar.app()) as base:
        result = run_fetch(root, base, user_agent=agent)
    assert result.exit_code == 1
    assert result.output.startswith("Error: SEC EDGAR requires a User-Agent naming you and a contact e-mail")
    assert "RAS_SEC_USER_AGENT" in result.output and len(result.output.strip().splitlines()) == 1
    assert edgar.log.seen == []


def test_the_user_agent_may_come_from_packs_toml(tmp_path):
    root = empty_tree(tmp_path / "source", '[source]\nuser_agent = "Ops ops@example.org"\n' + PACKS)
    edgar = Edgar.berkshire()
    edgar.listed_until = "2013-09-01"  # only the first quarter is listed yet
    with serving(edgar.app()) as base:
        result = run_fetch(root, base, "--no-datasets", user_agent=None)
    assert result.exit_code == 0, result.output
    assert {seen.user_agent for seen in edgar.log.seen} == {"Ops ops@example.org"}


def test_a_lower_rate_is_kept(tmp_path):
    root = empty_tree(tmp_path / "source")
    edgar = Edgar.berkshire()
    edgar.listed_until = "2014-03-01"  # two quarters listed, plus the old page: a short run
    with serving(edgar.app()) as base:
        result = run_fetch_process(root, base, "--no-datasets", "--rate", "3")
    assert result.exit_code == 0, result.output
    # the fetch spaces them 1/3 s apart; the stand-in stamps each in a thread of this busy process, so a stamp may land
    # late and the next on time (a median of 0.308 s under load 13): 0.25 s still tells 3 a second from the default 10
    assert len(edgar.log.seen) >= 4 and edgar.log.median_gap() >= 0.25  # 0.105 s at the default 10 a second


def test_an_unknown_cik_is_one_error_line_naming_it(tmp_path):
    root = empty_tree(tmp_path / "source", PACKS.replace('cik = "1067983"', 'cik = "1"'))
    with serving(Edgar.berkshire().app()) as base:
        result = run_fetch(root, base, "--no-datasets")
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        f"Error: EDGAR has no submissions for CIK 0000000001 ({base}/submissions/CIK0000000001.json: 404); "
        "check the cik in packs.toml"
    )


def test_notices_are_listed_in_the_summary_and_not_downloaded(tmp_path):
    packs = PACKS + '\n[[copycat.managers]]\nid = "buffett"\nname = "Buffett Warren E"\ncik = "315090"\n'
    root = empty_tree(tmp_path / "source", packs)
    edgar = Edgar.berkshire()
    edgar.listed_until = "2013-09-01"
    with serving(edgar.app()) as base:
        result = run_fetch(root, base, "--no-datasets")
    assert result.exit_code == 0, result.output
    assert "buffett (CIK 0000315090): 0 quarters found (none), 0 new files, 0 amendments" in result.stdout
    assert "  13F-NT " in result.stdout and "listed, not downloaded" in result.stdout
    assert not (root / "sec13f" / "0000315090").exists()


def test_the_default_window_is_the_packs_versions_and_one_more_quarter_for_the_first_diff():
    quarters = window_quarters(date(2026, 2, 20), 8, None)
    assert len(quarters) == 9 and quarters[0] == date(2023, 12, 31) and quarters[-1] == date(2025, 12, 31)
    assert window_quarters(date(2026, 2, 20), 8, date(2025, 7, 1)) == (date(2025, 9, 30), date(2025, 12, 31))


def test_a_quarter_is_due_45_days_after_it_ends():
    assert deadline(date(2025, 12, 31)) == date(2026, 2, 14)
    assert deadline(date(2025, 3, 31)) == date(2025, 5, 15)


def test_the_summary_says_whether_a_missing_quarter_is_late_or_not_yet_due(fetched, tmp_path):
    root, _, _ = fetched
    edgar = Edgar.berkshire()
    edgar.listed_until = "2020-10-01"  # the 2020-09-30 filing (made 2020-11-16) is not listed yet
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    with serving(edgar.app()) as base:
        result = run_fetch(copy, base, "--no-datasets")
    assert "  2020-09-30: no 13F-HR yet; late: it was due 2020-11-14" in result.stdout


def test_a_missing_quarter_before_its_deadline_is_not_yet_due():
    manager = ManagerConfig("berkshire", "Berkshire Hathaway Inc", BERKSHIRE_CIK)
    listed = (Listed("0000950123-25-005701", "13F-HR", date(2025, 5, 15), date(2025, 3, 31)),)
    result = FetchResult((ManagerResult(manager, listed),), requests=1, retries=0)
    lines = list(summary_lines(result, (date(2025, 3, 31), date(2025, 6, 30)), today=date(2025, 7, 20)))
    assert lines[0].startswith("berkshire (CIK 0001067983): 1 quarters found (2025-03-31 … 2025-03-31), 0 new files")
    assert "  2025-06-30: no 13F-HR yet; not due until 2025-08-14" in lines
