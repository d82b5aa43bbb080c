"""`ras review --html`: the page opened in a real headless Chromium shows its charts and fetches nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main
from tests.browser import open_page, png_colours

CHART_POINTS = "JSON.stringify([...document.querySelectorAll('svg.chart')].map(s => s.querySelectorAll('.point').length))"


def restated_fixture(fixture_tree: Path, tmp_path: Path) -> Path:
    """The fixture with one securities.csv mapping dropped: every version restated, a new unmapped warning."""
    source = tmp_path / "source"
    shutil.copytree(fixture_tree, source)
    lines = (source / "securities.csv").read_text().splitlines()
    (source / "securities.csv").write_text("\n".join([lines[0], *lines[2:]]) + "\n")
    return source


@pytest.fixture
def page(releases_copy: Path, fixture_tree: Path, tmp_path: Path) -> Path:
    built = CliRunner().invoke(main, ["build", "--source", str(restated_fixture(fixture_tree, tmp_path)),
                                      "--releases", str(releases_copy),
                                      "--max-unmapped-value", "100%"])  # the dropped mapping is 2.19% of a book
    assert built.exit_code == 0, built.output
    html = tmp_path / "review.html"
    result = CliRunner().invoke(main, ["review", built.stdout.strip(), "--releases", str(releases_copy), "--html", str(html)])
    assert result.exit_code == 0, result.output
    assert "restated  multi-manager-2026-09-30-v2.0 → multi-manager-2026-09-30-v2.1" in result.stdout
    return html


async def test_the_review_page_in_chromium_has_charts_with_points_no_errors_and_no_network(page: Path, tmp_path: Path):
    visit = await open_page(page, CHART_POINTS, tmp_path / "profile")
    assert visit.requests == [page.resolve().as_uri()]  # the page itself and nothing else
    assert visit.errors == []
    counts = json.loads(visit.value)
    assert len(counts) == 8  # seven managers' book values and the view modes
    assert counts[:7] == [8] * 7 and counts[7] == 4
    assert png_colours(visit.screenshot) > 16  # not a blank page: text, lines, points and bars in colour


def test_the_review_page_is_self_contained(page: Path):
    html = page.read_text()
    assert "<script" not in html and "http://" not in html and "https://" not in html
    assert html.count("<svg") == 8
