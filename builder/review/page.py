"""The review as one self-contained HTML page: jinja2, inline CSS, inline SVG charts, nothing fetched.

Every chart has a titled x and y axis and tick values on the y axis. A bar chart writes its value above each bar; a
book-value chart labels as many quarters as fit without overlapping, always the last, writes the value at the last
point only, and gives every point's exact value on hover (an SVG title) and in a table under the chart. At operator
scale only the largest books are charted: every manager's book value is in the page's table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TypedDict

import jinja2

from builder.review.shapes import BookPoint, BookSeries, Review

WIDTH, HEIGHT = 460, 210  # one chart: the 8 change kinds side by side, short enough to stack
LEFT, RIGHT, TOP, BOTTOM = 64, 24, 22, 44  # room for the y tick values, the value labels, the x labels
TICKS = 4  # y-axis intervals
QUARTER_ROOM = 44  # x-axis room of one quarter label ("2020 Q3" at 10px is about 38px wide, plus a gap)
CHARTED = 12  # book-value charts at most: the largest books of the latest quarter (500 charts are not a review)

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("builder.review", "templates"), autoescape=True, undefined=jinja2.StrictUndefined
)


class Tick(TypedDict):
    y: float
    label: str


class Axis(TypedDict):
    """A chart's y axis: its top value, tick positions and labels, its x extent and its base line."""

    ceiling: float
    ticks: list[Tick]
    x0: int
    x1: int
    base: int


class Point(TypedDict):
    x: float
    y: float
    value: str
    exact: str
    quarter: str
    label: str
    title: str


class Bar(TypedDict):
    x: float
    width: float
    y: float
    height: float
    middle: float
    name: str
    count: int


class LineChart(TypedDict):
    title: str
    width: int
    height: int
    axis: Axis
    points: list[Point]
    path: str
    xTitle: str
    yTitle: str


class BarChart(TypedDict):
    title: str
    width: int
    height: int
    axis: Axis
    bars: list[Bar]
    xTitle: str
    yTitle: str


def review_page(result: Review) -> str:
    """The HTML page of a review (the same facts as the text, the verdict first, plus the charts)."""
    lines = [_line_chart(series["manager"], series["points"]) for series in charted(result["bookValues"])]
    kinds = _bar_chart(
        "positions by change kind, latest version",
        [(k["kind"], k["count"]) for k in result["kinds"]],
        "change kind",
        "positions",
    )
    modes = (
        _bar_chart(
            "tickers per view mode, latest version",
            [(c["mode"], c["tickers"]) for c in result["viewCounts"]],
            "view mode (all managers)",
            "tickers",
        )
        if result["viewCounts"]
        else None
    )
    return _ENVIRONMENT.get_template("review.html.j2").render(
        review=result, lines=lines, kinds=kinds, modes=modes, managers=len(result["bookValues"])
    )


def charted(series: list[BookSeries]) -> list[BookSeries]:
    """The book-value series to chart: the CHARTED largest at their last point, largest first, ties by manager."""
    last = [s for s in series if s["points"]]
    return sorted(last, key=lambda s: (-s["points"][-1]["value"], s["manager"]))[:CHARTED]


def money(value: float) -> str:
    """Dollars in a chart label: $1.2B, $350M, $12K, $900."""
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(value) >= size * 0.9995:  # what rounds to 1,000 of a unit is 1 of the next: $1B, not $1e+03M
            return f"${value / size:.3g}{suffix}"
    return f"${value:,.0f}"


def _axis(top: float, label: Callable[[float], str]) -> Axis:
    """The y axis of values 0 … `top` (rounded up to a round number): tick positions and labels."""
    ceiling = _round_up(top)
    plot = HEIGHT - TOP - BOTTOM
    ticks: list[Tick] = [
        {"y": round(HEIGHT - BOTTOM - plot * i / TICKS, 1), "label": label(ceiling * i / TICKS)}
        for i in range(TICKS + 1)
    ]
    return {"ceiling": ceiling, "ticks": ticks, "x0": LEFT, "x1": WIDTH - RIGHT, "base": HEIGHT - BOTTOM}


def _round_up(value: float) -> float:
    """The smallest of 1, 2, 2.5 or 5 times a power of ten, times TICKS, at or above `value` (1 for nothing)."""
    if value <= 0:
        return TICKS
    step = value / TICKS
    power: float = 10 ** math.floor(math.log10(step))
    return TICKS * next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= step)


def _y(value: float, axis: Axis) -> float:
    return round(HEIGHT - BOTTOM - value / axis["ceiling"] * (HEIGHT - TOP - BOTTOM), 1)


def _line_chart(manager: str, points: list[BookPoint]) -> LineChart:
    """A manager's book value per quarter: a polyline and a point at each quarter, quarters on x (as many labelled
    as fit, the last always), the value written at the last point."""
    axis = _axis(max((p["value"] for p in points), default=0), money)
    step = (WIDTH - LEFT - RIGHT) / max(len(points), 1)
    every = math.ceil(QUARTER_ROOM / step)

    def labelled(i: int) -> bool:  # every `every`-th back from the last, none reaching left of the y axis's values
        return (len(points) - 1 - i) % every == 0 and (i + 0.5) * step >= QUARTER_ROOM / 2

    placed: list[Point] = [
        {
            "x": round(LEFT + (i + 0.5) * step, 1),
            "y": _y(p["value"], axis),
            "value": money(p["value"]),
            "exact": f"${p['value']:,}",
            "quarter": p["quarter"],
            "label": _quarter(p["quarter"]) if labelled(i) else "",
            "title": f"{p['quarter']}: ${p['value']:,}",
        }
        for i, p in enumerate(points)
    ]
    return {
        "title": f"{manager}: book value per quarter",
        "width": WIDTH,
        "height": HEIGHT,
        "axis": axis,
        "points": placed,
        "path": " ".join(f"{p['x']},{p['y']}" for p in placed),
        "xTitle": "quarter end",
        "yTitle": "book value (US$)",
    }


def _bar_chart(title: str, counts: list[tuple[str, int]], x_title: str, y_title: str) -> BarChart:
    """One bar per category with its count written above it; categories on x, counts on y."""
    axis = _axis(max((count for _, count in counts), default=0), lambda v: f"{v:g}")
    step = (WIDTH - LEFT - RIGHT) / max(len(counts), 1)
    bars: list[Bar] = []
    for i, (name, count) in enumerate(counts):
        top = _y(count, axis)
        bars.append(
            {
                "x": round(LEFT + i * step + 4, 1),
                "width": round(step - 8, 1),
                "y": top,
                "height": round(axis["base"] - top, 1),
                "middle": round(LEFT + (i + 0.5) * step, 1),
                "name": name,
                "count": count,
            }
        )
    return {
        "title": title,
        "width": WIDTH,
        "height": HEIGHT,
        "axis": axis,
        "bars": bars,
        "xTitle": x_title,
        "yTitle": y_title,
    }


def _quarter(day: str) -> str:
    """2020-09-30 → 2020 Q3: short enough for a dozen quarters on one axis."""
    return f"{day[:4]} Q{(int(day[5:7]) + 2) // 3}"
