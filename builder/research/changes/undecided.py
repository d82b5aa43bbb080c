"""When no record decides a change: the rules that find the corporate actions (and omissions) a change may be; pure.

A change these rules flag is published as undecided with its candidate explanations, never as a trade. Each
candidate carries a corporate_actions.csv line an operator can paste once the public record confirms it.
The methods page states each rule, its thresholds and its measured precision on real filings.
"""

from __future__ import annotations

import functools
import math
import re
from bisect import bisect_left, bisect_right
from fractions import Fraction

from builder.research.changes.carry import Carried, Lot
from builder.research.changes.grown import grown_classes
from builder.research.changes.own import BOOK_OWN, omission, received_outside, unreported
from builder.research.changes.paste import record_line, todo
from builder.research.changes.side import Side
from builder.research.evidence import Evidence
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
# (b) Stock merger: the new position's value within ×/÷ this of the ended one's. A stock-and-cash merger pays part
# in cash (DirecTV: AT&T stock was two thirds of the price), so the band is wide; issuer names need no band. The
# share counts must then also stand in an exchange ratio as mergers state them (at most four decimals: 1.892,
# 0.9042) within rounding: two unrelated positions of similar value almost never do.
VALUE_BAND = 1.6
RATIO_DECIMALS = 4
# A match by arithmetic alone (an exchange ratio, a fraction of another position) counts only when chance would
# rarely give it: small positions in round lots fit some ratio within a share or two all the time.
MAX_CHANCE = 0.05
SIMPLE_TERMS = 20  # a simple ratio n:d has both terms up to this: 1:1, 3:2, 1:20 …
SIMPLE = tuple(sorted({Fraction(n, d) for n in range(1, SIMPLE_TERMS + 1) for d in range(1, SIMPLE_TERMS + 1)}))
ISSUER_NOISE = frozenset({"INC", "CORP", "CORPORATION", "CO", "COMPANY", "LTD", "PLC", "NEW", "DEL", "THE", "HLDGS",
                          "HOLDINGS", "GROUP", "CL", "CLASS", "A", "B", "C", "SHS", "COM", "N", "V", "NV", "SA", "AG"})  # fmt: skip
# Leading words that many unrelated issuers share (American Express, American Airlines): no evidence of one issuer.
GENERIC_WORDS = frozenset({"AMERICAN", "FIRST", "UNITED", "GENERAL", "NATIONAL", "INTERNATIONAL", "INTL", "GLOBAL",
                           "CITIZENS", "SOUTHERN", "NORTHERN", "WESTERN", "EASTERN", "PACIFIC", "ATLANTIC", "CENTRAL",
                           "COMMUNITY", "PEOPLES", "UNIVERSAL", "ROYAL", "STANDARD", "BANK", "SECURITY", "CAPITAL",
                           "HOME", "ENERGY", "ISHARES", "VANGUARD", "SPDR", "SELECT", "INVESCO", "SCHWAB", "PROSHARES",
                           "DIREXION", "WISDOMTREE", "FIDELITY", "ALPHA", "DIGITAL", "SOUTHWEST", "NORTHWEST"})  # fmt: skip
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

    def add(cusips: tuple[str, ...], candidate: Candidate) -> None:
        if candidate["rule"] not in BOOK_OWN:  # say which evidence weighed it, and which would decide it
            candidate["text"] += f" ({wanting(earlier, later, cusips)})"
        for cusip in cusips:
            found.setdefault(cusip, []).append(candidate)

    # what the evidence settled no rule second-guesses; a parent whose distribution is recorded fell by its child's,
    # and a split another holder's steady count refutes (it would invent that holder a sale)
    spun = {parent for spun in carried.parents.values() for parent, _ in spun}
    closed = _closed(later.evidence) | spun if spun else _closed(later.evidence)
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
            for candidate in _splits(earlier, later, cusip):
                add((cusip,), candidate)
    for after in (c for c in new if c not in later.evidence.settled):
        same_key = [before for before in open_gone if earlier.key(before) == later.key(after)]
        for before in same_key or open_gone:  # a CUSIP change inside one position pairs with nothing else
            paired = _pair(earlier, later, before, after)
            if paired:
                add((before, after), paired)
    parents = _Parents(earlier, later)
    for child in (c for c in later.lots if c not in later.evidence.settled):
        for candidate in _distributions(earlier, later, carried, child, parents):
            add((child,), candidate)
    for child, candidate in grown_classes(earlier, later, carried, frozenset(closed)).items():
        add((child,), candidate)
    pairing = {cusip for cusip, found_for in found.items() if any(c["rule"] in PAIRING for c in found_for)}
    for before in (c for c in open_gone if c not in pairing):  # shares that became another security's: no cash
        acquired = _cash_merger(earlier, later, before)
        if acquired:
            add((before,), acquired)
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


_CLOSED: dict[str, tuple[Evidence, frozenset[str]]] = {}  # the last Evidence asked of _closed, and its answer


def _closed(evidence: Evidence) -> frozenset[str]:
    """What `evidence` settles or refutes a split of; every manager's book of a quarter asks of the same Evidence,
    so the union is made once (the sets hold every security the holders decide)."""
    last = _CLOSED.get("last")
    if last is None or last[0] is not evidence:
        last = _CLOSED["last"] = (evidence, evidence.settled | evidence.steady)
    return last[1]


def wanting(earlier: Side, later: Side, cusips: tuple[str, ...]) -> str:
    """What evidence weighed a change and what would decide it: the holders seen, and the data sets to fetch."""
    seen = max((later.evidence.seen.get(cusip, 0) for cusip in cusips), default=0)
    holders = f"{seen} holder{'s' if seen != 1 else ''}"
    if later.evidence.origin == "sec13f-datasets":
        return f"{holders} seen in the Form 13F data sets: too few, or none that fit one event"
    return (
        f"{holders} seen, in the pack's own filings; the SEC's Form 13F data sets for {earlier.quarter} and "
        f"{later.quarter}, fetched by ras fetch --datasets, would show every filer's"
    )


def _splits(earlier: Side, later: Side, cusip: str) -> list[Candidate]:
    """(a) Same CUSIP, the implied price moved by about a common split ratio while the shares moved the other way."""
    before, after = earlier.lots[cusip], later.lots[cusip]
    if min(before.shares, after.shares, before.value, after.value) <= 0:
        return []
    price_move = (after.value / after.shares) / (before.value / before.shares)
    shares_move = after.shares / before.shares
    if 1 / MIN_MOVE < price_move < MIN_MOVE or 1 / MIN_MOVE < shares_move < MIN_MOVE:
        return []
    found: list[tuple[float, Candidate]] = []
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
            f"per share ×{price_move:.3f}: fits a {_ratio(factor)} split with the price ×{market:.2f} net of it "
            f"(and {_signed(trade - 1)} shares traded beside it)"
        )
        record = record_line(
            later.quarter, "split", cusip, "", _ratio(factor), "", todo(earlier.quarter, later.quarter, f"{name} split")
        )
        score = abs(math.log(market)) + abs(math.log(trade))  # the likeliest: least market move and least trade
        found.append((score, {"rule": "split", "text": text, "record": record}))
    return [candidate for _, candidate in sorted(found, key=lambda entry: entry[0])]


def _pair(earlier: Side, later: Side, before: str, after: str) -> Candidate | None:
    """(b) In one manager's quarter a position ended and another began: of the same issuer (names match, whatever
    the ratio), or of another issuer with about the same value (a stock merger)."""
    old, new = earlier.lots.get(before), later.lots[after]
    if old is None:
        return None
    if earlier.key(before) == later.key(after) and abs(new.shares - old.shares) <= old.rows + new.rows:
        return None  # one position under a new CUSIP, share for share: nothing to decide
    same_issuer = one_issuer(old, new) or earlier.key(before) == later.key(after)
    value_ratio = new.value / old.value if old.value > 0 else 0.0
    if not same_issuer and not 1 / VALUE_BAND <= value_ratio <= VALUE_BAND:
        return None
    stated = _stated_ratio(old, new)
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
        + (f" at {_ratio(ratio)}" if stated else f" ({_ratio(ratio)} by share count)")
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
            _ratio(ratio),
            "",
            todo(earlier.quarter, later.quarter, f"{name_before} into {name_after}"),
        )
        if fits
        else None
    )
    return {"rule": rule, "text": text, "record": record}


def _cash_merger(earlier: Side, later: Side, cusip: str) -> Candidate | None:
    """(d) A position held whole through a quarter at a pinned price, then gone: acquired for cash, or sold."""
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
    return {"rule": "cash-merger", "text": text, "record": record}


def _stated_ratio(old: Lot, new: Lot) -> Fraction | None:
    """The exchange ratio the two share counts stand in, when chance would rarely give it: a simple fraction (1:1
    for a rename), or one of four decimals as mergers state them; None when they stand in none."""
    allowance = max(old.rows + new.rows, math.ceil(new.shares * 1e-6))
    slots = 2 * allowance + 1
    if len(SIMPLE) * slots / new.shares <= MAX_CHANCE:
        for old_part in range(1, SIMPLE_TERMS + 1):  # the nearest n:d for each d, checked in whole numbers
            new_part = round(new.shares * old_part / old.shares)
            if (
                1 <= new_part <= SIMPLE_TERMS
                and abs(new.shares * old_part - old.shares * new_part) <= allowance * old_part
            ):
                return Fraction(new_part, old_part)
    scale = 10**RATIO_DECIMALS
    if slots * scale / old.shares > MAX_CHANCE:
        return None
    stated = (2 * new.shares * scale + old.shares) // (2 * old.shares)  # the nearest ratio of four decimals, × scale
    if abs(new.shares * scale - old.shares * stated) <= allowance * scale:
        return Fraction(stated, scale)
    return None


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
        words = (_issuer_word(self.later.lots[c].issuer) for c in self.cusips)
        return frozenset(c[:6] for c in self.cusips), frozenset(word for word in words if word)

    def kin(self, lot: Lot) -> bool:  # whether a parent may be of `lot`'s issuer (one_issuer: a code or a first word)
        codes, words = self.issuers
        return lot.cusip[:6] in codes or _issuer_word(lot.issuer) in words

    def near(self, side: int, low: float, high: float) -> list[str]:
        _, shares, cusips = self.sides[side]
        return cusips[bisect_left(shares, low) : bisect_right(shares, high)]


def _distributions(earlier: Side, later: Side, carried: Carried, child: str, parents: _Parents) -> list[Candidate]:
    """(c) A new position whose shares are a common fraction or multiple of a position the manager held."""
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
    found: list[Candidate] = []
    for parent, (held, ratio, side) in sorted(matches.items()):
        if later.key(parent) == later.key(child) or parent == child:
            continue
        same_issuer = one_issuer(later.lots[parent], lot)
        chance = comparisons * (2 * (later.lots[parent].rows + lot.rows) + 1) / received
        # round lots fit round ratios of round positions (50,000,000 General Motors ÷ 10 ≈ 4,999,998 Formula One)
        if not same_issuer and (received % ROUND_LOT == 0 or held.shares % ROUND_LOT == 0 or chance > MAX_CHANCE):
            continue
        found.append(_distribution(earlier, later, parent, child, held, received, ratio, side))
    return found


def _distribution(
    earlier: Side, later: Side, parent: str, child: str, held: Lot, received: int, ratio: Fraction, side: Side
) -> Candidate:
    name_parent, name_child = side.key(parent), later.key(child)
    text = (
        f"{received:,} {name_child} are {_ratio(ratio)} of the {held.shares:,} {name_parent} held at {side.quarter}: "
        "a spin-off or distribution"
    )
    record = record_line(
        later.quarter,
        "spin-off",
        parent,
        child,
        _ratio(ratio),
        "",
        todo(earlier.quarter, later.quarter, f"{name_parent} distributes {name_child}"),
    )
    return {"rule": "distribution", "text": text, "record": record}


def one_issuer(a: Lot, b: Lot) -> bool:
    """Whether two lots are securities of one issuer: the same CUSIP issuer code (its first six characters: share
    classes, tracking stocks), or names whose first distinctive word agrees (Kraft Foods Group, Kraft Heinz)."""
    if a.cusip[:6] == b.cusip[:6]:
        return True
    first = _issuer_word(a.issuer)
    return first is not None and first == _issuer_word(b.issuer)


@functools.lru_cache(maxsize=65536)
def _issuer_word(issuer: str) -> str | None:
    words = [w for w in re.split(r"[^A-Z0-9&]+", issuer.upper()) if w and w not in ISSUER_NOISE]
    return words[0] if words and len(words[0]) >= 3 and words[0] not in GENERIC_WORDS else None


def _ratio(ratio: Fraction) -> str:
    """new:old as corporate_actions.csv writes it: 4:1, 1:20, 3:2, 1.892:1."""
    if ratio.denominator <= 20 and ratio.numerator <= 20:
        return f"{ratio.numerator}:{ratio.denominator}"
    return f"{float(ratio):.6g}:1"


def _signed(fraction: float) -> str:
    return f"{fraction:+.1%}"
