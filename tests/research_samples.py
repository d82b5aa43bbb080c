"""Hand-made 13f-copycat artifacts for the research tests: a few managers, a few tickers, numbers you can check."""

from __future__ import annotations

import zlib
from datetime import date

from builder.research.quarters import filing_deadline, previous_quarter

QUARTER = "2024-06-30"
CUSIPS = {"AAPL": "037833100", "KO": "191216100", "MSFT": "594918104", "NVDA": "67066G104", "XOM": "30231G102"}
MANAGER_IDS = ("alpha", "beta", "gamma")

# alpha added AAPL, kept MSFT, opened KO and sold all of XOM; beta cut AAPL, opened NVDA and sold all of MSFT;
# gamma's previous quarter is not in the sources, so its changes are unknown.
BOOKS: dict[str, tuple[dict[str, tuple[int, int]], dict[str, int] | None]] = {
    "alpha": ({"AAPL": (120, 60_000), "MSFT": (50, 20_000), "KO": (100, 20_000)}, {"AAPL": 100, "MSFT": 50, "XOM": 40}),
    "beta": ({"AAPL": (50, 25_000), "NVDA": (200, 75_000)}, {"AAPL": 100, "MSFT": 20}),
    "gamma": ({"AAPL": (10, 5_000), "MSFT": (30, 15_000)}, None),
}


def cik(manager_id: str) -> str:
    """A stable ten-digit CIK per manager id."""
    return f"{zlib.crc32(manager_id.encode()):010d}"


def accession(manager_id: str, quarter: str) -> str:
    """An EDGAR-shaped accession number, unique per manager and quarter."""
    return f"{cik(manager_id)}-{quarter[2:4]}-{int(quarter[5:7]):06d}"


def cusip(ticker: str) -> str:
    """A nine-character key that is itself a CUSIP is an unmapped security."""
    return ticker if len(ticker) == 9 else CUSIPS.get(ticker, (ticker + "XXXXXX")[:6] + "101")


def change(kind: str, previous: int | None, delta: int | None, cause: str) -> dict:
    """A change record with no corporate action between the quarters: carried = previous."""
    return {
        "kind": kind,
        "previousShares": previous,
        "carriedShares": previous,
        "shareDelta": delta,
        "cause": cause,
        "corporateActions": [],
        "candidates": [],
    }


def _change(before: dict[str, int] | None, ticker: str, shares: int) -> dict:
    if before is None:
        return change("unknown", None, None, "unknown")
    prior = before.get(ticker)
    if prior is None:
        return change("new", 0, shares, "trade")
    kind = "added" if shares > prior else "reduced" if shares < prior else "unchanged"
    return change(kind, prior, shares - prior, "trade" if shares != prior else "none")


def _security(ticker: str) -> dict:
    mapped = len(ticker) != 9
    return {
        "ticker": ticker,
        "mapped": mapped,
        "tickerAsOf": "current" if mapped else "unmapped",
        "cusip": cusip(ticker),
        "issuer": f"{ticker} INC",
    }


def _filing(manager_id: str, quarter: str, rows: int, value: int) -> dict:
    return {
        "accession": accession(manager_id, quarter),
        "url": None,  # the hand-made samples are fictional
        "formType": "13F-HR",
        "amendment": "original",
        "amendmentNo": 0,
        "filed": filing_deadline(date.fromisoformat(quarter)).isoformat(),
        "filedFrom": "submission header",
        "source": f"sec13f/{cik(manager_id)}/{accession(manager_id, quarter)}.txt",
        "unit": "dollars",
        "unitRule": "filed-on-or-after-2023-01-03",
        "rows": rows,
        "tableEntryTotal": rows,
        "tableValueTotal": value,
    }


def manager(manager_id: str, holdings: dict[str, tuple[int, int]], before: dict[str, int] | None, quarter: str) -> dict:
    """One manager's entry: positions (row n = n-th ticker A–Z), ended positions (all sold) citing last quarter's filing."""
    book = sum(value for _, value in holdings.values())
    prior = accession(manager_id, previous_quarter(date.fromisoformat(quarter)).isoformat())
    own = accession(manager_id, quarter)
    positions = [
        {
            **_security(t),
            "shares": s,
            "value": v,
            "sources": [{"accession": own, "row": n}],
            "weight": round(v / book, 6) if book else 0.0,
            "change": _change(before, t, s),
        }
        for n, (t, (s, v)) in enumerate(sorted(holdings.items()), start=1)
    ]
    gone = sorted(set(before or {}) - set(holdings))
    ended = [
        {
            **_security(t),
            "change": change("exited", before[t], -before[t], "trade"),
            "sources": [{"accession": prior, "row": n}],
        }
        for n, t in enumerate(gone, start=1)
    ]
    return {
        "id": manager_id,
        "name": f"{manager_id.title()} Capital",
        "cik": cik(manager_id),
        "fictional": True,
        "previousQuarterFiled": before is not None,
        "bookValue": book,
        "filings": [_filing(manager_id, quarter, len(holdings), book)],
        "positions": positions,
        "ended": ended,
        "otherHoldings": [],
    }


def make_artifact(
    books: dict[str, tuple[dict[str, tuple[int, int]], dict[str, int] | None]] | None = None,
    *,
    quarter: str = QUARTER,
    fixture: bool = False,
    warnings: list[dict] | None = None,
) -> dict:
    """A PackArtifact shaped exactly as builder.research.artifact builds it."""
    books = BOOKS if books is None else books
    end = date.fromisoformat(quarter)
    return {
        "schema": "pack-artifact/2.0",
        "packId": "13f-copycat",
        "versionId": f"multi-manager-{quarter}-v2.0",
        "quarter": quarter,
        "previousQuarter": previous_quarter(end).isoformat(),
        "filingDeadline": filing_deadline(end).isoformat(),
        "fixture": fixture,
        "managers": [manager(m, held, before, quarter) for m, (held, before) in books.items()],
        "corporateActions": [],
        "warnings": warnings if warnings is not None else [],
    }
