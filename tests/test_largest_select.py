"""packs.toml `[copycat] largest = N`: the N filers of the Form 13F data sets with the largest reported value at the
newest quarter end the sets hold, ties by CIK, beside the managers packs.toml lists. The ranking over data-set
reports (fictional CIKs 88000000NN), over the SEC's real 2025-03-31 summary pages, and packs.toml's errors."""

from __future__ import annotations

import shutil
import zipfile
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench import largest as bench_largest
from bench import synthetic
from bench.datasets_writer import COLUMNS, tsv
from builder.cli import main
from builder.records import Amendment
from builder.selection import Ranked
from builder.sources.datasets.filers import SetCover, SetFiling, read_filings
from builder.sources.datasets.largest import in_zips, largest_filers, ranked_quarter
from builder.sources.datasets.members import Archive
from builder.sources.tree import read_sources
from tests.conftest import realdata

Q3, Q2 = date(2026, 9, 30), date(2026, 6, 30)
FILED = date(2026, 11, 2)
A, B = "sec13f-datasets/01sep2026-30nov2026_form13f.zip", "sec13f-datasets/01sep2026-30nov2026_form13f_1.zip"
_numbers = iter(range(1, 10_000))


def report(
    cik: int,
    value: int,
    period: date = Q3,
    filed: date = FILED,
    form: str = "13F-HR",
    kind: str = "13F HOLDINGS REPORT",
    amendment: Amendment = Amendment.ORIGINAL,
    accession: str = "",
) -> SetFiling:
    """One holdings report of a fictional filer as a data set lists it, its summary page reporting `value` as filed."""
    cover = SetCover(
        "N" if amendment is Amendment.ORIGINAL else "Y", "", "", "FICTIONAL FILER", kind, "1", str(value), "N"
    )
    number = accession or f"{8800000000 + cik:010d}-26-{next(_numbers):06d}"
    return SetFiling(number, f"{8800000000 + cik:010d}", period, filed, amendment, 0, form, cover)


def ranking(reports: list[SetFiling], count: int = 10, medians: dict[int, float] | None = None, as_of=None):
    selection = largest_filers(count, [(A, reports)], lambda zips: {A: medians or {}}, as_of)
    assert selection is not None
    return selection, [(filer.cik[-2:], filer.value) for filer in selection.filers]


def test_filers_rank_by_reported_value_ties_by_cik_ascending_and_n_counts_filers():
    selection, ranked = ranking([report(3, 500), report(1, 700), report(2, 500), report(4, 900)], count=3)
    assert ranked == [("04", 900), ("01", 700), ("02", 500)]  # 02 before 03 at 500: the lower CIK
    assert (selection.largest, selection.quarter, selection.ranked) == (3, Q3, 4)
    assert selection.described() == f"the 3 largest filers by reported value at 2026-09-30 (data set {A})"


def test_only_an_original_holdings_or_combination_report_ranks_and_a_later_original_replaces_the_earlier():
    reports = [
        report(1, 100),
        report(1, 9_000, form="13F-HR/A", amendment=Amendment.RESTATEMENT),  # an amendment never ranks
        report(2, 300, kind="13F COMBINATION REPORT"),
        report(3, 8_000, form="13F-HR/A", amendment=Amendment.NEW_HOLDINGS),  # nor makes a filer rank
        report(4, 7_000, kind="13F NOTICE"),  # a notice has no table
        report(5, 50, filed=date(2026, 10, 1)),
        report(5, 250, filed=date(2026, 10, 9)),  # its later original: the one that ranks
    ]
    _, ranked = ranking(reports)
    assert ranked == [("02", 300), ("05", 250), ("01", 100)]


def test_values_are_dollars_by_the_readers_unit_rule_filing_date_then_implied_price():
    before_2023 = report(1, 1_000, period=date(2022, 9, 30), filed=date(2022, 11, 10))  # thousands: $1,000,000
    dollars = report(2, 900_000, period=date(2022, 9, 30), filed=date(2023, 1, 5))  # filed after 2023-01-03: dollars
    thousands_late = report(3, 2_000, period=date(2022, 9, 30), filed=date(2023, 1, 6))
    # its median value per share as filed is 0.05: $0.05 a share as dollars, $50 as thousands: read as thousands
    _, ranked = ranking([before_2023, dollars, thousands_late], medians={thousands_late.key: 0.05, dollars.key: 40.0})
    assert ranked == [("03", 2_000_000), ("01", 1_000_000), ("02", 900_000)]


def test_the_quarter_ranked_is_the_newest_the_sets_hold_at_least_half_as_many_reports_for_as_the_best_covered():
    whole = [report(cik, 10 * cik, period=Q2) for cik in range(1, 11)]
    early = [report(cik, 1_000 + cik, period=Q3) for cik in (1, 2)]  # filed on a set's last days: two of ten
    assert ranked_quarter([*whole, *early]) == Q2
    selection, ranked = ranking([*whole, *early], count=2)
    assert selection.quarter == Q2 and ranked == [("10", 100), ("09", 90)]
    most = [report(cik, 1_000 + cik, period=Q3) for cik in range(1, 6)]  # five of ten: the newest quarter end
    assert ranked_quarter([*whole, *most]) == Q3
    assert ranked_quarter([]) is None


def test_a_report_filed_after_the_as_of_date_is_left_out_and_a_reuploaded_set_names_its_own_zip():
    kept, later = report(1, 100), report(2, 900, filed=date(2026, 11, 20))
    selection = largest_filers(5, [(A, [kept, later])], lambda zips: {A: {}}, date(2026, 11, 10))
    assert selection is not None and [filer.cik[-2:] for filer in selection.filers] == ["01"]
    again = largest_filers(5, [(A, [kept]), (B, [kept])], lambda zips: {path: {} for path in zips}, None)
    assert again is not None and again.filers == (Ranked(kept.cik, 100, kept.accession, B, rank=1),)


def test_fewer_filers_than_asked_are_all_taken_and_the_statement_says_so():
    selection, ranked = ranking([report(1, 10), report(2, 20)], count=5)
    assert ranked == [("02", 20), ("01", 10)] and selection.ranked == 2
    assert selection.described() == (
        f"all 2 filers with a holdings report at 2026-09-30 (data set {A}), fewer than the 5 largest asked for"
    )
    one, _ = ranking([report(1, 10), report(2, 20)], count=1)
    assert one.described() == f"the largest filer by reported value at 2026-09-30 (data set {A})"


def test_a_filer_lacking_a_quarter_the_pack_publishes_is_passed_over_and_the_next_largest_taken():
    older = [report(cik, 10 * cik, period=Q2) for cik in (1, 2, 3)]  # 2026-06-30, whole: three filers of four
    newest = [report(1, 100), report(2, 300), report(3, 200), report(4, 900)]  # 04 files its first report
    selection = largest_filers(2, [(A, [*older, *newest])], lambda zips: {A: {}}, None, versions=2)
    assert selection is not None
    assert [(filer.cik[-2:], filer.rank) for filer in selection.filers] == [("02", 2), ("03", 3)]
    assert [(p.filer.cik[-2:], p.filer.rank, p.lacking) for p in selection.passed] == [("04", 1, (Q2,))]
    assert selection.described() == (
        f"the 2 largest filers by reported value at 2026-09-30 (data set {A}); 1 larger filer passed over, lacking a "
        "holdings report of a quarter end the pack publishes (CIK 8800000004 at rank 1: 2026-06-30)"
    )
    # one version publishes the ranked quarter end alone: every filer of it has what it needs
    one = largest_filers(2, [(A, [*older, *newest])], lambda zips: {A: {}}, None, versions=1)
    assert one is not None and [f.cik[-2:] for f in one.filers] == ["04", "02"] and not one.passed
    # a quarter end the sets hold a few reports of (filed late, in a later set) says nothing of who filed it
    late = [report(1, 5, period=date(2026, 3, 31))]
    two = largest_filers(2, [(A, [*older, *newest, *late])], lambda zips: {A: {}}, None, versions=3)
    assert two is not None and [f.cik[-2:] for f in two.filers] == ["02", "03"]
    assert [p.lacking for p in two.passed] == [(Q2,)]


def real_set(to: Path) -> Path:
    """The SEC's 01mar2025-31may2025 set as a zip: its real SUBMISSION, COVERPAGE and SUMMARYPAGE (INFOTABLE, not in
    realdata, as its header alone: no median price, so every unit is the one of its filing date, 2025: dollars)."""
    folder = realdata("sec-datasets", "01mar2025-31may2025_form13f")
    path = to / "sec13f-datasets" / "01mar2025-31may2025_form13f.zip"
    path.parent.mkdir(parents=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member in ("SUBMISSION.tsv", "COVERPAGE.tsv", "SUMMARYPAGE.tsv"):
            archive.write(folder / member, member)
        archive.writestr("INFOTABLE.tsv", tsv(COLUMNS["INFOTABLE.tsv"], []))
    return path


def test_the_real_2025_03_31_ranking_is_bench_largest_filers_table(tmp_path: Path):
    path = real_set(tmp_path)
    with path.open("rb") as handle:
        archive = Archive(handle)
        listed = read_filings(archive)[0]
        archive.close()
    zipped = f"sec13f-datasets/{path.name}"
    selection = largest_filers(100, [(zipped, listed)], lambda zips: {zipped: {}}, None)
    table = bench_largest.ranked(realdata("sec-datasets", "01mar2025-31may2025_form13f"))
    assert selection is not None and selection.quarter == date(2025, 3, 31)
    assert selection.ranked == len({cik for cik, *_ in table}) == 7987  # 7,988 reports: one filer filed two
    assert [(f.cik, f.accession, f.value) for f in selection.filers] == [(c, a, v) for c, a, _, v in table[:100]]
    assert selection.filers[0] == Ranked("0000102909", 5_531_119_721_493, "0001752724-25-099331", zipped, rank=1)
    assert in_zips(tmp_path, 100, None) == selection  # `ras fetch` reads the zip itself: the same selection


def packs(tree: Path, copycat: str) -> None:
    """packs.toml of a synthetic tree with `copycat` as its [copycat] section (its comment kept)."""
    text = (tree / "packs.toml").read_text()
    (tree / "packs.toml").write_text(text[: text.index("[copycat]")] + copycat)


def copied(tree: Path, to: Path, copycat: str) -> Path:
    """A copy of the synthetic tree with `copycat` as its [copycat] section."""
    shutil.copytree(tree, to)
    packs(to, copycat)
    return to


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("largest") / "tree"
    assert (
        synthetic.main(["--managers", "5", "--quarters", "2", "--positions", "6", "--datasets", "--out", str(root)])
        == 0
    )
    return root


@pytest.mark.parametrize(
    ("value", "shown"), [("0", "0"), ("-3", "-3"), ("2.5", "2.5"), ('"3"', "'3'"), ("true", "True")]
)
def test_a_largest_that_is_no_whole_number_of_at_least_one_is_one_line_naming_packs_toml_and_its_line(
    tmp_path: Path, value: str, shown: str
):
    (tmp_path / "packs.toml").write_text(f"# a comment\n[copycat]\nversions = 2\nlargest = {value}\n")
    result = CliRunner().invoke(main, ["publish", "--source", str(tmp_path), "--releases", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        f"Error: packs.toml:4: [copycat] largest must be a whole number of filers, 1 or more, not {shown}"
    )


def test_largest_without_data_sets_in_the_tree_is_one_line_naming_the_fix(tree: Path, tmp_path: Path):
    bare = tmp_path / "bare"
    (bare / "sec13f").mkdir(parents=True)
    for name in ("securities.csv", "packs.toml"):
        (bare / name).write_bytes((tree / name).read_bytes())
    packs(bare, "[copycat]\nversions = 2\nlargest = 2\n")
    result = CliRunner().invoke(main, ["publish", "--source", str(bare), "--releases", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == (
        "Error: packs.toml:7: [copycat] largest = 2: selects from the data sets, and the tree has no Form 13F data "
        "sets in sec13f-datasets/: run `ras fetch`"
    )


def test_the_selection_is_made_beside_the_listed_managers_whose_settings_win(tree: Path, tmp_path: Path):
    every, _ = read_sources(tree)  # the five managers as bench.synthetic lists them
    newest = sorted((f for f in every.filings if f.period == Q3), key=lambda f: (-f.table_value_total, f.cik))
    order = [f.cik for f in newest]
    listed = (
        f'[[copycat.managers]]\nid = "kept-id"\nname = "Kept Name LLC"\ncik = "{int(order[1])}"\nfictional = true\n'
    )
    outside = f'\n[[copycat.managers]]\ncik = "{int(order[4])}"\n'
    root = copied(tree, tmp_path / "tree", f"[copycat]\nversions = 2\nlargest = 3\n\n{listed}{outside}")
    sources, reports = read_sources(root)
    managers = [(m.id, m.cik, m.fictional) for m in sources.copycat.managers]
    assert managers == [
        ("kept-id", order[1], True),  # among the three: one manager, as listed
        (f"synthetic-manager-{int(order[4]) - 8800000000:04d}-llc", order[4], False),
        *((f"synthetic-manager-{int(cik) - 8800000000:04d}-llc", cik, False) for cik in (order[0], order[2])),
    ]
    assert sources.selection is not None and [f.cik for f in sources.selection.filers] == order[:3]
    assert [f.value for f in sources.selection.filers] == [f.table_value_total for f in newest[:3]]
    assert (
        f"selected the 3 largest filers by reported value at 2026-09-30 (data set {A}): 2 managers beside the 2 "
        "listed (1 of the selected listed too: their listed settings hold)"
    ) in reports
    skipped = [w.source for w in sources.skipped if w.code == "skipped-unconfigured-manager"]
    assert skipped == [f"sec13f/{order[3]}"]  # the one filer neither listed nor selected, once


def test_fewer_filers_in_the_sets_than_asked_are_all_taken_and_the_progress_says_so(tree: Path, tmp_path: Path):
    sources, reports = read_sources(copied(tree, tmp_path / "tree", "[copycat]\nversions = 2\nlargest = 25\n"))
    assert len(sources.copycat.managers) == 5 and not sources.skipped
    assert (
        f"selected all 5 filers with a holdings report at 2026-09-30 (data set {A}), fewer than the 25 largest asked "
        "for: 5 managers beside the 0 listed"
    ) in reports
