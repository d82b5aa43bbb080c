"""Carry a manager's book from one quarter end to the next through the corporate actions between them; pure.

A change of shares is measured on one basis: the later filing against the earlier book carried through every
recorded event in date order (splits multiply; merger and exchange legs move shares to the new CUSIP and add
to what is held there; spin-off legs add the child; cash mergers end the position with the cash price). Each
carried share remembers the legs that moved it, so a change can cite them like a filing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from fractions import Fraction

from builder.records import ActionKind, CorporateAction

# Fractional shares are paid in cash, per account: each source row (an account or other-manager line) of a
# position may lose less than a share on each leg. Berkshire's 31,353,468 DirecTV shares in 4 rows became
# 59,320,756 AT&T where 1.892 per share gives 59,320,761.46: 5 shares over 4 rows, so a difference of less
# than one share in a million of the carried shares is also taken as rounding, never as a trade.
ROUNDING_SHARE = Fraction(1, 1_000_000)


@dataclass(frozen=True, slots=True)
class Lot:
    """A manager's long-equity shares of one CUSIP at a quarter end (a book's long-equity Holding is one)."""

    cusip: str
    shares: int
    value: int  # dollars
    rows: int  # source rows behind it (accounts); each may round a fractional share away
    issuer: str


@dataclass(frozen=True, slots=True)
class Applied:
    """One leg applied to one manager's shares: how many went in, how many came out, what cash was paid."""

    leg: CorporateAction
    shares_in: int  # shares of leg.cusip held when it took effect (0 for a receipt)
    shares_out: Fraction  # shares of the target received (the same CUSIP for a split that keeps it)
    cash: Fraction  # dollars paid for the shares (cash mergers, stock-and-cash mergers)


@dataclass(slots=True)
class Carried:
    """The earlier book on the later quarter's basis."""

    shares: dict[str, Fraction | int] = field(default_factory=dict)  # CUSIP → shares carried
    allowance: dict[str, Fraction] = field(default_factory=dict)  # CUSIP → shares that may be lost to rounding
    moved: dict[str, list[Applied]] = field(default_factory=dict)  # CUSIP → the legs that moved shares into it
    ended: dict[str, list[Applied]] = field(default_factory=dict)  # earlier CUSIP → the legs that took all of it away
    origins: dict[str, set[str]] = field(default_factory=dict)  # CUSIP → the earlier CUSIPs its shares came from
    parents: dict[str, list[tuple[str, Fraction]]] = field(default_factory=dict)  # child CUSIP → (parent, ratio)

    def touched(self, cusip: str) -> bool:
        return bool(self.moved.get(cusip))

    def rounding(self, cusip: str) -> Fraction | int:
        """How far a filed figure may fall from the carried shares of `cusip` by fractional-share rounding."""
        if not self.touched(cusip):
            return 0  # the int: asked of every position that ended, and compared with an int's speed
        return max(
            self.allowance.get(cusip, Fraction(0)), Fraction(math.ceil(self.shares.get(cusip, 0) * ROUNDING_SHARE))
        )


def legs_between(legs: Iterable[CorporateAction], after: date, through: date, cik: str) -> list[CorporateAction]:
    """The legs effective in (after, through] that concern `cik`'s book, in date order, then file order."""
    found = [leg for leg in legs if after < leg.effective <= through and (not leg.cik or leg.cik == cik)]
    return sorted(found, key=lambda leg: (leg.effective, _line(leg)))


def carry(book: Mapping[str, Lot], legs: Sequence[CorporateAction]) -> Carried:
    """`book` carried through `legs` (already in effect order); legs of CUSIPs not held change nothing."""
    carried = Carried()
    rows: dict[str, int] = {}
    for cusip, lot in book.items():
        carried.shares[cusip] = lot.shares  # whole until a leg makes it a fraction
        carried.origins[cusip] = {cusip}
        rows[cusip] = lot.rows
    for event in _events(legs):
        _apply(carried, rows, event)
    return carried


def _events(legs: Sequence[CorporateAction]) -> list[list[CorporateAction]]:
    """Legs grouped into events (same effective date and CUSIP; a receipt is an event of its own), in order."""
    events: dict[tuple[date, str], list[CorporateAction]] = {}
    for leg in legs:
        key = (leg.effective, leg.cusip) if leg.shares is None else (leg.effective, leg.record)
        events.setdefault(key, []).append(leg)
    return list(events.values())


def _apply(carried: Carried, rows: dict[str, int], event: list[CorporateAction]) -> None:
    first = event[0]
    if first.shares is not None:  # a receipt from outside the 13F book
        received = Fraction(first.shares)
        _add(
            carried,
            first.new_cusip,
            received,
            [Applied(first, 0, received, Fraction(0))],
            Fraction(0),
            {first.new_cusip},
        )
        rows.setdefault(first.new_cusip, 1)
        return
    held = carried.shares.get(first.cusip, Fraction(0))
    if held <= 0:
        return
    whole, lost = math.floor(held), Fraction(rows.get(first.cusip, 1))
    if first.kind is ActionKind.SPIN_OFF:  # holders keep their shares and receive the child's
        for leg in event:
            carried.parents.setdefault(leg.new_cusip, []).append((first.cusip, leg.ratio))
            applied = Applied(leg, whole, held * leg.ratio, Fraction(0))
            _add(carried, leg.new_cusip, held * leg.ratio, [applied], lost, {leg.new_cusip})
            rows[leg.new_cusip] = max(rows.get(leg.new_cusip, 0), rows.get(first.cusip, 1))
        return
    del carried.shares[first.cusip]
    origins = carried.origins.pop(first.cusip, {first.cusip})
    history = carried.moved.pop(first.cusip, [])  # the legs that brought the shares here travel on with them
    allowance = carried.allowance.pop(first.cusip, Fraction(0))
    taken: list[Applied] = []
    for leg in event:
        cash = held * Fraction(leg.cash_per_share) if leg.cash_per_share is not None else Fraction(0)
        applied = Applied(leg, whole, Fraction(0) if leg.kind is ActionKind.CASH_MERGER else held * leg.ratio, cash)
        taken.append(applied)
        if leg.kind is not ActionKind.CASH_MERGER:
            target = leg.new_cusip or first.cusip
            _add(carried, target, applied.shares_out, [*history, applied], allowance + lost, origins)
            rows[target] = max(rows.get(target, 0), rows.get(first.cusip, 1))
    if first.cusip not in carried.shares:  # every share left: the earlier position ended through the event
        carried.ended.setdefault(first.cusip, []).extend([*history, *taken])


def _add(
    carried: Carried, target: str, shares: Fraction, applied: list[Applied], allowance: Fraction, origins: set[str]
) -> None:
    carried.shares[target] = carried.shares.get(target, Fraction(0)) + shares
    carried.allowance[target] = carried.allowance.get(target, Fraction(0)) + allowance
    carried.moved.setdefault(target, []).extend(applied)
    carried.origins.setdefault(target, set()).update(origins)


def _line(leg: CorporateAction) -> int:
    line = leg.record.rpartition(":")[2]
    return int(line) if line.isdigit() else 0  # a derived record has no line: it follows the hand records
