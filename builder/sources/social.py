"""ApeWisdom-shaped mention snapshots (bytes) → per-forum mention records.

A file holds one snapshot or an array of them: `{"ts": ISO 8601 time, "filters": {forum: [row, …]}}`,
each row as ApeWisdom's API serves it: rank, ticker, name (HTML entities), mentions, upvotes (may be
negative), rank_24h_ago (0 = not ranked 24 h ago), mentions_24h_ago. Numbers may come as digit
strings. A malformed row is kept with the bad optional field emptied, or excluded when rank, ticker
or mentions cannot be read; either way it is a `RowIssue` and counts among the rows read.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from builder.sources.congress.rows import RowIssue, RowOutcome

TICKER = re.compile(r"^[A-Z][A-Z0-9]{0,5}(?:[.\-][A-Z0-9]{1,3})?$")  # what ApeWisdom lists: SPY, BRK.B


@dataclass(frozen=True, slots=True)
class Mention:
    row: int  # 1-based row in the file, counted over every snapshot and forum
    rank: int
    ticker: str
    name: str  # entities unescaped ("S&amp;P" → "S&P")
    mentions: int
    upvotes: int | None
    rank_24h_ago: int | None  # None: not ranked 24 h ago (ApeWisdom sends 0)
    mentions_24h_ago: int | None


@dataclass(frozen=True, slots=True)
class Snapshot:
    taken: datetime  # UTC
    forum: str  # ApeWisdom filter name, e.g. "wallstreetbets"
    mentions: tuple[Mention, ...]  # by rank


@dataclass(frozen=True, slots=True)
class SocialFile:
    source: str
    rows: int  # rows read over every snapshot and forum, malformed ones included
    snapshots: tuple[Snapshot, ...]  # by time, then forum
    issues: tuple[RowIssue, ...]


class _Unusable(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def parse_social(data: bytes, source: str) -> SocialFile:
    """Every snapshot of one file; ValueError when it is not JSON or not snapshots."""
    document = json.loads(data)
    entries = document if isinstance(document, list) else [document]
    if not all(isinstance(entry, dict) and isinstance(entry.get("filters"), dict) for entry in entries):
        raise ValueError('expected a snapshot {"ts": …, "filters": {forum: [rows]}} or an array of them')
    snapshots: list[Snapshot] = []
    issues: list[RowIssue] = []
    rows = 0
    for entry in entries:
        taken = _time(entry.get("ts"))
        for forum, listed in sorted(entry["filters"].items()):
            listed = listed if isinstance(listed, list) else [listed]
            mentions, rows = _rows(listed, taken, source, rows, issues)
            if taken is not None:
                snapshots.append(Snapshot(taken, str(forum), tuple(sorted(mentions, key=lambda m: (m.rank, m.ticker)))))
    snapshots.sort(key=lambda snapshot: (snapshot.taken, snapshot.forum))
    return SocialFile(source, rows, tuple(snapshots), tuple(issues))


def _rows(
    listed: list[Any], taken: datetime | None, source: str, rows: int, issues: list[RowIssue]
) -> tuple[list[Mention], int]:
    mentions: list[Mention] = []
    seen: set[str] = set()
    for row in listed:
        rows += 1
        found: list[tuple[str, str]] = []
        try:
            if taken is None:
                raise _Unusable("snapshot-time-unreadable", "its snapshot has no readable ts (ISO 8601 time)")
            mention = _mention(row, rows, found)
            if mention.ticker in seen:
                raise _Unusable("duplicate-ticker", f"{mention.ticker} listed twice in one snapshot")
        except _Unusable as exc:
            issues.append(RowIssue(source, rows, exc.code, exc.message, RowOutcome.EXCLUDED))
            continue
        seen.add(mention.ticker)
        mentions.append(mention)
        issues.extend(RowIssue(source, rows, code, message, RowOutcome.KEPT) for code, message in found)
    return mentions, rows


def _mention(row: Any, index: int, found: list[tuple[str, str]]) -> Mention:
    if not isinstance(row, dict):
        raise _Unusable("row-not-object", f"expected an object, found {type(row).__name__}")
    ticker = str(row.get("ticker") or "").strip().upper().removeprefix("$")
    if not TICKER.match(ticker):
        raise _Unusable("ticker-unreadable", f"ticker {row.get('ticker')!r} is not a ticker symbol")
    rank = _required(row, "rank", minimum=1)
    rank_24h_ago = _optional(row, "rank_24h_ago", 0, found)
    return Mention(
        row=index,
        rank=rank,
        ticker=ticker,
        name=" ".join(html.unescape(str(row.get("name") or "")).split()),
        mentions=_required(row, "mentions", minimum=0),
        upvotes=_optional(row, "upvotes", None, found),
        rank_24h_ago=rank_24h_ago or None,
        mentions_24h_ago=_optional(row, "mentions_24h_ago", 0, found),
    )


def _integer(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return None


def _required(row: dict[str, Any], field: str, *, minimum: int) -> int:
    value = _integer(row.get(field))
    if value is None or value < minimum:
        raise _Unusable(f"{field}-unreadable", f"{field} {row.get(field)!r} is not an integer ≥ {minimum}")
    return value


def _optional(row: dict[str, Any], field: str, minimum: int | None, found: list[tuple[str, str]]) -> int | None:
    if row.get(field) is None:
        return None
    value = _integer(row[field])
    if value is None or (minimum is not None and value < minimum):
        found.append((f"{field}-unreadable", f"{field} {row[field]!r} is not a valid integer; kept as null"))
        return None
    return value


def _time(value: Any) -> datetime | None:
    try:
        taken = datetime.fromisoformat(str(value).strip())
    except ValueError:
        return None
    return taken.replace(tzinfo=UTC) if taken.tzinfo is None else taken.astimezone(UTC)
