"""A stand-in for Massive's reference data (formerly Polygon.io): GET /v3/reference/splits, as `ras fetch` asks it.

The URL layout, the query parameters (execution_date.gt/.lte, limit, sort, order), the bearer key and the answer's
shape ({"results": [{execution_date, split_from, split_to, ticker, id}], "status": "OK", "request_id", "next_url"})
follow Massive's documented `/v3/reference/splits` answer, as the service's official Python client records it in its
own tests (`test_rest/mocks/v3/reference/splits.json`) and pages it (`next_url` carrying a cursor). The splits served
are public facts (the companies' announced splits); the stand-in pages them three at a time so paging is exercised.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from aiohttp import web

from tests.standin import RequestLog, logging_middleware

KEY = "test-massive-key"
PAGE = 3  # fewer than the client's limit: the stand-in pages as the service does past its limit
# (ticker, execution_date, split_from, split_to): public split announcements around the Berkshire series' years.
SPLITS = (
    ("DVA", "2013-09-09", 1, 2),  # DaVita 2-for-1, trading split-adjusted from 2013-09-09
    ("MA", "2014-01-22", 1, 10),
    ("AAPL", "2014-06-09", 1, 7),  # Apple 7-for-1: Berkshire did not hold Apple yet
    ("TMK", "2014-07-02", 2, 3),  # Torchmark 3-for-2
    ("V", "2015-03-19", 1, 4),
    ("NFLX", "2015-07-15", 1, 7),  # Netflix 7-for-1: never in Berkshire's books
    ("AAPL", "2020-08-31", 1, 4),
    ("TSLA", "2020-08-31", 1, 5),  # Tesla 5-for-1: never in Berkshire's books
    ("GOOGL", "2022-07-18", 1, 20),
)


@dataclass
class Massive:
    splits: tuple[tuple[str, str, float, float], ...] = SPLITS
    log: RequestLog = field(default_factory=RequestLog)

    def app(self) -> web.Application:
        app = web.Application(middlewares=[logging_middleware(self.log)])
        app.router.add_get("/v3/reference/splits", self.list_splits)
        return app

    async def list_splits(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {KEY}":
            body = {"status": "ERROR", "request_id": "standin-unauthorized", "error": "Unknown API Key"}
            return web.json_response(body, status=401)
        after, through = request.query.get("execution_date.gt", ""), request.query.get("execution_date.lte", "9999")
        chosen = [s for s in sorted(self.splits, key=lambda s: s[1]) if after < s[1] <= through]
        start = int(request.query.get("cursor", "0"))
        page = chosen[start : start + min(PAGE, int(request.query.get("limit", "10")))]
        body: dict = {
            "results": [
                {
                    "execution_date": day,
                    "id": f"standin-{ticker}-{day}",
                    "split_from": old,
                    "split_to": new,
                    "ticker": ticker,
                }
                for ticker, day, old, new in page
            ],
            "status": "OK",
            "request_id": f"standin-{start}",
        }
        if start + PAGE < len(chosen):
            query = {**request.query, "cursor": str(start + PAGE)}
            body["next_url"] = str(request.url.with_query(query))
        return web.Response(body=json.dumps(body).encode(), content_type="application/json")
