"""builder.research.evidence.ratios counts and rounds in integers exactly as the Fraction definitions read."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from builder.research.evidence.events import _NEAR_ONE, SPLIT_TERMS
from builder.research.evidence.ratios import (
    EXACT_TOLERANCE,
    RATIO_TOLERANCE,
    SIMPLE_TERMS,
    agreeing,
    fits,
    most_fitting,
    nearest,
    ratio_text,
    simple,
)

CASES = 3000


def some_ratio(rng: random.Random) -> Fraction:
    kind = rng.randrange(4)
    if kind == 0:
        return Fraction(rng.randint(1, 60), rng.randint(1, 60))  # simple ones, halves among them (round to even)
    if kind == 1:
        return Fraction(rng.randint(1, 10**7), 10 ** rng.randint(0, 7))  # stated in decimals
    if kind == 2:
        return Fraction(rng.random() * rng.choice([0.005, 0.5, 5, 150])).limit_denominator(10**7)  # measured
    return Fraction(rng.randint(1, 10**9), rng.randint(1, 10**9))


def some_pairs(rng: random.Random, ratio: Fraction) -> list[tuple[int, int]]:
    pairs = []
    for _ in range(rng.randint(0, 12)):
        before = rng.choice([rng.randint(0, 500), rng.randint(0, 10**5), rng.randint(0, 10**8)])
        # on the ratio, at the rounding allowance's edges, or anywhere
        after = round(before * ratio) + rng.choice([0, 0, 1, -1, 3, -3, 4, -4, rng.randint(-1000, 1000)])
        pairs.append((before, after if rng.random() > 0.2 else rng.randint(0, 10**6)))
    return pairs


@pytest.mark.parametrize("tolerance", [RATIO_TOLERANCE, EXACT_TOLERANCE])
def test_agreeing_counts_the_distinct_share_counts_that_fit(tolerance: float):
    rng = random.Random(37)
    for _ in range(CASES):
        ratio = some_ratio(rng)
        pairs = some_pairs(rng, ratio)
        expected = len({before for before, after in pairs if fits(before, after, ratio, tolerance)})
        assert agreeing(pairs, ratio, tolerance) == expected, (pairs, ratio)


@pytest.mark.parametrize("tolerance", [RATIO_TOLERANCE, EXACT_TOLERANCE])
def test_no_ratio_fits_more_pairs_than_most_fitting_bounds(tolerance: float):
    # the bound spares stating a parent's ratio: it must never fall below what a ratio fits, the pairs' own among them
    rng = random.Random(41)
    reached = 0
    for _ in range(CASES):
        ratio = some_ratio(rng)
        pairs = some_pairs(rng, ratio)
        bound = most_fitting(pairs, tolerance)
        for candidate in [ratio, *(Fraction(after, before) for before, after in pairs if before > 0)]:
            count = agreeing(pairs, candidate, tolerance)
            assert count <= bound, (pairs, candidate)
            reached += count == bound and count > 1
    assert reached > CASES // 10  # a bound that is reached, not a count of the pairs
    assert most_fitting([(1000, 2003), (3000, 6000), (500, 7000)]) == 2


def test_a_fit_at_the_allowance_itself_counts_and_a_share_past_it_does_not():
    assert agreeing([(1000, 2003)], Fraction(2)) == 1  # 3 shares off: the rounding allowance
    assert agreeing([(1000, 2004)], Fraction(2)) == 0
    assert agreeing([(10_000_000, 20_010_000)], Fraction(2)) == 1  # 0.05 % of 20 million: 10,000 shares
    assert agreeing([(10_000_000, 20_010_001)], Fraction(2)) == 0
    assert agreeing([(100, 200), (149, 298)], Fraction(2)) == 0  # under 300 shares expected: no evidence
    assert agreeing([(10**6, 10**6 // 101)], Fraction(1, 101)) == 0  # beyond ×/÷ 100


@pytest.mark.parametrize("terms", [SIMPLE_TERMS, 50, 3])
def test_nearest_is_the_nearest_rounded_fraction_of_small_terms_the_smaller_denominator_first(terms: int):
    rng = random.Random(14)
    for _ in range(CASES):
        ratio = some_ratio(rng)
        candidates = [Fraction(round(ratio * d), d) for d in range(1, terms + 1) if 1 <= round(ratio * d) <= terms]
        expected = min(candidates, key=lambda c: (abs(c - ratio), c.denominator), default=None)
        assert nearest(ratio, terms) == expected, ratio


def test_simple_states_a_split_and_refuses_a_ratio_no_simple_one_fits_as_well():
    pairs = [(1000, 3000), (2500, 7500), (40_000, 120_001)]
    assert simple(Fraction(30001, 10000), pairs) == 3
    assert nearest(Fraction(5, 2), 20) == Fraction(5, 2) and nearest(Fraction(1, 2), 20) == Fraction(1, 2)
    assert simple(Fraction(1892, 1000), [(1000, 1892), (50_000, 94_600)]) is None  # 1.892: no n:d up to 20 fits


def test_a_ratio_within_near_one_of_one_is_nearest_one_to_one_so_a_split_by_majority_may_stop_there() -> None:
    for step in range(-999, 1000):  # up to just inside _NEAR_ONE either side
        assert nearest(1 + _NEAR_ONE * Fraction(step, 1000), SPLIT_TERMS) == 1
    assert nearest(1 + 3 * _NEAR_ONE, SPLIT_TERMS) == Fraction(34, 33)  # further out another ratio is nearer


def test_a_ratio_text_keeps_a_whole_ratios_zeros():
    # Chipotle's 50-for-1 split of 2024 was written "5:1" (zeros stripped from "50"), and a diff across it read 5
    assert [ratio_text(Fraction(n, d)) for n, d in ((50, 1), (100, 1), (60, 1), (473, 250), (1, 20))] == [
        "50:1",
        "100:1",
        "60:1",
        "1.892:1",
        "1:20",
    ]
