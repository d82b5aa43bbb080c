"""The holders' books between two quarter ends, and how a leg they decide is cited; pure."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from fractions import Fraction
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
        reads: one holder's gain fits any ratio)."""
        holders = [(cik, shares) for cik, shares in zip(held.ciks, held.shares, strict=True) if shares > 0]
        gained = [self._gained(cik) for cik, _ in holders]
        counts = Counter(chain.from_iterable(gained))  # in C: a holder's book may be 50,000 rows, each vanished asks
        counts.pop(cusip, None)
        shared = {other for other, count in counts.items() if count >= least}
        pairs: dict[str, list[tuple[int, int]]] = {}
        for (_, shares), gains in zip(holders, gained, strict=True):
            for other in shared.intersection(gains) if shared else ():
                pairs.setdefault(other, []).append((shares, gains[other]))
        return Gains(len(counts), pairs)

    def _gained(self, cik: int) -> dict[str, int]:
        """Other CUSIP → the shares of it filer `cik` gained between the quarter ends, made once per filer."""
        found = self._gains.get(cik)
        if found is None:
            had = self.of(0).get(cik, {})
            found = {c: now - had.get(c, 0) for c, now in self.of(1).get(cik, {}).items() if now > had.get(c, 0)}
            self._gains[cik] = found
        return found


class Gains(NamedTuple):
    """What the holders of a security gained of others: how many others, and the pairs of those two or more gained."""

    others: int
    pairs: dict[str, list[tuple[int, int]]]


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
