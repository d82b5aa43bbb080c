"""`ras fetch` by default: the SEC's Form 13F data sets that cover the window, then from EDGAR only the filings no set
holds (every one of a manager pinned to its filings); `--no-datasets` and `--datasets` choose one side. Against one stand-in serving EDGAR (Berkshire's real filings) and the data-set page
(the sets of tests/berkshire_universe.py: Berkshire's filings beside fictional witnesses), as the SEC listed them on
2020-11-30."""

from __future__ import annotations

import shutil
import zipfile
from datetime import date
from pathlib import Path

import pytest

from builder.fetch.datasets.download import FOLDER
from builder.fetch.datasets.held import accessions_in_sets
from builder.fetch.edgar import Listed
from builder.fetch.run import FetchResult, ManagerResult
from builder.fetch.summary import summary_lines
from builder.records import ManagerConfig
from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from tests.fetching import BERKSHIRE_CIK, PACKS, USER_AGENT, empty_tree, run_fetch
from tests.standin import serving
from tests.standin_datasets import DataSetsPage, sec_app
from tests.standin_edgar import Edgar

SINCE = "2019-01-01"  # the README's window: 2019-03-31 …, filed from April 2019
LISTED_UNTIL = "2020-11-30"  # the 2020-09-30 reports are filed; their set (October–December 2020) is not posted yet
NEWEST = "0000950123-20-012127.txt"  # Berkshire's 13F-HR for 2020-09-30, filed 2020-11-16: in no set posted by then
SETS = [
    f"{year}q{quarter}_form13f.zip"
    for year, quarter in ((2019, 2), (2019, 3), (2019, 4), (2020, 1), (2020, 2), (2020, 3))
]


def fetch(root: Path, *extra: str, posted_until: str = LISTED_UNTIL) -> tuple:
    """`ras fetch` of the tree against EDGAR as of LISTED_UNTIL and the data sets posted by `posted_until`."""
    edgar = Edgar.berkshire()
    edgar.listed_until = LISTED_UNTIL
    page = DataSetsPage.berkshire(posted_until)
    with serving(sec_app(edgar, page)) as base:
        result = run_fetch(root, base, "--since", SINCE, *extra)
    return result, edgar, page


def zips(root: Path) -> list[str]:
    return sorted(path.name for path in (root / FOLDER).glob("*.zip")) if (root / FOLDER).is_dir() else []


def filings(root: Path) -> list[str]:
    return sorted(path.name for path in (root / "sec13f" / BERKSHIRE_CIK).glob("*.txt"))


@pytest.fixture(scope="module")
def fetched(tmp_path_factory: pytest.TempPathFactory):
    root = empty_tree(tmp_path_factory.mktemp("default") / "source")
    return (root, *fetch(root))


def test_the_default_fetch_brings_the_sets_covering_the_window_then_only_the_filing_no_set_holds(fetched):
    root, result, edgar, page = fetched
    assert result.exit_code == 0, result.output
    assert zips(root) == SETS and sorted(page.zip_requests()) == SETS
    for name in SETS:
        assert (root / FOLDER / name).read_bytes() == page.body(name)
    assert filings(root) == [NEWEST]
    assert [path for path in edgar.log.paths() if path.startswith("/Archives/")] == [
        f"/Archives/edgar/data/1067983/{NEWEST.removesuffix('.txt').replace('-', '')}/{NEWEST}"
    ]
    dates = (root / "sec13f" / BERKSHIRE_CIK / DATES_FILE).read_text().splitlines()
    assert len(dates) == 1 + 7  # EDGAR's filing date of every listed report, those the sets hold included
    size = sum(len(page.body(name)) for name in SETS)
    assert any(line.startswith("6 data sets for 2019-03-31 … ") for line in result.stdout.splitlines())
    assert f"in {FOLDER}/: 6 fetched ({size:,} bytes in " in result.stdout
    assert (
        "berkshire (CIK 0001067983): 7 quarters found (2019-03-31 … 2020-09-30), 1 new files, 6 in the data sets, "
        "0 amendments, 0 notices" in result.stdout.splitlines()
    )


def test_the_page_is_read_first_and_every_request_declares_the_user_agent(fetched):
    _, _, edgar, _ = fetched
    assert edgar.log.paths()[0] == "/data-research/sec-markets-data/form-13f-data-sets"
    assert {seen.user_agent for seen in edgar.log.seen} == {USER_AGENT}
    assert edgar.log.most_in_one_second() <= 10


def test_no_datasets_fetches_the_filings_alone(tmp_path):
    root = empty_tree(tmp_path / "source")
    result, edgar, page = fetch(root, "--no-datasets")
    assert result.exit_code == 0, result.output
    assert zips(root) == [] and page.zip_requests() == []
    assert "/data-research/sec-markets-data/form-13f-data-sets" not in edgar.log.paths()
    assert len(filings(root)) == 7


def test_datasets_fetches_the_sets_alone(tmp_path):
    root = empty_tree(tmp_path / "source")
    result, edgar, _ = fetch(root, "--datasets")
    assert result.exit_code == 0, result.output
    assert zips(root) == SETS and filings(root) == []
    assert [path for path in edgar.log.paths() if not path.endswith(".zip")] == [
        "/data-research/sec-markets-data/form-13f-data-sets"
    ]


def test_datasets_and_no_datasets_together_are_a_usage_error(tmp_path):
    root = empty_tree(tmp_path / "source")
    result, edgar, _ = fetch(root, "--datasets", "--no-datasets")
    assert result.exit_code == 2 and "--datasets (only the data sets) and --no-datasets (none) exclude each other" in (
        result.output
    )
    assert edgar.log.seen == []


def test_a_missing_page_names_the_way_to_fetch_the_filings_alone(tmp_path):
    root = empty_tree(tmp_path / "source")
    edgar = Edgar.berkshire()
    with serving(edgar.app()) as base:  # EDGAR alone: no data-set page at this base
        result = run_fetch(root, base, "--since", SINCE)
    assert result.exit_code == 1
    assert result.output.splitlines()[-1].endswith(
        "form-13f-data-sets: HTTP 404; the SEC's Form 13F data-set page is not there "
        "(`ras fetch --no-datasets` fetches the filings alone)"
    )
    assert filings(root) == []


def test_a_manager_pinned_to_its_filings_gets_every_one_from_edgar(tmp_path):
    root = empty_tree(tmp_path / "source", PACKS + 'source = "filings"\n')
    result, _, page = fetch(root)
    assert result.exit_code == 0, result.output
    assert zips(root) == SETS and sorted(page.zip_requests()) == SETS  # the evidence all the same
    assert len(filings(root)) == 7
    assert (
        "berkshire (CIK 0001067983): 7 quarters found (2019-03-31 … 2020-09-30), 7 new files, 0 amendments, "
        '0 notices; source = "filings": each filing from EDGAR' in result.stdout.splitlines()
    )


def test_once_the_sec_posts_the_newest_set_a_rerun_fetches_it_and_keeps_the_filing(fetched, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(fetched[0], root)
    result, edgar, page = fetch(root, posted_until="2021-01-15")  # the October–December 2020 set is posted
    assert result.exit_code == 0, result.output
    assert page.zip_requests() == ["2020q4_form13f.zip"]
    assert [path for path in edgar.log.paths() if path.startswith("/Archives/")] == []
    assert zips(root) == sorted([*SETS, "2020q4_form13f.zip"]) and filings(root) == [NEWEST]
    assert "7 quarters found (2019-03-31 … 2020-09-30), 0 new files, 6 in the data sets, 0 amendments" in result.stdout


def test_the_sets_hold_a_managers_holdings_reports_and_amendments_not_its_notices_nor_a_broken_zip(tmp_path):
    rows = [
        ("0000950123-20-000001", "13F-HR", "0001067983"),
        ("0000950123-20-000002", "13F-HR/A", "1067983"),  # a CIK written without its zeros is the same filer
        ("0000950123-20-000003", "13F-NT", "0001067983"),  # a notice: no holdings, so never taken from a set
        ("0000950123-20-000004", "13F-HR", "0000315090"),  # another filer
    ]
    lines = ["ACCESSION_NUMBER\tFILING_DATE\tSUBMISSIONTYPE\tCIK\tPERIODOFREPORT"]
    lines += [f"{accession}\t14-FEB-2020\t{kind}\t{cik}\t31-DEC-2019" for accession, kind, cik in rows]
    with zipfile.ZipFile(tmp_path / "2020q1_form13f.zip", "w") as archive:
        archive.writestr("2020Q1_form13f/SUBMISSION.tsv", "\n".join(lines) + "\n")
    (tmp_path / "2020q2_form13f.zip").write_bytes(b"PK\x03\x04 cut short")
    assert accessions_in_sets(tmp_path, [BERKSHIRE_CIK]) == {"0000950123-20-000001", "0000950123-20-000002"}


def test_a_manager_packs_toml_names_by_its_cik_alone_is_named_by_it():
    manager = ManagerConfig("", "", BERKSHIRE_CIK)  # id and name are made from its filings when a publish reads them
    listed = (Listed("0000950123-20-012127", "13F-HR", date(2020, 11, 16), date(2020, 9, 30)),)
    result = FetchResult((ManagerResult(manager, listed, in_sets=0),), requests=1, retries=0)
    lines = list(summary_lines(result, (date(2020, 9, 30),), today=date(2020, 11, 30)))
    assert (
        lines[0] == "CIK 0001067983: 1 quarters found (2020-09-30 … 2020-09-30), 0 new files, 0 amendments, 0 notices"
    )
