"""EDGAR's URL layout and its submissions API: every 13F a manager filed, from the listing and its pages."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any, get_args

import orjson

from builder.fetch.client import Client, FetchError
from builder.records import FormType

DATA_HOST = "https://data.sec.gov"  # the submissions API (EDGAR developer resources, "data.sec.gov")
ARCHIVE_HOST = "https://www.sec.gov"  # /Archives/edgar/data/…: the filings themselves
HOLDINGS_FORMS: tuple[str, ...] = get_args(FormType)  # downloaded: the holdings reports and their amendments
NOTICE_FORMS = ("13F-NT", "13F-NT/A", "13F-CTR", "13F-CTR/A")  # listed in the summary, never downloaded


@dataclass(frozen=True, slots=True)
class Hosts:
    """Where submissions and archives are asked for: the SEC's two hosts, or one stand-in for both."""

    data: str = DATA_HOST
    archive: str = ARCHIVE_HOST

    @classmethod
    def one(cls, base: str) -> Hosts:
        base = base.rstrip("/")
        return cls(base, base)

    def submissions(self, name: str) -> str:
        return f"{self.data}/submissions/{name}"

    def submission_text(self, cik: str, accession: str) -> str:
        """The complete submission text file of a filing (header and every document)."""
        return f"{self.archive}/Archives/edgar/data/{int(cik)}/{accession.replace('-', '')}/{accession}.txt"


@dataclass(frozen=True, slots=True)
class Listed:
    """One 13F filing as the submissions API lists it."""

    accession: str
    form: str
    filed: date
    period: date | None  # reportDate: the quarter end the filing reports on

    @property
    def holdings(self) -> bool:
        return self.form in HOLDINGS_FORMS


async def list_13f(client: Client, hosts: Hosts, cik: str, since: date) -> tuple[Listed, ...]:
    """The manager's 13F filings reporting on `since` or later; older pages are asked for only when needed."""
    url = hosts.submissions(f"CIK{cik}.json")
    document = _json(await _get(client, url, cik), url)
    filings = document.get("filings", {}) if isinstance(document, dict) else {}
    found = list(listed_rows(filings.get("recent", {}), url))
    for page in filings.get("files", []):
        # a quarter's report is filed after the quarter ends, so a page that stops before `since` holds none
        if str(page.get("filingTo", "9999")) >= since.isoformat():
            page_url = hosts.submissions(str(page["name"]))
            found.extend(listed_rows(_json(await _get(client, page_url, cik), page_url), page_url))
    wanted = {row.accession: row for row in found if (row.period or row.filed) >= since}
    return tuple(sorted(wanted.values(), key=lambda row: (row.filed, row.accession)))


async def _get(client: Client, url: str, cik: str) -> bytes:
    reply = await client.get(url)
    if reply.status == 404:  # EDGAR answers an unknown CIK with an XML NoSuchKey error and 404
        raise FetchError(f"EDGAR has no submissions for CIK {cik} ({url}: 404); check the cik in packs.toml")
    if reply.status != 200:
        raise FetchError(f"{url}: HTTP {reply.status}")
    return reply.body


def _json(body: bytes, url: str) -> Any:
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise FetchError(f"{url}: the answer is not JSON ({exc})") from exc


def listed_rows(columns: dict[str, Any], url: str) -> Iterator[Listed]:
    """Rows of the API's parallel column arrays (`recent`, or an overflow page) that are 13F forms."""
    try:
        names = ("accessionNumber", "form", "filingDate", "reportDate")
        for accession, form, filed, period in zip(*(columns[name] for name in names), strict=True):
            if form in HOLDINGS_FORMS or form in NOTICE_FORMS:
                yield Listed(accession, form, date.fromisoformat(filed), date.fromisoformat(period) if period else None)
    except (KeyError, TypeError, ValueError) as exc:
        raise FetchError(f"{url}: not a submissions listing ({type(exc).__name__}: {exc})") from exc
