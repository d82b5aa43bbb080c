"""compare_versions' compact answer: the largest trades first, the rest counted, a window's largest trades of each
kind for its largest traders, and the calls that follow, which depend on the versions the server holds; pure."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, TypedDict

from builder.api.answers import LISTED, Arguments, ViewBrief, call
from builder.research.agent import NextCall, Trade, in_turn, trades_by_manager
from builder.research.changes import is_trade
from builder.research.diff import PositionChange, SecurityName, VersionDiff, position_changes
from builder.research.methods.ethos import TickerName
from builder.research.methods.policy import PolicyChange
from builder.research.quarters import clock
from builder.research.schema import SourceRow, TickerAsOf, TradeKind
from builder.research.versions import PACK_ID
from builder.research.views import ViewArguments
from builder.research.windows.trades import WindowTrades
from builder.typed import KEY, UNPROMISED, Count, Date, picked

EACH = 3  # a listed manager's trades at the least
WINDOW_MANAGERS = 2  # managers whose window trades are listed: the largest traders inside the window
WINDOW_EACH = 5  # of each kind of trade of each of them, the largest
WINDOW_ROWS = 1  # filing rows cited per trade listed (rowCount counts them; the REST answer has every one)


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


class WindowTrade(TypedDict):
    """A trade inside the window: its quarter, ticker and name, shares, traded value, the rows it cites."""

    quarter: Date
    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf
    shareDelta: int
    tradedValue: int
    rowCount: Count
    rows: list[SourceRow]


class WindowBrief(TypedDict):
    """One manager's trades inside the window: how many of each kind, and the largest of each (by traded value)."""

    managerId: Annotated[str, KEY]
    tradeCount: Count
    counts: dict[TradeKind, Count]
    largest: dict[TradeKind, list[WindowTrade]]


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
        "clock": str,
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
        "windowManagerCount": Count,
        "windowTrades": list[WindowBrief],
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
    window = [_window(manager, data["names"]) for manager in _window_traders(data["windowTrades"])]
    listed = [*tickers["entered"][:LISTED], *tickers["left"][:LISTED]]
    pack = arguments.get("packId", PACK_ID)
    return {
        "from": data["from"],
        "to": data["to"],
        "fromQuarter": data["fromQuarter"],
        "toQuarter": data["toQuarter"],
        "clock": clock(data["toQuarter"]),
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
        "windowManagerCount": len(data["windowTrades"]),
        "windowTrades": window,
        "nextCalls": _diff_calls(data, pack, picked(ViewArguments, arguments), trades, versions),
    }


def _window_traders(managers: Sequence[WindowTrades]) -> list[WindowTrades]:
    """The managers with the largest trade inside the window first, the first WINDOW_MANAGERS of them."""
    return sorted(managers, key=lambda m: (-abs(m["tradedValues"][0]), m["managerId"]))[:WINDOW_MANAGERS]


def _window(manager: WindowTrades, names: Mapping[str, SecurityName]) -> WindowBrief:
    """A manager's window trades counted by kind, with the largest WINDOW_EACH of each (they come ranked), each named
    as the diff names its ticker."""
    counts: dict[TradeKind, Count] = {}
    largest: dict[TradeKind, list[WindowTrade]] = {}
    for index, kind in enumerate(manager["kinds"]):
        counts[kind] = counts.get(kind, 0) + 1
        if counts[kind] <= WINDOW_EACH:
            rows = manager["sources"][index]
            ticker = manager["tickers"][index]
            trade: WindowTrade = {
                "quarter": manager["quarters"][index],
                "ticker": ticker,
                "issuer": names[ticker]["issuer"],
                "tickerAsOf": names[ticker]["tickerAsOf"],
                "shareDelta": manager["shareDeltas"][index],
                "tradedValue": manager["tradedValues"][index],
                "rowCount": len(rows),
                "rows": rows[:WINDOW_ROWS],
            }
            largest.setdefault(kind, []).append(trade)
    return {
        "managerId": manager["managerId"],
        "tradeCount": manager["tradeCount"],
        "counts": counts,
        "largest": largest,
    }


def _diff_calls(
    data: VersionDiff, pack: str, view: ViewArguments, trades: list[ManagerTrades], versions: Sequence[str]
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
