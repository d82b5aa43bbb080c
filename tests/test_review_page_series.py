"""The review page of a long release with more managers than it charts, as a real headless Chromium lays it out: the
book-value charts' labels never overlap, the largest books are the ones charted, every exact value is on the page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench import synthetic
from builder.cli import main
from builder.review.page import CHARTED
from tests.browser import open_page

QUARTERS = 29  # a release of seven years and a quarter: the length whose labels overlapped, one per quarter
MANAGERS = 14  # more than the page charts, so it has to choose
POSITIONS = 5  # small books: the page's length is in its quarters, not its rows

# Per book-value chart: its title, its box and every text's class, content and box; each point's hover title; the
# exact values under it. Then the bridge table's rows (manager, before, after, …).
SEEN = """(() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  return JSON.stringify({
    charts: [...document.querySelectorAll('figure.book')].map(f => {
      const svg = f.querySelector('svg.chart');
      return {
        title: svg.getAttribute('aria-label'),
        box: box(svg),
        texts: [...svg.querySelectorAll('text')].map(t => ({kind: t.getAttribute('class'), text: t.textContent,
                                                            box: box(t)})),
        hovers: [...svg.querySelectorAll('circle.point title')].map(t => t.textContent),
        exact: [...f.querySelectorAll('table.values tr')].map(r => [...r.cells].map(c => c.textContent))};
    }),
    bridges: [...document.querySelectorAll('#bridges tr')].slice(1).map(r => [...r.cells].map(c => c.textContent)),
    charted: document.getElementById('charted').textContent});
})()"""


@pytest.fixture(scope="module")
def long_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`ras review --html` of a synthetic release of MANAGERS managers over QUARTERS quarters, all published."""
    root = tmp_path_factory.mktemp("long")
    params = synthetic.Params(MANAGERS, QUARTERS, POSITIONS)
    synthetic.write_tree(root / "source", params)
    header = ("bench/synthetic.py", "# every quarter published", params.stamp())
    (root / "source" / "packs.toml").write_bytes(synthetic.packs_text(MANAGERS, header, versions=QUARTERS))
    releases = str(root / "releases")
    built = CliRunner().invoke(main, ["build", "--source", str(root / "source"), "--releases", releases])
    assert built.exit_code == 0, built.output
    html = root / "review.html"
    reviewed = CliRunner().invoke(main, ["review", built.stdout.strip(), "--releases", releases, "--html", str(html)])
    assert reviewed.exit_code == 0, reviewed.output
    return html


def overlapping(texts: list[dict]) -> list[tuple[str, str]]:
    """The pairs of texts whose rendered boxes intersect."""
    return [
        (a["text"], b["text"])
        for i, a in enumerate(texts)
        for b in texts[i + 1 :]
        if a["box"][0] < b["box"][2]
        and b["box"][0] < a["box"][2]
        and a["box"][1] < b["box"][3]
        and b["box"][1] < a["box"][3]
    ]


async def test_a_29_quarter_chart_labels_quarters_and_its_last_value_without_any_overlap(
    long_page: Path, tmp_path: Path
):
    visit = await open_page(long_page, SEEN, tmp_path / "profile")
    (tmp_path / "review.png").write_bytes(visit.screenshot)
    assert visit.errors == []
    seen = json.loads(visit.value)
    for chart in seen["charts"]:
        quarters = [t for t in chart["texts"] if t["kind"] == "tick quarter"]
        values = [t for t in chart["texts"] if t["kind"] == "value"]
        assert overlapping(quarters) == [] and overlapping(values) == []
        assert overlapping(chart["texts"]) == []  # nor any other text of the chart: ticks, titles, the value
        left, top, right, bottom = chart["box"]
        assert all(left <= t["box"][0] and t["box"][2] <= right and top <= t["box"][1] for t in chart["texts"])
        assert all(t["box"][3] <= bottom for t in chart["texts"])  # every label drawn whole inside its chart
        assert 4 <= len(quarters) < QUARTERS and quarters[-1]["text"] == "2026 Q3"  # thinned, the last labelled
        assert len(values) == 1 and values[0]["text"].startswith("$")  # the last point's value only
        assert len(chart["hovers"]) == len(chart["exact"]) == QUARTERS  # every quarter's exact value, twice
        assert chart["hovers"] == [f"{quarter}: {value}" for quarter, value in chart["exact"]]


async def test_the_largest_books_are_charted_and_their_exact_values_match_the_bridge_table(
    long_page: Path, tmp_path: Path
):
    seen = json.loads((await open_page(long_page, SEEN, tmp_path / "profile")).value)
    after = {row[0]: int(row[2].replace(",", "")) for row in seen["bridges"]}
    assert len(after) == MANAGERS
    assert list(after.values()) == sorted(after.values(), reverse=True)  # the table lists the largest book first
    largest = sorted(after, key=lambda manager: (-after[manager], manager))[:CHARTED]
    assert [chart["title"].split(":")[0] for chart in seen["charts"]] == largest
    for chart in seen["charts"]:
        manager = chart["title"].split(":")[0]
        assert chart["exact"][-1] == ["2026-09-30", f"${after[manager]:,}"]
    assert f"of the {CHARTED} largest books of the latest quarter ({MANAGERS} managers)" in seen["charted"]
