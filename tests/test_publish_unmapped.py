"""`ras publish` refuses an empty securities.csv and a book whose unmapped CUSIPs pass --max-unmapped-value."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main, parse_share
from tests.conftest import realdata
from tests.test_securities_resolve import berkshire_tree

# Berkshire's 2019-06-30 and 2019-09-30 books: Apple alone is about a quarter of their value
APPLE = "037833100,AAPL,APPLE INC\n"


def publish_cli(root: Path, releases: Path, *extra: str):
    """`ras publish` with no gate: the unmapped value is what is checked here, not the undecided changes."""
    arguments = ["publish", "--source", str(root), "--releases", str(releases), "--gate", "none", *extra]
    return CliRunner().invoke(main, arguments)


def test_a_securities_csv_with_a_header_only_is_refused_naming_the_file(tmp_path):
    root = berkshire_tree(tmp_path / "source")
    result = publish_cli(root, tmp_path / "releases")
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        "Error: securities.csv:1: securities.csv has no data rows: add cusip,ticker rows or run `ras securities`"
    )
    assert not (tmp_path / "releases" / "current").exists()


def test_unmapped_cusips_above_one_percent_of_a_book_stop_the_publish(tmp_path):
    root = berkshire_tree(tmp_path / "source", securities="cusip,ticker,name\n" + APPLE)
    result = publish_cli(root, tmp_path / "releases")
    assert result.exit_code == 1
    last = result.output.splitlines()[-1]
    assert last.startswith("Error: ") and "unmapped CUSIPs, at most " in last
    assert last.endswith("above --max-unmapped-value 1.00%: run `ras securities` or add them to securities.csv")
    assert not (tmp_path / "releases" / "current").exists()


def test_a_higher_limit_publishes_and_says_how_much_is_unmapped(tmp_path):
    root = berkshire_tree(tmp_path / "source", securities="cusip,ticker,name\n" + APPLE)
    result = publish_cli(root, tmp_path / "releases", "--max-unmapped-value", "80%")
    assert result.exit_code == 0, result.output
    assert "; within --max-unmapped-value 80.00%" in result.output
    assert (tmp_path / "releases" / "current").is_symlink()


def test_a_complete_map_publishes_under_the_default_limit(tmp_path):
    sample = realdata("securities_sample.csv").read_text(encoding="utf-8")
    root = berkshire_tree(tmp_path / "source", securities=sample)
    result = publish_cli(root, tmp_path / "releases")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(("text", "share"), [("1%", 0.01), ("0.5 %", 0.005), ("0.02", 0.02), ("100%", 1.0)])
def test_a_share_is_a_percentage_or_a_fraction(text, share):
    assert parse_share(text) == pytest.approx(share)


@pytest.mark.parametrize("text", ["150%", "-1%", "lots"])
def test_a_share_outside_0_to_100_percent_is_refused(tmp_path, text):
    result = publish_cli(tmp_path, tmp_path / "releases", "--max-unmapped-value", text)
    assert result.exit_code == 2 and "--max-unmapped-value" in result.output
