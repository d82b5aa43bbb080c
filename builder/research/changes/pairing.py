"""Rule (b)'s arithmetic: whether two positions are of one issuer, the exchange ratio two share counts stand in, and
the ended positions a new one may pair with, indexed; pure.

A new position pairs with an ended one of the same position key, else of the same issuer, else of about the same
value whose share count stands in a stated ratio to it (builder.research.changes.undecided). Asking every ended
position of every new one costs their product: 2,500 of each in a 50,000-row book is six million pairs a quarter,
and half of them lie within the value band. `Pairing` answers each new position with only the ended ones that can
pass those tests (a superset the pair's own test then decides), in the ended positions' own order, so the
candidates, and the release, are the bytes asking them all gives.
"""

from __future__ import annotations

import functools
import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from fractions import Fraction

from builder.research.changes.carry import Lot
from builder.research.changes.side import Side
from builder.research.evidence.ratios import RATIO_DECIMALS, SIMPLE_TERMS, SLACK

# The new position's value within ×/÷ this of the ended one's. A stock-and-cash merger pays part in cash (DirecTV:
# AT&T stock was two thirds of the price), so the band is wide; issuer names need no band. The share counts must then
# also stand in an exchange ratio as mergers state them (at most four decimals: 1.892, 0.9042) within rounding: two
# unrelated positions of similar value almost never do.
VALUE_BAND = 1.6
SCALE = 10**RATIO_DECIMALS
# A match by arithmetic alone (an exchange ratio, a fraction of another position) counts only when chance would
# rarely give it: small positions in round lots fit some ratio within a share or two all the time.
MAX_CHANCE = 0.05
SIMPLE = tuple(sorted({Fraction(n, d) for n in range(1, SIMPLE_TERMS + 1) for d in range(1, SIMPLE_TERMS + 1)}))
SIMPLE_FLOATS = tuple(float(ratio) for ratio in SIMPLE)
ROUNDING = 1e-6  # or one share per source row of each side, whichever is more
# Words of issuers' names that tell no issuer apart.
ISSUER_NOISE = frozenset({"INC", "CORP", "CORPORATION", "CO", "COMPANY", "LTD", "PLC", "NEW", "DEL", "THE", "HLDGS",
                          "HOLDINGS", "GROUP", "CL", "CLASS", "A", "B", "C", "SHS", "COM", "N", "V", "NV", "SA", "AG"})  # fmt: skip
# Leading words that many unrelated issuers share (American Express, American Airlines): no evidence of one issuer.
GENERIC_WORDS = frozenset({"AMERICAN", "FIRST", "UNITED", "GENERAL", "NATIONAL", "INTERNATIONAL", "INTL", "GLOBAL",
                           "CITIZENS", "SOUTHERN", "NORTHERN", "WESTERN", "EASTERN", "PACIFIC", "ATLANTIC", "CENTRAL",
                           "COMMUNITY", "PEOPLES", "UNIVERSAL", "ROYAL", "STANDARD", "BANK", "SECURITY", "CAPITAL",
                           "HOME", "ENERGY", "ISHARES", "VANGUARD", "SPDR", "SELECT", "INVESCO", "SCHWAB", "PROSHARES",
                           "DIREXION", "WISDOMTREE", "FIDELITY", "ALPHA", "DIGITAL", "SOUTHWEST", "NORTHWEST"})  # fmt: skip


def stated_ratio(old: Lot, new: Lot) -> Fraction | None:
    """The exchange ratio the two share counts stand in, when chance would rarely give it: a simple fraction (1:1
    for a rename), or one of four decimals as mergers state them; None when they stand in none."""
    allowance = max(old.rows + new.rows, math.ceil(new.shares * ROUNDING))
    slots = 2 * allowance + 1
    if len(SIMPLE) * slots / new.shares <= MAX_CHANCE:
        for old_part in range(1, SIMPLE_TERMS + 1):  # the nearest n:d for each d, checked in whole numbers
            new_part = round(new.shares * old_part / old.shares)
            if (
                1 <= new_part <= SIMPLE_TERMS
                and abs(new.shares * old_part - old.shares * new_part) <= allowance * old_part
            ):
                return Fraction(new_part, old_part)
    if slots * SCALE / old.shares > MAX_CHANCE:
        return None
    stated = (2 * new.shares * SCALE + old.shares) // (2 * old.shares)  # the nearest ratio of four decimals, × scale
    if abs(new.shares * SCALE - old.shares * stated) <= allowance * SCALE:
        return Fraction(stated, SCALE)
    return None


class Pairing:
    """The ended positions of `earlier` open to a pairing: by position key, by issuer, by value and by shares."""

    def __init__(self, earlier: Side, ended: Sequence[str]) -> None:
        self.order = {cusip: index for index, cusip in enumerate(ended)}
        self.by_key: dict[str, list[str]] = {}
        self.by_issuer: dict[str, list[str]] = {}  # "code:<first six>" and "word:<first word>"
        lots: list[Lot] = []
        for cusip in ended:
            self.by_key.setdefault(earlier.key(cusip), []).append(cusip)
            lot = earlier.lots.get(cusip)
            if lot is None:
                continue  # carried in, never filed: it pairs with nothing
            for mark in _issuer_marks(lot):
                self.by_issuer.setdefault(mark, []).append(cusip)
            if lot.value > 0 and lot.shares > 0:
                lots.append(lot)
        self.rows = (min((lot.rows for lot in lots), default=0), max((lot.rows for lot in lots), default=0))
        self.by_value = sorted(lots, key=lambda lot: lot.value)
        self.values = [lot.value for lot in self.by_value]
        self.by_shares = sorted(lots, key=lambda lot: lot.shares)
        self.shares = [lot.shares for lot in self.by_shares]

    def same_key(self, key: str) -> list[str]:
        """The ended positions under `key`, in order."""
        return self.by_key.get(key, [])

    def pairable(self, lot: Lot) -> list[str]:
        """The ended positions `lot` may pair with: of its issuer, or worth within the band of its value with a
        share count that may stand in a stated ratio to its own; in order."""
        found = {cusip for mark in _issuer_marks(lot) for cusip in self.by_issuer.get(mark, ())}
        if lot.value > 0 and lot.shares > 0:
            low, high = lot.value / VALUE_BAND / SLACK, lot.value * VALUE_BAND * SLACK
            found.update(old.cusip for old in self._ratios(lot) if low <= old.value <= high)
        return sorted(found, key=self.order.__getitem__)

    def _ratios(self, new: Lot) -> list[Lot]:
        """The ended positions whose shares may stand in a stated ratio to `new`'s (stated_ratio's two ways, each
        with the least and the most rounding any of them allows)."""
        least = max(new.rows + self.rows[0], math.ceil(new.shares * ROUNDING))
        most = max(new.rows + self.rows[1], math.ceil(new.shares * ROUNDING))
        found: list[Lot] = []
        if len(SIMPLE) * (2 * least + 1) / new.shares <= MAX_CHANCE:  # old × n:d within `most` of new
            for ratio in SIMPLE_FLOATS:
                low = bisect_left(self.shares, (new.shares - most) / ratio / SLACK - 1)
                high = bisect_right(self.shares, (new.shares + most) / ratio * SLACK + 1)
                found += self.by_shares[low:high]
        # four decimals: only a count large enough that chance rarely fits one, and only within the value band
        smallest = (2 * least + 1) * SCALE / MAX_CHANCE / SLACK
        start = bisect_left(self.values, new.value / VALUE_BAND / SLACK)
        end = bisect_right(self.values, new.value * VALUE_BAND * SLACK)
        found += (old for old in self.by_value[start:end] if old.shares >= smallest)
        return found


def _issuer_marks(lot: Lot) -> tuple[str, ...]:
    word = issuer_word(lot.issuer)
    return (f"code:{lot.cusip[:6]}", f"word:{word}") if word else (f"code:{lot.cusip[:6]}",)


def one_issuer(a: Lot, b: Lot) -> bool:
    """Whether two lots are securities of one issuer: the same CUSIP issuer code (its first six characters: share
    classes, tracking stocks), or names whose first distinctive word agrees (Kraft Foods Group, Kraft Heinz)."""
    if a.cusip[:6] == b.cusip[:6]:
        return True
    first = issuer_word(a.issuer)
    return first is not None and first == issuer_word(b.issuer)


@functools.lru_cache(maxsize=65536)
def issuer_word(issuer: str) -> str | None:
    """The first word of an issuer's name that tells it apart (None: none does, or too short to)."""
    words = [w for w in re.split(r"[^A-Z0-9&]+", issuer.upper()) if w and w not in ISSUER_NOISE]
    return words[0] if words and len(words[0]) >= 3 and words[0] not in GENERIC_WORDS else None
