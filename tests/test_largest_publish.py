"""`largest = N` end to end: a synthetic tree (bench.synthetic --datasets: fictional filers 88000000NN) published with
the 2 largest, then built with the 3 largest beside listed managers, reviewed (text and page), promoted and read
back over REST and MCP: the selection and its quarter are in the release index, the audit export, the MCP audit
answer and the review. And `ras fetch` of an empty tree with `largest = 1`: the sets first, then the filing of the
selected filer that no set holds yet (Berkshire Hathaway's real filings and the fictional witnesses beside it)."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner
from mcp import Client

from bench import synthetic
from builder.cli import main
from builder.records import Filing
from builder.release.store import INDEX
from builder.sources.tree import read_sources
from server.app import create_app
from server.mcp_server import create_server
from tests.fetching import BERKSHIRE_CIK, empty_tree, run_fetch
from tests.standin import serving
from tests.standin_datasets import DataSetsPage, sec_app
from tests.standin_edgar import Edgar
from tests.test_largest_select import packs

ZIP = "sec13f-datasets/01sep2026-30nov2026_form13f.zip"  # the set of the 2026-09-30 reports
AUDIT = "/api/v1/packs/13f-copycat/audit"


@dataclass(frozen=True)
class Published:
    releases: Path
    order: list[str]  # the tree's CIKs, largest reported value at 2026-09-30 first
    values: dict[str, int]  # CIK → its 2026-09-30 report's summary-page value, in dollars
    review: str  # `ras review` of the 3 largest against the promoted 2 largest
    page: str


def ranked_tree(tree: Path, managers: int) -> list[Filing]:
    """A synthetic tree of `managers` fictional filers over two quarter ends, with its data sets; their 2026-09-30
    reports, ranked by hand as the selection ranks them (largest reported value first, ties by CIK)."""
    made = ["--managers", str(managers), "--quarters", "2", "--positions", "8", "--datasets", "--out", str(tree)]
    assert synthetic.main(made) == 0
    every, _ = read_sources(tree)
    reports = (f for f in every.filings if f.period == date(2026, 9, 30))
    return sorted(reports, key=lambda f: (-f.table_value_total, f.cik))


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def derived(cik: str) -> str:
    """The id a synthetic filer's name gives it (Synthetic Manager 0004 LLC → synthetic-manager-0004-llc)."""
    return f"synthetic-manager-{int(cik) - synthetic.CIK_BASE:04d}-llc"


@pytest.fixture(scope="module")
def selected(tmp_path_factory: pytest.TempPathFactory) -> Published:
    root = tmp_path_factory.mktemp("largest-publish")
    tree, releases = root / "tree", root / "releases"
    newest = ranked_tree(tree, 6)
    order = [f.cik for f in newest]
    packs(tree, "[copycat]\nversions = 2\nlargest = 2\n")
    run("publish", "--source", str(tree), "--releases", str(releases), "--gate", "none")
    kept = f'[[copycat.managers]]\nid = "kept-id"\nname = "Kept Name LLC"\ncik = "{int(order[1])}"\nfictional = true\n'
    packs(tree, f"[copycat]\nversions = 2\nlargest = 3\n\n{kept}")
    candidate = run("build", "--source", str(tree), "--releases", str(releases)).strip()
    review = run("review", candidate, "--releases", str(releases), "--html", str(root / "review.html"))
    run("promote", candidate, "--releases", str(releases))
    values = {f.cik: f.table_value_total for f in newest}
    return Published(releases, order, values, review, (root / "review.html").read_text())


def expected_filers(published: Published) -> list[dict[str, object]]:
    """The three largest as the selection lists them, but for their accession numbers (see `numbered`)."""
    ids = {published.order[1]: "kept-id"}  # listed among the three: its listed id
    return [
        {"rank": rank, "cik": cik, "managerId": ids.get(cik, derived(cik)), "reportedValue": published.values[cik]}
        | {"dataset": ZIP}
        for rank, cik in enumerate(published.order[:3], start=1)
    ]


def numbered(filers: list[dict[str, object]]) -> list[dict[str, object]]:
    """The filers without their accession numbers, once each is checked to be its filer's."""
    for filer in filers:
        assert re.fullmatch(rf"{filer['cik']}-26-[0-9]{{6}}", str(filer["accession"]))
    return [{key: value for key, value in filer.items() if key != "accession"} for filer in filers]


def test_the_release_index_says_which_filers_were_selected_at_which_quarter_from_which_set(selected: Published):
    index = json.loads((selected.releases / "current" / INDEX).read_bytes())
    selection = index["copycat"]["selection"]
    statement = f"the 3 largest filers by reported value at 2026-09-30 (data set {ZIP})"
    assert {k: v for k, v in selection.items() if k != "filers"} == {
        "statement": statement,
        "largest": 3,
        "quarter": "2026-09-30",
        "ranked": 6,
        "datasets": [ZIP],
    }
    assert numbered(selection["filers"]) == expected_filers(selected)
    managers = {m["cik"]: (m["id"], m["fictional"]) for m in index["copycat"]["managers"]}
    assert managers == {
        selected.order[0]: (derived(selected.order[0]), False),
        selected.order[1]: ("kept-id", True),  # listed and selected: one manager, its listed settings
        selected.order[2]: (derived(selected.order[2]), False),
    }


async def test_the_audit_export_and_the_mcp_audit_answer_carry_the_selection(selected: Published, aiohttp_client):
    client = await aiohttp_client(create_app(selected.releases))
    response = await client.get(AUDIT)
    assert response.status == 200
    selection = (await response.json())["data"]["selection"]
    index = json.loads((selected.releases / "current" / INDEX).read_bytes())
    assert selection == index["copycat"]["selection"]
    assert numbered(selection["filers"]) == expected_filers(selected)
    async with Client(create_server(selected.releases), mode="legacy") as mcp:
        result = await mcp.call_tool("export_audit_trail", {"packId": "13f-copycat"})
    assert not result.is_error
    assert result.structured_content["selection"] == selection["statement"]
    assert json.loads(result.content[0].text)["selection"] == selection["statement"]


def test_the_fixture_audit_export_says_nothing_of_a_selection_it_does_not_make(release):
    body = json.loads(release.answers[AUDIT].body)
    assert "selection" not in body["data"] and "selection" not in release.data.index["copycat"]


def test_the_review_shows_the_selection_against_the_promoted_one_and_who_entered(selected: Published):
    lines = selected.review.splitlines()
    at = lines.index(
        f"selected: the 3 largest filers by reported value at 2026-09-30 (data set {ZIP}) "
        f"(promoted: the 2 largest filers by reported value at 2026-09-30 (data set {ZIP}))"
    )
    order, values = selected.order, selected.values
    ids = [derived(order[0]), "kept-id", derived(order[2])]
    for rank, (cik, manager) in enumerate(zip(order[:3], ids, strict=True), start=1):
        assert re.fullmatch(
            rf"\s+{rank}  {manager} \(CIK {cik}\): {values[cik]:,}  {cik}-26-[0-9]{{6}}", lines[at + rank]
        )
    assert lines[at + 4] == f"  entered: {derived(order[2])}"  # order[1] was selected before, under its derived id
    page = selected.page
    assert f"Selected: the 3 largest filers by reported value at 2026-09-30 (data set {ZIP}), ranked among 6" in page
    rows = re.findall(
        r'<tr><td class="num">(\d+)</td><td>([^<]+)</td><td>(\d{10})</td><td class="num">([\d,]+)</td>', page
    )
    assert rows == [(str(r), m, c, f"{values[c]:,}") for r, (c, m) in enumerate(zip(order[:3], ids, strict=True), 1)]
    assert f"Entered: {derived(order[2])}." in page


def test_fetch_with_largest_brings_the_sets_then_the_selected_filers_filing_no_set_holds(tmp_path: Path):
    root = empty_tree(tmp_path / "source", "[copycat]\nversions = 4\nlargest = 1\n")
    edgar = Edgar.berkshire()
    edgar.listed_until = "2020-11-30"  # the 2020-09-30 reports are filed; their set is not posted yet
    with serving(sec_app(edgar, DataSetsPage.berkshire("2020-11-30"))) as base:
        result = run_fetch(root, base, "--since", "2019-01-01")
    assert result.exit_code == 0, result.output
    assert (
        "selected the largest filer by reported value at 2020-06-30 (data set sec13f-datasets/2020q3_form13f.zip): "
        "1 manager beside the 0 listed"
    ) in result.stdout.splitlines()
    assert sorted(p.name for p in (root / "sec13f" / BERKSHIRE_CIK).glob("*.txt")) == ["0000950123-20-012127.txt"]
    assert f"CIK {BERKSHIRE_CIK}: 7 quarters found (2019-03-31 … 2020-09-30), 1 new files, 6 in the data sets" in (
        result.stdout
    )


def test_fetch_with_largest_and_no_datasets_stops_before_any_request_naming_the_fix(tmp_path: Path):
    root = empty_tree(tmp_path / "source", "[copycat]\nversions = 4\nlargest = 5\n")
    edgar = Edgar.berkshire()
    with serving(sec_app(edgar, DataSetsPage.berkshire())) as base:
        result = run_fetch(root, base, "--no-datasets")
    assert result.exit_code == 1 and edgar.log.paths() == []
    assert result.output.splitlines()[-1] == (
        "Error: packs.toml:3: [copycat] largest = 5: selects from the Form 13F data sets, which --no-datasets skips: "
        "run `ras fetch` without --no-datasets: it brings the sets first"
    )
    shutil.rmtree(root)


def without_report(tree: Path, cik: str, period: date) -> None:
    """`tree` as if filer `cik` had filed nothing for `period`: its filing gone from sec13f/ and every row of its
    report from the data set that holds it (a young filer: its first report is the newest)."""
    every, _ = read_sources(tree)
    (filing,) = [f for f in every.filings if f.cik == cik and f.period == period]
    shutil.rmtree(tree / "sec13f" / str(int(cik)) / filing.accession.replace("-", ""), ignore_errors=True)
    shutil.rmtree(tree / "sec13f" / str(int(cik)) / filing.accession, ignore_errors=True)
    for path in (tree / "sec13f-datasets").glob("*.zip"):
        with zipfile.ZipFile(path) as archive:
            members = {name: archive.read(name).decode() for name in archive.namelist()}
        kept = {
            name: "".join(line for line in text.splitlines(keepends=True) if not line.startswith(filing.accession))
            for name, text in members.items()
        }
        if kept != members:
            path.unlink()
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
                for name, text in kept.items():
                    archive.writestr(name, text)


def test_a_largest_filer_lacking_a_quarter_of_the_window_is_passed_over_and_the_publish_goes_on(tmp_path: Path):
    tree, releases = tmp_path / "tree", tmp_path / "releases"
    newest = ranked_tree(tree, 4)
    young = newest[0].cik
    without_report(tree, young, date(2026, 6, 30))
    packs(tree, "[copycat]\nversions = 2\nlargest = 2\n")
    run("publish", "--source", str(tree), "--releases", str(releases), "--gate", "none")
    selection = json.loads((releases / "current" / INDEX).read_text())["copycat"]["selection"]
    assert [(f["rank"], f["cik"]) for f in selection["filers"]] == [(2, newest[1].cik), (3, newest[2].cik)]
    assert selection["statement"].endswith(
        f"; 1 larger filer passed over, lacking a holdings report of a quarter end the pack publishes (CIK {young} at "
        "rank 1: 2026-06-30)"
    )


def test_a_filer_that_left_the_selection_trips_no_shrink_gate_and_a_listed_manager_gone_does(tmp_path: Path):
    tree, releases = tmp_path / "tree", tmp_path / "releases"
    newest = ranked_tree(tree, 4)
    listed = (
        f'[[copycat.managers]]\nid = "listed-id"\nname = "Listed LLC"\ncik = "{int(newest[3].cik)}"\nfictional = true\n'
    )
    packs(tree, f"[copycat]\nversions = 2\nlargest = 3\n\n{listed}")
    run("publish", "--source", str(tree), "--releases", str(releases), "--gate", "none")
    packs(tree, f"[copycat]\nversions = 2\nlargest = 2\n\n{listed}")  # the third largest leaves the selection
    result = CliRunner().invoke(
        main, ["publish", "--source", str(tree), "--releases", str(releases), "--gate", "shrink"]
    )
    assert result.exit_code == 0, result.output
    index = json.loads((releases / "current" / INDEX).read_text())
    assert [f["cik"] for f in index["copycat"]["selection"]["filers"]] == [newest[0].cik, newest[1].cik]
    packs(tree, "[copycat]\nversions = 2\nlargest = 2\n")  # the listed manager gone: the gate stops
    result = CliRunner().invoke(
        main, ["publish", "--source", str(tree), "--releases", str(releases), "--gate", "shrink"]
    )
    assert result.exit_code == 3
    assert "shrink:" in result.stderr and "managers gone: listed-id" in result.stderr
