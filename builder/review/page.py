"""The review as one self-contained HTML page: jinja2, inline CSS, inline SVG charts, nothing fetched."""

from __future__ import annotations

import jinja2

WIDTH, HEIGHT, PAD = 360, 120, 24  # one small chart: wide enough for 8-12 quarters, short enough to stack

_ENVIRONMENT = jinja2.Environment(
    loader=jinja2.PackageLoader("builder.review", "templates"), autoescape=True, undefined=jinja2.StrictUndefined
)


def review_page(result: dict) -> str:
    """The HTML page of a review (the same facts as the text, plus the charts)."""
    charts = [_line_chart(series["manager"], series["points"]) for series in result["bookValues"]]
    bars = _bar_chart(result["viewCounts"])
    return _ENVIRONMENT.get_template("review.html.j2").render(review=result, charts=charts, bars=bars)


def _line_chart(manager: str, points: list[dict]) -> dict:
    """Book value per quarter as an SVG polyline with one circle per quarter (x by order, y scaled to the max)."""
    top = max((p["value"] for p in points), default=0) or 1
    step = (WIDTH - 2 * PAD) / max(len(points) - 1, 1)
    placed = [
        {"x": round(PAD + i * step, 1), "y": round(HEIGHT - PAD - p["value"] / top * (HEIGHT - 2 * PAD), 1),
         "label": f"{p['quarter']}: ${p['value']:,}"}
        for i, p in enumerate(points)
    ]
    return {"title": manager, "width": WIDTH, "height": HEIGHT, "points": placed,
            "path": " ".join(f"{p['x']},{p['y']}" for p in placed),
            "first": points[0]["quarter"] if points else "", "last": points[-1]["quarter"] if points else ""}


def _bar_chart(counts: list[dict]) -> dict:
    """Ticker count per view mode as SVG bars."""
    top = max((c["tickers"] for c in counts), default=0) or 1
    width = (WIDTH - 2 * PAD) / max(len(counts), 1)
    bars = [
        {"x": round(PAD + i * width + 4, 1), "width": round(width - 8, 1),
         "height": round(c["tickers"] / top * (HEIGHT - 2 * PAD), 1), "mode": c["mode"], "tickers": c["tickers"]}
        for i, c in enumerate(counts)
    ]
    for bar in bars:
        bar["y"] = round(HEIGHT - PAD - bar["height"], 1)
    return {"width": WIDTH, "height": HEIGHT, "bars": bars, "base": HEIGHT - PAD}
