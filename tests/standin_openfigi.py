"""A stand-in for the OpenFIGI v3 mapping API (`POST /v3/mapping`), in the shapes of realdata/openfigi/.

Shapes (../shared/realdata/openfigi/SOURCES.md): a hit is `{"data": [listing, …]}` with every exchange's
listing of an unfiltered identifier; a miss is `{"warning": "No identifier found."}` with status 200; a
429 is plain text `Too many requests, please try again later.` with `retry-after` and `ratelimit-*`
headers, which every answer carries. The job limit per request (10 without a key, 100 with
`X-OPENFIGI-APIKEY`) and the 413 for too many jobs follow OpenFIGI's API documentation ("Rate Limit",
and the 413 "Too many mapping jobs in request" of its OpenAPI file).

Data: IBM (459200101) answers with the real listings of realdata's bulk response. Every other CUSIP of
realdata/securities_sample.csv (real CUSIP → ticker pairs) answers with a US composite listing and two
venue listings whose FIGIs are FICTIONAL, derived from the CUSIP by the stand-in; Torchmark (891027104)
and Globe Life (37959E102) share one fictional share-class FIGI, as one share class that changed its
CUSIP and ticker in 2019. A CUSIP not in the sample is a miss.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
import time
from dataclasses import dataclass, field

from aiohttp import web

from tests.conftest import realdata
from tests.standin import RequestLog, logging_middleware

IBM = "459200101"
SAME_SHARE_CLASS = {"891027104": "37959E102"}  # Torchmark → Globe Life (fictional FIGIs, one share class)
JOB_LIMIT = {False: 10, True: 100}
TOO_MANY = "Too many requests, please try again later."


def fictional_figi(seed: str) -> str:
    """A FIGI-shaped id (BBG + 9) made up from `seed`: FICTIONAL, not Bloomberg's."""
    digest = hashlib.sha256(seed.encode()).hexdigest().upper()
    return "BBG" + "".join(c for c in digest if c not in "AEIOU")[:9]


def _listings(cusip: str, ticker: str, name: str) -> list[dict]:
    share_class = fictional_figi("share-class " + SAME_SHARE_CLASS.get(cusip, cusip))
    composite = fictional_figi("composite " + cusip)
    base = {
        "name": name,
        "ticker": ticker,
        "compositeFIGI": composite,
        "securityType": "Common Stock",
        "marketSector": "Equity",
        "shareClassFIGI": share_class,
        "securityType2": "Common Stock",
        "securityDescription": ticker,
    }
    venues = [("UN", fictional_figi("UN " + cusip)), ("US", composite), ("UW", fictional_figi("UW " + cusip))]
    return [{"figi": figi, **base, "exchCode": exch} for exch, figi in venues]  # the composite is not first


@dataclass
class OpenFigi:
    """What the stand-in knows, its rate window, and what it saw."""

    limit: int = 25  # requests per window, as OpenFIGI's keyless ratelimit-limit
    window: float = 2.0  # seconds (OpenFIGI's is 60 keyless; short here so a test runs in seconds)
    refuse_next: int = 0  # answer this many next requests with 429 whatever the window says
    retry_after: int = 1
    log: RequestLog = field(default_factory=RequestLog)
    jobs: list[int] = field(default_factory=list)  # jobs per request received
    _started: float = 0.0
    _used: int = 0

    def __post_init__(self) -> None:
        self.known = self._known()

    @staticmethod
    def _known() -> dict[str, list[dict]]:
        with realdata("securities_sample.csv").open(encoding="utf-8", newline="") as handle:
            known = {
                row["cusip"]: _listings(row["cusip"], row["ticker"], row["name"] or row["ticker"])
                for row in csv.DictReader(handle)
            }
        bulk = realdata("openfigi", "mapping_bulk_ID_ISIN_US4592001014+TICKER_AAPL.response.json")
        known[IBM] = json.loads(bulk.read_bytes())[0]["data"]  # IBM's real listings, every exchange
        return known

    def app(self) -> web.Application:
        app = web.Application(middlewares=[logging_middleware(self.log)])
        app.router.add_post("/v3/mapping", self.mapping)
        return app

    def _rate_headers(self) -> dict[str, str]:
        now = time.monotonic()
        if now - self._started >= self.window:
            self._started, self._used = now, 0
        self._used += 1
        reset = max(1, math.ceil(self._started + self.window - now))
        remaining = max(0, self.limit - self._used)
        return {
            "ratelimit-limit": str(self.limit),
            "ratelimit-remaining": str(remaining),
            "ratelimit-reset": str(reset),
        }

    async def mapping(self, request: web.Request) -> web.Response:
        headers = self._rate_headers()
        if self.refuse_next or self._used > self.limit:
            self.refuse_next = max(0, self.refuse_next - 1)
            headers["retry-after"] = str(self.retry_after)
            return web.Response(status=429, text=TOO_MANY, content_type="text/html", headers=headers)
        jobs = await request.json()
        self.jobs.append(len(jobs))
        if len(jobs) > JOB_LIMIT["X-OPENFIGI-APIKEY" in request.headers]:
            return web.Response(status=413, text="Too many mapping jobs in request", headers=headers)
        answers = [self._answer(job) for job in jobs]
        return web.Response(
            body=json.dumps(answers, separators=(",", ":")).encode(),
            headers=headers,
            content_type="application/json",
            charset="utf-8",
        )

    def _answer(self, job: dict) -> dict:
        if job.get("idType") != "ID_CUSIP":
            return {"error": "Invalid idType."}
        listings = self.known.get(job.get("idValue"))
        return {"data": listings} if listings else {"warning": "No identifier found."}
