"""Spin-offs and distributions, as the holders of a security new in the quarter (or grown by a third) show them;
pure. builder.research.evidence.decide asks it of every such security; the thresholds say how much the holders
must show (builder.research.evidence.events holds the ones every event shares).
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter
from fractions import Fraction
from itertools import chain

from builder.records import ActionKind, CorporateAction, Holders
from builder.research.evidence import ratios
from builder.research.evidence.chance import rare
from builder.research.evidence.events import AGREE, MIN_WITNESSES, Proof
from builder.research.evidence.ratios import EXACT_TOLERANCE, ROUNDING_SHARES, SLACK, Pairs, ratio_text
from builder.research.evidence.witnessed import Citing, FilerBooks, Found, holders_of

# A security its holders together hold this much more of (a third) is looked at for a distribution into it.
DISTRIBUTED = 1 / 3
GROWN_AGREE = 0.5  # and the gains must fit this share of its gainers and of the parent's holders
# What the few may show of a distribution (events.Proof: a fit counts when chance would rarely give it).
FEW_DISTRIBUTIONS = frozenset(Fraction(n, d) for n, d in ((1, 20), (1, 10), (1, 5), (1, 4), (1, 3), (1, 2), (1, 1), (2, 1), (3, 1)))  # fmt: skip
FEW_FLOATS = tuple(float(ratio) for ratio in FEW_DISTRIBUTIONS)


def grown(prior: Holders | None, held: Holders) -> Holders | None:
    """What the holders at both ends gained of a security whose holders together grew it by DISTRIBUTED or more (a
    distribution into a class they held: Liberty Global's second LiLAC of 2016), as Holders; None otherwise."""
    if prior is None or len(prior) < MIN_WITNESSES or ratios.total(held) < (1 + DISTRIBUTED) * ratios.total(prior):
        return None
    earlier = dict(zip(prior.ciks, prior.shares, strict=True))
    rows = [
        (cik, n - earlier[cik], 0) for cik, n in zip(held.ciks, held.shares, strict=True) if n > earlier.get(cik, n)
    ]
    return holders_of(rows) if len(rows) >= MIN_WITNESSES else None


def _near_distribution(pairs: Pairs) -> bool:
    """Whether a pair comes within a share of fitting one of FEW_DISTRIBUTIONS exactly (in floats, so a share of
    slack): what the few must show before their ratio is worth stating."""
    for before, after in pairs:  # plain loops, allowance() inlined: it is asked of every pair of the few's parents
        for ratio in FEW_FLOATS:
            expected = before * ratio
            if abs(after - expected) <= max(ROUNDING_SHARES, expected * EXACT_TOLERANCE) + 1:
                return True
    return False


def _least(needed: int, parent: Holders, share: float, proof: Proof) -> float:
    """The holders that must fit a parent held by `parent` (spun_off)."""
    return max(needed, proof.needed(len(parent)), share * len(parent))


def _passing(
    cusip: str, held: Holders, books: FilerBooks, asked: tuple[int, float, Proof], near: set[str] | None
) -> dict[str, float]:
    """Parent → the holders that must fit it, of the parents enough of the holders held (of `near` only, if given).
    A parent needs that many holders fitting it (`agreeing` counts holders): one that fewer of them held cannot pass,
    so the holders' pairs are gathered only for the others."""
    needed, share, proof = asked
    before = books.of(0)
    if near is None:
        held_by = Counter(chain.from_iterable(before.get(cik, {}) for cik in held.ciks))
        enough = [(parent, count) for parent, count in held_by.items() if count >= needed]  # most parents fall here
    else:
        had = [before.get(cik, {}) for cik in held.ciks]
        enough = [(parent, count) for parent in near if (count := sum(parent in book for book in had)) >= needed]
    return {
        parent: least
        for parent, count in enough
        if parent != cusip and count >= (least := _least(needed, books.sides[0][parent], share, proof))
    }


def _parent_pairs(
    held: Holders, books: FilerBooks, passing: dict[str, float], settled: set[str], few: bool
) -> tuple[dict[tuple[str, int], Pairs], dict[tuple[str, int], list[int]]]:
    """(parent, the side whose count of it the child is measured on) → (the parent's shares, the child's) of each
    holder that kept the parent; and those holders' CIKs, in the same order."""
    before, after = books.of(0), books.of(1)
    parents: dict[tuple[str, int], Pairs] = {}
    ciks: dict[tuple[str, int], list[int]] = {}
    for cik, shares in zip(held.ciks, held.shares, strict=True) if passing else ():
        had_of, now_of = before.get(cik, {}), after[cik]
        for parent in passing.keys() & had_of.keys():
            had = had_of[parent]
            if had > 0 and (parent in settled or few) and now_of.get(parent):
                parents.setdefault((parent, 0), []).append((had, shares))
                ciks.setdefault((parent, 0), []).append(cik)
                if few:  # one book may have traded the parent before the record date: its later count too
                    parents.setdefault((parent, 1), []).append((now_of[parent], shares))
                    ciks.setdefault((parent, 1), []).append(cik)
    return parents, ciks


def _near_parents(held: Holders, books: FilerBooks) -> set[str]:
    """The securities some holder holds (at either quarter end) near a count that one of FEW_DISTRIBUTIONS makes
    its shares of the child from: every parent `_near_distribution` admits, and a few more, found by bisection in
    each holder's book ordered by count (a book may be 50,000 rows; a quarter may have thousands of new securities)."""
    found: set[str] = set()
    for cik, shares in zip(held.ciks, held.shares, strict=True):
        # |shares - count × ratio| <= max(ROUNDING_SHARES, count × ratio × EXACT_TOLERANCE) + 1 puts count × ratio in
        low = min(shares - ROUNDING_SHARES - 1, (shares - 1) / (1 + EXACT_TOLERANCE))
        high = max(shares + ROUNDING_SHARES + 1, (shares + 1) / (1 - EXACT_TOLERANCE))
        for side in (0, 1):
            counts, cusips = books.ordered(cik, side)
            for ratio in FEW_FLOATS:
                start = bisect_left(counts, low / ratio / SLACK)
                found.update(cusips[start : bisect_right(counts, high / ratio * SLACK)])
    return found


def spun_off(
    cusip: str,
    held: Holders,
    books: FilerBooks,
    settled: set[str],
    citing: Citing,
    proof: Proof,
    *,
    new: bool = True,
    weighed: int = 1,
) -> list[CorporateAction]:
    """A new security whose holders received it at one ratio to a security they kept: a spin-off of it; or, not
    `new`, a security whose holders' gains (`held`) stand in one ratio to a security they kept: distributed into.
    The many are believed where chance would rarely make so many fit, over every parent tried, of `weighed`
    securities asked (builder.research.evidence.chance)."""
    # a distribution into a class the holders held is sought among every security they hold: it must fit most
    # of them, and most of the parent's holders, to outweigh the chance of so many tries
    share = AGREE if new else GROWN_AGREE
    # a child decided by the many is tried against every security its holders kept, hundreds for a few holders of
    # large books: two of them at one ratio among eight is what chance gives once in a few hundred parents (on a
    # hedge fund's held-out filings, 9 spin-offs between unrelated issuers, each on two agreeing holders), three almost
    # never
    needed = (
        (max(MIN_WITNESSES, proof.needed(len(held))) if not proof.few else proof.needed(len(held)))
        if new
        else max(MIN_WITNESSES, math.ceil(share * len(held)))
    )
    # the few fit only near a distribution ratio: their books are asked first for the counts near one
    near = _near_parents(held, books) if proof.few else None
    passing = _passing(cusip, held, books, (needed, share, proof), near)
    parents, ciks = _parent_pairs(held, books, passing, settled, proof.few)
    asked = sorted((key, pairs) for key, pairs in parents.items() if len(pairs) >= passing[key[0]])
    fits: list[tuple[int, tuple[str, int], Fraction, tuple[float, float]]] = []
    for (parent, side), pairs in asked:
        if proof.few and not _near_distribution(pairs):
            continue  # only a distribution ratio can pass below: spare stating every parent's ratio
        if ratios.most_fitting(pairs, proof.tolerance) < passing[parent]:
            continue  # no one ratio could fit enough of them
        fit = ratios.common_ratio(pairs, proof.tolerance)
        if fit is None:
            continue
        stated = ratios.stated(fit[0], pairs, proof.tolerance)
        agreeing = ratios.agreeing(pairs, stated, proof.tolerance)
        # most of the parent's holders received the child too (a few sell it at once), more than chance makes fit
        holders = [(cik, *pair) for cik, pair in zip(ciks[(parent, side)], pairs, strict=True)]
        if agreeing >= passing[parent] and (
            proof.few or rare(books.gained, holders, stated, proof.tolerance, agreeing, weighed * len(asked))
        ):
            fits.append((agreeing, (parent, side), stated, fit[2]))
    if proof.few and fits:  # one issuer's ratio, unlikely by chance, and only one parent that fits so
        every, _ = _parent_pairs(held, books, _passing(cusip, held, books, (needed, share, proof), None), settled, True)
        tried = len(every) * len(FEW_DISTRIBUTIONS)
        fits = [f for f in fits if f[2] in FEW_DISTRIBUTIONS and proof.unlikely(f[1][0], cusip, parents[f[1]], tried)]
        fits = fits if len({f[1][0] for f in fits}) == 1 else []
    if not fits:
        return []
    agreeing, (parent, _), stated, spread = max(fits, key=lambda f: (f[0], f[1]))
    what = (
        f"{cusip} is new at {citing.later}: {agreeing} of its {len(held)} holders received"
        if new
        else f"{agreeing} of the {len(held)} holders of {cusip} that hold more of it at {citing.later} gained"
    ) + (
        f" {ratio_text(stated)} per share of {parent}, which they kept (ratios {spread[0]:.4f}–{spread[1]:.4f}): a "
        "spin-off"
    )
    found = Found(len(books.sides[0][parent]), agreeing, spread, what)
    return [citing.leg(ActionKind.SPIN_OFF, parent, cusip, stated, found)]
