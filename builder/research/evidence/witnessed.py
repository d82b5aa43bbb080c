"""The holders' books between two quarter ends, and how a leg they decide is cited; pure."""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from fractions import Fraction
from functools import cached_property
from itertools import chain
from typing import NamedTuple

from builder.records import ActionEvidence, ActionKind, CorporateAction, Holders, Witnesses
from builder.research.evidence.ratios import ratio_text


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the holders decide between two quarter ends: derived legs, and the CUSIPs whose fate they settle (an
    event, or none: a change of such a CUSIP is a trade unless a leg says otherwise)."""

    legs: tuple[CorporateAction, ...]
    settled: frozenset[str]
    born: frozenset[str] = frozenset()  # securities new in the quarter: no filer held them at the earlier end
    seen: Mapping[str, int] = field(default_factory=dict)  # CUSIP → its holders at the earlier end (else the later)
    origin: str = ""  # Witnesses.origin of the books weighed ("" when none covered the quarter ends)
    steady: frozenset[str] = frozenset()  # securities a holder kept about as many shares of: no split
    books: FilerBooks | None = (
        None  # the holders' books at both quarter ends: what bears out or refutes one book's story
    )
    # what the holders settle or refute a split of: every book of the quarter asks, so it is made with the Evidence
    closed: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "closed", self.settled | self.steady)


NO_EVIDENCE = Evidence((), frozenset())
# Habits.chance: every filer's values weigh beside a filer's own as if this many of them were its own too.
POOLED_WEIGHT = 20


def pack_witnesses(books: Iterable[tuple[str, date, Iterable[tuple[str, int, int]]]]) -> Witnesses:
    """Witnesses from the pack's own filings: `books` yields (cik, quarter end, (cusip, shares, value) of each
    long-equity holding)."""
    grouped: dict[date, dict[str, list[tuple[int, int, int]]]] = {}
    filers: dict[date, set[str]] = {}
    for cik, quarter, lots in books:
        filers.setdefault(quarter, set()).add(cik)
        by_cusip = grouped.setdefault(quarter, {})
        number = int(cik)
        for cusip, shares, value in lots:  # a row per holding of every book: no call it can spare
            rows = by_cusip.get(cusip)
            if rows is None:
                by_cusip[cusip] = [(number, shares, value)]
            else:
                rows.append((number, shares, value))
    quarters = {q: {c: holders_of(rows) for c, rows in by_cusip.items()} for q, by_cusip in grouped.items()}
    return Witnesses("pack-filings", (), quarters, {q: len(ciks) for q, ciks in filers.items()})


def holders_of(rows: Iterable[tuple[int, int, int]]) -> Holders:
    """Holders from (cik, shares, value) rows, one per filer."""
    ordered = sorted(rows)
    if not ordered:
        return Holders(array("q"), array("q"), array("q"))
    ciks, shares, values = zip(*ordered, strict=True)
    return Holders(array("q", ciks), array("q", shares), array("q", values))


class FilerBooks:
    """Each filer's book at both quarter ends (CIK → CUSIP → shares), built when first asked."""

    def __init__(self, before: Mapping[str, Holders], after: Mapping[str, Holders]) -> None:
        self.sides = (before, after)
        self._books: list[dict[int, dict[str, int]] | None] = [None, None]
        self._leaving: float | None = None
        self._growing: float | None = None
        self._gains: dict[int, dict[str, int]] = {}
        self._ordered: dict[tuple[int, int], tuple[list[int], list[str]]] = {}

    def of(self, side: int) -> dict[int, dict[str, int]]:
        books = self._books[side]
        if books is None:
            books = {}
            for cusip, holders in self.sides[side].items():
                for cik, shares in zip(holders.ciks, holders.shares, strict=True):  # a row per holding: no setdefault
                    book = books.get(cik)
                    if book is None:
                        book = books[cik] = {}
                    book[cusip] = shares
            self._books[side] = books
        return books

    def ordered(self, cik: int, side: int) -> tuple[list[int], list[str]]:
        """Filer `cik`'s book at `side`, ordered by share count: the counts, and their CUSIPs; made once."""
        found = self._ordered.get((cik, side))
        if found is None:
            book = sorted((shares, cusip) for cusip, shares in self.of(side).get(cik, {}).items())
            found = self._ordered[(cik, side)] = ([shares for shares, _ in book], [cusip for _, cusip in book])
        return found

    def leaving(self) -> float:
        """The share of the earlier positions (a filer's holding of a security) gone at the later end."""
        if self._leaving is None:
            before, after = self.of(0), self.of(1)
            held = sum(len(book) for book in before.values())
            gone = sum(len(book.keys() - after.get(cik, {}).keys()) for cik, book in before.items())
            self._leaving = gone / held if held else 0.0
        return self._leaving

    def growing(self) -> float:
        """The share of the positions held at both ends whose shares grew."""
        if self._growing is None:
            before, after = self.of(0), self.of(1)
            both = grew = 0
            for cik, book in before.items():
                later = after.get(cik, {})
                for cusip, shares in book.items():
                    now = later.get(cusip)
                    if now is not None:
                        both += 1
                        grew += now > shares
            self._growing = grew / both if both else 0.0
        return self._growing

    def gains(self, cusip: str, held: Holders, least: int) -> Gains:
        """What the holders of `cusip` gained of other securities: every one counted, and (shares of `cusip` before,
        shares of the other gained) of each holder for those `least` or more of them gained (the fewest any rule
        reads: one holder's gain fits any ratio), with the holders' CIKs in the same order."""
        holders = [(cik, shares) for cik, shares in zip(held.ciks, held.shares, strict=True) if shares > 0]
        gained = [self._gained(cik) for cik, _ in holders]
        counts = Counter(chain.from_iterable(gained))  # in C: a holder's book may be 50,000 rows, each vanished asks
        counts.pop(cusip, None)
        shared = {other for other, count in counts.items() if count >= least}
        pairs: dict[str, list[tuple[int, int]]] = {}
        ciks: dict[str, list[int]] = {}
        for (cik, shares), gains in zip(holders, gained, strict=True):
            for other in shared.intersection(gains) if shared else ():
                pairs.setdefault(other, []).append((shares, gains[other]))
                ciks.setdefault(other, []).append(cik)
        return Gains(len(counts), pairs, ciks)

    @cached_property
    def gained(self) -> Habits:
        """What the filers' gains between the quarter ends look like, in shares."""
        return Habits(_gains_in, self.of(0), self.of(1), False)

    @cached_property
    def moved(self) -> Habits:
        """What the moves of the positions filers kept look like: shares after ÷ shares before."""
        return Habits(_moves_in, self.of(0), self.of(1), True)

    def _gained(self, cik: int) -> dict[str, int]:
        """Other CUSIP → the shares of it filer `cik` gained between the quarter ends, made once per filer."""
        found = self._gains.get(cik)
        if found is None:
            found = self._gains[cik] = _gained_in(self.of(0).get(cik, {}), self.of(1).get(cik, {}))
        return found


def _gained_in(before: Mapping[str, int], after: Mapping[str, int]) -> dict[str, int]:
    """Other CUSIP → the shares of it a book gained from `before` to `after`."""
    return {c: now - before.get(c, 0) for c, now in after.items() if now > before.get(c, 0)}


def _gains_in(before: Mapping[str, int], after: Mapping[str, int]) -> list[float]:
    return list(_gained_in(before, after).values())


def _moves_in(before: Mapping[str, int], after: Mapping[str, int]) -> list[float]:
    """Shares after ÷ shares before of each position a book kept from `before` to `after`."""
    return [now / had for c, now in after.items() if (had := before.get(c, 0)) > 0]


class Habits:
    """What one measure of the filers' trading between two quarter ends looks like (a gain's shares, a kept
    position's move): each filer's values ordered, and every filer's, made when first asked."""

    def __init__(
        self,
        measure: Callable[[Mapping[str, int], Mapping[str, int]], list[float]],
        before: Mapping[int, Mapping[str, int]],
        after: Mapping[int, Mapping[str, int]],
        relative: bool,
    ) -> None:
        self.measure, self.before, self.after = measure, before, after
        self.relative = relative  # values are per share held before (a move), not shares (a gain)
        self.filers: dict[int, list[float]] = {}
        self._pooled: array[float] | None = None

    def chance(self, cik: int, low: float, high: float, own: float, asked: list[float]) -> float:
        """The share of filer `cik`'s values within [low, high], as if POOLED_WEIGHT of every filer's were its own too
        (a filer that trades little shows little of its habits), leaving out the security asked about: its own
        value `own`, and every holder's (`asked`, ordered) from every filer's."""
        mine = self.filers.get(cik)
        if mine is None:
            mine = self.filers[cik] = sorted(self.measure(self.before.get(cik, {}), self.after.get(cik, {})))
        if self._pooled is None:  # every filer's, not kept per filer: most filers are never asked; 8 bytes each
            pooled = chain.from_iterable(self.measure(self.before.get(c, {}), book) for c, book in self.after.items())
            self._pooled = array("d", sorted(pooled))
        own_in = int(low <= own <= high)
        inside = bisect_right(mine, high) - bisect_left(mine, low) - own_in
        landed = bisect_right(self._pooled, high) - bisect_left(self._pooled, low)
        everyone = (landed - (bisect_right(asked, high) - bisect_left(asked, low))) / max(
            len(self._pooled) - len(asked), 1
        )
        return (inside + POOLED_WEIGHT * everyone) / max(len(mine) - own_in + POOLED_WEIGHT, 1)


class Gains(NamedTuple):
    """What the holders of a security gained of others: how many others, and the pairs of those two or more gained
    (and whose they are, in the same order)."""

    others: int
    pairs: dict[str, list[tuple[int, int]]]
    ciks: dict[str, list[int]]


@dataclass(frozen=True, slots=True)
class Found:
    """What the holders show for one leg: how many held the security, how many fit, their ratios, in words."""

    holders: int
    agreeing: int
    spread: tuple[float, float] | None
    what: str
    cash: Decimal | None = None


@dataclass(frozen=True, slots=True)
class Citing:
    """Where the evidence comes from and which quarter ends bound it: makes the legs it decides."""

    witnesses: Witnesses
    earlier: date
    later: date

    def leg(self, kind: ActionKind, cusip: str, new_cusip: str, ratio: Fraction, found: Found) -> CorporateAction:
        text = ratio_text(ratio) if kind is not ActionKind.CASH_MERGER else ""
        record = f"evidence:{self.later.isoformat()}:{cusip}>{new_cusip or kind.value}"
        spread = (f"{found.spread[0]:.4f}", f"{found.spread[1]:.4f}") if found.spread else None
        evidence = ActionEvidence(
            self.earlier, found.holders, found.agreeing, spread, self.witnesses.origin, self.witnesses.sources
        )
        source = f"evidence of the holders' 13F books at {self.earlier} and {self.later}, from {self._origin()}: "
        return CorporateAction(
            self.later, kind, cusip, new_cusip, ratio, text, found.cash, source + found.what, record, evidence=evidence
        )

    def _origin(self) -> str:
        if self.witnesses.sources:
            return "the SEC's Form 13F data sets (" + ", ".join(self.witnesses.sources) + ")"
        return "the pack's own 13F filings"
