"""The few's spin-off parents are sought by bisection in each holder's book (evidence.spinoffs._near_parents): it
must find every parent the exact test (`_near_distribution`) admits, at either quarter end, and not every parent."""

from __future__ import annotations

import random

from builder.research.evidence.spinoffs import FEW_DISTRIBUTIONS, _near_distribution, _near_parents
from builder.research.evidence.witnessed import FilerBooks, holders_of

CASES = 400


def test_every_parent_near_a_distribution_ratio_is_found():
    rng = random.Random(53)
    admitted = spared = 0
    for case in range(CASES):
        ciks = (1001, 1002)
        child = f"CHILD{case:04d}"
        received = {
            cik: rng.choice([rng.randint(1, 50), rng.randint(100, 10**5), rng.randint(10**6, 10**9)]) for cik in ciks
        }
        sides: list[dict[str, list[tuple[int, int, int]]]] = [{}, {}]
        for cik in ciks:
            for n in range(rng.randint(1, 40)):
                ratio = float(rng.choice(sorted(FEW_DISTRIBUTIONS)))
                near = received[cik] / ratio + rng.choice([0, 1, -1, 2, -2, 5, -5, rng.uniform(-1e4, 1e4)])
                for side in (0, 1):
                    count = max(1, round(near if rng.random() < 0.7 else rng.randint(1, 10**8)))
                    sides[side].setdefault(f"P{n:03d}", []).append((cik, count, 0))
        sides[1][child] = [(cik, received[cik], 0) for cik in ciks]
        books = FilerBooks(*({c: holders_of(r) for c, r in side.items()} for side in sides))
        held = books.sides[1][child]
        found = _near_parents(held, books)
        for side in (0, 1):
            for cik, shares in zip(held.ciks, held.shares, strict=True):
                for parent, count in books.of(side)[cik].items():
                    if parent != child and _near_distribution([(count, shares)]):
                        admitted += 1
                        assert parent in found, (case, cik, parent, count, shares)
        spared += len(set(books.sides[0]) - found)
    assert admitted > CASES
    assert spared > CASES  # the parents far from any ratio are not asked: not merely every parent
