"""compare_versions' compact answer: the largest trades first, the rest counted, and the calls that follow, which
depend on the versions the server holds (explain_position explains the latest version only); pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, TypedDict

from builder.api.answers import LISTED, Arguments, ViewBrief, call, view_arguments
from builder.research.agent import NextCall, Trade, in_turn, is_trade, trades_by_manager
from builder.research.diff import PositionChange, VersionDiff, position_changes
from builder.research.methods.ethos import TickerName
from builder.research.methods.policy import PolicyChange
from builder.research.schema import TickerAsOf
from builder.research.versions import PACK_ID
from builder.typed import UNPROMISED, Count, Date, picked

EACH = 3  # a listed manager's trades at the least


class TickerMoves(TypedDict):
    enteredCount: Count
    entered: list[str]
    leftCount: Count
    left: list[str]
    unchanged: Count


class ManagerTrades(TypedDict):
    """One manager's largest trades, by traded value, and how many it made: each manager ranked on its own."""

    managerId: str
    tradeCount: Count
    trades: list[Trade]


class NotTrade(TypedDict):
    managerId: str
    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf
    kind: str


# `from` is a keyword: the functional form. compare_versions' compact answer: each trading manager's own largest trades
# (by traded value, the manager with the largest first: a small manager is never hidden by a large one), the rest
# counted; the view as its mode and manager count; each entered and left ticker it lists named once, as compare_ethos
# names its tickers.
DiffAnswer = TypedDict(
    "DiffAnswer",
    {
        "from": str,
        "to": str,
        "fromQuarter": Date,
        "toQuarter": Date,
        "view": Annotated[ViewBrief, UNPROMISED],
        "tickers": TickerMoves,
        "names": dict[str, TickerName],
        "tradeCount": Count,
        "tradingManagerCount": Count,
        "tradesByManager": list[ManagerTrades],
        "notTradeCount": Count,
        "notTrades": list[NotTrade],
        "amendments": list[str],
        "policyChanges": list[PolicyChange],
        "nextCalls": list[NextCall],
    },
)


def _by_manager(positions: Sequence[PositionChange]) -> list[ManagerTrades]:
    """Each trading manager's largest trades: the managers with the largest trade first (at most LISTED of them),
    each with as many of its own trades as LISTED shares out among them, never fewer than EACH."""
    found = trades_by_manager(positions)
    ranked = sorted(found, key=lambda m: (-abs(found[m][0]["tradedValue"]), m))[:LISTED]
    each = max(EACH, LISTED // len(ranked)) if ranked else EACH
    return [{"managerId": m, "tradeCount": len(found[m]), "trades": found[m][:each]} for m in ranked]


def diff(data: VersionDiff, arguments: Arguments, versions: Sequence[str] = ()) -> DiffAnswer:
    """`versions`: the served 13f-copycat version ids, oldest first (which tickers the next calls may explain)."""
    changes = position_changes(data)
    trades = _by_manager(changes)
    others = [p for p in changes if not is_trade(p["kind"])]
    tickers = data["tickers"]
    listed = [*tickers["entered"][:LISTED], *tickers["left"][:LISTED]]
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
        "names": {ticker: picked(TickerName, data["names"][ticker]) for ticker in listed},
        "tradeCount": sum(1 for p in changes if is_trade(p["kind"])),
        "tradingManagerCount": len({p["managerId"] for p in changes if is_trade(p["kind"])}),
        "tradesByManager": trades,
        "notTrades": [picked(NotTrade, p) for p in others[:LISTED]],
        "notTradeCount": len(others),
        "amendments": sorted({a for m in data["managers"] for a in m["amendments"]})[:LISTED],
        "policyChanges": data["policy"][:LISTED],
        "nextCalls": _diff_calls(data, pack, view_arguments(arguments), trades, versions),
    }


def _diff_calls(
    data: VersionDiff, pack: str, view: Arguments, trades: list[ManagerTrades], versions: Sequence[str]
) -> list[NextCall]:
    """explain_position of the first listed managers' largest trades when they are explainable (it explains the
    latest version: a ticker in its view, or one that left it since the version before); else the diff from `to` up
    to the latest."""
    if not versions or data["to"] != versions[-1]:
        since = {"packId": pack, "from": data["to"], "to": versions[-1], **view} if versions else None
        return [call("compare_versions", since, "what changed since, up to the latest version")] if since else []
    left = set() if data["from"] == versions[-2] else set(data["tickers"]["left"])
    explainable = [[t["ticker"] for t in m["trades"] if t["ticker"] not in left] for m in trades]
    explained = list(dict.fromkeys(in_turn(explainable)))[:2]
    return [
        call("explain_position", {"packId": pack, "ticker": t, **view}, f"who traded {t}, with the filing rows")
        for t in explained
    ]
