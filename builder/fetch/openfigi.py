"""CUSIPs → tickers with the OpenFIGI v3 mapping API: batched, paced by its rate-limit headers, 429 honoured."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from builder.fetch.client import Client, FetchError

OPENFIGI_URL = "https://api.openfigi.com"
# OpenFIGI v3 limits (openfigi.com/api, "Rate Limit"): without a key 25 requests a minute of at most 10
# jobs; with a key (header X-OPENFIGI-APIKEY) 25 requests per 6 seconds of at most 100 jobs.
JOBS_PER_REQUEST = {False: 10, True: 100}
SECONDS_PER_REQUEST = {False: 60 / 25, True: 6 / 25}  # the pace when an answer carries no ratelimit-* headers
US_COMPOSITE = "US"  # exchCode of the US composite listing, which groups every US venue of a security


@dataclass(frozen=True, slots=True)
class Resolved:
    cusip: str
    ticker: str
    name: str
    figi: str  # the share-class FIGI: one per share class, kept across CUSIP and ticker changes


@dataclass(frozen=True, slots=True)
class Unresolved:
    cusip: str
    reason: str  # OpenFIGI's warning or error, or why no listing was chosen


async def resolve_cusips(
    client: Client, base: str, cusips: Sequence[str], api_key: str | None
) -> list[Resolved | Unresolved]:
    """One answer per CUSIP, in order; requests of at most the key's job limit, paced to its rate."""
    keyed = bool(api_key)
    size = JOBS_PER_REQUEST[keyed]
    headers = {"X-OPENFIGI-APIKEY": api_key} if api_key else {}
    answers: list[Resolved | Unresolved] = []
    for start in range(0, len(cusips), size):
        batch = cusips[start : start + size]
        jobs = [{"idType": "ID_CUSIP", "idValue": cusip} for cusip in batch]
        reply = await client.post_json(f"{base.rstrip('/')}/v3/mapping", orjson.dumps(jobs), headers)
        if reply.status != 200:
            raise FetchError(f"OpenFIGI answered HTTP {reply.status} to {len(batch)} CUSIPs: {reply.body[:200]!r}")
        client.pacer.hold(pause_after(reply.headers, keyed))
        answers += [
            _answer(cusip, result) for cusip, result in zip(batch, _results(reply.body, len(batch)), strict=True)
        ]
    return answers


def pause_after(headers: Mapping[str, str], keyed: bool) -> float:
    """Seconds to wait before the next request: until the window resets once it is spent."""
    lower = {name.lower(): value for name, value in headers.items()}
    remaining, reset = lower.get("ratelimit-remaining"), lower.get("ratelimit-reset")
    if remaining is None or reset is None or not remaining.isdigit() or not reset.isdigit():
        return SECONDS_PER_REQUEST[keyed]
    return float(reset) if int(remaining) == 0 else 0.0


def _results(body: bytes, count: int) -> list[Any]:
    try:
        results = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise FetchError(f"OpenFIGI answered with something that is not JSON ({exc})") from exc
    if not isinstance(results, list) or len(results) != count:
        raise FetchError(f"OpenFIGI answered {count} jobs with {type(results).__name__} of another length")
    return results


def _answer(cusip: str, result: object) -> Resolved | Unresolved:
    if not isinstance(result, dict):
        return Unresolved(cusip, "an answer that is not an object")
    if "data" not in result:  # a miss is {"warning": "No identifier found."}; a bad value {"error": …}
        return Unresolved(cusip, str(result.get("warning") or result.get("error") or "no data"))
    return choose_listing(cusip, result["data"])


def choose_listing(cusip: str, listings: Sequence[dict[str, Any]]) -> Resolved | Unresolved:
    """The US composite listing of the security (an unfiltered CUSIP lists every exchange); pure."""
    us = [item for item in listings if isinstance(item, dict) and item.get("exchCode") == US_COMPOSITE]
    us = [item for item in us if item.get("marketSector") == "Equity"] or us  # a 13F row is an equity first
    composite = [item for item in us if item.get("figi") and item.get("figi") == item.get("compositeFIGI")]
    chosen = next(iter(composite or us), None)
    if chosen is None or not chosen.get("ticker"):
        return Unresolved(cusip, f"no US listing among {len(listings)} listings")
    figi = chosen.get("shareClassFIGI") or chosen.get("compositeFIGI") or chosen.get("figi") or ""
    return Resolved(cusip, str(chosen["ticker"]), str(chosen.get("name") or ""), str(figi))
