"""`ras fetch` by default: the SEC's Form 13F data sets that cover the window, then the filings from EDGAR; `--no-datasets`
and `--datasets` choose one side. Against one stand-in serving EDGAR (Berkshire's real filings) and the data-set page
(the sets of tests/berkshire_universe.py: Berkshire's filings beside fictional witnesses), as the SEC listed them on
2020-11-30."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.fetch.datasets.download import FOLDER
from tests.fetching import BERKSHIRE_CIK, USER_AGENT, empty_tree, run_fetch
from tests.standin import serving
from tests.standin_datasets import DataSetsPage, sec_app
from tests.standin_edgar import Edgar

SINCE = "2019-01-01"  # the README's window: 2019-03-31 …, filed from April 2019
LISTED_UNTIL = "2020-11-30"  # the 2020-09-30 reports are filed; their set (October–December 2020) is not posted yet
SETS = [
    f"{year}q{quarter}_form13f.zip"
    for year, quarter in ((2019, 2), (2019, 3), (2019, 4), (2020, 1), (2020, 2), (2020, 3))
]


def fetch(root: Path, *extra: str) -> tuple:
    edgar = Edgar.berkshire()
    edgar.listed_until = LISTED_UNTIL
    page = DataSetsPage.berkshire(LISTED_UNTIL)
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


def test_the_default_fetch_brings_the_sets_covering_the_window_then_the_filings(fetched):
    root, result, _, page = fetched
    assert result.exit_code == 0, result.output
    assert zips(root) == SETS and sorted(page.zip_requests()) == SETS
    for name in SETS:
        assert (root / FOLDER / name).read_bytes() == page.body(name)
    assert len(filings(root)) == 7  # 2019-03-31 … 2020-09-30
    size = sum(len(page.body(name)) for name in SETS)
    assert any(line.startswith("6 data sets for 2019-03-31 … ") for line in result.stdout.splitlines())
    assert f"in {FOLDER}/: 6 fetched ({size:,} bytes in " in result.stdout
    assert "berkshire (CIK 0001067983): 7 quarters found (2019-03-31 … 2020-09-30), 7 new files" in result.stdout


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
