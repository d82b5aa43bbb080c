"""A stand-in for SEC EDGAR: real filings and real submissions listings in EDGAR's URL layout, and faults.

What it replays (../shared/realdata/edgar/SOURCES.md says where each sample comes from):
- `GET /submissions/CIK##########.json`: the real listing of a CIK from realdata/edgar/submissions/,
  compacted as the SEC serves it, with `filings.recent` cut to the rows filed by `listed_until` (the
  listing as EDGAR served it that day: the filings newer than the ones we hold are not there yet).
- `GET /submissions/CIK##########-submissions-001.json`: the overflow page named by `filings.files`.
  Berkshire's real page is not in realdata, so the stand-in writes it from the headers of the filings
  it serves, in the shape of the real CARBO page (CIK0001009672-submissions-001.json: the `recent`
  column arrays at top level).
- `GET /Archives/edgar/data/<cik>/<accession-no-dashes>/<accession>.txt`: the real submission file.
- Errors as recorded: an unknown CIK is 404 with an XML NoSuchKey body; a missing archive path is 403
  with an XML AccessDenied body; a 503 carries the SEC's real maintenance page.
- Faults on demand, per accession, one per request: `429` (Retry-After, as the SEC's fair-access page
  says it may ask clients to slow down), `503`, `truncated` (Content-Length promised, half sent),
  `slow` (answers after `slow_seconds`), `html200` (the maintenance page with status 200).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

from tests.conftest import realdata
from tests.standin import RequestLog, cut_short, logging_middleware

SUBMISSIONS = "edgar/submissions"
LISTINGS = {"0001067983": "CIK0001067983.REFORMATTED-indent2.json", "0000315090": "CIK0000315090.json"}
BERKSHIRE_FILINGS = "sec13f/berkshire_hathaway_0001067983"
_HEADER = {
    "accessionNumber": "ACCESSION NUMBER",
    "form": "CONFORMED SUBMISSION TYPE",
    "reportDate": "CONFORMED PERIOD OF REPORT",
    "filingDate": "FILED AS OF DATE",
    "cik": "CENTRAL INDEX KEY",
}
_ARCHIVE = re.compile(r"/Archives/edgar/data/([0-9]+)/([0-9]{18})/([0-9]{10}-[0-9]{2}-[0-9]{6})\.txt")
FAULTS = ("429", "503", "truncated", "slow", "html200")


def header_of(path: Path) -> dict[str, str]:
    """The listing columns of a submission file, read from its SGML header (dates as YYYY-MM-DD)."""
    head = path.read_bytes()[:4000].decode("utf-8", "replace")
    found = {}
    for column, label in _HEADER.items():
        value = re.search(rf"^\s*{label}:\s*(\S+)", head, re.M)[1]
        found[column] = f"{value[:4]}-{value[4:6]}-{value[6:]}" if column.endswith("Date") else value
    return found


@dataclass
class Edgar:
    """What the stand-in serves and what it saw."""

    filings: dict[str, Path]  # accession → submission file
    listed_until: str = "2020-11-30"  # the day the served listings are from
    faults: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    slow_seconds: float = 3.0
    log: RequestLog = field(default_factory=RequestLog)

    @classmethod
    def berkshire(cls) -> Edgar:
        folder = realdata(BERKSHIRE_FILINGS)
        return cls({header_of(path)["accessionNumber"]: path for path in sorted(folder.glob("*.txt"))})

    def app(self) -> web.Application:
        app = web.Application(middlewares=[logging_middleware(self.log)])
        app.router.add_get("/submissions/{name}", self.submissions)
        app.router.add_get("/Archives/{tail:.*}", self.archive)
        return app

    async def submissions(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        found = re.fullmatch(r"CIK([0-9]{10})(-submissions-001)?\.json", name)
        if not found or found[1] not in LISTINGS:
            return xml_error(realdata(SUBMISSIONS, "CIK-000000001.json.404-body.xml"), 404, f"submissions/{name}")
        listing = json.loads(realdata(SUBMISSIONS, LISTINGS[found[1]]).read_bytes())
        recent = listing["filings"]["recent"]
        if found[2]:
            oldest_file = min(listing["filings"]["files"], key=lambda page: page["filingFrom"])
            body = self._page(found[1], oldest_file["filingTo"], list(recent))
        else:
            listing["filings"]["recent"] = _rows_until(recent, self.listed_until)
            body = listing
        data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()  # the SEC's compact style
        return web.Response(body=data, content_type="application/json")

    def _page(self, cik: str, until: str, columns: list[str]) -> dict:
        headers = [header_of(path) for path in self.filings.values()]
        rows = sorted(
            (h for h in headers if h["cik"] == cik and h["filingDate"] <= min(until, self.listed_until)),
            key=lambda h: h["filingDate"],
            reverse=True,
        )
        return {column: [row.get(column, "") for row in rows] for column in columns}

    async def archive(self, request: web.Request) -> web.StreamResponse:
        found = _ARCHIVE.fullmatch(request.path)
        path = self.filings.get(found[3]) if found and found[2] == found[3].replace("-", "") else None
        if path is None or header_of(path)["cik"].lstrip("0") != found[1]:
            return xml_error(realdata("edgar/archives/full-index_2099_QTR1_form.gz.403-body.xml"), 403, request.path)
        fault = self.faults[found[3]].pop(0) if self.faults[found[3]] else None
        return await self._answer(request, path.read_bytes(), fault)

    async def _answer(self, request: web.Request, body: bytes, fault: str | None) -> web.StreamResponse:
        maintenance = realdata("edgar/archives/browse-edgar_getcurrent.503-maintenance-body.html").read_bytes()
        if fault == "429":
            return web.Response(
                status=429, text="Too many requests, please try again later.", headers={"Retry-After": "1"}
            )
        if fault in ("503", "html200"):
            return web.Response(status=503 if fault == "503" else 200, body=maintenance, content_type="text/html")
        if fault == "slow":
            await asyncio.sleep(self.slow_seconds)
        if fault == "truncated":
            return await cut_short(request, body, "text/plain")
        return web.Response(body=body, content_type="text/plain")


def _rows_until(recent: dict[str, list], day: str) -> dict[str, list]:
    keep = [index for index, filed in enumerate(recent["filingDate"]) if filed <= day]
    return {column: [values[index] for index in keep] for column, values in recent.items()}


def xml_error(sample: Path, status: int, key: str) -> web.Response:
    body = re.sub(rb"<Key>.*?</Key>", f"<Key>{key.lstrip('/')}</Key>".encode(), sample.read_bytes())
    return web.Response(status=status, body=body, content_type="application/xml")
