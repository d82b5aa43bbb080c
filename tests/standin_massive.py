"""A stand-in for Massive (formerly Polygon.io): GET /stocks/v1/splits, as `ras fetch` asks it.

Where the shape comes from (no field is guessed): Massive's OpenAPI document as its official Go client vendors it,
massive-com/client-go `rest/scripts/openapi.json` (commit 9471d9b, path "/stocks/v1/splits"), which the docs page
massive.com/docs/rest/stocks/corporate-actions/splits repeats, and the official Python client's `StockSplit` model
(massive-com/client-python `massive/rest/models/splits.py`). Query parameters: `ticker` (with .any_of/.gt/.gte/.lt/
.lte), `execution_date` (with .gt/.gte/.lt/.lte), `adjustment_type` (and .any_of) one of forward_split,
reverse_split, stock_dividend, `limit` (default 100, at most 5000), `sort` ("column.asc|.desc", default
"execution_date.desc"). Answer: {"request_id", "results": [{adjustment_type, execution_date,
historical_adjustment_factor, id, split_from, split_to, ticker}], "status": "OK", "next_url"?}; an error is
{"status": "ERROR", "request_id", "error"}. `next_url` is a whole URL on Massive's own host with an opaque `cursor`
(the document's examples: "https://api.massive.com/…?cursor=YWN0aXZl…", base64 of the query), which the official
clients follow by path and query: so does this stand-in's, on the real host, and a client that followed the host
would leave the stand-in. The bearer key in a header is Massive's documented alternative to `apiKey=` in the URL.

Stricter than the service may be, so the product cannot drift: a parameter the endpoint does not document is
refused (400), and the deprecated `/v3/reference/splits` answers 404 (logged, so a test can say it is never asked).
`historical_adjustment_factor` is computed here as the document defines it (the product of split_from/split_to of
the ticker's splits on or after this one, within the served set). The splits served are public facts (the
companies' announced splits); the stand-in pages them three at a time so paging is exercised.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode

from aiohttp import web

from tests.standin import RequestLog, logging_middleware

KEY = "test-massive-key"
PAGE = 3  # fewer than the client's limit: the stand-in pages as the service does past its limit
NEXT_HOST = "https://api.massive.com"  # the host Massive's next_url names, whoever asked
MAX_LIMIT = 5000
DOCUMENTED = {
    f"{name}{suffix}"
    for name in ("ticker", "execution_date")
    for suffix in ("", ".any_of", ".gt", ".gte", ".lt", ".lte")
} | {"adjustment_type", "adjustment_type.any_of", "limit", "sort", "cursor"}
SORTS = {"ticker": 0, "execution_date": 1}  # sortable columns: their place in an entry
DEPRECATED = "/v3/reference/splits"
# (ticker, execution_date, split_from, split_to, adjustment_type): public split announcements around the Berkshire
# series' years; every one a forward split.
SPLITS = (
    ("DVA", "2013-09-09", 1, 2, "forward_split"),  # DaVita 2-for-1, trading split-adjusted from 2013-09-09
    ("MA", "2014-01-22", 1, 10, "forward_split"),
    ("AAPL", "2014-06-09", 1, 7, "forward_split"),  # Apple 7-for-1: Berkshire did not hold Apple yet
    ("TMK", "2014-07-02", 2, 3, "forward_split"),  # Torchmark 3-for-2
    ("V", "2015-03-19", 1, 4, "forward_split"),
    ("NFLX", "2015-07-15", 1, 7, "forward_split"),  # Netflix 7-for-1: never in Berkshire's books
    ("AAPL", "2020-08-31", 1, 4, "forward_split"),
    ("TSLA", "2020-08-31", 1, 5, "forward_split"),  # Tesla 5-for-1: never in Berkshire's books
    ("GOOGL", "2022-07-18", 1, 20, "forward_split"),
)
Entry = tuple[str, str, float, float, str]


@dataclass
class Massive:
    splits: tuple[Entry, ...] = SPLITS
    log: RequestLog = field(default_factory=RequestLog)

    def app(self) -> web.Application:
        app = web.Application(middlewares=[logging_middleware(self.log)])
        app.router.add_get("/stocks/v1/splits", self.list_splits)
        app.router.add_get(DEPRECATED, self.gone)
        return app

    async def gone(self, request: web.Request) -> web.Response:
        return _error(404, "standin-deprecated", f"{DEPRECATED} is deprecated; use /stocks/v1/splits")

    async def list_splits(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {KEY}":
            return _error(401, "standin-unauthorized", "Unknown API Key")
        unknown = sorted(set(request.query) - DOCUMENTED)
        if unknown:
            return _error(400, "standin-bad-request", f"unknown query parameters: {', '.join(unknown)}")
        query = dict(request.query)
        if "cursor" in query:  # a cursor stands for the whole first query and where the next page starts
            query = dict(parse_qsl(base64.urlsafe_b64decode(query["cursor"]).decode()))
        limit = int(query.get("limit", "100"))
        column, _, direction = query.get("sort", "execution_date.desc").partition(".")
        if not 1 <= limit <= MAX_LIMIT or column not in SORTS or direction not in ("asc", "desc"):
            return _error(400, "standin-bad-request", f"limit must be 1 … {MAX_LIMIT}, sort a column.asc or .desc")
        chosen = self._chosen(query, SORTS[column], direction == "desc")
        start = int(query.get("offset", "0"))
        step = min(PAGE, limit)
        body: dict = {
            "request_id": f"standin-{start}",
            "results": [self._result(entry) for entry in chosen[start : start + step]],
            "status": "OK",
        }
        if start + step < len(chosen):
            cursor = base64.urlsafe_b64encode(urlencode({**query, "offset": start + step}).encode()).decode()
            body["next_url"] = f"{NEXT_HOST}{request.path}?{urlencode({'cursor': cursor})}"
        return web.Response(body=json.dumps(body).encode(), content_type="application/json")

    def _chosen(self, query: dict[str, str], key: int, descending: bool) -> list[Entry]:
        after, through = query.get("execution_date.gt", ""), query.get("execution_date.lte", "9999")
        kinds = set(query.get("adjustment_type.any_of", query.get("adjustment_type", "")).split(",")) - {""}
        chosen = [s for s in self.splits if after < s[1] <= through and (not kinds or s[4] in kinds)]
        return sorted(chosen, key=lambda s: (s[key], s[0], s[1]), reverse=descending)

    def _result(self, entry: Entry) -> dict:
        ticker, day, old, new, kind = entry
        factor = 1.0
        for other in self.splits:
            if other[0] == ticker and other[1] >= day:
                factor *= other[2] / other[3]
        return {
            "adjustment_type": kind,
            "execution_date": day,
            "historical_adjustment_factor": round(factor, 6),
            "id": "E" + hashlib.sha256(f"{ticker} {day}".encode()).hexdigest(),
            "split_from": old,
            "split_to": new,
            "ticker": ticker,
        }


def _error(status: int, request_id: str, message: str) -> web.Response:
    return web.json_response({"status": "ERROR", "request_id": request_id, "error": message}, status=status)
