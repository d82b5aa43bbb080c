"""Each data-set zip is checked before it is kept (size, the zip whole with every member's CRC, the seven tables), a bad
one refused in one `Error:` line with nothing kept; and a download's progress is shown in bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.fetch.datasets.check import NotASet, check_set
from builder.fetch.datasets.download import FOLDER, read_record
from tests.fetching import empty_tree, run_fetch
from tests.standin import serving
from tests.standin_datasets import DataSetsPage, damaged, padded_zip, set_zip

SINCE = "2026-01-01"  # quarters 2026-03-31 … : the 01mar2026-31may2026 and 01jun2026-31aug2026 sets
BAD = "01mar2026-31may2026_form13f.zip"
GOOD = "01jun2026-31aug2026_form13f.zip"


def fetch_sets(root: Path, page: DataSetsPage):
    with serving(page.app()) as base:
        return run_fetch(root, base, "--datasets", "--since", SINCE)


def held_in(root: Path) -> list[str]:
    """Every file of the data-set folder but the record: kept sets, partial downloads, temporary files."""
    folder = root / FOLDER
    return sorted(p.name for p in folder.iterdir() if p.name != ".fetched.csv") if folder.is_dir() else []


@pytest.mark.parametrize(
    ("fault", "message", "requests"),
    [
        ("short", "is not a whole zip archive (a cut or altered download): File is not a zip file; nothing kept", 1),
        ("crc", "SIGNATURE.tsv cannot be read whole (a cut or altered download): Bad CRC-32 for file", 1),
        (
            "missing-table",
            "lacks OTHERMANAGER2.tsv: not a whole Form 13F data set; nothing kept — run ras fetch again",
            1,
        ),
        ("misstated", "the answer holds 3,337 bytes, not the 6.7 KB the SEC's page states", 1),
        ("html200", "gave up after 5 attempts (the answer is not a zip archive (it starts '<!DOCTYPE", 5),
    ],
)
def test_a_bad_zip_is_refused_in_one_error_line_and_nothing_is_kept(tmp_path, fault, message, requests):
    root = empty_tree(tmp_path / "source")
    page = DataSetsPage()
    if fault == "misstated":
        page.misstated.add(BAD)
    elif fault == "html200":
        page.faults[BAD] = ["html200"] * 5
    else:
        page.damaged[BAD] = fault
    result = fetch_sets(root, page)
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert errors == [result.output.splitlines()[-1]] and errors[0].startswith(f"Error: {FOLDER}/{BAD}: ")
    assert message in errors[0]
    assert page.zip_requests() == [BAD] * requests
    assert held_in(root) == []  # no set at its name, no partial download, no temporary file
    assert BAD not in read_record(root / FOLDER)
    # the server mended, the next run fetches it
    result = fetch_sets(root, DataSetsPage())
    assert result.exit_code == 0, result.output
    assert (root / FOLDER / BAD).read_bytes() == set_zip(BAD)


def test_a_kept_set_is_never_touched_when_a_later_one_is_refused(tmp_path):
    root = empty_tree(tmp_path / "source")
    first = fetch_sets(root, DataSetsPage(listed=[row for row in DataSetsPage().listed if row[0] == BAD]))
    assert first.exit_code == 0, first.output
    kept = (root / FOLDER / BAD).stat()
    page = DataSetsPage()
    page.damaged[GOOD] = "crc"
    result = fetch_sets(root, page)
    assert result.exit_code == 1 and f"Error: {FOLDER}/{GOOD}: SIGNATURE.tsv cannot be read whole" in result.output
    assert page.zip_requests() == [GOOD]
    assert held_in(root) == [BAD] and (root / FOLDER / BAD).stat().st_mtime_ns == kept.st_mtime_ns
    assert sorted(read_record(root / FOLDER)) == [BAD]


def test_a_page_that_states_no_size_is_checked_by_the_zip_alone(tmp_path):
    root = empty_tree(tmp_path / "source")
    result = fetch_sets(root, DataSetsPage(sizes=False))
    assert result.exit_code == 0, result.output
    assert held_in(root) == sorted([BAD, GOOD])


@pytest.mark.parametrize("fault", ["short", "crc", "missing-table"])
def test_the_check_refuses_each_damage_and_passes_the_set_whole(tmp_path, fault):
    whole, bad = tmp_path / "whole.zip", tmp_path / "bad.zip"
    whole.write_bytes(set_zip(BAD))
    bad.write_bytes(damaged(set_zip(BAD), fault))
    check_set(whole)
    with pytest.raises(NotASet):
        check_set(bad)


def test_progress_is_a_line_per_tenth_of_the_set_in_bytes_and_the_total_at_the_end(tmp_path):
    root = empty_tree(tmp_path / "source")
    body = padded_zip(GOOD, 400_000)
    page = DataSetsPage(listed=[row for row in DataSetsPage().listed if row[0] == GOOD], zips={GOOD: body})
    page.bytes_per_second = 1_000_000  # 0.4 s: the tenths arrive in reads of their own, but on a loaded machine
    result = fetch_sets(root, page)
    assert result.exit_code == 0, result.output
    steps = [line for line in result.stderr.splitlines() if line.startswith(f"  {GOOD}  ")]
    percents = [int(line.rsplit("(", 1)[1].removesuffix(" %)")) for line in steps]
    # one line per tenth reached (two tenths that arrive in one read give one line), the last at 100 %
    assert len(percents) >= 5 and percents == sorted(set(percents)) and percents[-1] == 100
    for line, percent in zip(steps, percents, strict=True):
        done = int(line.split()[1].replace(",", ""))
        assert percent % 10 == 0 and line.endswith(f"of {len(body):,} bytes ({percent} %)")
        assert len(body) * percent // 100 <= done < len(body) * (percent + 10) // 100 or percent == 100
    assert f"{GOOD}  {len(body):,} bytes  fetched" in result.stdout
    assert f": 1 fetched ({len(body):,} bytes in " in result.stdout.splitlines()[-1]
