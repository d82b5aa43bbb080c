"""A manager's changes of shares between two versions of the pack as a diff lists them (`PositionChange`, compactly
`Moved`), and a consecutive pair's read from the newer artifact, which states them (`own_changes`); a pair further
apart is research.windows.spans'."""

from __future__ import annotations

from typing import TypedDict

from builder.research.changes.classify import BOUGHT, SOLD
from builder.research.schema import (
    ArtifactManager,
    Candidate,
    Cause,
    CitedAction,
    ConvertedChange,
    MeasuredKind,
    TickerAsOf,
    TradeChange,
    UndecidedChange,
)
from builder.research.views import Named, entries, held_amounts
from builder.typed import Count


class PositionChange(TypedDict):
    managerId: str
    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf
    mapped: bool  # False: no ticker in securities.csv, `ticker` is the CUSIP (an unmapped-cusip warning)
    kind: MeasuredKind  # a diff lists moves, corporate actions and undecided changes; never an unknown one
    fromShares: Count
    toShares: Count
    carriedShares: Count | None
    shareDelta: int | None
    fromValue: Count
    toValue: Count
    cause: Cause
    corporateActions: list[CitedAction]
    candidates: list[Candidate]


KnownChange = TradeChange | ConvertedChange | UndecidedChange  # a change a diff entry can be: never 'unknown'
TRADES = BOUGHT | SOLD  # the kinds a plain trade can be
# managerId, ticker, kind, fromShares, toShares, fromValue, toValue
Row = tuple[str, str, MeasuredKind, int, int, int, int]


class ChangeDetail(TypedDict):
    """The rest of a change that is not a plain trade (a plain one: cause trade, carried shares = fromShares,
    shareDelta = toShares - fromShares, no corporate action or candidate)."""

    managerId: str
    ticker: str
    carriedShares: Count | None
    shareDelta: int | None
    cause: Cause
    corporateActions: list[CitedAction]
    candidates: list[Candidate]


# One position change, compactly: its row, its detail (None for a plain trade: what the row says is all of it) and
# the entry that names it. A pair of versions at 2,000 managers has about 370,000 of them (`record`: the whole one).
Moved = tuple[Row, ChangeDetail | None, Named]


def record(moved: Moved) -> PositionChange:
    """The whole PositionChange a compact change stands for."""
    (manager_id, ticker, kind, from_shares, to_shares, from_value, to_value), detail, named = moved
    rest = detail or plain_detail(manager_id, ticker, from_shares, to_shares)
    return {
        "managerId": manager_id,
        "ticker": ticker,
        "issuer": named["issuer"],
        "tickerAsOf": named["tickerAsOf"],
        "mapped": named["mapped"],
        "kind": kind,
        "fromShares": from_shares,
        "toShares": to_shares,
        "carriedShares": rest["carriedShares"],
        "shareDelta": rest["shareDelta"],
        "fromValue": from_value,
        "toValue": to_value,
        "cause": rest["cause"],
        "corporateActions": rest["corporateActions"],
        "candidates": rest["candidates"],
    }


def plain_detail(manager_id: str, ticker: str, from_shares: int, to_shares: int) -> ChangeDetail:
    """What a plain trade's detail would say: all of it follows from its row."""
    return {
        "managerId": manager_id,
        "ticker": ticker,
        "carriedShares": from_shares,
        "shareDelta": to_shares - from_shares,
        "cause": "trade",
        "corporateActions": [],
        "candidates": [],
    }


def listed(change: Moved) -> bool:
    (_, _, kind, from_shares, to_shares, _, _), detail, _ = change
    return moves(kind, from_shares, to_shares, detail["corporateActions"] if detail else [])


def moves(kind: str, from_shares: int, to_shares: int, actions: list[CitedAction]) -> bool:
    """Whether a diff lists a change: its shares moved, it is undecided or converted, or it cites a corporate action."""
    return from_shares != to_shares or kind in ("undecided", "converted") or bool(actions)


def own_changes(manager_id: str, before: ArtifactManager, after: ArtifactManager) -> list[Moved]:
    """The newer artifact's changes of one manager that `listed` keeps, as diff entries (sorted by ticker); a plain
    trade (`as_moved`) straight to its row."""
    old = {p["ticker"]: p for p in before["positions"]}
    found: list[Moved] = []
    for pair in entries(after):
        entry, change = pair[1], pair[1]["change"]
        if change["kind"] == "unknown":  # never listed: no filing to compare with
            continue
        ticker, kind = entry["ticker"], change["kind"]
        was = old.get(ticker)
        from_shares, from_value = (was["shares"], was["value"]) if was is not None else (0, 0)
        to_shares, to_value, _ = held_amounts(pair)
        actions = change["corporateActions"]
        if _plain(
            kind,
            (from_shares, to_shares),
            change["carriedShares"],
            change["shareDelta"],
            change["cause"],
            actions,
            change["candidates"],
        ):
            if from_shares != to_shares:
                row: Row = (manager_id, ticker, kind, from_shares, to_shares, from_value, to_value)
                found.append((row, None, entry))
        elif moves(kind, from_shares, to_shares, actions):
            found.append(as_entry(manager_id, entry, change, from_shares, to_shares, from_value, to_value))
    return sorted(found, key=by_ticker)


def as_entry(
    manager_id: str, named: Named, change: KnownChange, from_shares: int, to_shares: int, from_value: int, to_value: int
) -> Moved:
    """`named`: the version's entry that names the position (ticker, issuer, tickerAsOf, mapped)."""
    return as_moved(
        manager_id,
        named,
        change["kind"],
        (from_shares, to_shares, from_value, to_value),
        change["carriedShares"],
        change["shareDelta"],
        change["cause"],
        change["corporateActions"],
        change["candidates"],
    )


def as_moved(
    manager_id: str,
    named: Named,
    kind: MeasuredKind,
    amounts: tuple[int, int, int, int],
    carried: int | None,
    delta: int | None,
    cause: Cause,
    actions: list[CitedAction],
    candidates: list[Candidate],
) -> Moved:
    """A change as `Moved`: `amounts` are its shares and values, from and to; a detail only when not a plain trade."""
    ticker, (from_shares, to_shares, from_value, to_value) = named["ticker"], amounts
    row: Row = (manager_id, ticker, kind, from_shares, to_shares, from_value, to_value)
    if _plain(kind, (from_shares, to_shares), carried, delta, cause, actions, candidates):
        return row, None, named
    detail: ChangeDetail = {
        "managerId": manager_id,
        "ticker": ticker,
        "carriedShares": carried,
        "shareDelta": delta,
        "cause": cause,
        "corporateActions": actions,
        "candidates": candidates,
    }
    return row, detail, named


def _plain(
    kind: str,
    shares: tuple[int, int],
    carried: int | None,
    delta: int | None,
    cause: str,
    actions: list[CitedAction],
    candidates: list[Candidate],
) -> bool:
    """Whether a change is a plain trade (`shares`: from and to): all of it follows from its row (plain_detail)."""
    from_shares, to_shares = shares
    return (
        kind in TRADES
        and cause == "trade"
        and carried == from_shares
        and delta == to_shares - from_shares
        and not actions
        and not candidates
    )


def by_ticker(change: Moved) -> str:
    return change[0][1]


def unnamed(key: str) -> Named:
    """A key neither version names (a position carried through corporate actions only): the key, no issuer known."""
    return {"ticker": key, "issuer": "", "tickerAsOf": "current", "mapped": True}
