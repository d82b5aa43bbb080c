"""The index of ended positions (builder.research.changes.pairing.Pairing) misses no pair rule (b) would make: for any
book, every ended position the pair test accepts for a new one is among those the index answers, in order."""

from __future__ import annotations

from datetime import date
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from builder.research.changes.carry import Lot
from builder.research.changes.pairing import SIMPLE, Pairing
from builder.research.changes.side import Keys, Side
from builder.research.changes.undecided import _pair

# mostly distinct issuers (pairs by value and ratio), some of one issuer by name or by CUSIP code
ISSUERS = st.one_of(
    st.integers(0, 60).map(lambda n: f"ISSUER{n:02d} CORP"),
    st.sampled_from(["KRAFT FOODS GROUP INC", "KRAFT HEINZ CO", "AMERICAN EXPRESS CO", "AMERICAN AIRLS GROUP INC"]),
)
# share counts near the thresholds that matter: small (no stated ratio by chance), simple multiples, millions
SHARES = st.one_of(
    st.integers(1, 2_000),
    st.integers(10_000, 60_000),
    st.integers(900_000, 40_000_000),
    st.sampled_from([1_000_000, 1_500_000, 2_000_000, 3_000_000, 4_500_000, 20_000_000]),
)


def lots(prefix: str) -> st.SearchStrategy[Lot]:
    return st.builds(
        Lot,
        cusip=st.tuples(st.integers(100000, 100060).map(str), st.integers(10, 99)).map(
            lambda parts: f"{parts[0]}{prefix}{parts[1]}0"
        ),
        shares=SHARES,
        value=st.one_of(st.integers(0, 10**6), st.integers(10**7, 10**9), st.sampled_from([10**8, 1.6 * 10**8])).map(
            int
        ),
        rows=st.integers(1, 4),
        issuer=ISSUERS,
    )


def side(quarter: date, book: list[Lot]) -> Side:
    return Side(quarter, {lot.cusip: lot for lot in book}, Keys().__getitem__, omitted=False)


@settings(max_examples=300, deadline=None)
@given(st.lists(lots("A"), min_size=1, max_size=25, unique_by=lambda lot: lot.cusip), lots("B"))
def test_every_pair_the_rule_makes_is_among_the_indexed(ended: list[Lot], new: Lot) -> None:
    earlier, later = side(date(2024, 3, 31), ended), side(date(2024, 6, 30), [new])
    cusips = [lot.cusip for lot in ended]
    index = Pairing(earlier, cusips)
    asked = index.same_key(new.cusip) or index.pairable(new)
    paired = [before for before in cusips if _pair(earlier, later, before, new.cusip)]
    assert set(paired) <= set(asked)
    assert asked == sorted(asked, key=cusips.index)  # the ended positions' own order


def test_a_stated_ratio_of_millions_within_the_band_is_found_and_far_values_are_not_asked() -> None:
    old = Lot("111111AA1", 3_000_000, 150_000_000, 1, "ALPHA BETA CORP")
    far = Lot("222222AA1", 3_000_000, 900_000_000, 1, "GAMMA DELTA INC")  # the same shares, six times the value
    new = Lot("333333BB1", 4_500_000, 160_000_000, 1, "KRAFT HEINZ CO")  # 3:2 of `old`
    earlier, later = side(date(2024, 3, 31), [old, far]), side(date(2024, 6, 30), [new])
    index = Pairing(earlier, [old.cusip, far.cusip])
    assert index.pairable(new) == [old.cusip]
    assert _pair(earlier, later, old.cusip, new.cusip) is not None


@settings(max_examples=300, deadline=None)
@given(st.lists(lots("A"), min_size=1, max_size=12, unique_by=lambda lot: lot.cusip), st.data())
def test_a_new_position_made_from_an_ended_one_at_a_ratio_is_asked_of_it(ended: list[Lot], data: st.DataObject) -> None:
    # the new position stands in a ratio (simple, or of four decimals) to one ended position, within a few shares,
    # at a value near the band's edges: the windows' edges are where an index would drop a pair
    old = data.draw(st.sampled_from(ended))
    ratio = data.draw(st.one_of(st.sampled_from(SIMPLE), st.integers(1, 40_000).map(lambda n: Fraction(n, 10_000))))
    shares = max(1, round(old.shares * ratio) + data.draw(st.integers(-4, 4)))
    value = round(old.value * data.draw(st.sampled_from([0.62, 0.625, 0.63, 1.0, 1.59, 1.6, 1.61])))
    new = Lot("999999BB1", shares, value, data.draw(st.integers(1, 3)), "ISSUER99 CORP")
    earlier, later = side(date(2024, 3, 31), ended), side(date(2024, 6, 30), [new])
    cusips = [lot.cusip for lot in ended]
    paired = [before for before in cusips if _pair(earlier, later, before, new.cusip)]
    assert set(paired) <= set(Pairing(earlier, cusips).pairable(new))
