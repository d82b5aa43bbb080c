"""The events the holders of one security can show between two quarter ends, each a rule of its own; pure.

builder.research.evidence.decide runs them over every security; each returns the corporate-action legs its holders
decide (with their evidence), or none. The thresholds say how much the holders must show, and why.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from builder.records import ActionKind, CorporateAction, Holders
from builder.research.evidence import ratios
from builder.research.evidence.chance import MAX_CHANCE, binomial, rare
from builder.research.evidence.classes import paired_classes
from builder.research.evidence.ratios import (
    EXACT_TOLERANCE,
    RATIO_DECIMALS,
    RATIO_TOLERANCE,
    SIMPLE_TERMS,
    Pairs,
    allowance,
    ratio_text,
)
from builder.research.evidence.witnessed import Citing, FilerBooks, Found, Gains

# Holders at the earlier quarter end that decide by majority: with fewer, one filer's trading could pass for an
# event, so the few decide only exactly (see Proof).
MIN_WITNESSES = 3
# One filer alone decides nothing: its own book's arithmetic fits unrelated trades too often. On two real managers'
# 2013-2020 filings (a hedge fund of 1,000-1,700 securities and a value fund), 49 of the 60 events one book
# "decided" exactly never happened: 3:2 splits of Bank of America, Intel, Micron, and 1:1 "exchanges" of Pentair
# into Walgreens, Abercrombie into Caterpillar, each a real trade hidden.
MIN_HOLDERS = 2
# A cash acquisition is decided from absence alone, so chance must not explain the absence: holders leave positions
# every quarter (about one in ten), and of a thousand small securities a few lose most of their holders at once. The
# holders that left must be at least MIN_ABSENT, and as many leaving by chance, at the quarter's own rate of
# leaving, must be rarer than MAX_ABSENT_CHANCE spread over every security weighed.
MIN_ABSENT = 5
MAX_ABSENT_CHANCE = 0.01
# At most this share of the earlier holders still file the security: it left every book (a few filers report a
# security for a quarter after it was acquired).
VANISHED = 0.2
# At least this share still file it: the security outlived the quarter, so no holder's sale of it was an acquisition.
CONTINUED = 0.5
# An event's ratio must fit at least this share of the holders it concerns, and at least MIN_AGREEING of them: two
# filers at one ratio to a share is no coincidence. The rest traded beside it; holders trade a given security in
# most quarters (a quarter of them or more report the same shares as before), so a majority is not to be expected.
AGREE = 0.25
MIN_AGREEING = 2
# A vanished security whose holders mostly (at least this share) gained one security new in the quarter at no one
# ratio was neither a merger that can be stated nor an acquisition for cash: it stays undecided.
GAINED = 0.75
# A new security held at the later quarter end by holders of which at most this share held it before was born in
# the quarter (a spin-off, a merger's new shares, a new listing).
NEWBORN = 0.1
# Splits: a simple ratio with terms up to this (3:2, 4:1, 1:20, 1:35); the split explains at least this share of
# the price's move in log terms (holders who sold half while the price held did not go through a 1:2 split); and
# the holders' shares together moved by at least ×/÷ MIN_SPLIT_MOVE.
SPLIT_TERMS = 50
MIN_EXPLAINED = 0.5
# … where most holders show it (the majority rule), the split need only explain part of the price's move: it moved
# the other way by more than the square root of the factor. Tesla's 5:1 of 2020 came in a quarter its price doubled
# (×0.397 a share, the split explaining 26 % of the move in log terms) with every holder at exactly 5×.
MAJORITY_EXPLAINED = 0.0
MIN_SPLIT_MOVE = 1.3
# What the few may show: the split factors issuers use, and the distribution ratios; a fit counts when chance would
# give it at most MAX_CHANCE times (the ratios tried × the shares a fit allows ÷ the shares received), and neither
# count is in round lots (round lots fit round ratios of round positions all the time), unless the two securities
# are of one issuer (MAX_CHANCE: builder.research.evidence.chance, which holds the many to it too).
FEW_SPLITS = frozenset({Fraction(n) for n in (2, 3, 4, 5, 7, 8, 10, 20)} | {Fraction(3, 2)} | {Fraction(1, n) for n in (5, 10, 20)})  # fmt: skip
# The few may show a split with a trade beside it (DaVita's 2:1 of 2013 beside a purchase of 5 %): the price moved
# by the inverse of one factor only, within ×/÷ FEW_SPLIT_MARKET, every earlier holder still holds it, each within
# FEW_SPLIT_TRADE of that factor. Wider, one book is fooled (Apple's 4:1 of 2020 in a 27 % rally: a 3:1 split
# with a third bought fits as well; 300 shares become 1,400 as a 5:1 split with a small sale, or a 7:1 split with a
# third sold in a rally). Reverse splits of 1:2 and 1:3 are left out: a holder that sold half or two thirds while
# the price doubled reads as one.
FEW_SPLIT_TRADE = 0.06
FEW_SPLIT_MARKET = 1.15  # MasterCard's 10:1 of 2014 moved ×0.89 net of the split
ROUND_LOT = 10  # a count in lots of ten is a trader's choice (10,230 sold, 10,230 bought): no mark of a ratio

Kin = Callable[[str, str], bool]  # whether two CUSIPs are securities of one issuer


def same_issuer_code(a: str, b: str) -> bool:
    """The CUSIP issuer code (its first six characters) is the issuer's: share classes, a new CUSIP of one issuer."""
    return a[:6] == b[:6]


@dataclass(frozen=True, slots=True)
class Proof:
    """How much the holders of one security must show: many outvote chance; the few must fit exactly, unlikely by
    chance."""

    few: bool
    kin: Kin

    @property
    def tolerance(self) -> float:
        return EXACT_TOLERANCE if self.few else RATIO_TOLERANCE

    def needed(self, holders: int) -> int:
        return holders if self.few else max(MIN_AGREEING, math.ceil(AGREE * holders))

    def unlikely(self, cusip: str, other: str, pairs: Pairs, tried: int) -> bool:
        """Whether chance would rarely make `pairs` fit (always, for many holders): for the few, the securities are of
        one issuer, or neither count is a round lot and `tried` ratios would fit the received shares by chance at
        most MAX_CHANCE times."""
        if not self.few or self.kin(cusip, other):
            return True
        before, received = min(pairs, key=lambda pair: pair[1])
        slots = 2 * allowance(received, EXACT_TOLERANCE) + 1
        return before % ROUND_LOT != 0 and received % ROUND_LOT != 0 and tried * slots / received <= MAX_CHANCE


def split(
    cusip: str, held: Holders, kept: Holders, citing: Citing, proof: Proof, books: FilerBooks, weighed: int
) -> CorporateAction | None:
    """The holders who kept the security hold one simple multiple of their shares, and its price moved the other
    way: a split (or a reverse split). The many, where chance would rarely move so many by it (how the filers' kept
    positions move, `books.moved`, over `weighed` securities asked: builder.research.evidence.chance)."""
    if 1 / MIN_SPLIT_MOVE < ratios.total(kept) / max(ratios.total(held), 1) < MIN_SPLIT_MOVE:
        return None  # the holders' shares together did not move like a split's: no per-holder look needed
    earlier = dict(zip(held.ciks, held.shares, strict=True))
    holders = [(cik, earlier[cik], n) for cik, n in zip(kept.ciks, kept.shares, strict=True) if earlier.get(cik)]
    pairs = [(before, after) for _, before, after in holders]
    price = ratios.price(held)
    price_move = ratios.price(kept) / price if price else 0.0
    if proof.few and len(pairs) < len(held):
        return None  # one of the few sold out: the rest cannot speak for a split alone
    fit = _fewsplit(pairs, price_move) if proof.few else _split_by_majority(pairs, proof)
    if fit is None or price_move <= 0:
        return None
    factor, agreeing, spread = fit
    if not proof.few and not rare(books.moved, holders, factor, proof.tolerance, agreeing, weighed):
        return None  # so many kept positions move by one factor or another by trading alone
    explained = MIN_EXPLAINED if proof.few else MAJORITY_EXPLAINED
    if abs(math.log(price_move * float(factor))) >= (1 - explained) * abs(math.log(price_move)):
        return None  # the price did not move the other way: the holders traded, the shares were not split
    what = (
        f"{agreeing} of the {len(pairs)} holders who filed {cusip} at both ends hold {ratio_text(factor)} of their "
        f"shares (ratios {spread[0]:.4f}–{spread[1]:.4f}"
        + (", the rest traded beside it" if proof.few and spread[0] != float(factor) else "")
        + f"), the price per share ×{price_move:.3f}: a {ratio_text(factor)} split"
    )
    return citing.leg(ActionKind.SPLIT, cusip, "", factor, Found(len(held), agreeing, spread, what))


def steady(held: Holders, kept: Holders) -> bool:
    """Whether a holder kept about as many shares (within ×/÷ MIN_SPLIT_MOVE): its book refutes any split, so no
    other book's change of the security is to be read as one."""
    earlier = dict(zip(held.ciks, held.shares, strict=True))
    return any(
        1 / MIN_SPLIT_MOVE < shares / earlier[cik] < MIN_SPLIT_MOVE
        for cik, shares in zip(kept.ciks, kept.shares, strict=True)
        if earlier.get(cik)
    )


# Any other ratio with terms up to SPLIT_TERMS is at least 1 / SPLIT_TERMS from 1:1 (|m − d| / d): a ratio within half
# that of 1 is nearer 1:1 than to any of them, so ratios.simple would give 1:1 or nothing, and no split either way.
_NEAR_ONE = Fraction(1, 2 * SPLIT_TERMS)


def _split_by_majority(pairs: Pairs, proof: Proof) -> tuple[Fraction, int, tuple[float, float]] | None:
    """The simple ratio most of the holders' shares moved by, exactly."""
    fit = ratios.common_ratio(pairs, proof.tolerance)
    if fit is None or fit[1] < proof.needed(len(pairs)):
        return None  # too few fit it (half the securities asked): no simple ratio to look for
    if abs(fit[0] - 1) < _NEAR_ONE:
        return None  # 1:1 is the simple ratio nearest it (most of the rest: the holders kept their shares)
    factor = ratios.simple(fit[0], pairs, SPLIT_TERMS, proof.tolerance)
    if factor is None or factor == 1:
        return None
    return factor, fit[1], fit[2]


def _fewsplit(pairs: Pairs, price_move: float) -> tuple[Fraction, int, tuple[float, float]] | None:
    """The one split factor issuers use that the price moved by the inverse of, within FEW_SPLIT_MARKET, when every
    holder's shares moved by it within a trade of FEW_SPLIT_TRADE beside it; None when no factor or two fit the
    price (one book cannot choose between them)."""
    moves = [after / before for before, after in pairs]
    priced = [f for f in sorted(FEW_SPLITS) if 1 / FEW_SPLIT_MARKET <= price_move * float(f) <= FEW_SPLIT_MARKET]
    if not moves or len(priced) != 1 or any(abs(move / float(priced[0]) - 1) > FEW_SPLIT_TRADE for move in moves):
        return None
    return priced[0], len(pairs), (min(moves), max(moves))


def successors(
    cusip: str, held: Holders, gains: Gains, books: FilerBooks, citing: Citing, proof: Proof, weighed: int = 1
) -> list[CorporateAction]:
    """The securities the holders of a vanished security gained at one ratio each: a merger or exchange leg each.
    The few are believed only at a simple ratio, for a security of the same issuer or by a fit chance would rarely
    give; the many where chance would rarely make so many fit, over every security tried, of `weighed` vanished
    ones (builder.research.evidence.chance)."""
    legs = []
    needed = proof.needed(len(held))
    tried = gains.others  # the few are believed share for share or for one issuer: one ratio tried a security
    candidates = sorted((other, pairs) for other, pairs in gains.pairs.items() if len(pairs) >= needed)
    for other, pairs in candidates:
        if ratios.most_fitting(pairs, proof.tolerance) < needed:
            continue  # no one ratio could fit enough of them: spare measuring it
        fit = ratios.common_ratio(pairs, proof.tolerance)
        if fit is None or fit[1] < needed:
            continue
        stated = ratios.stated(fit[0], pairs, proof.tolerance)
        agreeing = ratios.agreeing(pairs, stated, proof.tolerance)
        if agreeing < needed:
            continue
        # the few: one issuer's securities at a simple ratio (one holder fits its own ratio in four decimals always),
        # or another issuer's share for share (a new name and CUSIP), where chance would rarely give that fit
        if proof.few and not (stated == 1 or (proof.kin(cusip, other) and _stated_by_issuer(stated, pairs))):
            continue
        if not proof.unlikely(cusip, other, pairs, tried):
            continue
        holders = [(cik, *pair) for cik, pair in zip(gains.ciks[other], pairs, strict=True)]
        if not proof.few and not rare(
            books.gained, holders, stated, proof.tolerance, agreeing, weighed * len(candidates)
        ):
            continue  # so many of the holders' gains fit one ratio or another by trading alone
        # one issuer's new security, or (all one book can show) a new CUSIP share for share: an exchange
        kind = ActionKind.EXCHANGE if proof.kin(cusip, other) or (proof.few and stated == 1) else ActionKind.MERGER
        low, high = fit[2]
        what = (
            f"{cusip} left the books of {len(held) - len(books.sides[1].get(cusip, ()))} of its {len(held)} holders; "
            f"{agreeing} of them gained {ratio_text(stated)} {other} per share (ratios {low:.4f}–{high:.4f}): "
            f"{'an' if kind is ActionKind.EXCHANGE else 'a'} {kind.value}; any cash paid beside it is not in 13F books"
        )
        legs.append(citing.leg(kind, cusip, other, stated, Found(len(held), agreeing, fit[2], what)))
    return legs


def _stated_by_issuer(ratio: Fraction, pairs: Pairs) -> bool:
    """Whether one book's exact fit to `ratio` says it was stated: a simple ratio, or four decimals where chance
    would rarely put a count that close to a multiple of 0.0001 of the shares before (one book always fits its own
    ratio in four decimals when it held a few thousand shares)."""
    if ratio == ratios.simple(ratio, pairs, SIMPLE_TERMS, EXACT_TOLERANCE):
        return True
    before, received = min(pairs)
    grid: float = before / 10**RATIO_DECIMALS  # shares between two neighbouring four-decimal ratios
    return (2 * allowance(received, EXACT_TOLERANCE) + 1) / grid <= MAX_CHANCE


def unambiguous(
    merged: dict[str, list[CorporateAction]], books: FilerBooks, proofs: tuple[Proof, ...]
) -> dict[str, list[CorporateAction]]:
    """The successors found, each claimed by one vanished security, or by several only where the holders of one
    that held none of the others fit it too (a recapitalisation of two classes into four: holders of both fit
    every pairing, so only the holders of one class say which it became; the pairing already stands on all its
    holders, so a quarter of these, one at least, is enough). Where no such holders are, the one pairing that gives
    every class the same ratios stands (builder.research.evidence.classes); with none, the claims are dropped, and
    the securities stay open."""
    claimants: dict[str, set[str]] = {}
    for cusip, found in merged.items():
        for leg in found:
            claimants.setdefault(leg.new_cusip, set()).add(cusip)
    before, after = books.of(0), books.of(1)
    kept: dict[str, list[CorporateAction]] = {}
    dropped: dict[str, list[CorporateAction]] = {}
    for cusip, found in merged.items():
        kept[cusip] = []
        for leg in found:
            others = claimants[leg.new_cusip] - {cusip}
            if not others:
                kept[cusip].append(leg)
                continue
            pairs = [
                (shares, after.get(cik, {}).get(leg.new_cusip, 0) - before[cik].get(leg.new_cusip, 0))
                for cik, shares in zip(books.sides[0][cusip].ciks, books.sides[0][cusip].shares, strict=True)
                if not others & before[cik].keys()
            ]
            tolerance = proofs[leg.evidence is not None and leg.evidence.holders < MIN_WITNESSES].tolerance
            if pairs and ratios.agreeing(pairs, leg.ratio, tolerance) >= max(1, math.ceil(AGREE * len(pairs))):
                kept[cusip].append(leg)
            else:
                dropped.setdefault(cusip, []).append(leg)
    for cusip, legs in paired_classes(dropped, proofs[0].kin).items():  # where no holder of one class alone says
        kept[cusip] += legs
    return kept


def moved(held: Holders, gains: Gains, targets: set[str], books: FilerBooks) -> bool:
    """Whether most holders of a vanished security gained one security new in the quarter (not one another event
    delivered) at no ratio the books show: its shares may have become that security, so it was not plainly
    acquired for cash. (Gains of securities held before are what holders do every quarter: index funds add to
    most of their positions.)"""
    before, after = books.sides
    return any(
        len(pairs) >= GAINED * len(held) and len(before.get(other, ())) <= NEWBORN * len(after[other])
        for other, pairs in gains.pairs.items()
        if other not in targets
    )


def absent(held: Holders, kept: Holders | None, books: FilerBooks) -> bool:
    """Whether so many holders left a security that chance, at the quarter's rate of leaving a position, would
    rarely do it: the binomial tail of that many leaving, below MAX_ABSENT_CHANCE ÷ the securities weighed."""
    left = len(held) - len(kept or ())
    if left < MIN_ABSENT:
        return False
    chance = binomial(len(held), left, books.leaving())
    return chance <= MAX_ABSENT_CHANCE / max(len(books.sides[0]), 1)  # spread over every security weighed


def acquired(cusip: str, held: Holders, kept: Holders | None, citing: Citing) -> CorporateAction:
    """A security that left every book with nothing gained in its place: acquired for cash."""
    price = Decimal(str(round(ratios.price(held), 2))).quantize(Decimal("0.01"))
    what = (
        f"{cusip} left the books of {len(held) - len(kept or ())} of its {len(held)} holders and they gained no "
        f"security in its place: acquired for cash (the price is the last one the holders filed, ${price:,} a share)"
    )
    found = Found(len(held), len(held) - len(kept or ()), None, what, price)
    return citing.leg(ActionKind.CASH_MERGER, cusip, "", Fraction(1), found)
