"""bench/largest.py and `bench.synthetic --shape largest:N`: books as long as the largest real filers', the tree's
filings also written as the SEC's Form 13F data sets."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

import pytest

from bench import datasets_stream, datasets_writer, largest, synthetic
from builder.sources.tree import read_sources
from tests.conftest import realdata
from tests.test_bench_synthetic import TINY, files_of


def test_the_committed_table_is_what_the_secs_summary_pages_give() -> None:
    folder = realdata("sec-datasets", "01mar2025-31may2025_form13f")
    assert largest.table_text(folder) == largest.TABLE.read_text(encoding="utf-8")
    counts = largest.entry_counts()
    # the figures, from the same file: 7,988 reports; the 500 largest hold 1,388,060 entries, the 100 largest
    # 843,825, the longest of them 50,390
    assert "of 7988 original holdings and combination reports (3,340,846 entries)" in largest.TABLE.read_text()
    assert (len(counts), sum(counts), sum(counts[:100]), max(counts)) == (500, 1_388_060, 843_825, 50_390)


def test_the_default_shape_keeps_its_stamp_and_its_command() -> None:
    """bench.publish reuses a tree whose packs.toml carries the same stamp line: the default's must not move."""
    assert TINY.stamp() == "# synthetic: managers=3 quarters=3 positions=12 seed=5 universe=48 generator=1"
    assert TINY.command(Path("out"))[3:] == ["--managers", "3", "--quarters", "3", "--positions", "12", "--out", "out"]


@pytest.fixture(scope="module")
def shaped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tree of the largest filer alone over two quarters (16,744 positions a book)."""
    root = tmp_path_factory.mktemp("largest") / "tree"
    assert synthetic.main(["--shape", "largest:1", "--quarters", "2", "--out", str(root)]) == 0
    return root


def infotable(zipped: Path) -> list[dict[str, str]]:
    with zipfile.ZipFile(zipped) as archive:
        text = archive.read("INFOTABLE.tsv").decode()
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


def test_a_shaped_book_is_as_long_as_the_real_filers_and_trades_as_the_default(shaped: Path) -> None:
    params = synthetic.shaped("largest:1", 2)
    packs = (shaped / "packs.toml").read_text().splitlines()
    assert params.stamp() in packs and "versions = 2" in packs  # every quarter written is published
    assert params.stamp().endswith(" shape=largest:1") and params.positions == largest.entry_counts()[0] == 16_744
    sources, _ = read_sources(shaped)
    filings = sorted(sources.filings, key=lambda f: f.period)
    assert [len(f.rows) for f in filings] == [16_744, 16_744] and not sources.warnings
    before, after = ({row.cusip: row.shares for row in f.rows} for f in filings)
    exited = before.keys() - after.keys()
    changed = sum(after[c] != before[c] for c in before.keys() & after.keys())
    assert 0.05 < len(exited) / len(before) < 0.15  # EXIT_RATE 0.10, replaced by as many new buys
    assert 0.5 < changed / len(before) < 0.7  # ADD_RATE + REDUCE_RATE 0.60


def test_a_shaped_tree_writes_its_filings_as_the_data_sets_too(shaped: Path) -> None:
    zips = sorted((shaped / "sec13f-datasets").iterdir())
    assert [z.name for z in zips] == ["01jun2026-31aug2026_form13f.zip", "01sep2026-30nov2026_form13f.zip"]
    filings = {f.accession: f for f in read_sources(shaped)[0].filings}
    for zipped in zips:
        rows = infotable(zipped)
        (accession,) = {row["ACCESSION_NUMBER"] for row in rows}
        assert [int(row["INFOTABLE_SK"]) for row in rows] == list(range(1, len(rows) + 1))
        filed = [(r.cusip, r.shares, r.value) for r in filings[accession].rows]
        assert [(r["CUSIP"], int(r["SSHPRNAMT"]), int(r["VALUE"])) for r in rows] == filed


def test_streamed_data_sets_are_the_bytes_the_writer_gives_the_same_filings(tmp_path: Path) -> None:
    filings = sorted(read_sources(synthetic_tree(tmp_path))[0].filings, key=lambda f: f.accession)
    sets = datasets_stream.DataSets(tmp_path / "streamed")
    assert list(sets.tee(filings)) == filings
    streamed = sets.close()
    written = datasets_writer.write_datasets(tmp_path / "written", filings)
    assert [p.name for p in streamed] == [p.name for p in written] and len(written) == TINY.quarters
    for one, other in zip(streamed, written, strict=True):
        with zipfile.ZipFile(one) as a, zipfile.ZipFile(other) as b:
            assert a.namelist() == b.namelist() and all(a.read(n) == b.read(n) for n in a.namelist())
    assert files_of(tmp_path / "streamed").keys() == {p.name for p in streamed}  # no scratch left behind


def synthetic_tree(tmp_path: Path) -> Path:
    synthetic.write_tree(tmp_path / "tree", TINY)
    return tmp_path / "tree"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--shape", "largest:3", "--managers", "3"], "--shape sets the managers"),
        (["--shape", "largest:0"], "largest:N with N from 1 to 500"),
        (["--shape", "largest:501"], "largest:N with N from 1 to 500"),
        (["--shape", "smallest:3"], "largest:N with N from 1 to 500"),
        (["--managers", "3"], "give --managers and --positions, or --shape"),
    ],
)
def test_a_shape_is_largest_n_alone(argv: list[str], message: str, tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit):
        synthetic.main([*argv, "--quarters", "2", "--out", str(tmp_path / "tree")])
    assert message in capsys.readouterr().err and not (tmp_path / "tree").exists()
