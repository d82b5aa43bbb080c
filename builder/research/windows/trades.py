"""A window's trades: each selected manager's trades of every quarter inside a diff that spans more than one, as each
quarter's version states them, ranked by traded value; pure.

A diff between its two ends nets the trades between them away (a position bought and sold inside the window is no
change at all): these are the trades themselves, each with its quarter, shares, traded value and the filing rows
cited, beside the net change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

from builder.research.changes import is_trade
from builder.research.schema import SourceRow, Traded, TradeKind
from builder.research.windows.history import Step
from builder.typed import Count, Date

# One trade of one quarter: (ticker, kind, shares traded, traded value, cited rows as (accession, row) pairs)
QuarterTrade = tuple[str, Traded, int, int, tuple[tuple[str, int], ...]]


class WindowTrades(TypedDict):
    """One selected manager's trades of every quarter inside the window, largest traded value first, as columns: the
    i-th item of each list is its i-th trade."""

    managerId: str
    tradeCount: Count
    quarters: list[Date]  # the quarter end each trade is published at (its version's)
    tickers: list[str]  # named in the diff's names
    kinds: list[TradeKind]  # new, added, reduced or exited
    shareDeltas: list[int]  # shares bought (+) or sold (-), on the quarter's carried basis
    tradedValues: list[int]  # shares traded × the quarter's price (the quarter before's for an exit), signed
    sources: list[list[SourceRow]]  # the rows cited: the quarter's own, or for an exit the rows it ended


def quarter_trades(earlier: Step | None, step: Step) -> dict[str, list[QuarterTrade]]:
    """Each manager's trades in `step`'s version (the change into it as it states it), by manager; an exit is valued
    at the price of `earlier` (the version before) where that held the position, else at none."""
    found: dict[str, list[QuarterTrade]] = {}
    for ticker, entries in step.tickers.items():
        before = {entry[0]: entry for entry in earlier.tickers.get(ticker, ())} if earlier else {}
        for manager_id, shares, value, _, kind, _, delta, _, rows in entries:
            if not is_trade(kind) or delta is None:
                continue
            if shares:
                price_shares, price_value = shares, value
            else:
                was = before.get(manager_id)
                price_shares, price_value = (was[1], was[2]) if was else (0, 0)
            traded = round(delta * price_value / price_shares) if price_shares else 0
            found.setdefault(manager_id, []).append((ticker, kind, delta, traded, rows))
    return found


def window_trades(
    quarters: Sequence[tuple[str, dict[str, list[QuarterTrade]]]], managers: Sequence[str]
) -> list[WindowTrades]:
    """Each of `managers` (in that order) that traded inside the window: `quarters` are the window's versions after
    its earlier end, oldest first, each as its quarter end and `quarter_trades`. Ranked by the size of the traded
    value, then quarter and ticker."""
    found: list[WindowTrades] = []
    for manager_id in managers:
        listed = [(quarter, trade) for quarter, by_manager in quarters for trade in by_manager.get(manager_id, ())]
        if not listed:
            continue
        listed.sort(key=lambda item: (-abs(item[1][3]), item[0], item[1][0]))
        found.append(
            {
                "managerId": manager_id,
                "tradeCount": len(listed),
                "quarters": [quarter for quarter, _ in listed],
                "tickers": [trade[0] for _, trade in listed],
                "kinds": [trade[1] for _, trade in listed],
                "shareDeltas": [trade[2] for _, trade in listed],
                "tradedValues": [trade[3] for _, trade in listed],
                "sources": [[{"accession": a, "row": r} for a, r in trade[4]] for _, trade in listed],
            }
        )
    return found
