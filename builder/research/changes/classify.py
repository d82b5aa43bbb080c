"""Classify a manager's change between two quarter ends: the later filing against the carried earlier book; pure.

Each change says its kind (the trade: new, added, reduced, unchanged, exited; or converted, undecided,
unknown), the shares filed, carried and traded, and its cause (a trade, a corporate action cited like a
filing, both, none), so that only trades are ever counted as bought or sold.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeGuard, get_args

from builder.records import ActionKind, CorporateAction
from builder.research.changes.actions import action_fields
from builder.research.changes.carry import Applied, Carried, Lot, carry
from builder.research.changes.side import Side
from builder.research.changes.undecided import candidates
from builder.research.schema import (
    Bought,
    Candidate,
    Change,
    ChangeKind,
    CitedAction,
    ConvertedChange,
    KnownChange,
    Sold,
    TradeCause,
    TradeChange,
    Traded,
    TradeKind,
    UndecidedChange,
    UnknownChange,
)

CHANGE_KINDS: tuple[ChangeKind, ...] = get_args(ChangeKind)  # in their declared order
BOUGHT: frozenset[str] = frozenset(get_args(Bought))
SOLD: frozenset[str] = frozenset(get_args(Sold))
TRADED: tuple[str, ...] = get_args(Traded)  # the kinds that are bought or sold, in their declared order


def is_trade(kind: str) -> TypeGuard[Traded]:
    """The one trade test: only a new, added, reduced or exited position was bought or sold."""
    return kind in BOUGHT or kind in SOLD


CASH_IN_LIEU = 10  # shares a corporate action may leave a book short by (cash paid in lieu of fractions), per leg


@dataclass(frozen=True, slots=True)
class Ended:
    """A position of the earlier book that the later one no longer holds, keyed as the earlier quarter named it."""

    key: str
    cusips: tuple[str, ...]  # the CUSIPs that ended (earlier ones, or ones received through a corporate action)
    origins: tuple[str, ...]  # the earlier CUSIPs they came from, whose rows the entry cites
    change: KnownChange


@dataclass(frozen=True, slots=True)
class Changes:
    held: Mapping[str, Change]  # later position key → its change
    ended: list[Ended]


@dataclass(frozen=True, slots=True)
class KnownChanges(Changes):
    """The changes against a previous book: none of them unknown."""

    held: Mapping[str, KnownChange]


Flagged = Mapping[str, list[Candidate]]  # CUSIP → the candidates of its change (undecided.candidates)
Rules = Callable[[Side, Side, Carried], Flagged]


def unknown_changes(later: Side) -> Changes:
    """Every change of a manager with no previous book: each position's unknown, nothing ended."""
    return Changes({key: unknown_change() for key in by_key(later.lots, later.key)}, [])


def book_changes(
    earlier: Side, later: Side, legs: Sequence[CorporateAction], rules: Rules = candidates
) -> KnownChanges:
    """Every change of one manager from `earlier` to `later`; `legs` are the corporate actions between them, and
    `rules` find the changes the data cannot decide (CUSIP → candidates)."""
    keys = by_key(later.lots, later.key)
    carried = carry(earlier.lots, legs)
    found = rules(earlier, later, carried)
    previous = by_key(earlier.lots, later.key)
    # most books cross a quarter untouched by any corporate action: the carried CUSIPs are the earlier ones
    sources = previous if carried.shares.keys() == earlier.lots.keys() else by_key(carried.shares, later.key)
    plain = not carried.moved and not carried.parents
    held = {
        key: _unmoved(cusips, sources.get(key, _NONE), previous.get(key, _NONE), earlier.lots, later.lots, carried)
        if plain and not (found and _flagged(cusips, sources.get(key, _NONE), found))
        else _held(cusips, sources.get(key, []), previous.get(key, []), earlier, later, carried, found)
        for key, cusips in keys.items()
    }
    return KnownChanges(held, _ended(earlier, later, carried, found, set(held)))


_NONE: list[str] = []  # a key's CUSIPs where it has none (only read)


def by_key(lots: Iterable[str], key: Callable[[str], str]) -> dict[str, list[str]]:
    """The CUSIPs of `lots` grouped by their position key, each group and the groups in CUSIP order."""
    grouped: dict[str, list[str]] = {}
    for cusip in sorted(lots):
        named = key(cusip)
        group = grouped.get(named)
        if group is None:
            grouped[named] = [cusip]
        else:
            group.append(cusip)
    return grouped


def _flagged(cusips: list[str], sources: list[str], found: Flagged) -> bool:
    return any(c in found for c in cusips) or any(c in found for c in sources)


def _unmoved(
    cusips: list[str],
    sources: list[str],
    before: list[str],
    earlier: Mapping[str, Lot],
    later: Mapping[str, Lot],
    carried: Carried,
) -> TradeChange:
    """_held of a position no corporate action moved shares into and no rule flagged: a trade, or none. Asked of
    most positions of every book, so a position of one CUSIP (most are) is read without _total."""
    filed = later[cusips[0]].shares if len(cusips) == 1 else _total(later, cusips)
    shares = carried.shares
    exact = shares[sources[0]] if len(sources) == 1 else sum(shares[x] for x in sources)
    carried_shares = math.floor(exact)
    delta = filed - carried_shares if filed - exact else 0
    previous = earlier[before[0]].shares if len(before) == 1 else _total(earlier, before)
    return trade_change(trade_kind(exact, delta), previous, carried_shares, delta, "trade" if delta else "none")


def trade_kind(carried: float | Fraction, delta: int) -> TradeKind:
    """A decided change's kind: new when nothing was carried into it, else by the shares traded."""
    return "new" if carried == 0 else "added" if delta > 0 else "reduced" if delta < 0 else "unchanged"


def _held(
    cusips: list[str],
    sources: list[str],
    before: list[str],
    earlier: Side,
    later: Side,
    carried: Carried,
    found: Flagged,
) -> KnownChange:
    """The change of one later position: its CUSIPs as filed, the carried CUSIPs under its key, the earlier ones."""
    filed = _total(later.lots, cusips)
    exact = sum(carried.shares[x] for x in sources) if len(sources) != 1 else carried.shares[sources[0]]
    previous = _total(earlier.lots, before)
    # most books cross a quarter untouched by any corporate action or undecided rule: skip what cannot apply
    applied = _unique(a for x in sources if x in carried.moved for a in carried.moved[x]) if carried.moved else []
    citations = [_citation(a, earlier, later) for a in applied]
    hits = [found[c] for c in (*cusips, *sources) if c in found] if found else []
    flagged = unique_candidates(hits) if hits else []
    if flagged:
        return undecided_change(previous, math.floor(exact), citations, flagged)
    residual = filed - exact
    if applied and _rounding(Fraction(residual), sources, carried, len(applied)):
        residual = 0
    if residual and carried.parents and _received_on_parent_trades(Fraction(residual), sources, later, carried):
        residual = 0
    carried_shares = math.floor(exact)
    delta = filed - carried_shares if residual else 0
    cause = _cause(bool(delta), bool(applied))
    return trade_change(trade_kind(exact, delta), previous, carried_shares, delta, cause, citations)


def _total(lots: Mapping[str, Lot], cusips: list[str]) -> int:
    """The shares of `cusips` in `lots` (most positions are one CUSIP)."""
    return lots[cusips[0]].shares if len(cusips) == 1 else sum(lots[c].shares for c in cusips)


def _rounding(residual: Fraction, sources: list[str], carried: Carried, legs: int) -> bool:
    """Whether shares filed short of (or just over) the carried ones are fractional shares lost to rounding: within a
    share per row and leg, or one in a million, or short by at most CASH_IN_LIEU shares a leg (paid in cash per
    account, and a book's accounts outnumber its rows; no manager trades a handful of shares beside an action)."""
    if abs(residual) <= sum((carried.rounding(x) for x in sources), Fraction(0)):
        return True
    return -CASH_IN_LIEU * legs <= residual < 0


def _received_on_parent_trades(residual: Fraction, sources: list[str], later: Side, carried: Carried) -> bool:
    """A spin-off child beyond what the earlier parent shares give, within what the parent shares traded this
    quarter give (bought or sold before the record date): received, not traded (Liberty Global's LiLAC 2016)."""
    for child in sources:
        for parent, ratio in carried.parents.get(child, ()):
            if parent not in later.lots:
                continue
            traded = Fraction(later.lots[parent].shares - carried.shares.get(parent, 0))
            if (
                traded
                and (traded > 0) == (residual > 0)
                and abs(residual) <= abs(traded * ratio) + carried.rounding(child)
            ):
                return True
    return False


def _ended(earlier: Side, later: Side, carried: Carried, found: Flagged, held: set[str]) -> list[Ended]:
    groups: dict[tuple[str, str], list[str]] = {}
    for cusip in sorted(carried.ended):
        if earlier.key(cusip) not in held and cusip in earlier.lots:
            groups.setdefault((earlier.key(cusip), "converted"), []).append(cusip)
    for cusip in sorted(carried.shares.keys() - later.lots.keys()):  # a CUSIP the later book files is held
        shares = carried.shares[cusip]
        if shares >= 1 and later.key(cusip) not in held and shares > carried.rounding(cusip):
            key = earlier.key(cusip) if cusip in earlier.lots else later.key(cusip)
            groups.setdefault((key, "exited"), []).append(cusip)
    for key, fate in [k for k in groups if k[1] == "exited" and (k[0], "converted") in groups]:
        # the shares an event moved to a CUSIP of the same key, then sold: one position's exit (Media General's, 2016)
        groups[key, fate] = groups.pop((key, "converted")) + groups[key, fate]
    return [
        _ended_entry(key, fate, cusips, earlier, later, carried, found)
        for (key, fate), cusips in sorted(groups.items())
    ]


def _ended_entry(
    key: str, fate: str, cusips: list[str], earlier: Side, later: Side, carried: Carried, found: Flagged
) -> Ended:
    previous = sum(earlier.lots[c].shares for c in cusips if c in earlier.lots)
    if fate == "converted":
        applied = _unique(a for c in cusips for a in carried.ended[c])
        citations = [_citation(a, earlier, later) for a in applied]
        return Ended(key, tuple(cusips), tuple(cusips), converted_change(previous, citations))
    exact = sum(carried.shares.get(c, 0) for c in cusips)  # whole shares unless a leg made a fraction: only floored
    moved = (a for c in cusips for a in (*carried.ended.get(c, ()), *carried.moved.get(c, ())))
    applied = _unique(moved) if carried.moved or carried.ended else []
    citations = [_citation(a, earlier, later) for a in applied]
    origins = tuple(sorted({o for c in cusips for o in carried.origins.get(c, {c}) if o in earlier.lots}))
    flagged = unique_candidates(found.get(c, ()) for c in cusips) if found else []
    change: KnownChange
    if flagged:
        change = undecided_change(previous, math.floor(exact), citations, flagged)
    else:
        carried_shares = math.floor(exact)
        cause = _cause(True, bool(applied))
        change = trade_change("exited", previous, carried_shares, -carried_shares, cause, citations)
    return Ended(key, tuple(cusips), origins or tuple(cusips), change)


def _cause(traded: bool, moved: bool) -> TradeCause:
    if traded:
        return "trade-and-corporate-action" if moved else "trade"
    return "corporate-action" if moved else "none"


def trade_change(
    kind: TradeKind, previous: int, carried: int, delta: int, cause: TradeCause, citations: Sequence[CitedAction] = ()
) -> TradeChange:
    """A decided change: `carried` shares of the `previous` book through the corporate actions cited, `delta` traded."""
    return {
        "kind": kind,
        "previousShares": previous,
        "carriedShares": carried,
        "shareDelta": delta,
        "cause": cause,
        "corporateActions": list(citations),
        "candidates": [],
    }


def converted_change(previous: int, citations: Sequence[CitedAction]) -> ConvertedChange:
    """A position ended by the corporate actions cited: none of its shares traded."""
    return {
        "kind": "converted",
        "previousShares": previous,
        "carriedShares": 0,
        "shareDelta": 0,
        "cause": "corporate-action",
        "corporateActions": list(citations),
        "candidates": [],
    }


def undecided_change(
    previous: int | None, carried: int | None, citations: Sequence[CitedAction], found: Sequence[Candidate]
) -> UndecidedChange:
    """A change no record decides, with the `found` candidates it may be."""
    return {
        "kind": "undecided",
        "previousShares": previous,
        "carriedShares": carried,
        "shareDelta": None,
        "cause": "undecided",
        "corporateActions": list(citations),
        "candidates": list(found),
    }


def unknown_change() -> UnknownChange:
    """A change with no previous book to measure it against."""
    return {
        "kind": "unknown",
        "previousShares": None,
        "carriedShares": None,
        "shareDelta": None,
        "cause": "unknown",
        "corporateActions": [],
        "candidates": [],
    }


def _unique(applied: Iterable[Applied]) -> list[Applied]:
    applied = list(applied)
    if not applied:  # most changes: no corporate action touched them
        return []
    seen: dict[tuple[str, str], Applied] = {}
    for entry in applied:
        seen.setdefault((entry.leg.record, entry.leg.cusip), entry)
    return sorted(seen.values(), key=lambda a: (a.leg.effective, a.leg.record))


def unique_candidates(groups: Iterable[Iterable[Candidate]]) -> list[Candidate]:
    """The candidates of `groups`, each (rule, text) once, in the order first met."""
    seen: dict[tuple[str, str], Candidate] = {}
    for group in groups:
        for candidate in group:
            seen.setdefault((candidate["rule"], candidate["text"]), candidate)
    return list(seen.values())


_VERBS = {
    ActionKind.SPLIT: "split",
    ActionKind.MERGER: "merger",
    ActionKind.CASH_MERGER: "cash merger",
    ActionKind.SPIN_OFF: "spin-off",
    ActionKind.EXCHANGE: "exchange",
}


def _citation(applied: Applied, earlier: Side, later: Side) -> CitedAction:
    """A corporate action cited like a filing: the record, and what it did to this manager's shares."""
    return {**action_fields(applied.leg), "text": _citation_text(applied, earlier, later)}


def _citation_text(applied: Applied, earlier: Side, later: Side) -> str:
    leg = applied.leg
    before = earlier.key(leg.cusip) if leg.cusip in earlier.lots else later.key(leg.cusip) if leg.cusip else ""
    after = later.key(leg.new_cusip or leg.cusip) if (leg.new_cusip or leg.cusip) else ""
    out = math.floor(applied.shares_out)
    terms = f" ({leg.ratio_text})" if leg.ratio_text else ""
    cash = f"${leg.cash_per_share:,} a share" if leg.cash_per_share is not None else ""
    when = f"{_VERBS[leg.kind]} effective {leg.effective}"
    if leg.shares is not None and leg.kind is ActionKind.SPIN_OFF:  # a diff across quarters: windows.spans._received
        return f"{when}{terms}: received {leg.shares:,} {after} on the {before} shares held then"
    if leg.shares is not None:
        return f"{when}: received {leg.shares:,} {after} for holdings outside the 13F book"
    if leg.kind is ActionKind.CASH_MERGER:
        return f"{when}: {applied.shares_in:,} {before} acquired for {cash} (${math.floor(applied.cash):,})"
    if leg.kind is ActionKind.SPIN_OFF:
        return f"{when}{terms}: {applied.shares_in:,} {before} received {out:,} {after}"
    paid = f" and ${math.floor(applied.cash):,} ({cash})" if applied.cash else ""
    if leg.kind is ActionKind.SPLIT and not leg.new_cusip:
        return f"{when}{terms}: {applied.shares_in:,} {before} became {out:,}"
    return f"{when}{terms}: {applied.shares_in:,} {before} became {out:,} {after}{paid}"
