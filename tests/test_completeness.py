"""Issue 15 #3, #5 and #7 on Berkshire's real series: nothing dropped in silence, no look-ahead, hidden files ignored."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.api.methods import validate_policy
from builder.cli import main
from builder.release.objects import artifact_of
from builder.release.store import artifact_file, current_release, load_release
from builder.sources.tree import fixture_source
from tests.berkshire import CIK, berkshire_tree


def publish(source: Path, releases: Path, *extra: str):
    """`ras publish` with no gate: these real trees hold undecided changes, and what is checked here is coverage."""
    arguments = ["publish", "--source", str(source), "--releases", str(releases), "--gate", "none", *extra]
    return CliRunner().invoke(main, arguments)


def error_lines(result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith(("Error:", "  "))]


def index_of(releases: Path) -> dict:
    return orjson.loads((current_release(releases) / "data" / "release.json").read_bytes())


def artifact(releases: Path, version: str) -> dict:
    return artifact_of((current_release(releases) / artifact_file(version)).read_bytes())


def test_a_manager_missing_its_recent_quarters_fails_naming_them_and_promotes_nothing(tmp_path: Path):
    recent = ("2019-06-30", "2019-09-30", "2019-12-31", "2020-03-31", "2020-06-30", "2020-09-30")
    source = berkshire_tree(tmp_path / "source", without=recent)
    result = publish(source, tmp_path / "releases", "--as-of", "2020-11-30")
    assert result.exit_code == 1
    assert result.stderr.count("Error:") == 1 and "Traceback" not in result.output
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"Error: sec13f/000{CIK}: Berkshire Hathaway Inc has no 13F-HR for 6 quarter(s)")
    assert all(f'"{quarter}"' in last for quarter in recent) and "allow_missing" in last
    assert "  berkshire: 2/8 quarters; MISSING 2019-06-30" in result.stderr  # the coverage printed first
    assert current_release(tmp_path / "releases") is None


def test_a_missing_middle_quarter_fails_unless_packs_toml_allows_it(tmp_path: Path):
    source = berkshire_tree(tmp_path / "source", without=("2019-12-31",))
    refused = publish(source, tmp_path / "releases")
    assert refused.exit_code == 1 and '"2019-12-31"' in refused.stderr.strip().splitlines()[-1]
    assert current_release(tmp_path / "releases") is None
    allowed = berkshire_tree(tmp_path / "allowed", without=("2019-12-31",), manager='allow_missing = ["2019-12-31"]')
    result = publish(allowed, tmp_path / "releases")
    assert result.exit_code == 0, result.output
    assert "berkshire: 8/9 quarters; allowed missing 2019-12-31" in result.stderr
    versions = index_of(tmp_path / "releases")["copycat"]["versions"]
    assert len(versions) == 8 and not any("2019-12-31" in v for v in versions)
    after_gap = artifact(tmp_path / "releases", "multi-manager-2020-03-31-v2.0")["managers"][0]
    assert after_gap["previousQuarterFiled"] is False  # accepted by name in packs.toml, not in silence


def test_a_smaller_versions_keeps_a_gap_outside_the_window(tmp_path: Path):
    source = berkshire_tree(tmp_path / "source", without=("2019-12-31",), versions=3)
    result = publish(source, tmp_path / "releases")
    assert result.exit_code == 0, result.output
    assert index_of(tmp_path / "releases")["copycat"]["versions"][0] == "multi-manager-2020-03-31-v2.0"


def test_more_versions_than_the_filings_reach_is_one_error(tmp_path: Path):
    source = berkshire_tree(tmp_path / "source", versions=40)
    result = publish(source, tmp_path / "releases")
    assert result.exit_code == 1
    assert (
        result.stderr.strip().splitlines()[-1].startswith("Error: packs.toml: [copycat] versions = 40, but the filings")
    )


@pytest.mark.parametrize(
    ("packs", "expected"),
    [
        ("[copycta]\nversions = 4\n", "packs.toml:1: unknown section [copycta]; did you mean [copycat]?"),
        ("[copycat]\nverisons = 4\n", "packs.toml:2: unknown key 'verisons' in [copycat]; did you mean versions?"),
        ("[source]\nasof = 2019-08-14\n", "packs.toml:2: unknown key 'asof' in [source]; did you mean as_of?"),
        ('[source]\nuser_agent = "Example Research ops@example.org"\n[copycat]\nversions = 8\n', None),
    ],
)
def test_unknown_packs_toml_keys_are_errors_with_their_line(tmp_path: Path, packs: str, expected: str | None):
    source = berkshire_tree(tmp_path / "source")
    text = (source / "packs.toml").read_text()
    (source / "packs.toml").write_text(text.replace("[copycat]\nversions = 8\n", packs))
    result = publish(source, tmp_path / "releases")
    if expected is None:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1 and expected in result.stderr
        assert current_release(tmp_path / "releases") is None


def test_a_misspelt_manager_key_names_its_line(tmp_path: Path):
    source = berkshire_tree(tmp_path / "source", manager="fictinal = false")
    result = publish(source, tmp_path / "releases")
    assert "packs.toml:8: unknown key 'fictinal' in [copycat.managers]; did you mean fictional?" in result.stderr


def test_no_common_quarter_is_one_clear_error_line(tmp_path: Path):
    source = berkshire_tree(tmp_path / "source")
    fictional = fixture_source() / "sec13f" / "9900000001"
    shutil.copytree(fictional, source / "sec13f" / "9900000001")
    with open(source / "packs.toml", "a") as packs:
        packs.write(
            '\n[[copycat.managers]]\nid = "larch"\nname = "Larch Hill Capital (fictional)"\ncik = "9900000001"\n'
            "fictional = true\n"
        )
    result = publish(source, tmp_path / "releases")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.count("Error:") == 1
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .startswith(
            "Error: packs.toml: the 2 managers of [copycat] have no quarter in common (berkshire 2013-06-30 … 2020-09-30, larch"
        )
    )


def test_hidden_files_are_ignored_other_stray_files_still_refused(tmp_path: Path):
    source = berkshire_tree(tmp_path / "source")
    (source / "sec13f" / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (source / "sec13f" / CIK / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (source / "sec13f" / CIK / ".hidden").mkdir()
    (source / "sec13f" / CIK / ".hidden" / "notes.txt").write_text("not a filing")
    assert publish(source, tmp_path / "releases").exit_code == 0
    (source / "sec13f" / "README").write_text("where these filings came from")
    refused = publish(source, tmp_path / "releases")
    assert refused.exit_code == 1 and "sec13f/README" in refused.stderr


def test_as_of_publishes_only_what_was_filed_by_then_and_dates_its_freshness(tmp_path: Path):
    source = berkshire_tree(tmp_path / "source")
    result = publish(source, tmp_path / "releases", "--as-of", "2019-08-14")
    assert result.exit_code == 0, result.output
    assert "left out 5 filings filed after the as-of date 2019-08-14" in result.stderr
    index = index_of(tmp_path / "releases")
    assert index["asOf"] == "2019-08-14"
    assert index["copycat"]["versions"][-1] == "multi-manager-2019-06-30-v2.0"
    assert not [f for f in index["provenance"] if f["path"].startswith(f"sec13f/{CIK}/2019-09-30")]
    latest = artifact(tmp_path / "releases", "multi-manager-2019-06-30-v2.0")
    assert latest["filingDeadline"] == "2019-08-14"
    data = load_release(current_release(tmp_path / "releases")).data
    assert validate_policy(data, {"managers": [], "mode": "any"})["freshness"] == {
        "filingDeadline": "2019-08-14",
        "supersededAfter": "2019-09-30",
        "nextFilingDeadline": "2019-11-14",
    }
