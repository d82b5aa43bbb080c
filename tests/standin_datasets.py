"""A stand-in for the SEC's Form 13F data-set page and its zips, as `ras fetch` asks for them.

The page: no copy of the SEC's own page is stored here, so it is written from the facts in
../shared/realdata/sec-datasets/SOURCES.md and from how public code that reads the page quotes it in its tests
(OpenBB's `openbb_sec` tests and a `stock_sum` collector's: a table row per set, the link's text "2025 September
October November 13F" or "2023 Q4 13F", relative hrefs under `/files/structureddata/data/form-13f-data-sets/`).
Newest set first, as the SEC lists them; the newest on the newer path, given absolute as `https://www.sec.gov/…`
(the client must ask the stand-in for it all the same); a non-13F zip and page links that are not sets. Each row
states its set's size ("21.3 KB"), as `ras fetch` checks where a page gives one (`sizes=False`: a page that does not).

The zips, two kinds. `DataSetsPage()`: small sets built from the real tables of the 01mar2025-31may2025 set (each
small table cut to a few rows) and a two-row INFOTABLE.tsv in the real column layout (the values are only for the
layout), each zip's bytes different by set and upload. `DataSetsPage.berkshire()`: the sets of
tests/berkshire_universe.py, Berkshire Hathaway's real filings beside FICTIONAL witnesses (nothing invented is
attributed to Berkshire), listed as the SEC's page listed them on a day: a set once its filing window has closed.

`GET /files/<path>` serves a listed set at its own path, honouring `Range: bytes=N-` (206) unless `If-Range` names
another ETag; any other path is the SEC's 403 AccessDenied XML. A set the server holds damaged (`damaged`, every
request): `crc` (a member's bytes altered, its CRC not), `missing-table` (no OTHERMANAGER2.tsv), `short` (cut at the
source: the first half, its length as Content-Length). Faults on demand, per set name, one per request (`faults`):
`truncated` (the whole length promised, half sent, the connection dropped), `html200` (the SEC's maintenance page
with status 200). `misstated`: sets whose row states twice their size. `bytes_per_second`: every body sent at that
pace (a download slow enough to be killed in the middle).
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import io
import random
import re
import shutil
import tempfile
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path, PurePosixPath

from aiohttp import web

from bench.datasets_writer import window
from builder.fetch.datasets.page import PAGE_PATH, data_set
from tests.conftest import realdata
from tests.standin import RequestLog, logging_middleware
from tests.standin_edgar import Edgar, xml_error

OLD_PATH = "/files/structureddata/data/form-13f-data-sets"
NEW_PATH = "/files/datastandardsinnovation/data/form-13f-data-sets"  # from the 01jun2026-31aug2026 set on
NEW_PATH_FROM = date(2026, 6, 1)
REAL_SET = "sec-datasets/01mar2025-31may2025_form13f"
SMALL_TABLES = ("SUBMISSION", "COVERPAGE", "OTHERMANAGER", "OTHERMANAGER2", "SIGNATURE", "SUMMARYPAGE")
TABLE_ROWS = 4  # the header and three real rows of each small table
ZIPPED_AT = (2026, 9, 15, 0, 0, 0)  # one time for every member: a set's bytes do not depend on when the test runs
SENT_AT_ONCE = 4096  # bytes a paced body is written in
INFOTABLE = (
    "ACCESSION_NUMBER\tINFOTABLE_SK\tNAMEOFISSUER\tTITLEOFCLASS\tCUSIP\tFIGI\tVALUE\tSSHPRNAMT\tSSHPRNAMTTYPE\tPUTCALL\t"
    "INVESTMENTDISCRETION\tOTHERMANAGER\tVOTING_AUTH_SOLE\tVOTING_AUTH_SHARED\tVOTING_AUTH_NONE\n"
    "0000950123-25-005701\t1\tAPPLE INC\tCOM\t037833100\t\t1000\t10\tSH\t\tDFND\t4,8,11\t10\t0\t0\n"
    "0000950123-25-005701\t2\tAMERICAN EXPRESS CO\tCOM\t025816109\t\t2000\t20\tSH\t\tDFND\t4,8,11\t20\t0\t0\n"
)
# (file name, path it is served at, the link's text), newest first as on the SEC's page
LISTED = (
    ("01jun2026-31aug2026_form13f.zip", NEW_PATH, "2026 June July August 13F"),
    ("01mar2026-31may2026_form13f.zip", OLD_PATH, "2026 March April May 13F"),
    ("01dec2025-28feb2026_form13f.zip", OLD_PATH, "2025 December 2026 January February 13F"),
    ("01sep2025-30nov2025_form13f.zip", OLD_PATH, "2025 September October November 13F"),
    ("01jun2025-31aug2025_form13f.zip", OLD_PATH, "2025 June July August 13F"),
    ("01mar2025-31may2025_form13f.zip", OLD_PATH, "2025 March April May 13F"),
    ("01dec2024-28feb2025_form13f.zip", OLD_PATH, "2024 December 2025 January February 13F"),
    ("01sep2024-30nov2024_form13f.zip", OLD_PATH, "2024 September October November 13F"),
    ("01jun2024-31aug2024_form13f.zip", OLD_PATH, "2024 June July August 13F"),
    ("01mar2024-31may2024_form13f.zip", OLD_PATH, "2024 March April May 13F"),
    ("01jan2024-29feb2024_form13f.zip", OLD_PATH, "2024 January February 13F"),
    ("2023q4_form13f.zip", OLD_PATH, "2023 Q4 13F"),
    ("2023q3_form13f.zip", OLD_PATH, "2023 Q3 13F"),
    ("2023q2_form13f.zip", OLD_PATH, "2023 Q2 13F"),
    ("2023q1_form13f.zip", OLD_PATH, "2023 Q1 13F"),
    ("2013q2_form13f.zip", OLD_PATH, "2013 Q2 13F"),
)
NOT_SETS = (
    '<a href="/files/structureddata/data/financial-statement-data-sets/2026q2.zip">2026 Q2 Financial Statements</a>',
    '<a href="/files/form13f_readme.pdf">Form 13F data sets readme</a>',
    '<a href="/data-research/sec-markets-data">SEC Markets Data</a>',
)


@functools.cache
def set_zip(name: str) -> bytes:
    """A small zip shaped as a set: the seven tables (the real small tables cut short, a tiny INFOTABLE) and the
    readme under the set's folder; the same bytes for the same name."""
    members = {f"{table}.tsv": _real_rows(table) for table in SMALL_TABLES}
    members["INFOTABLE.tsv"] = INFOTABLE.encode()
    members["FORM13F_readme.htm"] = f"<html><body>{name}</body></html>".encode()
    folder = name.removesuffix(".zip").upper().replace("_FORM13F", "_form13f")
    return _zipped({f"{folder}/{member}": data for member, data in members.items()})


def padded_zip(name: str, size: int) -> bytes:
    """The set `name` with an incompressible FORM13F_metadata.json of `size` bytes beside its tables (the real one is
    17 KB): a download long enough to watch move, or to kill in the middle."""
    out = io.BytesIO(set_zip(name))
    with zipfile.ZipFile(out, "a") as archive:
        archive.writestr(zipfile.ZipInfo("FORM13F_metadata.json", ZIPPED_AT), random.Random(name).randbytes(size))
    return out.getvalue()


def _real_rows(table: str) -> bytes:
    return b"\n".join(realdata(REAL_SET, f"{table}.tsv").read_bytes().split(b"\n")[:TABLE_ROWS]) + b"\n"


def _zipped(members: dict[str, bytes], stored: str = "") -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for member, data in members.items():
            info = zipfile.ZipInfo(member, date_time=ZIPPED_AT)
            kept = PurePosixPath(member).name == stored
            archive.writestr(info, data, compress_type=zipfile.ZIP_STORED if kept else zipfile.ZIP_DEFLATED)
    return out.getvalue()


def damaged(body: bytes, how: str) -> bytes:
    """The zip `body` as the server holds it damaged `how` (see the module's docstring)."""
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    if how == "missing-table":
        return _zipped({m: data for m, data in members.items() if PurePosixPath(m).name != "OTHERMANAGER2.tsv"})
    if how == "short":
        return body[: len(body) // 2]
    assert how == "crc", how
    victim = next(m for m in members if PurePosixPath(m).name == "SIGNATURE.tsv")
    raw = _zipped(members, stored="SIGNATURE.tsv")
    at = raw.index(members[victim]) + len(members[victim]) // 2
    return raw[:at] + bytes([raw[at] ^ 0x20]) + raw[at + 1 :]  # one letter's case flipped: the CRC no longer fits


@functools.cache
def universe_zips() -> dict[str, bytes]:
    """The data sets of tests/berkshire_universe.py (Berkshire's real filings, fictional witnesses), by name."""
    from tests.berkshire_universe import berkshire_universe  # a few seconds: only for the tests that serve them

    root = Path(tempfile.mkdtemp(prefix="ras-universe-"))
    try:
        berkshire_universe(root / "tree")
        return {path.name: path.read_bytes() for path in sorted((root / "tree" / "sec13f-datasets").glob("*.zip"))}
    finally:
        shutil.rmtree(root)


@dataclass
class DataSetsPage:
    """What the stand-in serves and what it saw."""

    listed: list[tuple[str, str, str]] = field(default_factory=lambda: list(LISTED))
    zips: dict[str, bytes] = field(default_factory=dict)  # a set's bytes by name; set_zip(name) when absent
    page: str = "sets"  # "sets", "missing" (404) or "changed" (a page that links no set)
    sizes: bool = True  # whether each row states its set's size
    damaged: dict[str, str] = field(default_factory=dict)
    faults: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    misstated: set[str] = field(default_factory=set)
    bytes_per_second: float | None = None
    log: RequestLog = field(default_factory=RequestLog)

    @classmethod
    def berkshire(cls, listed_until: str = "2020-11-30") -> DataSetsPage:
        """The universe's sets the SEC's page listed on `listed_until`: those whose filing window had closed."""
        zips = universe_zips()
        day = date.fromisoformat(listed_until)
        shown = [name for name in zips if data_set(name, name).last < day]
        rows = [(name, _path_of(name), _text_of(name)) for name in sorted(shown, key=_first_day, reverse=True)]
        return cls(rows, dict(zips))

    def app(self) -> web.Application:
        app = web.Application(middlewares=[logging_middleware(self.log)])
        self.routes(app)
        return app

    def routes(self, app: web.Application) -> None:
        app.router.add_get(PAGE_PATH, self.page_answer)
        app.router.add_get("/files/{tail:.*}", self.file_answer)

    def body(self, name: str) -> bytes:
        """The bytes the server holds for set `name`, damaged as asked."""
        clean = self.zips.get(name) or set_zip(name)
        return damaged(clean, self.damaged[name]) if name in self.damaged else clean

    def reupload(self, name: str, number: int) -> str:
        """List a `_N` re-upload of the set `name` just above it, as the SEC does; its file name."""
        index = next(i for i, row in enumerate(self.listed) if row[0] == name)
        again = name.replace("_form13f.zip", f"_form13f_{number}.zip")
        self.listed.insert(index, (again, self.listed[index][1], f"{self.listed[index][2]} (re-uploaded)"))
        return again

    async def page_answer(self, request: web.Request) -> web.Response:
        if self.page == "missing":
            return web.Response(status=404, text="<html><body><h1>Page Not Found</h1></body></html>")
        rows = "" if self.page == "changed" else "\n".join(self._row(*row) for row in self.listed)
        return web.Response(text=PAGE.format(rows=rows, others="\n".join(NOT_SETS)), content_type="text/html")

    def _row(self, name: str, path: str, text: str) -> str:
        href = f"https://www.sec.gov{path}/{name}" if path == NEW_PATH else f"{path}/{name}"
        size = len(self.body(name)) * (2 if name in self.misstated else 1)
        stated = f"\n        <td>{size / 1000:.1f} KB</td>" if self.sizes else ""
        return f'      <tr>\n        <td><a href="{href}">{text}</a></td>\n        <td>ZIP</td>{stated}\n      </tr>'

    async def file_answer(self, request: web.Request) -> web.StreamResponse:
        where = {f"{path}/{name}": name for name, path, _ in self.listed}
        name = where.get(request.path)
        if name is None:
            sample = realdata("edgar/archives/full-index_2099_QTR1_form.gz.403-body.xml")
            return xml_error(sample, 403, request.path)
        fault = self.faults[name].pop(0) if self.faults[name] else None
        if fault == "html200":
            maintenance = realdata("edgar/archives/browse-edgar_getcurrent.503-maintenance-body.html").read_bytes()
            return web.Response(body=maintenance, content_type="text/html")
        body = self.body(name)
        etag = f'"{hashlib.sha256(body).hexdigest()[:16]}"'
        start = _range_start(request, etag, len(body))
        headers = {"Content-Type": "application/zip", "ETag": etag, "Accept-Ranges": "bytes"}
        if start:
            headers["Content-Range"] = f"bytes {start}-{len(body) - 1}/{len(body)}"
        return await self._send(request, body[start:], 206 if start else 200, headers, fault == "truncated")

    async def _send(
        self, request: web.Request, body: bytes, status: int, headers: dict[str, str], cut: bool
    ) -> web.StreamResponse:
        """Send `body` (at the stand-in's pace, if it has one); `cut`: promise it all, send half, drop the line."""
        response = web.StreamResponse(status=status, headers=headers)
        response.content_length = len(body)
        await response.prepare(request)
        sent = body[: len(body) // 2] if cut else body
        step = SENT_AT_ONCE if self.bytes_per_second else len(sent) or 1
        for at in range(0, len(sent), step):
            await response.write(sent[at : at + step])
            if self.bytes_per_second:
                await asyncio.sleep(step / self.bytes_per_second)
        if cut:
            request.transport.close()
        else:
            await response.write_eof()
        return response

    def zip_requests(self) -> list[str]:
        return [path.rsplit("/", 1)[1] for path in self.log.paths() if path.endswith(".zip")]


def sec_app(edgar: Edgar, page: DataSetsPage) -> web.Application:
    """EDGAR and the data-set page on one base URL, as `ras fetch --edgar-url` asks both; one request log."""
    page.log = edgar.log
    app = edgar.app()
    page.routes(app)
    return app


def _range_start(request: web.Request, etag: str, size: int) -> int:
    """Where a `Range: bytes=N-` asks the body to start (RFC 9110 §14.2); 0 for the whole body, or when If-Range
    names another ETag (§13.1.5: the file changed, so all of it)."""
    found = re.fullmatch(r"bytes=(\d+)-", request.headers.get("Range", ""))
    if found is None or request.headers.get("If-Range", etag) != etag:
        return 0
    start = int(found[1])
    if start >= size:
        raise web.HTTPRequestRangeNotSatisfiable(headers={"Content-Range": f"bytes */{size}"})
    return start


def _first_day(name: str) -> date:
    return data_set(name, name).first


def _path_of(name: str) -> str:
    return NEW_PATH if _first_day(name) >= NEW_PATH_FROM else OLD_PATH


def _text_of(name: str) -> str:
    """The link's text as the SEC writes it: "2019 Q2 13F" for a quarterly set, else its filing window."""
    found = re.fullmatch(r"(\d{4})q([1-4])_form13f\.zip", name)
    if found:
        return f"{found[1]} Q{found[2]} 13F"
    first, last = window(_first_day(name))
    return f"{first:%Y %B} – {last:%Y %B} 13F"


PAGE = """<!DOCTYPE html>
<html lang="en" dir="ltr">
<head><meta charset="utf-8"><title>Form 13F Data Sets | SEC.gov</title></head>
<body>
  <nav><a href="/">SEC.gov</a> <a href="/data-research">Data &amp; Research</a></nav>
  <main>
    <h1>Form 13F Data Sets</h1>
    <p>The Form 13F data sets provide the securities holdings information required of institutional investment
    managers pursuant to Section 13(f) of the Securities Exchange Act of 1934.</p>
    <table class="usa-table">
      <thead><tr><th>File</th><th>Format</th><th>Size</th></tr></thead>
      <tbody>
{rows}
      </tbody>
    </table>
    <p>Other data: {others}</p>
  </main>
</body>
</html>
"""
