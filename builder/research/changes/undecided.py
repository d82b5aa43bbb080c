"""When no record decides a change: the rules that find the corporate actions (and omissions) a change may be; pure.

A rule reads one book and can only flag a change; its story is told only where a witness bears it out
(builder.research.evidence.support: another holder of the security whose book fits the same event), citing the
witnesses, with a corporate_actions.csv line an operator can paste once the public record confirms it. Where the
other holders' books refute it, the change is a trade. Where no other holder is seen: with the Form 13F data sets
covering both quarter ends there is no witness of any event (every filer's book is there), so the change is a
trade; without them the pack's own books are all there is, and the change is undecided with "no evidence" and no
story. Rules about the book itself (an omission the filing declares) need no other witness (changes.own).
The methods page states each rule, its thresholds and its measured precision on real filings.
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_left, bisect_right
from fractions import Fraction

from builder.research.changes.actions import ratio_text, record_line, todo
from builder.research.changes.carry import Carried, Lot
from builder.research.changes.grown import grown_classes
from builder.research.changes.own import no_evidence, omission, received_outside, unreported
from builder.research.changes.pairing import MAX_CHANCE, VALUE_BAND, Pairing, issuer_word, one_issuer, stated_ratio
from builder.research.changes.side import Side
from builder.research.evidence import support
from builder.research.evidence.support import Support, Verdict
from builder.research.schema import Candidate, CandidateRule

# (a) Split: the common split ratios, a 3-for-2 among them (Torchmark 2014), and the reverse splits 1:2 … 1:20.
SPLIT_FACTORS = tuple(
    sorted(
        {Fraction(n) for n in (2, 3, 4, 5, 7, 8, 10, 20)}
        | {Fraction(3, 2)}
        | {Fraction(1, n) for n in (2, 3, 4, 5, 7, 8, 10, 20)}
    )
)
MIN_MOVE = 1.4  # both the implied price per share and the share count moved by at least ×1.4 or ÷1.4
MAX_MARKET_MOVE = 2.0  # net of the split, the price moved at most ×2 or ÷2 in one quarter (2020 Q1 stayed inside)
# The split must explain at least this share of the price move (in log terms): a 50 % rally beside a halved
# position (Liberty's Formula One stock in 2016) is not a 1:2 reverse split.
MIN_EXPLAINED = 0.5
# (b) Stock merger: builder.research.changes.pairing (the value band, the stated ratios, the chance allowed).
# (c) Distribution: the child's shares a common fraction or multiple of a position still held, within rounding.
# Round lots (a multiple of ROUND_LOT) of another issuer match round positions by chance (20,000,000 Axalta bought
# = 400,000,000 Coca-Cola ÷ 20), so a round child must name the parent's issuer.
ROUND_LOT = 100
COMMON_RATIOS = tuple(
    Fraction(n, d)
    for n, d in (
        (1, 20),
        (1, 10),
        (1, 8),
        (1, 5),
        (1, 4),
        (1, 3),
        (1, 2),
        (1, 1),
        (2, 1),
        (3, 1),
        (4, 1),
        (5, 1),
        (10, 1),
    )
)
RATIO_FLOATS = tuple(float(ratio) for ratio in COMMON_RATIOS)
DISTRIBUTION_ROUNDING = 1e-5  # or one share per source row of each side, whichever is more

# (d) Cash merger: a position held whole (not reduced) through its last quarter, at an implied price that moved by at
# most this much over that quarter (a price pinned to a deal's), then absent, and filed by no manager of the pack at
# that quarter end (an acquired security is gone for everyone): acquired for cash, or sold.
PINNED_PRICE = 0.03
PAIRING = frozenset({"same-issuer", "same-value"})  # a position that paired with a new one was no cash merger
Flagged = dict[str, list[Candidate]]  # CUSIP → the candidate explanations of its change


def candidates(earlier: Side, later: Side, carried: Carried) -> Flagged:
    """CUSIP (of either side) → the candidate explanations the data allows for its change; empty when none."""
    found: Flagged = {}
    covered = later.evidence.origin == DATASETS  # every filer's book is a witness: no one seen is no one

    def add(cusips: tuple[str, ...], candidate: Candidate, witnessed: Support | None = None) -> None:
        verdict = Verdict.SUPPORTED if witnessed is None else witnessed.verdict  # None: a rule about the book itself
        if verdict is Verdict.REFUTED or (verdict is Verdict.UNWITNESSED and covered):
            return  # the other holders' books show no such event: a trade
        for cusip in cusips:
            found.setdefault(cusip, []).append(
                no_evidence(earlier, later, cusip) if verdict is Verdict.UNWITNESSED else candidate
            )

    # what the evidence settled no rule second-guesses; a parent whose distribution is recorded fell by its child's,
    # and a split another holder's steady count refutes (it would invent that holder a sale)
    spun = {parent for spun in carried.parents.values() for parent, _ in spun}
    closed = later.evidence.closed | spun if spun else later.evidence.closed
    gone = [x for x, shares in carried.shares.items() if shares >= 1 and x not in later.lots]
    new = [c for c in later.lots if carried.shares.get(c, 0) == 0]  # an omission is the book's own: never settled
    open_gone = [before for before in gone if before not in later.evidence.settled]
    moved = carried.moved
    for cusip in later.lots:
        touched = bool(moved.get(cusip)) if moved else False  # carried.touched, asked of every lot
        outside = received_outside(earlier, later, carried, cusip) if touched else None
        if outside:
            add((cusip,), outside)
        if not touched and cusip not in closed and cusip in earlier.lots and cusip in carried.shares:
            for candidate, witnessed in _splits(earlier, later, cusip):
                add((cusip,), candidate, witnessed)
    ended = Pairing(earlier, open_gone)
    for after in (c for c in new if c not in later.evidence.settled):
        same_key = ended.same_key(later.key(after))
        for before in same_key or ended.pairable(later.lots[after]):  # a CUSIP change in one position pairs alone
            paired = _pair(earlier, later, before, after)
            if paired:
                add((before, after), *paired)
    parents = _Parents(earlier, later)
    for child in (c for c in later.lots if c not in later.evidence.settled):
        for candidate, witnessed in _distributions(earlier, later, carried, child, parents):
            add((child,), candidate, witnessed)
    for child, (candidate, parent) in grown_classes(earlier, later, carried, frozenset(closed)).items():
        witnessed = support.distribution(later.evidence.books, parent, child, None, _own(later))
        add(
            (child,),
            witnessed.cited(candidate, f"holders of {later.key(parent)} gained {later.key(child)} too"),
            witnessed,
        )
    pairing = {cusip for cusip, found_for in found.items() if any(c["rule"] in PAIRING for c in found_for)}
    for before in (c for c in open_gone if c not in pairing):  # shares that became another security's: no cash
        acquired = _cash_merger(earlier, later, before)
        if acquired:
            add((before,), *acquired)
    held_after = {later.key(c) for c in later.lots} if later.omitted and gone else set()
    held_before = {later.key(c) for c in earlier.lots} if earlier.omitted else set()
    for before in gone:
        if later.omitted and later.key(before) not in held_after:
            add((before,), omission(earlier, later, before, vanished=True))
        if before not in earlier.lots:
            add((before,), unreported(later, carried, before))
    if earlier.omitted:
        # a position absent only from the omitting filing, held before and after it, is the one omitted: once that
        # names the omission, the other positions first filed after it were bought (a security born in the quarter
        # was in no book the earlier filing could omit it from)
        returned = [after for after in new if after in earlier.previous]
        for after in returned or new:
            if later.key(after) not in held_before and after not in later.evidence.born:
                add((after,), omission(earlier, later, after, vanished=False))
    return found


DATASETS = "sec13f-datasets"  # Witnesses.origin of the Form 13F data sets: every filer's book


def _own(side: Side) -> int:
    """The CIK of the side's book, as the witnesses' books key it (-1: none given)."""
    return int(side.cik) if side.cik else -1


def _splits(earlier: Side, later: Side, cusip: str) -> list[tuple[Candidate, Support]]:
    """(a) Same CUSIP, the implied price moved by about a common split ratio while the shares moved the other way;
    each with what the other holders of the security show of that ratio."""
    before, after = earlier.lots[cusip], later.lots[cusip]
    if min(before.shares, after.shares, before.value, after.value) <= 0:
        return []
    price_move = (after.value / after.shares) / (before.value / before.shares)
    shares_move = after.shares / before.shares
    if 1 / MIN_MOVE < price_move < MIN_MOVE or 1 / MIN_MOVE < shares_move < MIN_MOVE:
        return []
    found: list[tuple[float, tuple[Candidate, Support]]] = []
    for factor in SPLIT_FACTORS:
        market = price_move * float(factor)
        if (factor > 1) != (shares_move > 1) or not 1 / MAX_MARKET_MOVE <= market <= MAX_MARKET_MOVE:
            continue
        if abs(math.log(market)) > (1 - MIN_EXPLAINED) * abs(math.log(price_move)):
            continue  # the split explains too little of the price's move
        trade = after.shares / (before.shares * float(factor))
        name = later.key(cusip)
        text = (
            f"{name}: {before.shares:,} shares at {earlier.quarter}, {after.shares:,} at {later.quarter}, the price "
            f"per share ×{price_move:.3f}: fits a {ratio_text(factor)} split with the price ×{market:.2f} net of it "
            f"(and {f'{trade - 1:+.1%}'} shares traded beside it)"
        )
        record = record_line(
            later.quarter,
            "split",
            cusip,
            "",
            ratio_text(factor),
            "",
            todo(earlier.quarter, later.quarter, f"{name} split"),
        )
        score = abs(math.log(market)) + abs(math.log(trade))  # the likeliest: least market move and least trade
        witnessed = support.split(later.evidence.books, cusip, factor, _own(later))
        what = f"holders who filed {name} at both ends hold {ratio_text(factor)} of their shares"
        found.append((score, (witnessed.cited({"rule": "split", "text": text, "record": record}, what), witnessed)))
    return [candidate for _, candidate in sorted(found, key=lambda entry: entry[0])]


def _pair(earlier: Side, later: Side, before: str, after: str) -> tuple[Candidate, Support] | None:
    """(b) In one manager's quarter a position ended and another began: of the same issuer (names match, whatever
    the ratio), or of another issuer with about the same value (a stock merger); with what the other holders of the
    ended one show of it."""
    old, new = earlier.lots.get(before), later.lots[after]
    if old is None:
        return None
    if earlier.key(before) == later.key(after) and abs(new.shares - old.shares) <= old.rows + new.rows:
        return None  # one position under a new CUSIP, share for share: nothing to decide
    same_issuer = one_issuer(old, new) or earlier.key(before) == later.key(after)
    value_ratio = new.value / old.value if old.value > 0 else 0.0
    if not same_issuer and not 1 / VALUE_BAND <= value_ratio <= VALUE_BAND:
        return None
    stated = stated_ratio(old, new)
    if not same_issuer and stated is None:
        return None
    ratio = stated or (Fraction(new.shares, old.shares) if old.shares else Fraction(1))
    rule: CandidateRule = "same-issuer" if same_issuer else "same-value"
    kind = "exchange" if same_issuer else "merger"
    name_before, name_after = earlier.key(before), later.key(after)
    text = (
        f"{name_before} ({old.issuer}, {old.shares:,} shares, ${old.value:,}) ended and {name_after} ({new.issuer}, "
        f"{new.shares:,} shares, ${new.value:,}) began: "
        + (
            "the same issuer, a rename, exchange or consolidation"
            if same_issuer
            else "about the same value, a stock merger"
        )
        + (f" at {ratio_text(ratio)}" if stated else f" ({ratio_text(ratio)} by share count)")
    )
    # a line to paste only at a ratio an issuer would state and the values bear out: 192,666 Kraft shares "became"
    # 325,634,818 Kraft Heinz only with Heinz's own holders beside them, and no record of 1,690:1 is true
    # a part of a package may be worth less, never more; and a security another manager still files was not merged
    # away (the line would invent that manager a sale)
    fits = stated is not None and value_ratio <= VALUE_BAND and before not in later.alive
    record = (
        record_line(
            later.quarter,
            kind,
            before,
            after,
            ratio_text(ratio),
            "",
            todo(earlier.quarter, later.quarter, f"{name_before} into {name_after}"),
        )
        if fits
        else None
    )
    witnessed = support.merger(later.evidence.books, before, after, ratio, _own(later))
    what = f"holders of {name_before} left it and gained {ratio_text(ratio)} {name_after} per share"
    return witnessed.cited({"rule": rule, "text": text, "record": record}, what), witnessed


def _cash_merger(earlier: Side, later: Side, cusip: str) -> tuple[Candidate, Support] | None:
    """(d) A position held whole through a quarter at a pinned price, then gone: acquired for cash, or sold; with
    what the other holders of the security show (every holder leaves a security acquired for cash)."""
    last, before = earlier.lots.get(cusip), earlier.previous.get(cusip)
    if last is None or before is None or min(last.shares, before.shares, last.value, before.value) <= 0:
        return None
    if cusip in later.alive or later.omitted:  # still filed by the pack, or maybe omitted (confidential treatment)
        return None
    price, earlier_price = last.value / last.shares, before.value / before.shares
    if last.shares < before.shares or abs(price / earlier_price - 1) > PINNED_PRICE:
        return None
    name = earlier.key(cusip)
    text = (
        f"{name}: {last.shares:,} shares held whole through {earlier.quarter} at ${earlier_price:,.2f} then "
        f"${price:,.2f} a share (a price pinned to a deal's), none at {later.quarter}: acquired for cash, or sold"
    )
    record = record_line(
        later.quarter,
        "cash-merger",
        cusip,
        "",
        "",
        f"{price:.2f}",
        todo(
            earlier.quarter,
            later.quarter,
            f"{name} acquired for cash (the price is the last implied one: give the deal's)",
        ),
    )
    witnessed = support.acquisition(later.evidence.books, cusip, _own(later))
    what = f"holders of {name} hold none at {later.quarter}, as every holder of a security acquired for cash"
    return witnessed.cited({"rule": "cash-merger", "text": text, "record": record}, what), witnessed


class _Parents:
    """The positions held at both quarter ends (holders keep a spin-off's parent), indexed by share count; the index
    and the issuers made when a new position first asks (most books have none that could be a distribution)."""

    def __init__(self, earlier: Side, later: Side) -> None:
        self.earlier, self.later = earlier, later
        self.cusips = frozenset(earlier.lots) & frozenset(later.lots)

    @functools.cached_property
    def sides(self) -> tuple[tuple[Side, list[int], list[str]], ...]:  # per side: sorted share counts, their CUSIPs
        sides = []
        for side in (self.earlier, self.later):
            ordered = sorted((side.lots[c].shares, c) for c in self.cusips if side.lots[c].shares > 0)
            sides.append((side, [shares for shares, _ in ordered], [c for _, c in ordered]))
        return tuple(sides)

    @functools.cached_property
    def most_rows(self) -> int:
        return max((self.later.lots[c].rows for c in self.cusips), default=0)

    @functools.cached_property
    def issuers(self) -> tuple[frozenset[str], frozenset[str]]:  # the parents' CUSIP issuer codes and issuer words
        words = (issuer_word(self.later.lots[c].issuer) for c in self.cusips)
        return frozenset(c[:6] for c in self.cusips), frozenset(word for word in words if word)

    def kin(self, lot: Lot) -> bool:  # whether a parent may be of `lot`'s issuer (one_issuer: a code or a first word)
        codes, words = self.issuers
        return lot.cusip[:6] in codes or issuer_word(lot.issuer) in words

    def near(self, side: int, low: float, high: float) -> list[str]:
        _, shares, cusips = self.sides[side]
        return cusips[bisect_left(shares, low) : bisect_right(shares, high)]


def _distributions(
    earlier: Side, later: Side, carried: Carried, child: str, parents: _Parents
) -> list[tuple[Candidate, Support]]:
    """(c) A new position whose shares are a common fraction or multiple of a position the manager held; each with
    what the other holders of that position show of it."""
    lot = later.lots[child]
    received = lot.shares
    if carried.shares.get(child, 0) or carried.touched(child) or received <= 0:
        return []
    comparisons = 2 * len(parents.cusips) * len(COMMON_RATIOS)
    widest = max(parents.most_rows + lot.rows, math.ceil(received * DISTRIBUTION_ROUNDING))
    unlikely = received % ROUND_LOT == 0 or comparisons * (2 * (1 + lot.rows) + 1) / received > MAX_CHANCE
    if unlikely and not parents.kin(lot):  # only the issuer's own classes could match: it has none
        return []
    matches: dict[str, tuple[Lot, Fraction, Side]] = {}
    for index, (side, _, _) in enumerate(parents.sides):
        for ratio, approximate in zip(COMMON_RATIOS, RATIO_FLOATS, strict=True):
            # |received - held × ratio| ≤ allowance, so held lies within (received ± allowance) / ratio
            low, high = (received - widest) / approximate - 1, (received + widest) / approximate + 1
            for parent in parents.near(index, low, high):  # floats to search, exact fractions to decide
                held = side.lots[parent]
                allowance = max(held.rows + lot.rows, math.ceil(received * DISTRIBUTION_ROUNDING))
                if parent not in matches and abs(received - held.shares * ratio) <= allowance:
                    matches[parent] = (held, ratio, side)
    found: list[tuple[Candidate, Support]] = []
    for parent, (held, ratio, side) in sorted(matches.items()):
        if later.key(parent) == later.key(child) or parent == child:
            continue
        same_issuer = one_issuer(later.lots[parent], lot)
        chance = comparisons * (2 * (later.lots[parent].rows + lot.rows) + 1) / received
        # round lots fit round ratios of round positions (50,000,000 General Motors ÷ 10 ≈ 4,999,998 Formula One)
        if not same_issuer and (received % ROUND_LOT == 0 or held.shares % ROUND_LOT == 0 or chance > MAX_CHANCE):
            continue
        candidate = _distribution(earlier, later, parent, child, held, received, ratio, side)
        witnessed = support.distribution(later.evidence.books, parent, child, ratio, _own(later))
        what = f"holders of {side.key(parent)} received {ratio_text(ratio)} {later.key(child)} per share"
        found.append((witnessed.cited(candidate, what), witnessed))
    return found


def _distribution(
    earlier: Side, later: Side, parent: str, child: str, held: Lot, received: int, ratio: Fraction, side: Side
) -> Candidate:
    name_parent, name_child = side.key(parent), later.key(child)
    text = (
        f"{received:,} {name_child} are {ratio_text(ratio)} of the {held.shares:,} {name_parent} held at {side.quarter}: "
        "a spin-off or distribution"
    )
    record = record_line(
        later.quarter,
        "spin-off",
        parent,
        child,
        ratio_text(ratio),
        "",
        todo(earlier.quarter, later.quarter, f"{name_parent} distributes {name_child}"),
    )
    return {"rule": "distribution", "text": text, "record": record}
