"""The latest quarter's trades as an operator reads them before promoting: ranked by the shares traded, each value
change split into what the trade did and what the price did, and each manager's book value bridged the same way.

Only the change records say what was traded (`shareDelta`, against the previous book carried through corporate
actions): a change of market value is never taken for a trade. Pure: artifacts in, plain data out.
"""

from __future__ import annotations

from collections import Counter

from builder.research.changes import CHANGE_KINDS
from builder.research.changes.books import PositionChange, moved_positions, record
from builder.research.schema import PackArtifact
from builder.research.views import entries, manager_ids

TRADES = ("new", "added", "reduced", "exited")  # the kinds that are bought or sold, in the order they are read
PER_KIND = 5  # trades listed per kind: the quarter's story, short enough to read before promoting


def ranked_trades(previous: PackArtifact | None, latest: PackArtifact) -> list[dict]:
    """The largest trades of the latest version per kind (new, added, reduced, exited), each ranked by the shares
    it traded valued at the later quarter's price (the earlier one for an exit): never by the change of market value."""
    moves = _moves(previous, latest)
    ranked = []
    for kind in TRADES:
        found = [_trade(change) for change in moves if change["kind"] == kind]
        ranked += sorted(found, key=lambda t: (-abs(t["tradeEffect"]), t["manager"], t["ticker"]))[:PER_KIND]
    return ranked


def value_bridges(previous: PackArtifact | None, latest: PackArtifact) -> list[dict]:
    """Per manager: book value before and after, and the change split into the trades' effect, the undecided changes'
    (not split: no record says what was traded) and the rest, the price effect on shares held through the quarter."""
    if previous is None:
        return []
    moves = _moves(previous, latest)
    before = {m["id"]: m["bookValue"] for m in previous["managers"]}
    bridges = []
    for manager in latest["managers"]:
        mine = [change for change in moves if change["managerId"] == manager["id"]]
        trade = sum(_trade(change)["tradeEffect"] for change in mine if change["kind"] in TRADES)
        undecided = sum(change["toValue"] - change["fromValue"] for change in mine if change["kind"] == "undecided")
        start, end = before.get(manager["id"], 0), manager["bookValue"]
        bridges.append(
            {
                "manager": manager["id"],
                "before": start,
                "after": end,
                "change": end - start,
                "tradeEffect": trade,
                "undecided": undecided,
                "priceEffect": end - start - trade - undecided,
            }
        )
    return bridges


def kind_counts(latest: PackArtifact) -> list[dict]:
    """How many positions (and positions no longer held) of the latest version each change kind has, all managers."""
    counted: Counter[str] = Counter(
        entry["change"]["kind"] for manager in latest["managers"] for _, entry in entries(manager)
    )
    return [{"kind": kind, "count": counted.get(kind, 0)} for kind in CHANGE_KINDS]


def _moves(previous: PackArtifact | None, latest: PackArtifact) -> list[PositionChange]:
    if previous is None:
        return []
    return [record(change) for change in moved_positions(previous, latest, sorted(manager_ids(latest)), (latest,))]


def _trade(change: PositionChange) -> dict:
    """One trade: shares traded, and its value change split into trade effect (shares traded × price) and price
    effect (the rest: the price move on the shares carried into the quarter)."""
    delta = change["shareDelta"] or 0
    if change["toShares"]:
        shares, value = change["toShares"], change["toValue"]
    else:  # ended: no later price, the earlier one (per share carried through corporate actions) stands in
        shares, value = change["carriedShares"] or change["fromShares"], change["fromValue"]
    trade = round(delta * value / shares) if shares else 0
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
