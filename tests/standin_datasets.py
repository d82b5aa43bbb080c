"""A stand-in for the SEC's Form 13F data-set page and its zips, as `ras fetch --datasets` asks for them.

The page: no copy of the SEC's own page is stored here, so it is written from the facts in
../shared/realdata/sec-datasets/SOURCES.md and from how public code that reads the page quotes it in its tests
(OpenBB's `openbb_sec` tests and a `stock_sum` collector's: a table row per set, the link's text "2025 September
October November 13F" or "2023 Q4 13F", relative hrefs under `/files/structureddata/data/form-13f-data-sets/`).
Newest set first, as the SEC lists them; the newest on the newer path, given absolute as `https://www.sec.gov/…`
(the client must ask the stand-in for it all the same); a non-13F zip and page links that are not sets.

The zips: built from the real tables of the 01mar2025-31may2025 set (SUBMISSION.tsv cut to a few rows) and a
two-row INFOTABLE.tsv in the real column layout (the values are only for the layout). Each zip's bytes differ by
set and upload. `GET /files/<path>` serves a listed set at its own path; any other path is the SEC's 403
AccessDenied XML. Faults on demand, per set name, one per request: `truncated` (half the promised bytes, then the
connection drops), `html200` (the SEC's maintenance page with status 200).
"""

from __future__ import annotations

import functools
import io
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field

from aiohttp import web

from builder.fetch.datasets.page import PAGE_PATH
from tests.conftest import realdata
from tests.standin import RequestLog, cut_short, logging_middleware
from tests.standin_edgar import xml_error

OLD_PATH = "/files/structureddata/data/form-13f-data-sets"
NEW_PATH = "/files/datastandardsinnovation/data/form-13f-data-sets"  # from the 01jun2026-31aug2026 set on
REAL_SET = "sec-datasets/01mar2025-31may2025_form13f"
SUBMISSION_ROWS = 4  # the header and three real rows
ZIPPED_AT = (2026, 9, 15, 0, 0, 0)  # one time for every member: a set's bytes do not depend on when the test runs
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
    """A small zip shaped as a set: the real SUBMISSION rows and a tiny INFOTABLE, under the set's folder; the same
    bytes for the same name."""
    submission = realdata(REAL_SET, "SUBMISSION.tsv").read_bytes().split(b"\n")[:SUBMISSION_ROWS]
    folder = name.removesuffix(".zip").upper().replace("_FORM13F", "_form13f")
    members = {
        "SUBMISSION.tsv": b"\n".join(submission) + b"\n",
        "INFOTABLE.tsv": INFOTABLE.encode(),
        "FORM13F_readme.htm": f"<html><body>{name}</body></html>".encode(),
    }
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for member, data in members.items():
            info = zipfile.ZipInfo(f"{folder}/{member}", date_time=ZIPPED_AT)
            archive.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


@dataclass
class DataSetsPage:
    """What the stand-in serves and what it saw."""

    listed: list[tuple[str, str, str]] = field(default_factory=lambda: list(LISTED))
    page: str = "sets"  # "sets", "missing" (404) or "changed" (a page that links no set)
    faults: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    log: RequestLog = field(default_factory=RequestLog)

    def app(self) -> web.Application:
        app = web.Application(middlewares=[logging_middleware(self.log)])
        app.router.add_get(PAGE_PATH, self.page_answer)
        app.router.add_get("/files/{tail:.*}", self.file_answer)
        return app

    def reupload(self, name: str, number: int) -> str:
        """List a `_N` re-upload of the set `name` just above it, as the SEC does; its file name."""
        index = next(i for i, row in enumerate(self.listed) if row[0] == name)
        again = name.replace("_form13f.zip", f"_form13f_{number}.zip")
        self.listed.insert(index, (again, self.listed[index][1], f"{self.listed[index][2]} (re-uploaded)"))
        return again

    async def page_answer(self, request: web.Request) -> web.Response:
        if self.page == "missing":
            return web.Response(status=404, text="<html><body><h1>Page Not Found</h1></body></html>")
        rows = "" if self.page == "changed" else "\n".join(_row(*row) for row in self.listed)
        return web.Response(text=PAGE.format(rows=rows, others="\n".join(NOT_SETS)), content_type="text/html")

    async def file_answer(self, request: web.Request) -> web.StreamResponse:
        where = {f"{path}/{name}": name for name, path, _ in self.listed}
        name = where.get(request.path)
        if name is None:
            sample = realdata("edgar/archives/full-index_2099_QTR1_form.gz.403-body.xml")
            return xml_error(sample, 403, request.path)
        fault = self.faults[name].pop(0) if self.faults[name] else None
        body = set_zip(name)
        if fault == "truncated":
            return await cut_short(request, body, "application/zip")
        if fault == "html200":
            maintenance = realdata("edgar/archives/browse-edgar_getcurrent.503-maintenance-body.html").read_bytes()
            return web.Response(body=maintenance, content_type="text/html")
        return web.Response(body=body, content_type="application/zip")

    def zip_requests(self) -> list[str]:
        return [path.rsplit("/", 1)[1] for path in self.log.paths() if path.endswith(".zip")]


def _row(name: str, path: str, text: str) -> str:
    href = f"https://www.sec.gov{path}/{name}" if path == NEW_PATH else f"{path}/{name}"
    return f'      <tr>\n        <td><a href="{href}">{text}</a></td>\n        <td>ZIP</td>\n      </tr>'


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
      <thead><tr><th>File</th><th>Format</th></tr></thead>
      <tbody>
{rows}
      </tbody>
    </table>
    <p>Other data: {others}</p>
  </main>
</body>
</html>
"""
