"""`ras fetch --datasets` against a stand-in SEC data-set page: the covering sets, by the SEC's names, whole or absent."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest

from builder.fetch.datasets.download import FOLDER, RECORD, read_record
from builder.fetch.datasets.page import covering, data_set, listed_sets
from tests.fetching import USER_AGENT, empty_tree, run_fetch
from tests.standin import serving
from tests.standin_datasets import LISTED, NEW_PATH, OLD_PATH, DataSetsPage, set_zip

SINCE = "2023-07-01"  # quarters 2023-09-30 … today: the last quarterly set, then every filing-window set
NEW_SETS = [name for name, _, _ in LISTED if not name.startswith("20")]
COVERING = ["2023q4_form13f.zip", *NEW_SETS]  # 2023q4 holds the originals for 2023-09-30 (filed Oct 1 – Nov 14)


def fetch_sets(root: Path, base: str, *extra: str, since: str = SINCE):
    return run_fetch(root, base, "--datasets", "--since", since, *extra)


def zips_in(root: Path) -> list[str]:
    folder = root / FOLDER
    return sorted(path.name for path in folder.iterdir() if not path.name.startswith(".")) if folder.is_dir() else []


@pytest.fixture(scope="module")
def fetched(tmp_path_factory: pytest.TempPathFactory):
    """One first `ras fetch --datasets` into an empty tree: the tree, the stand-in and the CLI result."""
    root = empty_tree(tmp_path_factory.mktemp("sets") / "source")
    page = DataSetsPage()
    with serving(page.app()) as base:
        result = fetch_sets(root, base)
    return root, page, result


def test_the_sets_covering_the_window_land_under_the_secs_own_names(fetched):
    root, page, result = fetched
    assert result.exit_code == 0, result.output
    assert zips_in(root) == sorted(COVERING)
    for name in COVERING:
        assert (root / FOLDER / name).read_bytes() == set_zip(name)
        assert f"{name}  {len(set_zip(name)):,} bytes  fetched" in result.stdout
    assert sorted(page.zip_requests()) == sorted(COVERING)  # 2023q1–q3 and 2013q2 hold earlier quarters


def test_both_host_paths_are_asked_for_at_the_given_base_whatever_the_link_says(fetched):
    _, page, _ = fetched
    paths = page.log.paths()
    assert f"{NEW_PATH}/01jun2026-31aug2026_form13f.zip" in paths  # linked absolute, as https://www.sec.gov/…
    assert f"{OLD_PATH}/01mar2025-31may2025_form13f.zip" in paths  # linked relative
    assert all(seen.status == 200 for seen in page.log.seen)


def test_every_request_declares_the_user_agent_and_no_second_holds_more_than_ten(fetched):
    _, page, _ = fetched
    assert len(page.log.seen) == 1 + len(COVERING)  # the page, then one request a set
    assert {seen.user_agent for seen in page.log.seen} == {USER_AGENT}
    assert page.log.most_in_one_second() <= 10


def test_the_record_beside_the_zips_holds_each_sets_size_digest_and_url(fetched):
    root, _, _ = fetched
    record = read_record(root / FOLDER)
    assert sorted(record) == sorted(COVERING)
    assert record["2023q4_form13f.zip"]["bytes"] == str(len(set_zip("2023q4_form13f.zip")))
    assert record["01jun2026-31aug2026_form13f.zip"]["url"].endswith(f"{NEW_PATH}/01jun2026-31aug2026_form13f.zip")


def test_a_rerun_asks_only_for_the_page_and_writes_nothing(fetched, tmp_path):
    root, _, _ = fetched
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    before = {path: path.stat().st_mtime_ns for path in copy.rglob("*")}
    page = DataSetsPage()
    with serving(page.app()) as base:
        result = fetch_sets(copy, base)
    assert result.exit_code == 0, result.output
    assert page.zip_requests() == [] and len(page.log.seen) == 1
    assert {path: path.stat().st_mtime_ns for path in copy.rglob("*")} == before
    assert f"0 fetched, {len(COVERING)} already here" in result.stdout


def test_a_zip_that_is_not_whole_is_fetched_again(fetched, tmp_path):
    root, _, _ = fetched
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    damaged = copy / FOLDER / "01mar2025-31may2025_form13f.zip"
    damaged.write_bytes(damaged.read_bytes()[:100])
    page = DataSetsPage()
    with serving(page.app()) as base:
        result = fetch_sets(copy, base)
    assert result.exit_code == 0, result.output
    assert page.zip_requests() == [damaged.name]
    assert damaged.read_bytes() == set_zip(damaged.name)


def test_a_download_cut_once_is_asked_for_again_and_lands_whole(tmp_path):
    root = empty_tree(tmp_path / "source")
    page = DataSetsPage()
    page.faults["01mar2026-31may2026_form13f.zip"] = ["truncated", "html200"]
    with serving(page.app()) as base:
        result = fetch_sets(root, base, since="2026-01-01")
    assert result.exit_code == 0, result.output
    assert page.zip_requests().count("01mar2026-31may2026_form13f.zip") == 3
    assert (root / FOLDER / "01mar2026-31may2026_form13f.zip").read_bytes() == set_zip(
        "01mar2026-31may2026_form13f.zip"
    )


def test_a_download_cut_every_time_leaves_no_file_at_its_name_and_the_next_run_resumes_it(tmp_path):
    root = empty_tree(tmp_path / "source")
    cut = "01mar2026-31may2026_form13f.zip"
    page = DataSetsPage()
    page.faults[cut] = ["truncated"] * 5
    with serving(page.app()) as base:
        failed = fetch_sets(root, base, since="2026-01-01")
    assert failed.exit_code == 1
    assert [line for line in failed.output.splitlines() if line.startswith("Error:")] == [
        failed.output.splitlines()[-1]
    ]
    assert failed.output.splitlines()[-1].startswith(
        f"Error: {FOLDER}/{cut}: {base}{OLD_PATH}/{cut}: gave up after 5 attempts (the body was cut short)"
    )
    assert cut not in zips_in(root) and cut not in read_record(root / FOLDER)
    assert [path.name for path in (root / FOLDER).glob(".*.part")] == []
    held = (root / FOLDER / f".{cut}.partial").stat().st_size  # each attempt went on where the one before stopped
    assert len(set_zip(cut)) // 2 < held < len(set_zip(cut))
    page = DataSetsPage()
    with serving(page.app()) as base:
        result = fetch_sets(root, base, since="2026-01-01")
    assert result.exit_code == 0, result.output
    assert (root / FOLDER / cut).read_bytes() == set_zip(cut)
    assert f"{cut}  {len(set_zip(cut)):,} bytes  fetched (resumed at {held:,})" in result.stdout
    assert [seen.range for seen in page.log.seen if seen.path.endswith(cut)] == [f"bytes={held}-"]
    assert not (root / FOLDER / f".{cut}.partial").exists()


def test_a_temporary_file_left_by_a_killed_run_is_removed(tmp_path):
    root = empty_tree(tmp_path / "source")
    left = root / FOLDER / ".01mar2026-31may2026_form13f.zip.1a2b3c4d.part"
    left.parent.mkdir(parents=True)
    left.write_bytes(b"PK\x03\x04 half a set")
    with serving(DataSetsPage().app()) as base:
        result = fetch_sets(root, base, since="2026-01-01")
    assert result.exit_code == 0, result.output
    assert not left.exists() and f"removed {left.name}, left by an interrupted fetch" in result.stdout


def test_a_re_upload_replaces_the_set_it_re_uploads(fetched, tmp_path):
    root, _, _ = fetched
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    page = DataSetsPage()
    again = page.reupload("01mar2025-31may2025_form13f.zip", 1)
    with serving(page.app()) as base:
        result = fetch_sets(copy, base)
    assert result.exit_code == 0, result.output
    assert page.zip_requests() == [again]
    assert again in zips_in(copy) and "01mar2025-31may2025_form13f.zip" not in zips_in(copy)
    assert (copy / FOLDER / again).read_bytes() == set_zip(again)
    assert sorted(read_record(copy / FOLDER)) == sorted(zips_in(copy))
    assert f"removed 01mar2025-31may2025_form13f.zip: replaced by the re-upload {again}" in result.stdout


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ("missing", "/data-research/sec-markets-data/form-13f-data-sets: HTTP 404; the SEC's Form 13F data-set page"),
        ("changed", "/data-research/sec-markets-data/form-13f-data-sets: the page links no Form 13F data set"),
    ],
)
def test_a_missing_or_changed_page_is_one_error_line_and_nothing_written(tmp_path, state, message):
    root = empty_tree(tmp_path / "source")
    page = DataSetsPage(page=state)
    with serving(page.app()) as base:
        result = fetch_sets(root, base)
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [result.output.strip()]
    assert result.output.startswith(f"Error: {base}{message}")
    assert page.zip_requests() == [] and zips_in(root) == []


def test_the_sets_refuse_to_start_without_a_user_agent_with_a_contact(tmp_path):
    root = empty_tree(tmp_path / "source")
    page = DataSetsPage()
    with serving(page.app()) as base:
        result = run_fetch(root, base, "--datasets", user_agent="just-a-name")
    assert result.exit_code == 1 and result.output.startswith("Error: SEC EDGAR requires a User-Agent")
    assert page.log.seen == []


@pytest.mark.parametrize(
    ("name", "first", "last", "upload"),
    [
        ("2013q2_form13f.zip", date(2013, 4, 1), date(2013, 6, 30), 0),
        ("2023q4_form13f.zip", date(2023, 10, 1), date(2023, 12, 31), 0),
        ("01jan2024-29feb2024_form13f.zip", date(2024, 1, 1), date(2024, 2, 29), 0),
        ("01dec2024-28feb2025_form13f.zip", date(2024, 12, 1), date(2025, 2, 28), 0),
        ("01MAR2025-31MAY2025_form13f_2.zip", date(2025, 3, 1), date(2025, 5, 31), 2),
    ],
)
def test_a_sets_filing_window_is_read_from_its_name(name, first, last, upload):
    found = data_set(name, f"https://www.sec.gov{OLD_PATH}/{name}")
    assert (found.first, found.last, found.upload) == (first, last, upload)


def test_a_set_name_whose_window_cannot_be_read_is_an_error_naming_it():
    with pytest.raises(Exception, match=r"2026h2_form13f\.zip: a Form 13F data set whose filing window cannot be read"):
        data_set("2026h2_form13f.zip", "https://www.sec.gov/files/2026h2_form13f.zip")


def test_links_relative_or_absolute_are_read_onto_the_base_and_only_the_newest_upload_kept():
    page = """<a href="/files/structureddata/data/form-13f-data-sets/01mar2025-31may2025_form13f.zip">a</a>
    <a href="https://www.sec.gov/files/structureddata/data/form-13f-data-sets/01mar2025-31may2025_form13f_1.zip">b</a>
    <a href="../files/other/2023q4_form13f.zip">c</a> <a href="/files/x/2026q2.zip">not a set</a>"""
    found = listed_sets(page, "https://www.sec.gov/data-research/sec-markets-data/form-13f-data-sets", "http://mirror")
    assert [(s.name, s.url) for s in found] == [
        ("2023q4_form13f.zip", "http://mirror/data-research/files/other/2023q4_form13f.zip"),
        (
            "01mar2025-31may2025_form13f_1.zip",
            "http://mirror/files/structureddata/data/form-13f-data-sets/01mar2025-31may2025_form13f_1.zip",
        ),
    ]


@pytest.mark.parametrize(
    ("quarter", "names"),
    [
        (date(2023, 9, 30), ["2023q4_form13f.zip"]),  # filed Oct 1 – Nov 14, 2023
        (date(2023, 12, 31), ["01jan2024-29feb2024_form13f.zip"]),  # not 2023q4: nothing for it is filed by Dec 31
        (date(2024, 3, 31), ["01mar2024-31may2024_form13f.zip"]),
        (date(2024, 12, 31), ["01dec2024-28feb2025_form13f.zip"]),
        (date(2026, 6, 30), ["01jun2026-31aug2026_form13f.zip"]),
    ],
)
def test_a_quarter_takes_the_sets_whose_filing_window_meets_its_45_days_after_the_quarter_end(quarter, names):
    sets = [data_set(name, name) for name, _, _ in LISTED]
    assert [found.name for found in covering(sets, [quarter])[0]] == names


def test_a_quarter_whose_set_is_not_published_yet_is_said_to_be_uncovered():
    sets = [data_set(name, name) for name, _, _ in LISTED]
    chosen, uncovered = covering(sets, [date(2026, 6, 30), date(2026, 9, 30)])
    assert [found.name for found in chosen] == ["01jun2026-31aug2026_form13f.zip"]
    assert uncovered == [date(2026, 9, 30)]


def test_the_record_is_a_dot_file_beside_the_zips(fetched):
    root, _, result = fetched
    assert (root / FOLDER / RECORD).is_file() and RECORD.startswith(".")
    assert "2026-09-30: no listed data set holds its filings yet (due 2026-11-14)" in result.stdout
