"""What happened to a security between two quarter ends, decided by what its holders filed; pure.

One book cannot tell a sale from an acquisition, or a new position from a merger into it; every holder of the
security can. A security that most of its holders still file after the quarter was not acquired; one that leaves
every book at once was, for the securities its holders gained at one ratio (a merger, an exchange, a CUSIP change)
or for cash when they gained none; a security whose holders' shares all moved by one simple ratio while its price
moved the other way was split; a new security that the holders of another received at one ratio, keeping the
other, was spun off. Each decision is a corporate-action leg like a hand record's (with its `evidence`), dated at the later
quarter end and citing its evidence: how many holders, how their ratios spread, which quarter ends.
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from fractions import Fraction
from statistics import median

from builder.records import ActionEvidence, ActionKind, CorporateAction, Holders, Witnesses

# Holders at the earlier quarter end a decision needs: with fewer, one filer's trading could pass for an event.
MIN_WITNESSES = 3
# A cash acquisition is decided from absence alone: it needs more holders, since a few holders of a small security
# may all sell in one quarter (each sells a given position with about a one-in-ten chance a quarter).
MIN_ABSENT = 5
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
# A holder fits a ratio within this share of the shares received, or within ROUNDING_SHARES (cash in lieu of a
# fraction per account: a filer's book sums several accounts, each losing less than a share).
RATIO_TOLERANCE = 0.0005
ROUNDING_SHARES = 3
# A holder counts for a ratio only when it received at least this many shares by it: below, the rounding allowance
# is too wide a share of what was received for a fit to mean anything (ten shares bought beside a big holding fit
# any tiny ratio). And a stated ratio lies within ×/÷ MAX_RATIO (a 1:50 reverse split, a 50:1 split).
PRECISE_SHARES = 300
MAX_RATIO = 100
# A vanished security whose holders mostly (at least this share) gained one other security at no one ratio was
# neither a merger that can be stated nor an acquisition for cash: it stays undecided.
GAINED = 0.75
# The holders' ratios are first grouped within this relative width (small holders' ratios round coarsely).
RATIO_WINDOW = 0.004
# A new security held at the later quarter end by holders of which at most this share held it before was born in
# the quarter (a spin-off, a merger's new shares, a new listing).
NEWBORN = 0.1
# Splits: a simple ratio with terms up to this (3:2, 4:1, 1:20, 1:35); the split explains at least this share of
# the price's move in log terms (holders who sold half while the price held did not go through a 1:2 split); and
# the holders' shares together moved by at least ×/÷ MIN_SPLIT_MOVE.
SPLIT_TERMS = 50
MIN_EXPLAINED = 0.5
MIN_SPLIT_MOVE = 1.3
SIMPLE_TERMS = 20  # an exchange or distribution ratio stated as n:d has both terms up to this
RATIO_DECIMALS = 4  # mergers state exchange ratios in at most four decimals (1.892, 0.9042)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the holders decide between two quarter ends: derived legs, and the CUSIPs whose fate they settle (an
    event, or none: a change of such a CUSIP is a trade unless a leg says otherwise)."""

    legs: tuple[CorporateAction, ...]
    settled: frozenset[str]


NO_EVIDENCE = Evidence((), frozenset())


def pack_witnesses(books: Iterable[tuple[str, date, Iterable[tuple[str, int, int]]]]) -> Witnesses:
    """Witnesses from the pack's own filings: `books` yields (cik, quarter end, (cusip, shares, value) of each
    long-equity holding)."""
    grouped: dict[date, dict[str, list[tuple[int, int, int]]]] = {}
    filers: dict[date, set[str]] = {}
    for cik, quarter, lots in books:
        filers.setdefault(quarter, set()).add(cik)
        by_cusip = grouped.setdefault(quarter, {})
        for cusip, shares, value in lots:
            by_cusip.setdefault(cusip, []).append((int(cik), shares, value))
    quarters = {q: {c: holders_of(rows) for c, rows in by_cusip.items()} for q, by_cusip in grouped.items()}
    return Witnesses("pack-filings", (), quarters, {q: len(ciks) for q, ciks in filers.items()})


def holders_of(rows: Iterable[tuple[int, int, int]]) -> Holders:
    """Holders from (cik, shares, value) rows, one per filer."""
    ordered = sorted(rows)
    return Holders(
        array("q", (r[0] for r in ordered)), array("q", (r[1] for r in ordered)), array("q", (r[2] for r in ordered))
    )


def decide(witnesses: Witnesses, earlier: date, later: date) -> Evidence:
    """The events the holders of each security show between `earlier` and `later`, and what they settle."""
    before, after = witnesses.quarters.get(earlier), witnesses.quarters.get(later)
    if not before or not after:
        return NO_EVIDENCE
    books = _Books(before, after)
    where = _Where(witnesses, earlier, later)
    legs: list[CorporateAction] = []
    settled: set[str] = set()
    vanished: list[tuple[str, Holders, Holders | None]] = []
    for cusip, held in before.items():
        if len(held) < MIN_WITNESSES:
            continue
        kept = after.get(cusip)
        share = len(kept) / len(held) if kept is not None else 0.0
        if share >= CONTINUED:
            settled.add(cusip)
            split = _split(cusip, held, kept, where) if kept is not None else None
            legs += [split] if split else []
        elif share <= VANISHED:
            vanished.append((cusip, held, kept))
    gains = {cusip: _gains(cusip, held, books) for cusip, held, _ in vanished}
    merged = {cusip: _successors(cusip, held, gains[cusip], books, where) for cusip, held, _ in vanished}
    targets = {leg.new_cusip for found in merged.values() for leg in found}
    for cusip, held, kept in vanished:
        found = merged[cusip]
        if not found and len(held) >= MIN_ABSENT and not _moved(held, gains[cusip], targets):
            found = [_acquired(cusip, held, kept, where)]
        legs += found
        settled.update((cusip, *(leg.new_cusip for leg in found)) if found else ())
    targets = {leg.new_cusip for leg in legs}
    for cusip, held in after.items():
        if cusip in settled or cusip in targets or len(held) < MIN_WITNESSES:
            continue
        prior = before.get(cusip)
        if prior is not None and len(prior) > NEWBORN * len(held):
            continue  # held before by some: not new, and too few earlier holders to settle it above
        spun = _spun_off(cusip, held, books, settled, where)
        legs += spun
        settled.add(cusip)  # a spin-off's child, or a new listing some holders bought
    return Evidence(tuple(legs), frozenset(settled))


class _Books:
    """Each filer's book at both quarter ends (CIK → CUSIP → shares), built when first asked."""

    def __init__(self, before: Mapping[str, Holders], after: Mapping[str, Holders]) -> None:
        self.sides = (before, after)
        self._books: list[dict[int, dict[str, int]] | None] = [None, None]

    def of(self, side: int) -> dict[int, dict[str, int]]:
        books = self._books[side]
        if books is None:
            books = {}
            for cusip, holders in self.sides[side].items():
                for cik, shares in zip(holders.ciks, holders.shares, strict=True):
                    books.setdefault(cik, {})[cusip] = shares
            self._books[side] = books
        return books


@dataclass(frozen=True, slots=True)
class _Where:
    """Where the evidence comes from, for the citation."""

    witnesses: Witnesses
    earlier: date
    later: date

    def cite(self, what: str) -> str:
        origin = (
            "the SEC's Form 13F data sets (" + ", ".join(self.witnesses.sources) + ")"
            if self.witnesses.sources
            else "the pack's own 13F filings"
        )
        return f"evidence of the holders' 13F books at {self.earlier} and {self.later}, from {origin}: {what}"

    def leg(self, kind: ActionKind, cusip: str, new_cusip: str, ratio: Fraction, found: _Found) -> CorporateAction:
        text = ratio_text(ratio) if kind is not ActionKind.CASH_MERGER else ""
        record = f"evidence:{self.later.isoformat()}:{cusip}>{new_cusip or kind.value}"
        spread = (f"{found.spread[0]:.4f}", f"{found.spread[1]:.4f}") if found.spread else None
        evidence = ActionEvidence(
            self.earlier, found.holders, found.agreeing, spread, self.witnesses.origin, self.witnesses.sources
        )
        return CorporateAction(
            self.later,
            kind,
            cusip,
            new_cusip,
            ratio,
            text,
            found.cash,
            self.cite(found.what),
            record,
            evidence=evidence,
        )


@dataclass(frozen=True, slots=True)
class _Found:
    """What the holders show for one leg: how many held the security, how many fit, their ratios, in words."""

    holders: int
    agreeing: int
    spread: tuple[float, float] | None
    what: str
    cash: Decimal | None = None


def _split(cusip: str, held: Holders, kept: Holders, where: _Where) -> CorporateAction | None:
    """The holders who kept the security all hold a simple multiple of their shares, and its price moved the other
    way: a split (or a reverse split)."""
    if 1 / MIN_SPLIT_MOVE < _total(kept) / max(_total(held), 1) < MIN_SPLIT_MOVE:
        return None  # the holders' shares together did not move like a split's: no per-holder look needed
    earlier = dict(zip(held.ciks, held.shares, strict=True))
    pairs = [(earlier[cik], shares) for cik, shares in zip(kept.ciks, kept.shares, strict=True) if earlier.get(cik)]
    fit = _common_ratio(pairs)
    if fit is None:
        return None
    ratio, agreeing, spread = fit
    simple = _simple(ratio, pairs, SPLIT_TERMS)
    if simple is None or simple == 1 or agreeing < max(MIN_AGREEING, math.ceil(AGREE * len(pairs))):
        return None
    price_move = _price(kept) / _price(held)
    market = price_move * float(simple)
    if price_move <= 0 or abs(math.log(market)) > (1 - MIN_EXPLAINED) * abs(math.log(price_move)):
        return None  # the price did not move the other way: the holders traded, the shares were not split
    what = (
        f"{agreeing} of the {len(pairs)} holders who filed {cusip} at both ends hold {ratio_text(simple)} of their "
        f"shares (ratios {spread[0]:.4f}–{spread[1]:.4f}), the price per share ×{price_move:.3f}: "
        f"a {ratio_text(simple)} split"
    )
    return where.leg(ActionKind.SPLIT, cusip, "", simple, _Found(len(held), agreeing, spread, what))


def _gains(cusip: str, held: Holders, books: _Books) -> dict[str, list[tuple[int, int]]]:
    """Other CUSIP → (shares of `cusip` before, shares of it gained) of each holder of `cusip` that gained it."""
    before, after = books.of(0), books.of(1)
    gains: dict[str, list[tuple[int, int]]] = {}
    for cik, shares in zip(held.ciks, held.shares, strict=True):
        had = before.get(cik, {})
        for other, now in after.get(cik, {}).items():
            if other != cusip and now > had.get(other, 0) and shares > 0:
                gains.setdefault(other, []).append((shares, now - had.get(other, 0)))
    return gains


def _successors(
    cusip: str, held: Holders, gains: dict[str, list[tuple[int, int]]], books: _Books, where: _Where
) -> list[CorporateAction]:
    """The securities the holders of a vanished security gained at one ratio each: a merger or exchange leg each."""
    legs = []
    needed = max(MIN_AGREEING, math.ceil(AGREE * len(held)))
    for other, pairs in sorted(gains.items()):
        if len(pairs) < needed:
            continue
        fit = _common_ratio(pairs)
        if fit is None or fit[1] < needed:
            continue
        ratio, agreeing, spread = fit
        stated = _stated(ratio, pairs)
        agreeing = _agreeing(pairs, stated)
        kind = ActionKind.EXCHANGE if other[:6] == cusip[:6] else ActionKind.MERGER
        what = (
            f"{cusip} left the books of {len(held) - len(books.sides[1].get(cusip, ()))} of its {len(held)} holders; "
            f"{agreeing} of them gained {ratio_text(stated)} {other} per share (ratios {spread[0]:.4f}–"
            f"{spread[1]:.4f}): a {kind.value}; any cash paid beside it is not in 13F books"
        )
        legs.append(where.leg(kind, cusip, other, stated, _Found(len(held), agreeing, spread, what)))
    return legs


def _moved(held: Holders, gains: dict[str, list[tuple[int, int]]], targets: set[str]) -> bool:
    """Whether most holders of a vanished security gained one other security (not one another event delivered):
    its shares may have become that security at no ratio the books show, so it was not plainly acquired for cash."""
    return any(len(pairs) >= GAINED * len(held) for other, pairs in gains.items() if other not in targets)


def _acquired(cusip: str, held: Holders, kept: Holders | None, where: _Where) -> CorporateAction:
    """A security that left every book with nothing gained in its place: acquired for cash."""
    price = Decimal(str(round(_price(held), 2))).quantize(Decimal("0.01"))
    what = (
        f"{cusip} left the books of {len(held) - len(kept or ())} of its {len(held)} holders and they gained no "
        f"security in its place: acquired for cash (the price is the last one the holders filed, ${price:,} a share)"
    )
    found = _Found(len(held), len(held) - len(kept or ()), None, what, price)
    return where.leg(ActionKind.CASH_MERGER, cusip, "", Fraction(1), found)


def _spun_off(cusip: str, held: Holders, books: _Books, settled: set[str], where: _Where) -> list[CorporateAction]:
    """A new security whose holders received it at one ratio to a security they kept: a spin-off of it."""
    before = books.of(0)
    parents: dict[str, list[tuple[int, int]]] = {}
    for cik, shares in zip(held.ciks, held.shares, strict=True):
        for parent, had in before.get(cik, {}).items():
            if parent != cusip and had > 0 and parent in settled:
                parents.setdefault(parent, []).append((had, shares))
    needed = max(MIN_AGREEING, math.ceil(AGREE * len(held)))
    best = None
    for parent, pairs in sorted(parents.items(), key=lambda item: (-len(item[1]), item[0])):
        if len(pairs) < needed:
            break
        fit = _common_ratio(pairs)
        # most of the parent's holders received the child too (a few sell it at once)
        enough = max(needed, math.ceil(AGREE * len(books.sides[0][parent])))
        if fit is not None and fit[1] >= enough and (best is None or fit[1] > best[1][1]):
            best = (parent, fit)
    if best is None:
        return []
    parent, (ratio, agreeing, spread) = best
    stated = _stated(ratio, parents[parent])
    agreeing = _agreeing(parents[parent], stated)
    what = (
        f"{cusip} is new at {where.later}: {agreeing} of its {len(held)} holders received {ratio_text(stated)} per "
        f"share of {parent}, which they kept (ratios {spread[0]:.4f}–{spread[1]:.4f}): a spin-off"
    )
    found = _Found(len(books.sides[0][parent]), agreeing, spread, what)
    return [where.leg(ActionKind.SPIN_OFF, parent, cusip, stated, found)]


def _common_ratio(pairs: list[tuple[int, int]]) -> tuple[Fraction, int, tuple[float, float]] | None:
    """The ratio (shares after ÷ before) that most of `pairs` fit, how many fit it, and the spread of theirs."""
    ratios = sorted(after / before for before, after in pairs if before > 0 and after > 0)
    if not ratios:
        return None
    best, best_count = 0, 0
    for index, ratio in enumerate(ratios):  # the densest window of RATIO_WINDOW from one holder's ratio up
        count = bisect_right(ratios, ratio * (1 + RATIO_WINDOW)) - index
        if count > best_count:
            best, best_count = index, count
    window = ratios[best : best + best_count]
    center = Fraction(median(window)).limit_denominator(10**6)
    agreeing = _agreeing(pairs, center)
    return center, agreeing, (window[0], window[-1])


def _fits(before: int, after: int, ratio: Fraction) -> bool:
    expected = before * ratio
    if expected < PRECISE_SHARES or not 1 / MAX_RATIO <= ratio <= MAX_RATIO:
        return False
    return abs(after - expected) <= max(ROUNDING_SHARES, expected * RATIO_TOLERANCE)


def _simple(ratio: Fraction, pairs: list[tuple[int, int]], terms: int) -> Fraction | None:
    """The nearest fraction with both terms up to `terms`, when it fits as many of `pairs` as `ratio` does."""
    simple = min(
        (Fraction(round(ratio * d), d) for d in range(1, terms + 1) if 1 <= round(ratio * d) <= terms),
        key=lambda candidate: (abs(candidate - ratio), candidate.denominator),
        default=None,
    )
    return simple if simple is not None and _agreeing(pairs, simple) >= _agreeing(pairs, ratio) else None


def _stated(ratio: Fraction, pairs: list[tuple[int, int]]) -> Fraction:
    """The ratio as an issuer states it: a simple fraction, else four decimals (1.892, 0.9042), whichever fits as
    many of `pairs` as the measured ratio does; else the measured one in six significant digits."""
    simple = _simple(ratio, pairs, SIMPLE_TERMS)
    if simple is not None:
        return simple
    four = Fraction(round(ratio * 10**RATIO_DECIMALS), 10**RATIO_DECIMALS)
    if four and _agreeing(pairs, four) >= _agreeing(pairs, ratio):
        return four
    return Fraction(Decimal(f"{float(ratio):.6g}"))


def _agreeing(pairs: list[tuple[int, int]], ratio: Fraction) -> int:
    """How many of `pairs` fit `ratio`; holders of the same share count fit together by chance, so they count once
    (a ratio is evidence when books of different sizes agree on it)."""
    return len({before for before, after in pairs if _fits(before, after, ratio)})


def ratio_text(ratio: Fraction) -> str:
    """new:old as corporate_actions.csv writes it: 4:1, 1:20, 3:2, 1.892:1."""
    if ratio.denominator <= 20 and ratio.numerator <= 20:
        return f"{ratio.numerator}:{ratio.denominator}"
    return f"{Decimal(ratio.numerator) / Decimal(ratio.denominator):f}".rstrip("0").rstrip(".") + ":1"


def _total(holders: Holders) -> int:
    return sum(holders.shares)


def _price(holders: Holders) -> float:
    """The holders' median implied price per share (a median: one filer's unit mistake moves no decision)."""
    prices = [value / shares for shares, value in zip(holders.shares, holders.values, strict=True) if shares > 0]
    return median(prices) if prices else 0.0
