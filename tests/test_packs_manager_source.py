"""packs.toml's per-manager `source`: the data sets by default, "filings" pins a manager to its filing files."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.records import ManagerSource
from builder.sources.packs import read_packs_config

PACKS = """[copycat]
versions = 4

[[copycat.managers]]
id = "berkshire"
name = "Berkshire Hathaway Inc"
cik = "1067983"

[[copycat.managers]]
id = "duquesne"
name = "Duquesne Family Office LLC"
cik = "1536411"
{line}
"""


def read(tmp_path: Path, line: str):
    (tmp_path / "packs.toml").write_text(PACKS.format(line=line), encoding="utf-8")
    return read_packs_config(tmp_path / "packs.toml", tmp_path)


@pytest.mark.parametrize(
    ("line", "second"),
    [("", ManagerSource.DATASETS), ('source = "datasets"', ManagerSource.DATASETS), ('source = "filings"', "filings")],
)
def test_a_manager_takes_the_data_sets_unless_pinned_to_its_filings(tmp_path: Path, line: str, second: str):
    config, problems = read(tmp_path, line)
    assert problems == () and config is not None
    assert [manager.source for manager in config.copycat.managers] == [ManagerSource.DATASETS, second]


@pytest.mark.parametrize("value", ['"filing"', '"EDGAR"', "true", "1", '["filings"]'])
def test_any_other_source_is_a_problem_naming_its_line(tmp_path: Path, value: str):
    config, problems = read(tmp_path, f"source = {value}")
    assert config is None
    assert [str(problem) for problem in problems] == [
        f'packs.toml:13: [[copycat.managers]] #2 (duquesne): source must be "datasets" or "filings", not {value_of(value)}'
    ]


def value_of(toml: str) -> str:
    """The value as the message shows it (Python's repr of what TOML parsed)."""
    return {"true": "True", '["filings"]': "['filings']"}.get(toml, toml.replace('"', "'"))


def test_a_misspelt_source_key_is_an_unknown_key_with_its_line(tmp_path: Path):
    config, problems = read(tmp_path, 'sorce = "filings"')
    assert config is None
    assert [str(problem) for problem in problems] == [
        "packs.toml:13: unknown key 'sorce' in [copycat.managers]; did you mean source?"
    ]
