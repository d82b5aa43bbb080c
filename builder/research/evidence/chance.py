"""How often the holders' trading alone would make so many of them fit one ratio; pure.

The many (builder.research.evidence.events.Proof) decide a merger, a spin-off or a split when enough holders fit one
ratio. A few holders at one ratio are no coincidence in a small book; in the books of the largest filers they are: a
holder that gains 20,000 securities a quarter gains some at almost any count, and a vanished security's three holders
share thousands of gained securities, each a ratio to try. Twenty books as long as the largest filers', with no
corporate action among them, "decided" 192 mergers and 14 spin-offs on two holders of three that way.

So a fit counts only when chance would rarely give it. A holder lands its count in the few shares a ratio allows as
often as its gains of the quarter fall in that window (counted in its own gains, and in every filer's, for a filer
that gains too little to show its habits: `FilerBooks.gained`); a kept position moves by a split's factor as often as
its holder's kept positions move by as much (`FilerBooks.moved`); the security asked about is left out of both. The
ratio is chosen to fit one holder, so the others must fit it: the chance that at least that many do, for any one of
them as the anchor, must be at most MAX_CHANCE spread over every try: the candidates a security was tried against,
and the securities tried (a weighted Bonferroni bound: the tries' shares of MAX_CHANCE add up to it).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from builder.research.evidence.ratios import PRECISE_SHARES, allowance
from builder.research.evidence.witnessed import Habits

MAX_CHANCE = 0.05  # the chance of a story told of a quarter's securities by trading alone (the few's too: events)
EXACT_UP_TO = 64  # holders whose tail is summed exactly; above, the Chernoff bound (an upper bound, quick)


def rare(
    habits: Habits,
    holders: Sequence[tuple[int, int, int]],
    ratio: Fraction,
    tolerance: float,
    fitting: int,
    tries: float,
) -> bool:
    """Whether `fitting` of `holders` ((cik, shares before, shares received or after) each) fitting `ratio` is rarer
    than chance, MAX_CHANCE over `tries`: when the holders' trading alone (their `habits`: gains, or kept positions'
    moves) lands that many in their windows at most so often, one of them chosen to fit."""

    def unit(before: int) -> float:
        return before if habits.relative else 1

    asked = sorted(received / unit(before) for _, before, received in holders)
    chances = []
    for cik, before, received in holders:
        expected = before * float(ratio)
        if expected < PRECISE_SHARES:
            continue  # `ratios.fits` counts no such holder
        slack = allowance(expected, tolerance)
        low, high = (expected - slack) / unit(before), (expected + slack) / unit(before)
        chances.append(habits.chance(cik, low, high, received / unit(before), asked))
    return len(chances) * tail(chances, fitting - 1) <= MAX_CHANCE / max(tries, 1)


def tail(chances: Sequence[float], least: int) -> float:
    """The chance that at least `least` of independent events with these chances happen: summed exactly for up to
    EXACT_UP_TO of them, else the Chernoff bound e^-m (e·m / least)^least of their mean count m."""
    if least <= 0:
        return 1.0
    if least > len(chances):
        return 0.0
    if len(chances) <= EXACT_UP_TO:
        counts = [1.0] + [0.0] * least  # counts[j]: the chance of exactly j so far (j = least: at least)
        for p in chances:
            for j in range(least, 0, -1):
                counts[j] = counts[j] * (1 - p) + counts[j - 1] * p if j < least else counts[j] + counts[j - 1] * p
            counts[0] *= 1 - p
        return min(1.0, counts[least])
    mean = sum(chances)
    if mean >= least:
        return 1.0
    if mean <= 0:
        return 0.0
    return min(1.0, math.exp(-mean + least * (1 + math.log(mean) - math.log(least))))


def binomial(n: int, k: int, p: float) -> float:
    """The chance that at least `k` of `n` holders do a thing each does with chance `p`: the binomial tail."""
    if p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    log_p, log_q = math.log(p), math.log1p(-p)
    terms = (
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_p + (n - i) * log_q
        for i in range(k, n + 1)
    )
    return min(1.0, sum(math.exp(term) for term in terms))
