"""bench/synthetic.py: seeded, real-format 13F trees that the reader takes as an operator's filings."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import synthetic
from builder.release.assemble import assemble
from builder.sources.tree import read_sources

TINY = synthetic.Params(managers=3, quarters=3, positions=12, seed=5)


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synthetic") / "tree"
    synthetic.write_tree(root, TINY)
    return root


@pytest.mark.parametrize("cusip", ["037833100", "594918104", "02079K305", "46625H100", "G1151C101", "46435GAA0"])
def test_the_check_digit_of_real_cusips_is_recomputed(cusip: str) -> None:
    assert synthetic.cusip_check_digit(cusip[:8]) == cusip[8]


def test_the_same_parameters_write_the_same_bytes(tree: Path, tmp_path: Path) -> None:
    synthetic.write_tree(tmp_path / "again", TINY)
    assert files_of(tmp_path / "again") == files_of(tree)


def test_another_seed_writes_other_holdings(tree: Path, tmp_path: Path) -> None:
    synthetic.write_tree(tmp_path / "other", synthetic.Params(3, 3, 12, seed=6))
    assert files_of(tmp_path / "other")["securities.csv"] != files_of(tree)["securities.csv"]


def test_the_reader_takes_m_times_q_filings_of_p_rows_without_warnings(tree: Path) -> None:
    sources, _ = read_sources(tree)
    assert len(sources.filings) == TINY.managers * TINY.quarters
    assert {len(filing.rows) for filing in sources.filings} == {TINY.positions}
    assert not sources.fixture and sources.warnings == ()


def test_books_turn_over_between_quarters(tree: Path) -> None:
    sources, _ = read_sources(tree)
    data, _ = assemble(sources, [])
    kinds = {
        p["change"]["kind"]
        for artifact in data.artifacts.values()
        for m in artifact["managers"]
        for p in (*m["positions"], *m["ended"])
    }
    assert {"new", "exited"} <= kinds and kinds & {"added", "reduced"}


def changes_of(root: Path) -> list[dict]:
    sources, _ = read_sources(root)
    data, _ = assemble(sources, [])
    return [
        e["change"]
        for artifact in data.artifacts.values()
        for manager in artifact["managers"]
        for e in (*manager["positions"], *manager["ended"])
    ]


def test_with_its_data_sets_a_tree_of_trades_alone_has_no_change_undecided_and_without_them_none_tells_a_story(
    tmp_path: Path,
) -> None:
    # no corporate action happens in a synthetic tree: every undecided change is a trade hidden
    params = synthetic.Params(managers=12, quarters=5, positions=40, seed=3, datasets=True)
    synthetic.write_tree(tmp_path / "tree", params)
    assert (tmp_path / "tree" / "sec13f-datasets").is_dir()
    witnessed = changes_of(tmp_path / "tree")
    assert len(witnessed) > 1_500 and [c for c in witnessed if c["kind"] == "undecided"] == []
    (tmp_path / "tree" / "packs.toml").rename(tmp_path / "packs.toml")  # the same filings without the data sets
    for path in (tmp_path / "tree" / "sec13f-datasets").iterdir():
        path.unlink()
    (tmp_path / "tree" / "sec13f-datasets").rmdir()
    (tmp_path / "packs.toml").rename(tmp_path / "tree" / "packs.toml")
    bare = [c for c in changes_of(tmp_path / "tree") if c["kind"] == "undecided"]
    assert {(c["candidates"][0]["rule"], c["candidates"][0]["record"]) for c in bare} <= {("no-evidence", None)}
