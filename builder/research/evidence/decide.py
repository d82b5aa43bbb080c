"""What happened to a security between two quarter ends, decided by what its holders filed; pure.

One book cannot tell a sale from an acquisition, or a new position from a merger into it; every holder of the
security can. A security that most of its holders still file after the quarter was not acquired; one that leaves
every book at once was, for the securities its holders gained at one ratio (a merger, an exchange, a CUSIP change)
or for cash when they gained none; a security whose holders' shares all moved by one simple ratio while its price
moved the other way was split; a new security that the holders of another received at one ratio, keeping the
other, was spun off. Each decision is a corporate-action leg like a hand record's (with its `evidence`), dated at
the later quarter end and citing how many holders, how their ratios spread, which quarter ends.

Many holders outvote chance. A security with fewer holders than MIN_WITNESSES is decided only exactly: every holder
fits one ratio an issuer would use, to the share, where chance would rarely give that fit; one held by a single filer
(fewer than MIN_HOLDERS) is not decided at all. Either stays open for the single-book rules
(builder.research.changes.undecided), which can only flag it, and tell a story only where other holders bear it out.
"""

from __future__ import annotations

from datetime import date

from builder.records import CorporateAction, Holders, Witnesses
from builder.research.evidence.events import (
    CONTINUED,
    MIN_AGREEING,
    MIN_HOLDERS,
    MIN_WITNESSES,
    NEWBORN,
    VANISHED,
    Kin,
    Proof,
    absent,
    acquired,
    moved,
    same_issuer_code,
    split,
    steady,
    successors,
    unambiguous,
)
from builder.research.evidence.spinoffs import grown, spun_off
from builder.research.evidence.witnessed import NO_EVIDENCE, Citing, Evidence, FilerBooks

# The fewest holders of a vanished security whose gains of another any rule reads: the many's agreeing, the few's all
# (at least MIN_HOLDERS), most of them for `moved`.
GAINERS = min(MIN_AGREEING, MIN_HOLDERS)


def decide(witnesses: Witnesses, earlier: date, later: date, kin: Kin = same_issuer_code) -> Evidence:
    """The events the holders of each security show between `earlier` and `later`, and what they settle."""
    before, after = witnesses.quarters.get(earlier), witnesses.quarters.get(later)
    if not before or not after:
        return NO_EVIDENCE
    passes = _Passes(
        FilerBooks(before, after), Citing(witnesses, earlier, later), (Proof(False, kin), Proof(True, kin))
    )
    passes.vanished(passes.continued())
    passes.newborn()
    passes.distributed()
    seen = {cusip: len(held) for cusip, held in after.items()} | {cusip: len(held) for cusip, held in before.items()}
    return Evidence(
        tuple(passes.legs),
        frozenset(passes.settled),
        frozenset(passes.born),
        seen,
        witnesses.origin,
        frozenset(passes.steady),
        passes.books,
    )


class _Passes:
    """What the holders of every security show between two quarter ends, gathered in four passes."""

    def __init__(self, books: FilerBooks, citing: Citing, proofs: tuple[Proof, Proof]) -> None:
        self.books, self.citing, self.proofs = books, citing, proofs
        self.before, self.after = books.sides
        self.legs: list[CorporateAction] = []
        self.settled: set[str] = set()  # securities whose fate the holders decide: an event, or none
        self.born: set[str] = set()  # securities new in the quarter
        self.steady: set[str] = set()  # securities some holder kept about as many shares of: not split

    def proof(self, holders: Holders) -> Proof:
        return self.proofs[len(holders) < MIN_WITNESSES]

    def continued(self) -> list[tuple[str, Holders, Holders | None]]:
        """Splits of the securities most holders kept (settling them); the vanished ones, for the next pass."""
        vanished = []
        weighed = sum(len(held) >= MIN_HOLDERS for held in self.before.values())
        for cusip, held in self.before.items():
            if len(held) < MIN_HOLDERS:
                continue  # one filer's own book: nothing to decide it by
            kept = self.after.get(cusip)
            share = len(kept) / len(held) if kept is not None else 0.0
            if share >= CONTINUED and kept is not None:
                found = split(cusip, held, kept, self.citing, self.proof(held), self.books, weighed)
                self.legs += [found] if found else []
                self.settled.update((cusip,) if found or not self.proof(held).few else ())
                self.steady.update((cusip,) if not found and steady(held, kept) else ())
            elif share <= VANISHED:
                vanished.append((cusip, held, kept))
        return vanished

    def vanished(self, vanished: list[tuple[str, Holders, Holders | None]]) -> None:
        """What the vanished securities became: other securities at one ratio each, else cash if chance cannot
        explain the holders' leaving."""
        gains = {cusip: self.books.gains(cusip, held, GAINERS) for cusip, held, _ in vanished}
        merged = {
            cusip: successors(cusip, held, gains[cusip], self.books, self.citing, self.proof(held), len(vanished))
            for cusip, held, _ in vanished
        }
        merged = unambiguous(merged, self.books, self.proofs)
        targets = {leg.new_cusip for found in merged.values() for leg in found}
        for cusip, held, kept in vanished:
            found = merged[cusip]
            if not found and not moved(held, gains[cusip], targets, self.books):
                found = [acquired(cusip, held, kept, self.citing)] if absent(held, kept, self.books) else []
            self.legs += found
            self.settled.update((cusip, *(leg.new_cusip for leg in found)) if found else ())
        self.born.update(targets - set(self.before))

    def newborn(self) -> None:
        """The securities born in the quarter: spin-offs of a security their holders kept, or new listings."""
        targets = {leg.new_cusip for leg in self.legs}
        asked = []
        for cusip, held in self.after.items():
            prior = self.before.get(cusip)
            if cusip in self.settled or cusip in targets or (prior is not None and len(prior) > NEWBORN * len(held)):
                continue  # decided above, or held before by some: not new
            if len(held) < MIN_HOLDERS:
                continue  # one filer's own book: nothing to decide it by
            asked.append((cusip, held))
        for cusip, held in asked:
            proof = self.proof(held)
            spun = spun_off(cusip, held, self.books, self.settled, self.citing, proof, weighed=len(asked))
            self.legs += spun
            self.settled.update((cusip,) if spun or not proof.few else ())  # a child, or a new listing bought
            self.born.update((cusip,) if not proof.few else ())

    def distributed(self) -> None:
        """Distributions into a class the holders already held (Liberty Global's second LiLAC of 2016)."""
        decided = {leg.cusip for leg in self.legs} | {leg.new_cusip for leg in self.legs}
        growing = {
            c: g for c, held in self.after.items() if c not in decided and (g := grown(self.before.get(c), held))
        }
        parents = self.settled - set(growing)  # a class that grew by its own distribution is no parent of another's
        for cusip, gained in growing.items():
            self.legs += spun_off(
                cusip, gained, self.books, parents, self.citing, self.proofs[0], new=False, weighed=len(growing)
            )
