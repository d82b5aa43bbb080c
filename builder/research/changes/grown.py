"""(e) A distribution into classes the manager already held, as far as one book can see it; pure.

Liberty Global's LiLAC shares of 2016 went to holders of both its classes, into both LiLAC classes Berkshire
already held: its LiLAC A and C grew by 2,197,715 and 916,672 shares, at no ratio an issuer states simply, while
its Liberty Global C (held whole) lost more in value than all the LiLAC C it gained was worth. One book cannot
tell that from two purchases; it can tell that every class grew together while a class of the same issuer, held
at both quarter ends, lost more value than the growth is worth, which is what a distribution does to its parent
and a purchase does not need. A single class growing beside a falling parent is no such mark (a purchase in a
falling market); the holders of the Form 13F data sets decide the rest.
"""

from __future__ import annotations

from builder.research.changes.carry import Carried, Lot
from builder.research.changes.side import Side
from builder.research.schema import Candidate

CLASSES = 2  # classes of one issuer that must grow together


def grown_classes(
    earlier: Side, later: Side, carried: Carried, closed: frozenset[str]
) -> dict[str, tuple[Candidate, str]]:
    """CUSIP → the candidate for each class that grew beside a kin class whose fall in value exceeds the growth,
    with that class's CUSIP (whose other holders may bear it out)."""
    marked: dict[str, dict[str, tuple[Candidate, str]]] = {}
    kin: dict[str, list[str]] = {}  # issuer code → the classes of it held at both quarter ends, in CUSIP order
    for held in sorted(earlier.lots.keys() & later.lots.keys()):
        kin.setdefault(held[:6], []).append(held)
    for child, lot in later.lots.items():  # every lot of every book: the plain tests first
        if child in closed or child not in earlier.lots or lot.shares <= 0:
            continue
        gained = int(lot.shares - carried.shares.get(child, 0))
        if gained <= 0 or carried.touched(child):
            continue
        worth = gained * lot.value / lot.shares
        for parent in kin.get(child[:6], ()):
            if later.key(parent) == later.key(child):
                continue
            fell = _fall(earlier.lots[parent], later.lots[parent])
            if fell > worth:
                marked.setdefault(child[:6], {})[child] = (
                    _candidate(later, child, gained, worth, parent, fell),
                    parent,
                )
                break
    return {c: found for group in marked.values() if len(group) >= CLASSES for c, found in group.items()}


def _fall(before: Lot, after: Lot) -> float:
    """The value the shares held before lost at the later price (0 when a count is missing)."""
    if min(before.shares, after.shares) <= 0:
        return 0.0
    return before.shares * (before.value / before.shares - after.value / after.shares)


def _candidate(later: Side, child: str, gained: int, worth: float, parent: str, fell: float) -> Candidate:
    text = (
        f"{later.key(child)} grew by {gained:,} shares (${worth:,.0f}) while {later.key(parent)}, held at both quarter "
        f"ends, lost ${fell:,.0f} in value, and another class of the issuer grew with it: a distribution into the "
        "classes held, or bought"
    )
    return {"rule": "distribution", "text": text, "record": None}
