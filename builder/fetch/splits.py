"""Split records for corporate_actions.csv from Massive's splits (the service formerly called Polygon.io).

Why this source: splits are the one kind of corporate action a public service publishes as structured records with
no judgement to add (ticker, execution date, split_from → split_to). SEC EDGAR has no split feed; Massive's
`/stocks/v1/splits` is documented, covers US listings back decades, answers a whole window of dates in a few
pages (no request per ticker), and a free API key reaches it (5 requests a minute). It replaces `/v3/reference/splits`,
which Massive's documentation marks deprecated. Each page is kept byte for byte under corporate_actions/massive/ and
every row it writes cites its page: the record of origin. Mergers, spin-offs, exchanges and cash mergers need an
announcement read by a person: `ras review` lists them with a line to paste.

The endpoint's parameters and answer are those of Massive's OpenAPI document as its official Go client vendors it
(massive-com/client-go, rest/scripts/openapi.json, path /stocks/v1/splits) and its docs page
(massive.com/docs/rest/stocks/corporate-actions/splits): `execution_date.gt`/`.lte`, `limit` (at most 5000),
`sort` ("execution_date.asc"), an answer {"status": "OK", "request_id", "results": [{adjustment_type,
execution_date, historical_adjustment_factor, id, split_from, split_to, ticker}], "next_url"}.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any, TypedDict
from urllib.parse import urlencode, urlsplit

from builder.fetch.archive import write_atomically
from builder.fetch.client import Client, FetchError, Reply
from builder.records import Security

MASSIVE_URL = "https://api.massive.com"
SPLITS_PATH = "/stocks/v1/splits"
MASSIVE_RATE = 5 / 60  # requests a second: Massive's free plan allows 5 a minute
PAGE_SIZE = 5000  # the most results one page may hold (the endpoint's documented maximum)
MAX_PAGES = 40  # 200,000 splits: far beyond any window of US listings; more is a loop, not data
# The adjustment types that are splits: every share of the CUSIP becomes split_to/split_from shares of the same
# CUSIP, which is what a `split` row of corporate_actions.csv states. Massive's third type, stock_dividend ("shares
# issued as a dividend"), is left out: such a dividend may pay shares of another class (another CUSIP) and pays
# fractions in cash, and its record does not say which, so a `split` row would claim a basis the record does not
# state: like a merger, it is written by hand from the announcement. The summary counts what was left out.
SPLIT_TYPES = frozenset({"forward_split", "reverse_split"})
ORIGIN_DIR = Path("corporate_actions") / "massive"
RECORDS = "corporate_actions.csv"
HEADER = ("effective", "kind", "cusip", "new_cusip", "ratio", "cash_per_share", "source")


@dataclass(frozen=True, slots=True)
class Split:
    ticker: str
    executed: date
    split_from: Decimal
    split_to: Decimal
    page: str  # the kept page it came from, relative to the source root

    @property
    def ratio(self) -> str:
        """new:old as corporate_actions.csv writes it (split_to shares for every split_from)."""
        return f"{_plain(self.split_to)}:{_plain(self.split_from)}"


@dataclass(frozen=True, slots=True)
class Listing:
    """What Massive listed for a window: the splits, and how many entries of other adjustment types it left out."""

    splits: list[Split]
    left_out: int


async def list_splits(client: Client, base: str, api_key: str, after: date, through: date, root: Path) -> Listing:
    """Every split Massive lists executed in (after, through], each page kept under corporate_actions/massive/."""
    query = {
        "execution_date.gt": after.isoformat(),
        "execution_date.lte": through.isoformat(),
        "limit": PAGE_SIZE,
        "sort": "execution_date.asc",
    }
    url: str | None = f"{base}{SPLITS_PATH}?{urlencode(query)}"
    headers = {"Authorization": f"Bearer {api_key}"}  # never in a kept URL
    found: list[Split] = []
    left_out = 0
    for number in range(1, MAX_PAGES + 1):
        if url is None:
            return Listing(found, left_out)
        reply = await client.get(url, headers=headers)
        page = _page(reply, url)
        name = f"splits-{after}-{through}-{number:03d}.json"
        write_atomically(root / ORIGIN_DIR, name, reply.body)
        name = (ORIGIN_DIR / name).as_posix()
        entries = page.get("results") or []
        splits = [
            entry for entry in entries if not isinstance(entry, dict) or entry.get("adjustment_type") in SPLIT_TYPES
        ]
        found += [_split(entry, name) for entry in splits]
        left_out += len(entries) - len(splits)
        url = _next_url(page, base)
    raise FetchError(f"{SPLITS_PATH}: more than {MAX_PAGES} pages of splits; the listing does not end")


def _next_url(page: SplitsPage, base: str) -> str | None:
    """The next page on `base`: Massive's next_url names its own host, which a mirror or stand-in replaces (the
    official clients likewise follow only its path and query)."""
    following = page.get("next_url")
    if not following:
        return None
    parts = urlsplit(str(following))
    return f"{base}{parts.path}?{parts.query}" if parts.query else f"{base}{parts.path}"


class SplitsPage(TypedDict, total=False):
    """One page of Massive's splits listing, as far as it is read (each entry is checked by _split)."""

    status: str
    results: list[Any]
    next_url: str


def _page(reply: Reply, url: str) -> SplitsPage:
    if reply.status != 200:
        detail = reply.body[:200].decode("utf-8", "replace")
        raise FetchError(f"{url.split('?')[0]}: HTTP {reply.status} from Massive ({detail})")
    try:
        page: SplitsPage = json.loads(reply.body)
    except ValueError as exc:
        raise FetchError(f"{url.split('?')[0]}: the answer is not JSON") from exc
    status = _status(page)
    if status not in ("OK", "DELAYED"):
        raise FetchError(f"{url.split('?')[0]}: Massive answered status {status}")
    return page


def _status(page: object) -> object:
    """A page's status ("?" when the answer is not a JSON object)."""
    return page.get("status") if isinstance(page, dict) else "?"


def _split(entry: dict[str, Any], page: str) -> Split:
    try:
        return Split(
            str(entry["ticker"]),
            date.fromisoformat(entry["execution_date"]),
            Decimal(str(entry["split_from"])),
            Decimal(str(entry["split_to"])),
            page,
        )
    except (KeyError, TypeError, ValueError, ArithmeticError) as exc:
        raise FetchError(f"{page}: a split entry lacks a field or holds a bad one ({entry!r})") from exc


def split_rows(splits: Iterable[Split], securities: Mapping[str, Security], held: set[str]) -> list[list[str]]:
    """corporate_actions.csv rows for the splits of held securities: the ticker valid on the execution date names
    the CUSIPs (every class that had it). Pure."""
    by_ticker: dict[str, list[Security]] = {}
    for security in securities.values():
        for row in (security, *security.dated):
            by_ticker.setdefault(row.ticker, []).append(security)
    rows = []
    written: set[tuple[date, str]] = set()  # a CUSIP splits once a day: a second listing of it is not a second row
    for split in sorted(splits, key=lambda s: (s.executed, s.ticker)):
        if split.split_from <= 0 or split.split_to <= 0 or split.split_from == split.split_to:
            continue
        for security in by_ticker.get(split.ticker, ()):
            if security.cusip in held and security.at(split.executed)[0].ticker == split.ticker:
                if (split.executed, security.cusip) in written:
                    continue
                written.add((split.executed, security.cusip))
                source = f"Massive splits: {split.ticker} {split.ratio} executed {split.executed} ({split.page})"
                rows.append([split.executed.isoformat(), "split", security.cusip, "", split.ratio, "", source])
    return rows


def append_rows(root: Path, rows: list[list[str]]) -> int:
    """Append the rows whose split (date, CUSIP) corporate_actions.csv lacks, atomically; how many were new."""
    path = root / RECORDS
    text = path.read_text(encoding="utf-8-sig") if path.exists() else ""
    lines = list(csv.reader(io.StringIO(text, newline="")))
    header = [name.strip().lower() for name in lines[0]] if lines else list(HEADER)
    missing = [name for name in HEADER if name not in header]
    if missing:
        raise FetchError(f"{RECORDS}: its header lacks {', '.join(missing)}; fix it before `ras fetch` adds rows")
    at = {name: header.index(name) for name in HEADER}
    have = {
        (line[at["effective"]], line[at["kind"]], line[at["cusip"]].upper())
        for line in lines[1:]
        if len(line) > max(at.values())
    }
    new = [row for row in rows if (row[0], row[1], row[2]) not in have]
    if not new:
        return 0
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    if not lines:
        writer.writerow(header)
    for row in new:
        values = dict(zip(HEADER, row, strict=True))
        writer.writerow([values.get(name, "") for name in header])
    prefix = text if not text or text.endswith("\n") else text + "\n"
    write_atomically(root, RECORDS, (prefix + out.getvalue()).encode("utf-8"))
    return len(new)


def _plain(number: Decimal) -> str:
    text = format(number.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text
