"""Whether the other holders of a security bear out a story one book's change suggests; pure.

One manager's book can only flag a change that looks like a corporate action: a position that ended beside a new one
of about the same value, shares that moved by a split's ratio, a new position that is a fraction of one held. Such
arithmetic fits unrelated trades often (two real managers' 2015-2016 filings gave 14 real trades read as mergers
into whatever the book happened to buy, and as 3:2 splits that never happened). A story is told only where a witness
bears it out: another holder of the security, at the same two quarter ends, whose book fits the same event. Where
the other holders' books refute it (they kept the shares a merger would have taken, their counts did not split),
the change is a trade; where no other holder is seen, or their books neither fit nor refute it (they traded beside
it), or too few fit for chance to be ruled out, nothing decides it.

The standard is lower than deciding (builder.research.evidence.decide), and of the same kind: enough holders must fit
(a quarter of those concerned, AGREE, so that a few coincidences among thousands of filers tell no story), and
chance must rarely make so many fit: at most MAX_CHANCE, at the rate holders do the same by trading, spread over
every security weighed (as events.absent spreads it: a quarter weighs thousands, and one in a thousand fits by
chance). Two filers that sold out the quarter a third filer's cash-merger candidate vanished are no witnesses: a
tenth of positions end every quarter.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from builder.research.evidence.chance import MAX_CHANCE, binomial
from builder.research.evidence.events import AGREE, FEW_SPLIT_TRADE, MIN_SPLIT_MOVE, VANISHED
from builder.research.evidence.witnessed import FilerBooks
from builder.research.schema import Candidate

# A witness fits an event within a trade beside it of this share of the shares the event gives (as the few may show
# a split beside a trade: events.FEW_SPLIT_TRADE), or within ROUNDING_SHARES.
SUPPORT_TOLERANCE = FEW_SPLIT_TRADE
ROUNDING_SHARES = 3
# The chance a holder's trading lands its count within SUPPORT_TOLERANCE of one given figure: the window's width,
# as a share of the figure (holders' trades spread over far wider ranges).
LANDING = 2 * SUPPORT_TOLERANCE


class Verdict(enum.Enum):
    SUPPORTED = "supported"  # enough other holders' books fit it, more than chance would make fit: told, citing them
    REFUTED = "refuted"  # enough of them show what the event could not have left: a trade
    UNWITNESSED = "unwitnessed"  # no other holder held it, or their books neither fit nor refute it enough


@dataclass(frozen=True, slots=True)
class Support:
    """What the other holders' books say of one candidate."""

    relevant: int  # other holders of the security the candidate is about, at the quarter end it starts from
    fitting: int  # of them, those whose books fit the candidate's event
    contrary: int  # of them, those whose books show what the event could not have left (a count kept, not split)
    chance: float  # that a holder's book fits it by trading alone
    weighed: int = 1  # securities the holders' books hold at the earlier end: the chances taken

    @property
    def verdict(self) -> Verdict:
        needed = max(1, math.ceil(AGREE * self.relevant))
        if self.relevant == 0:
            return Verdict.UNWITNESSED
        if self.fitting >= needed and binomial(self.relevant, self.fitting, self.chance) <= MAX_CHANCE / self.weighed:
            return Verdict.SUPPORTED
        return Verdict.REFUTED if self.contrary >= needed else Verdict.UNWITNESSED

    def cited(self, candidate: Candidate, what: str) -> Candidate:
        """A supported candidate citing its witnesses (how many other holders fit `what`, of how many); any other as
        it is (an unsupported one is never told)."""
        if self.verdict is not Verdict.SUPPORTED:
            return candidate
        held = f"{self.relevant} other holder{'s' if self.relevant != 1 else ''}"
        return {**candidate, "text": f"{candidate['text']} (witnessed: {self.fitting} of the {held} {what})"}


NONE_SEEN = Support(0, 0, 0, 1.0)


def split(books: FilerBooks | None, cusip: str, factor: Fraction, own: int) -> Support:
    """Other holders of `cusip` at both ends whose shares moved by `factor`; contrary, those that kept about as many
    (within ×/÷ MIN_SPLIT_MOVE: a split would have multiplied them)."""
    if books is None:
        return NONE_SEEN
    before, after = books.sides
    earlier = dict(zip(before[cusip].ciks, before[cusip].shares, strict=True)) if cusip in before else {}
    pairs = [
        (earlier[cik], shares)
        for cik, shares in (zip(after[cusip].ciks, after[cusip].shares, strict=True) if cusip in after else ())
        if cik != own and earlier.get(cik, 0) > 0
    ]
    fitting = sum(_fits(now, had * float(factor)) for had, now in pairs)
    contrary = sum(1 / MIN_SPLIT_MOVE < now / had < MIN_SPLIT_MOVE for had, now in pairs)
    return Support(len(pairs), fitting, contrary, LANDING, max(len(before), 1))


def merger(books: FilerBooks | None, before: str, after: str, ratio: Fraction, own: int) -> Support:
    """Other holders of `before` at the earlier end that no longer hold it and gained `ratio` of `after` per share;
    contrary, those that still hold it (it was not merged away)."""
    if books is None or before not in books.sides[0]:
        return NONE_SEEN
    relevant = fitting = contrary = 0
    for shares, now, gained in _others(books, before, after, own):
        relevant += 1
        fitting += now.get(before, 0) == 0 and _fits(gained, shares * float(ratio))
        contrary += now.get(before, 0) > 0
    # each left the one, and landed on the other's count
    return Support(relevant, fitting, contrary, books.leaving() * LANDING, max(len(books.sides[0]), 1))


def distribution(books: FilerBooks | None, parent: str, child: str, ratio: Fraction | None, own: int) -> Support:
    """Other holders of `parent` at both ends that gained `child`: `ratio` of it per parent share (any amount when
    None: a distribution into classes already held, whose ratio one book cannot see); contrary, those that kept it
    and gained none (a distribution gives every holder of the parent some)."""
    if books is None or parent not in books.sides[0]:
        return NONE_SEEN
    relevant = fitting = contrary = 0
    for shares, now, gained in _others(books, parent, child, own):
        if not now.get(parent):
            continue
        relevant += 1
        fitting += gained > 0 if ratio is None else _fits(gained, shares * float(ratio))
        contrary += gained <= 0
    # a gain of any size is what holders' buying gives as often as positions grow; of one size, seldom
    chance = books.growing() if ratio is None else books.growing() * LANDING
    return Support(relevant, fitting, contrary, chance, max(len(books.sides[0]), 1))


def acquisition(books: FilerBooks | None, cusip: str, own: int) -> Support:
    """Other holders of `cusip` at the earlier end that hold none at the later one, where (almost) every holder left
    it (a security acquired for cash leaves every book); contrary, those that still hold it."""
    if books is None or cusip not in books.sides[0]:
        return NONE_SEEN
    others = [cik for cik in books.sides[0][cusip].ciks if cik != own]
    staying = {cik for cik in books.sides[1][cusip].ciks if cik != own} if cusip in books.sides[1] else set()
    left = 0 if len(staying) > VANISHED * max(len(others), 1) else sum(cik not in staying for cik in others)
    contrary = sum(cik in staying for cik in others)
    return Support(len(others), left, contrary, books.leaving(), max(len(books.sides[0]), 1))


def _others(books: FilerBooks, security: str, gained_in: str, own: int) -> Iterator[tuple[int, dict[str, int], int]]:
    """Each other holder of `security` at the earlier end: its shares of it then, its book at the later end, and the
    shares of `gained_in` it gained between."""
    first, then = books.of(0), books.of(1)
    held = books.sides[0][security]
    for cik, shares in zip(held.ciks, held.shares, strict=True):
        if cik != own and shares > 0:
            now = then.get(cik, {})
            yield shares, now, now.get(gained_in, 0) - first.get(cik, {}).get(gained_in, 0)


def _fits(got: int, expected: float) -> bool:
    return expected > 0 and abs(got - expected) <= max(ROUNDING_SHARES, SUPPORT_TOLERANCE * expected)
