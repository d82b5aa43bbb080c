"""A second reading of congressional disclosure rows, written apart from builder.sources.congress for the tests.

Plain json, its own word lists and its own identity and copy keys, from the rules as docs/methods.md states
them: it shares no code with the product, so a published claim the two readings disagree on is a finding.
"""

from __future__ import annotations

import html
import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

HONORIFICS = {"hon", "honorable", "mr", "mrs", "ms", "dr", "sen", "senator", "rep", "none", "the"}
SUFFIXES = {"jr", "sr", "ii", "iii", "iv", "md", "facs", "phd", "esq"}
BONDISH = {"note", "notes", "bond", "bonds", "bds", "debenture", "debentures", "mtn", "cusip", "coupon", "maturity"}
FUNDISH = {"etf", "fund", "ishares", "spdr"}
OPTIONISH = {"option", "options", "opt", "opts", "strike", "exp", "expiry", "expires", "expiration"}
MONTHS = {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}


@dataclass(frozen=True)
class Row:
    source: str
    row: int
    chamber: str
    person: tuple[str, ...]  # chamber, state, first name, last name
    ticker: str | None
    direction: str  # purchase, sale, exchange, "" when unreadable
    traded: date | None
    disclosed: date | None
    low: int | None
    instrument: str  # stock, option, bond, crypto, other
    report: str


def rows_of(path: Path, source: str) -> list[Row]:
    """Every row of one stock-watcher file, daily reports flattened (their transactions numbered across them)."""
    document = json.loads(path.read_bytes())
    flat: list[dict] = []
    for entry in document:
        if isinstance(entry, dict) and isinstance(entry.get("transactions"), list):
            name = f"{entry.get('first_name') or ''} {entry.get('last_name') or ''}"
            for item in entry["transactions"]:
                flat.append({**item, "senator": name, "disclosure_date": entry.get("date_recieved")})
        else:
            flat.append(entry)
    return [_row(item, source, number) for number, item in enumerate(flat, 1)]


def _row(item: dict, source: str, number: int) -> Row:
    house = "representative" in item
    chamber = "house" if house else "senate"
    name = str(item.get("representative") if house else item.get("senator") or "")
    state = str(item.get("district") or "")[:2].upper() if house else ""
    ticker = _ticker(item.get("ticker"))
    words = re.findall(r"[a-z0-9]+", _plain(item.get("asset_description")).lower())
    description = _plain(item.get("asset_description"))
    kind = str(item.get("type") or "").lower()
    direction = "purchase" if "purchase" in kind else "sale" if "sale" in kind else "exchange" if kind else ""
    link = str(item.get("ptr_link") or item.get("source_url") or "").rstrip("/")
    return Row(
        source,
        number,
        chamber,
        (chamber, state, *_name(name)),
        ticker,
        direction,
        _day(item.get("transaction_date")),
        _day(item.get("disclosure_date")),
        _low(item.get("amount")),
        _instrument(words, description, str(item.get("asset_type") or "").lower(), ticker),
        link.rsplit("/", 1)[-1].split(".")[0].lower(),
    )


def _plain(value: object) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", str(value or ""))).split())


def _ticker(value: object) -> str | None:
    text = str(value or "")
    links = re.findall(r">([^<]*)</a>", text)
    if len(links) > 1:
        return None
    symbol = (links[0] if links else text).strip().upper().lstrip("$")
    if symbol in {"", "--", "N/A", "NA", "NONE"} or not re.fullmatch(
        r"[A-Z][A-Z0-9]{0,5}([.\-/][A-Z0-9]{1,3})?", symbol
    ):
        return None
    share = re.fullmatch(r"([A-Z][A-Z0-9]*)[.\-/]([A-Z])", symbol)
    return f"{share.group(1)}.{share.group(2)}" if share else symbol


def _name(name: str) -> tuple[str, str]:
    text = re.sub(r"\([^)]*\)", " ", name)
    text = re.sub(r",?\s*\b(?:" + "|".join(SUFFIXES) + r")\b\.?,?", " ", text, flags=re.I)
    if "," in text:
        surname, _, given = text.partition(",")
        text = f"{given} {surname}"
    words = [w for w in re.findall(r"[a-z]+", text.lower().replace("'", "")) if w not in HONORIFICS]
    given_names = [w for w in words[:-1] if len(w) > 1] or words[:-1]
    return (given_names[0] if given_names else "", words[-1] if words else "")


def _day(value: object) -> date | None:
    text = str(value or "").strip()[:10]
    for pattern in ("%m/%d/%Y", "%Y-%m-%d"):
        try:
            found = datetime.strptime(text, pattern).date()
        except ValueError:
            continue
        return found if 1990 <= found.year < 2100 else None
    return None


def _low(value: object) -> int | None:
    found = re.search(r"\d[\d,]*", str(value or ""))
    return int(found.group().replace(",", "")) if found else None


def _instrument(words: list[str], description: str, asset_type: str, ticker: str | None) -> str:
    said = set(words)
    if said & {"exercised", "excercised", "exercise"} and said & {"call", "calls", "put", "puts"}:
        return "stock"
    coupon = re.search(r"\d\s*%", description) and not said & {"preferred", "pfd"}
    cusip = re.search(r"\b\d{3}[0-9a-z]{5}\d\b", description, re.I) and not re.search(r"\b\d{9}\b", description)
    if (said & BONDISH or coupon or cusip or ("treasury" in said and said & {"us", "united"})) and not said & FUNDISH:
        return "bond"
    dated = (
        re.search(r"\d/\d", description)
        or said & MONTHS
        or re.search(r"(call|put)s?\s+\$?\d|\$\d|@|\bat\s+\d", description, re.I)
    )
    if said & {"call", "calls", "put", "puts"} and (said & OPTIONISH or dated):
        return "option"
    if "option" in asset_type:
        return "option"
    if any(word in asset_type for word in ("bond", "municipal", "treasury", "government")):
        return "bond"
    if (ticker and ticker.endswith("-USD")) or "crypto" in asset_type:
        return "crypto"
    return "stock" if ticker else "other"


def distinct(files: list[list[Row]]) -> list[Row]:
    """Each trade once: a later file's rows matching an earlier file's on the copy key, up to its count, dropped."""
    held: Counter[tuple] = Counter()
    kept: list[Row] = []
    for rows in files:
        mine: Counter[tuple] = Counter()
        for row in rows:
            key = (row.person, row.report, row.traded, row.ticker, row.direction, row.low)
            mine[key] += 1
            if mine[key] > held[key]:
                kept.append(row)
        for key, count in mine.items():
            held[key] = max(held[key], count)
    return kept


def cluster_tickers(rows: list[Row], day: date, window: int, members: int, low: int) -> set[str]:
    """Tickers that `members` persons bought (stock, at least `low`) with disclosures in the window ending `day`."""
    start = day - timedelta(days=window - 1)
    buyers: dict[str, set[tuple]] = defaultdict(set)
    for row in rows:
        if (
            row.direction == "purchase"
            and row.instrument == "stock"
            and row.ticker
            and row.low is not None
            and row.low >= low
            and row.disclosed
            and start <= row.disclosed <= day
        ):
            buyers[row.ticker].add(row.person)
    return {ticker for ticker, who in buyers.items() if len(who) >= members}
