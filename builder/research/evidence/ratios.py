"""Share ratios as holders' books show them and as issuers state them; pure.

A holder's shares of one security against its shares of another (or of the same one a quarter later) give a
ratio; many holders at one ratio, each within the fraction of a share its accounts may lose to rounding, are the
mark of a corporate action. An issuer states a ratio simply (4:1, 1:20, 3:2) or in four decimals (1.892, 0.9042).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from decimal import Decimal
from fractions import Fraction
from statistics import median

from builder.records import Holders

# A holder fits a ratio within this share of the shares received, or within ROUNDING_SHARES (cash in lieu of a
# fraction per account: a filer's book sums several accounts, each losing less than a share).
RATIO_TOLERANCE = 0.0005
ROUNDING_SHARES = 3
# One book alone must fit to the share: at most ROUNDING_SHARES, or one share in a million of a large position (as
# carrying a hand record allows, builder.research.changes.carry).
EXACT_TOLERANCE = 1e-6
# A holder counts for a ratio only when it received at least this many shares by it: below, the rounding allowance
# is too wide a share of what was received for a fit to mean anything (ten shares bought beside a big holding fit
# any tiny ratio). And a stated ratio lies within ×/÷ MAX_RATIO (a 1:50 reverse split, a 50:1 split).
PRECISE_SHARES = 300
MAX_RATIO = 100
# The holders' ratios are first grouped within this relative width (small holders' ratios round coarsely).
RATIO_WINDOW = 0.004
SIMPLE_TERMS = 20  # an exchange or distribution ratio stated as n:d has both terms up to this
RATIO_DECIMALS = 4  # mergers state exchange ratios in at most four decimals (1.892, 0.9042)

_LOWEST = (1 / MAX_RATIO).as_integer_ratio()  # the float 1 / MAX_RATIO exactly, as `fits` compares a Fraction with it
SLACK = 1 + 1e-9  # a float bound a little wider than the exact test it stands for, × or ÷
Pairs = list[tuple[int, int]]  # (shares before, shares after or received) of each holder


def common_ratio(pairs: Pairs, tolerance: float = RATIO_TOLERANCE) -> tuple[Fraction, int, tuple[float, float]] | None:
    """The ratio (after ÷ before) that most of `pairs` fit, how many fit it, and the spread of their ratios."""
    ratios = sorted(after / before for before, after in pairs if before > 0 and after > 0)
    if not ratios:
        return None
    best, best_count = 0, 0
    for index, ratio in enumerate(ratios):  # the densest window of RATIO_WINDOW from one holder's ratio up
        count = bisect_right(ratios, ratio * (1 + RATIO_WINDOW)) - index
        if count > best_count:
            best, best_count = index, count
    window = ratios[best : best + best_count]
    center = _within_rounding(pairs, window[0], window[-1]) or Fraction(median(window)).limit_denominator(10**7)
    return center, agreeing(pairs, center, tolerance), (window[0], window[-1])


def _within_rounding(pairs: Pairs, low: float, high: float) -> Fraction | None:
    """The ratio the pairs in [low, high] admit when each holder's count was rounded down (a fraction of a share
    paid in cash): the middle of the ratios the largest holders all admit, from the largest down (its count is the
    finest), passing over one that admits none of them (it traded beside the event)."""
    floor, ceiling = Fraction(0), None
    for before, after in sorted(pairs, reverse=True):
        if before <= 0 or not low <= after / before <= high:
            continue
        lowest, highest = Fraction(after, before), Fraction(after + 1, before)
        if ceiling is None or (lowest < ceiling and highest > floor):
            floor, ceiling = max(floor, lowest), min(ceiling, highest) if ceiling is not None else highest
    return (floor + ceiling) / 2 if ceiling is not None else None


def fits(before: int, after: int, ratio: Fraction, tolerance: float = RATIO_TOLERANCE) -> bool:
    """Whether `after` is `before` × `ratio` within rounding, and large enough for that to mean anything."""
    expected = before * ratio
    if expected < PRECISE_SHARES or not 1 / MAX_RATIO <= ratio <= MAX_RATIO:
        return False
    return abs(after - expected) <= allowance(expected, tolerance)


def allowance(expected: Fraction | float, tolerance: float = RATIO_TOLERANCE) -> float:
    """The shares a holder's count may miss `expected` by through rounding."""
    return max(ROUNDING_SHARES, float(expected) * tolerance)


def agreeing(pairs: Pairs, ratio: Fraction, tolerance: float = RATIO_TOLERANCE) -> int:
    """How many of `pairs` fit `ratio`; holders of the same share count fit together by chance, so they count once
    (a ratio is evidence when books of different sizes agree on it).

    `fits` of every pair, in integers: the ratio n/d scales each side by d, so no Fraction is made per pair (this
    count is most of what deciding the evidence costs) and every comparison is as exact as `fits`' own."""
    n, d = ratio.numerator, ratio.denominator
    if not (n * _LOWEST[1] >= _LOWEST[0] * d and n <= MAX_RATIO * d):  # 1 / MAX_RATIO <= ratio <= MAX_RATIO
        return 0
    floor = PRECISE_SHARES * d
    found = set()
    for before, after in pairs:
        expected = before * n  # × d
        if expected < floor:
            continue
        slack = max(ROUNDING_SHARES, expected / d * tolerance)  # allowance(), from the same float of expected
        top, bottom = slack.as_integer_ratio()  # the float exactly, as `fits` compares a Fraction with it
        if abs(after * d - expected) * bottom <= top * d:
            found.add(before)
    return len(found)


def most_fitting(pairs: Pairs, tolerance: float = RATIO_TOLERANCE) -> int:
    """At least as many as `agreeing` gives for any ratio: the most of `pairs` whose ratios within rounding share
    one point. A parent that this many holders cannot make enough of needs no ratio stated (most cannot)."""
    edges: list[tuple[float, int]] = []
    for before, after in pairs:
        if before > 0:  # `fits` allows max(ROUNDING_SHARES, expected × tolerance): expected lies within these
            low = min(after - ROUNDING_SHARES, after / (1 + tolerance)) / before
            high = max(after + ROUNDING_SHARES, after / (1 - tolerance)) / before
            edges += ((low / SLACK, -1), (high * SLACK, 1))  # at one point an opening counts first
    edges.sort()
    most = open_now = 0
    for _, edge in edges:
        open_now -= edge
        most = max(most, open_now)
    return most


def simple(
    ratio: Fraction, pairs: Pairs, terms: int = SIMPLE_TERMS, tolerance: float = RATIO_TOLERANCE
) -> Fraction | None:
    """The nearest fraction with both terms up to `terms`, when it fits as many of `pairs` as `ratio` does."""
    near = nearest(ratio, terms)
    if near is None or agreeing(pairs, near, tolerance) < agreeing(pairs, ratio, tolerance):
        return None
    return near


def nearest(ratio: Fraction, terms: int) -> Fraction | None:
    """The fraction m/d nearest `ratio` with m = round(ratio × d) and both terms up to `terms`; of two as near, the
    one of the smaller denominator, then of the smaller d. In integers: n/q is ratio, |m/d − n/q| = |mq − nd| / dq."""
    n, q = ratio.numerator, ratio.denominator
    found: tuple[int, int, int, int] | None = None  # m, d, the distance's numerator over dq, the reduced denominator
    for d in range(1, terms + 1):
        floor, remainder = divmod(n * d, q)  # round() of a Fraction: the nearest integer, a half to the even one
        m = floor + (2 * remainder > q or (2 * remainder == q and floor % 2 == 1))
        if not 1 <= m <= terms:
            continue
        gap, reduced = abs(m * q - n * d), d // math.gcd(m, d)
        if found is not None:
            nearer, tied = gap * found[1] * q, found[2] * d * q  # both distances over the same d_found·d·q
            if nearer > tied or (nearer == tied and reduced >= found[3]):
                continue
        found = (m, d, gap, reduced)
    return None if found is None else Fraction(found[0], found[1])


def stated(ratio: Fraction, pairs: Pairs, tolerance: float = RATIO_TOLERANCE) -> Fraction:
    """The ratio as an issuer states it: a simple fraction, else four decimals (1.892, 0.9042), whichever fits as
    many of `pairs` as the measured ratio does, also to the share (LiLAC's 0.1247685 of 2016 fits most holders
    within rounding as 0.1248, but a holder of 7,346,968 shares only as measured); else the measured one in seven
    significant digits."""
    counts: dict[tuple[int, int, float], int] = {}  # keyed by the terms: a Fraction's hash costs a modular inverse

    def count(candidate: Fraction, within: float) -> int:  # each count once: they are most of the cost
        key = (candidate.numerator, candidate.denominator, within)
        if key not in counts:
            counts[key] = agreeing(pairs, candidate, within)
        return counts[key]

    four = Fraction(round(ratio * 10**RATIO_DECIMALS), 10**RATIO_DECIMALS)
    for candidate in (nearest(ratio, SIMPLE_TERMS), four):  # simple(), then four decimals
        if (
            candidate  # none, or four decimals of nothing
            and count(candidate, tolerance) >= count(ratio, tolerance)
            and count(candidate, EXACT_TOLERANCE) >= count(ratio, EXACT_TOLERANCE)
        ):
            return candidate
    return Fraction(Decimal(f"{float(ratio):.7g}"))


def ratio_text(ratio: Fraction) -> str:
    """new:old as corporate_actions.csv writes it: 4:1, 1:20, 3:2, 1.892:1."""
    if ratio.denominator <= SIMPLE_TERMS and ratio.numerator <= SIMPLE_TERMS:
        return f"{ratio.numerator}:{ratio.denominator}"
    text = f"{Decimal(ratio.numerator) / Decimal(ratio.denominator):f}"
    return (text.rstrip("0").rstrip(".") if "." in text else text) + ":1"  # 50:1 keeps its zero (Chipotle's of 2024)


def total(holders: Holders) -> int:
    return sum(holders.shares)


def price(holders: Holders) -> float:
    """The holders' median implied price per share (a median: one filer's unit mistake moves no decision)."""
    prices = [value / shares for shares, value in zip(holders.shares, holders.values, strict=True) if shares > 0]
    return median(prices) if prices else 0.0
