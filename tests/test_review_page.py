"""`ras review --html`: the page opened in a real headless Chromium shows its charts and fetches nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main
from tests.browser import open_page, png_colours

# Per chart: its axis titles, its points (circles or bars) and the values written at them; then where the verdict
# and the next command end, and the viewport's height (the fold).
SEEN = """JSON.stringify({
  charts: [...document.querySelectorAll('svg.chart')].map(s => ({
    axes: [...s.querySelectorAll('.axis-label')].map(t => t.textContent),
    quarters: s.querySelectorAll('.quarter').length,
    points: s.querySelectorAll('.point').length,
    values: [...s.querySelectorAll('.value')].map(t => t.textContent)})),
  verdict: document.getElementById('verdict').getBoundingClientRect().bottom,
  next: document.getElementById('next-command').textContent,
  nextBottom: document.getElementById('next-command').getBoundingClientRect().bottom,
  fold: window.innerHeight})"""


def restated_fixture(fixture_tree: Path, tmp_path: Path) -> Path:
    """The fixture with one securities.csv mapping dropped: every version restated, a new unmapped warning."""
    source = tmp_path / "source"
    shutil.copytree(fixture_tree, source)
    lines = (source / "securities.csv").read_text().splitlines()
    (source / "securities.csv").write_text("\n".join([lines[0], *lines[2:]]) + "\n")
    return source


@pytest.fixture
def page(releases_copy: Path, fixture_tree: Path, tmp_path: Path) -> Path:
    """The review page of a restated fixture release against the promoted one (releases_copy is tmp_path/releases)."""
    built = CliRunner().invoke(
        main,
        [
            "build",
            "--source",
            str(restated_fixture(fixture_tree, tmp_path)),
            "--releases",
            str(releases_copy),
            "--max-unmapped-value",
            "100%",
        ],
    )  # the dropped mapping is 2.19% of a book
    assert built.exit_code == 0, built.output
    html = tmp_path / "review.html"
    result = CliRunner().invoke(
        main, ["review", built.stdout.strip(), "--releases", str(releases_copy), "--html", str(html)]
    )
    assert result.exit_code == 0, result.output
    assert "restated  multi-manager-2026-09-30-v2.0 → multi-manager-2026-09-30-v2.1" in result.stdout
    return html


async def test_the_review_page_in_chromium_decides_above_the_fold_with_labelled_charts_no_errors_no_network(
    page: Path, tmp_path: Path
):
    visit = await open_page(page, SEEN, tmp_path / "profile")
    (tmp_path / "review.png").write_bytes(visit.screenshot)
    assert visit.requests == [page.resolve().as_uri()]  # the page itself and nothing else
    assert visit.errors == []
    seen = json.loads(visit.value)
    assert seen["verdict"] <= seen["fold"] and seen["nextBottom"] <= seen["fold"]  # decided before any scrolling
    assert seen["next"].startswith("ras promote ") and seen["next"].endswith(f" --releases {page.parent / 'releases'}")
    charts = seen["charts"]
    assert len(charts) == 9  # seven managers' book values, positions by change kind, tickers per view mode
    assert [c["axes"] for c in charts[:7]] == [["quarter end", "book value (US$)"]] * 7
    assert charts[7]["axes"] == ["change kind", "positions"] and charts[8]["axes"] == [
        "view mode (all managers)",
        "tickers",
    ]
    assert [c["points"] for c in charts] == [8] * 7 + [8, 4]  # 8 quarters, 8 change kinds, 4 modes
    assert [c["quarters"] for c in charts[:7]] == [8] * 7  # eight quarters fit: each labelled
    assert all(len(c["values"]) == 1 for c in charts[:7])  # a book's value at its last point
    assert all(len(c["values"]) == c["points"] and all(c["values"]) for c in charts[7:])  # a count above each bar
    assert all(v.startswith("$") for c in charts[:7] for v in c["values"])
    assert png_colours(visit.screenshot) > 16  # not a blank page: text, the verdict's box in colour


def test_the_review_page_is_self_contained(page: Path):
    html = page.read_text()
    assert "<script" not in html and "http://" not in html and "https://" not in html
    assert html.count("<svg") == 9
