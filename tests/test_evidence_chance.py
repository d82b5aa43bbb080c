"""The many decide an event only where the holders' trading alone would rarely fit it (builder.research.evidence.chance).

Books as long as the largest filers' gain thousands of securities a quarter, in round lots: two holders of three
land on one ratio to some security they both bought every few hundred tries. Without chance counted, twenty such
books with no corporate action among them were read as 192 mergers and 14 spin-offs. Here a synthetic universe of
15 filers of 3,000 positions each (bench.universe: every filer traded as bench.synthetic trades, plus one injected
event of every kind held by ten of them) must give the injected events, each with its ratio, and nothing else; the
same universe with no event gives none. Main before this rule read it as eight mergers where three happened.
"""

from __future__ import annotations

import csv
import itertools
import math
from fractions import Fraction
from pathlib import Path

import pytest

from bench import universe
from bench.universe_events import EVENTS
from builder.records import Holders
from builder.research.artifact import issuers
from builder.research.evidence.chance import EXACT_UP_TO, binomial, tail
from builder.research.evidence.decide import decide
from builder.research.evidence.witnessed import POOLED_WEIGHT, FilerBooks, holders_of
from builder.sources.tree import read_sources


def long_books(actions: str) -> universe.Params:
    """15 filers (3 of the pack, 12 witnesses) of 3,000 positions each, over 4 quarter ends, from 20,000 securities."""
    return universe.Params(managers=3, quarters=4, positions=3000, witnesses=12, actions=actions, universe=20000)


def legs_of(root: Path) -> list[tuple[str, str, str, str, Fraction]]:
    """(the later quarter end, kind, CUSIP, new CUSIP, ratio) of every leg the holders decide, quarter by quarter."""
    sources, _ = read_sources(root)
    witnesses = sources.witnesses
    assert witnesses is not None
    ends = sorted(witnesses.quarters)
    return [
        (later.isoformat(), leg.kind.value, leg.cusip, leg.new_cusip, leg.ratio)
        for earlier, later in itertools.pairwise(ends)
        for leg in decide(witnesses, earlier, later, issuers(sources, later)).legs
    ]


def ratio(text: str) -> Fraction:
    new, _, old = text.partition(":")
    return Fraction(new) / Fraction(old) if text else Fraction(1)


@pytest.mark.parametrize("actions", ["all", "none"])
def test_long_books_give_the_injected_events_and_nothing_chance_made(tmp_path, actions):
    universe.write_universe(tmp_path, long_books(actions))
    with (tmp_path / "events.csv").open(newline="") as file:
        events = list(csv.DictReader(file))
    assert len(events) == (len(EVENTS) if actions == "all" else 0)
    truth = sorted((e["period_after"], e["kind"], e["cusip"], e["new_cusip"], ratio(e["ratio"])) for e in events)
    assert sorted(legs_of(tmp_path)) == truth


def test_the_tail_is_the_exact_chance_of_so_many_and_bounds_it_beyond():
    chances = [0.3, 0.01, 0.5, 0.0, 0.2, 0.07]
    for least in range(len(chances) + 2):
        exact = sum(
            math.prod(p if hit else 1 - p for p, hit in zip(chances, hits, strict=True))
            for hits in itertools.product((0, 1), repeat=len(chances))
            if sum(hits) >= least
        )
        assert tail(chances, least) == pytest.approx(exact, abs=1e-12)
    many = [0.001 * (i % 7) for i in range(EXACT_UP_TO + 36)]
    for least in (1, 2, 3, 5):
        exact = tail(many[:EXACT_UP_TO], least)  # fewer events: no more likely
        bound = tail(many, least)
        assert exact <= bound < 1
    assert tail(many, 3) < 0.05 and tail([0.5] * 100, 10) == 1.0
    for n, k, p in ((10, 3, 0.1), (64, 20, 0.25), (5, 5, 0.5), (3, 0, 0.2)):  # the one chance of every event
        assert binomial(n, k, p) == pytest.approx(tail([p] * n, k), rel=1e-9)
    assert binomial(5, 2, 0.0) == 0.0 and binomial(5, 2, 1.0) == 1.0


def test_a_holders_chance_counts_its_values_in_the_window_beside_everyones_but_the_security_asked():
    def book(rows: dict[str, list[tuple[int, int]]]) -> dict[str, Holders]:
        return {cusip: holders_of([(cik, shares, shares * 10) for cik, shares in held]) for cusip, held in rows.items()}

    # filer 1 gains 100 of A, 105 of B, 500 of C and doubles E; filer 2 gains 102 of A, 9,000 of D and keeps E
    before = book({"E": [(1, 40), (2, 50)]})
    after = book(
        {"A": [(1, 100), (2, 102)], "B": [(1, 105)], "C": [(1, 500)], "D": [(2, 9000)], "E": [(1, 80), (2, 50)]}
    )
    books = FilerBooks(before, after)
    gained = books.gained
    # asked of A: of filer 1's four gains (E's 40 too), its window 99..106 holds 105 and A's 100 (left out); of every
    # filer's six, 100, 102 and 105, less A's two, of four
    assert gained.chance(1, 99, 106, 100, [100, 102]) == pytest.approx((1 + POOLED_WEIGHT / 4) / (3 + POOLED_WEIGHT))
    assert gained.chance(1, 200, 400, 100, [100, 102]) == 0.0  # no gain lands there
    # filer 2's 9,000 of D lands in its window; its gain of A does not, so it is not left out of its own
    assert gained.chance(2, 8990, 9010, 102, [100, 102]) == pytest.approx((1 + POOLED_WEIGHT / 4) / (2 + POOLED_WEIGHT))
    # moves of kept positions: filer 1 doubled E, filer 2 kept it; asked of E, nothing else moved by ×2
    moved = books.moved
    assert moved.relative and not gained.relative
    assert moved.chance(1, 1.9, 2.1, 2.0, [1.0, 2.0]) == 0.0
    assert moved.chance(2, 0.9, 1.1, 1.0, [1.0, 2.0]) == 0.0  # its one kept position is E's
