"""The latest quarter's trades as an operator reads them before promoting: ranked by the shares traded, each value
change split into what the trade did and what the price did, and each manager's book value bridged the same way.

Only the change records say what was traded (`shareDelta`, against the previous book carried through corporate
actions): a change of market value is never taken for a trade. Pure: artifacts in, plain data out.
"""

from __future__ import annotations

import heapq
from collections import Counter

from builder.research.changes import CHANGE_KINDS, TRADED
from builder.research.changes.books import Moved, PositionChange, record
from builder.research.schema import PackArtifact
from builder.research.views import entries, manager_ids
from builder.research.windows.spans import moved_positions
from builder.review.shapes import Bridge, KindCount, Trade

PER_KIND = 5  # trades listed per kind: the quarter's story, short enough to read before promoting


def trades_and_bridges(previous: PackArtifact | None, latest: PackArtifact) -> tuple[list[Trade], list[Bridge]]:
    """The largest trades of the latest version per kind (new, added, reduced, exited), each ranked by the shares it
    traded valued at the later quarter's price (the earlier one for an exit): never by the change of market value.
    And per manager: book value before and after, and the change split into the trades' effect, the undecided
    changes' (not split: no record says what was traded) and the rest, the price effect on shares held through the
    quarter. One reading of the changes, kept compact (at 2,000 managers a quarter has half a million of them)."""
    if previous is None:
        return [], []
    moves = moved_positions(previous, latest, sorted(manager_ids(latest)), (latest,))
    by_kind: dict[str, list[tuple[int, Moved]]] = {kind: [] for kind in TRADED}
    trade: Counter[str] = Counter()
    undecided: Counter[str] = Counter()
    for moved in moves:
        manager_id, _, change, _, _, from_value, to_value = moved[0]
        if change in by_kind:
            effect = _effect(moved)
            by_kind[change].append((effect, moved))
            trade[manager_id] += effect
        elif change == "undecided":
            undecided[manager_id] += to_value - from_value
    ranked = []
    for trades in by_kind.values():  # ties in size by manager and ticker, each change once: as if sorting them all
        largest = heapq.nsmallest(PER_KIND, trades, key=lambda found: (-abs(found[0]), *found[1][0][:2]))
        ranked += [_trade(record(moved)) for _, moved in largest]
    before = {m["id"]: m["bookValue"] for m in previous["managers"]}
    bridges: list[Bridge] = []
    for manager in latest["managers"]:
        start, end, key = before.get(manager["id"], 0), manager["bookValue"], manager["id"]
        bridges.append(
            {
                "manager": key,
                "before": start,
                "after": end,
                "change": end - start,
                "tradeEffect": trade[key],
                "undecided": undecided[key],
                "priceEffect": end - start - trade[key] - undecided[key],
            }
        )
    return ranked, bridges


def kind_counts(latest: PackArtifact) -> list[KindCount]:
    """How many positions (and positions no longer held) of the latest version each change kind has, all managers."""
    counted: Counter[str] = Counter(
        entry["change"]["kind"] for manager in latest["managers"] for _, entry in entries(manager)
    )
    return [{"kind": kind, "count": counted.get(kind, 0)} for kind in CHANGE_KINDS]


def _effect(moved: Moved) -> int:
    """A compact change's trade effect, as `_trade` of its record says it, without making the record."""
    (_, _, _, from_shares, to_shares, from_value, to_value), detail, _ = moved
    delta, carried = (
        (detail["shareDelta"], detail["carriedShares"]) if detail else (to_shares - from_shares, from_shares)
    )
    return _trade_effect(delta or 0, from_shares, to_shares, carried, from_value, to_value)


def _trade_effect(
    delta: int, from_shares: int, to_shares: int, carried: int | None, from_value: int, to_value: int
) -> int:
    """Shares traded × price: the later quarter's price, or for an ended position (no later price) the earlier one,
    per share carried through corporate actions."""
    shares, value = (to_shares, to_value) if to_shares else (carried or from_shares, from_value)
    return round(delta * value / shares) if shares else 0


def _trade(change: PositionChange) -> Trade:
    """One trade: shares traded, and its value change split into trade effect (shares traded × price) and price
    effect (the rest: the price move on the shares carried into the quarter)."""
    delta = change["shareDelta"] or 0
    trade = _trade_effect(
        delta, change["fromShares"], change["toShares"], change["carriedShares"], change["fromValue"], change["toValue"]
    )
    return {
        "manager": change["managerId"],
        "ticker": change["ticker"],
        "mapped": change["mapped"],
        "kind": change["kind"],
        "shareDelta": delta,
        "fromShares": change["fromShares"],
        "toShares": change["toShares"],
        "fromValue": change["fromValue"],
        "toValue": change["toValue"],
        "tradeEffect": trade,
        "priceEffect": change["toValue"] - change["fromValue"] - trade,
    }
