"""compare_versions' compact answer: the largest trades first, the rest counted, and the calls that follow, which
depend on the versions the server holds (explain_position explains the latest version only); pure."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, TypedDict

from builder.api.answers import LISTED, Arguments, ViewBrief, call, view_arguments
from builder.research.agent import NextCall, is_trade, traded_value
from builder.research.diff import PositionChange, VersionDiff
from builder.research.methods.policy import PolicyChange
from builder.research.versions import PACK_ID
from builder.typed import UNPROMISED, Count, Date, picked


class TickerMoves(TypedDict):
    enteredCount: Count
    entered: list[str]
    leftCount: Count
    left: list[str]
    unchanged: Count


class TradeBrief(TypedDict):
    managerId: str
    ticker: str
    kind: str
    shareDelta: int | None  # a trade's is never None
    tradedValue: int


class NotTrade(TypedDict):
    managerId: str
    ticker: str
    kind: str


# `from` is a keyword: the functional form. compare_versions' compact answer: the largest trades first, the rest
# counted; the view as its mode and manager count.
DiffAnswer = TypedDict(
    "DiffAnswer",
    {
        "from": str,
        "to": str,
        "fromQuarter": Date,
        "toQuarter": Date,
        "view": Annotated[ViewBrief, UNPROMISED],
        "tickers": TickerMoves,
        "tradeCount": Count,
        "largestTrades": list[TradeBrief],
        "notTradeCount": Count,
        "notTrades": list[NotTrade],
        "amendments": list[str],
        "policyChanges": list[PolicyChange],
        "nextCalls": list[NextCall],
    },
)


def _largest_trades(positions: Iterable[PositionChange]) -> list[TradeBrief]:
    trades: list[TradeBrief] = [
        {
            "managerId": p["managerId"],
            "ticker": p["ticker"],
            "kind": p["kind"],
            "shareDelta": p["shareDelta"],
            "tradedValue": traded_value(p),
        }
        for p in positions
        if is_trade(p["kind"])
    ]
    return sorted(trades, key=lambda t: (-abs(t["tradedValue"]), t["ticker"], t["managerId"]))


def diff(data: VersionDiff, arguments: Arguments, versions: Sequence[str] = ()) -> DiffAnswer:
    """`versions`: the served 13f-copycat version ids, oldest first (which tickers the next calls may explain)."""
    trades = _largest_trades(data["positions"])
    others = [p for p in data["positions"] if not is_trade(p["kind"])]
    tickers = data["tickers"]
    pack = arguments.get("packId", PACK_ID)
    return {
        "from": data["from"],
        "to": data["to"],
        "fromQuarter": data["fromQuarter"],
        "toQuarter": data["toQuarter"],
        "view": {"mode": data["view"]["mode"], "managerCount": len(data["view"]["managers"])},
        "tickers": {
            "enteredCount": len(tickers["entered"]),
            "entered": tickers["entered"][:LISTED],
            "leftCount": len(tickers["left"]),
            "left": tickers["left"][:LISTED],
            "unchanged": tickers["unchanged"],
        },
        "tradeCount": len(trades),
        "largestTrades": trades[:LISTED],
        "notTrades": [picked(NotTrade, p) for p in others[:LISTED]],
        "notTradeCount": len(others),
        "amendments": sorted({a for s in data["sources"] for a in s["amendments"]})[:LISTED],
        "policyChanges": data["policy"][:LISTED],
        "nextCalls": _diff_calls(data, pack, view_arguments(arguments), trades, versions),
    }


def _diff_calls(
    data: VersionDiff, pack: str, view: Arguments, trades: list[TradeBrief], versions: Sequence[str]
) -> list[NextCall]:
    """explain_position of the largest trades when they are explainable (it explains the latest version: a ticker
    in its view, or one that left it since the version before); else the diff from `to` up to the latest."""
    if not versions or data["to"] != versions[-1]:
        since = {"packId": pack, "from": data["to"], "to": versions[-1], **view} if versions else None
        return [call("compare_versions", since, "what changed since, up to the latest version")] if since else []
    left = set() if data["from"] == versions[-2] else set(data["tickers"]["left"])
    explained = list(dict.fromkeys(t["ticker"] for t in trades if t["ticker"] not in left))[:2]
    return [
        call("explain_position", {"packId": pack, "ticker": t, **view}, f"who traded {t}, with the filing rows")
        for t in explained
    ]
