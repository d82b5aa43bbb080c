"""Corporate actions decided by the evidence of a security's holders (builder.research.evidence.decide); pure.

Each case is a small universe of invented filers (CIKs 1…n) around real CUSIPs: every holder's shares move as the
event says, rounded down per holder as brokers pay cash in lieu of fractions, and some holders trade beside it.
"""

from __future__ import annotations

from datetime import date
from fractions import Fraction

from builder.records import ActionKind, Witnesses
from builder.research.evidence.decide import decide
from builder.research.evidence.witnessed import holders_of

EARLIER, LATER = date(2020, 6, 30), date(2020, 9, 30)
AAPL, DTV, T, KRFT, KHC = "037833100", "25490A309", "00206R102", "50076Q106", "500754106"
NOV, DNOW, RHT, TMK, GL = "637071101", "67011P100", "756577102", "891027104", "37959E102"
HOLDERS = range(1, 13)  # twelve filers


def universe(before: dict[str, dict[int, tuple[int, int]]], after: dict[str, dict[int, tuple[int, int]]]) -> Witnesses:
    """Witnesses from CUSIP → CIK → (shares, price) at each quarter end."""

    def quarter(books: dict[str, dict[int, tuple[int, int]]]) -> dict:
        return {
            cusip: holders_of((cik, shares, shares * price) for cik, (shares, price) in held.items())
            for cusip, held in books.items()
        }

    return Witnesses("pack-filings", (), {EARLIER: quarter(before), LATER: quarter(after)}, {})


def shares(cik: int) -> int:
    return 1_000 * cik + 37 * cik * cik  # unlike each other, none a round lot


def test_holders_who_all_hold_four_times_their_shares_at_a_quarter_of_the_price_went_through_a_four_for_one_split():
    before = {AAPL: {cik: (shares(cik), 400) for cik in HOLDERS}}
    after = {AAPL: {cik: (shares(cik) * 4 + (500 if cik in (3, 7) else 0), 110) for cik in HOLDERS}}
    evidence = decide(universe(before, after), EARLIER, LATER)
    (leg,) = evidence.legs
    assert (leg.kind, leg.cusip, leg.ratio, leg.ratio_text) == (ActionKind.SPLIT, AAPL, 4, "4:1")
    assert leg.effective == LATER and AAPL in evidence.settled
    assert "10 of the 12 holders" in leg.source and "2020-06-30 and 2020-09-30" in leg.source
    assert leg.evidence is not None
    assert (leg.evidence.after, leg.evidence.holders, leg.evidence.agreeing) == (EARLIER, 12, 10)
    assert leg.evidence.ratios == ("4.0000", "4.0000") and leg.evidence.origin == "pack-filings"


def test_a_reverse_split_of_one_for_ten_is_found_with_its_ratio():
    before = {AAPL: {cik: (shares(cik) * 10, 3) for cik in HOLDERS}}
    after = {AAPL: {cik: (shares(cik), 31) for cik in HOLDERS}}
    (leg,) = decide(universe(before, after), EARLIER, LATER).legs
    assert (leg.kind, leg.ratio_text) == (ActionKind.SPLIT, "1:10")


def test_holders_who_sold_half_while_the_price_held_were_trading_not_split():
    before = {AAPL: {cik: (shares(cik) * 2, 100) for cik in HOLDERS}}
    after = {AAPL: {cik: (shares(cik), 104) for cik in HOLDERS}}
    evidence = decide(universe(before, after), EARLIER, LATER)
    assert evidence.legs == () and AAPL in evidence.settled  # a plain sale, settled as a trade


def test_a_security_that_left_every_book_for_another_at_one_ratio_merged_into_it_even_one_they_held():
    before = {DTV: {cik: (shares(cik), 93) for cik in HOLDERS}, T: {cik: (5_000, 35) for cik in HOLDERS if cik % 2}}
    after = {
        T: {cik: ((5_000 if cik % 2 else 0) + int(shares(cik) * Fraction(1892, 1000)), 30) for cik in HOLDERS},
        DTV: {1: (shares(1), 93)},  # one filer still reports the acquired security a quarter late
    }
    after[T][4] = (after[T][4][0] + 9_000, 30)  # one holder also bought AT&T
    evidence = decide(universe(before, after), EARLIER, LATER)
    (leg,) = evidence.legs
    assert (leg.kind, leg.cusip, leg.new_cusip, leg.ratio_text) == (ActionKind.MERGER, DTV, T, "1.892:1")
    assert "11 of them gained 1.892:1" in leg.source and {DTV, T} <= evidence.settled


def test_a_vanished_security_whose_holders_gained_nothing_in_its_place_was_acquired_for_cash_at_its_last_price():
    before = {RHT: {cik: (shares(cik), 184) for cik in HOLDERS}, AAPL: dict.fromkeys(HOLDERS, (100, 300))}
    after = {AAPL: dict.fromkeys(HOLDERS, (100, 320))}
    (leg,) = decide(universe(before, after), EARLIER, LATER).legs
    assert (leg.kind, leg.cusip, leg.new_cusip, str(leg.cash_per_share)) == (ActionKind.CASH_MERGER, RHT, "", "184.00")


def test_three_holders_who_all_sold_a_small_security_decide_nothing_about_an_acquisition():
    before = {RHT: {cik: (shares(cik), 184) for cik in (1, 2, 3)}}
    after = {AAPL: dict.fromkeys((1, 2, 3), (100, 320))}
    evidence = decide(universe(before, after), EARLIER, LATER)
    assert evidence.legs == () and RHT not in evidence.settled


def test_holders_who_kept_the_parent_and_received_one_child_share_per_four_went_through_a_spin_off():
    before = {NOV: {cik: (shares(cik) * 4, 60) for cik in HOLDERS}}
    after = {
        NOV: {cik: (shares(cik) * 4, 52) for cik in HOLDERS},
        DNOW: {cik: (shares(cik), 35) for cik in HOLDERS if cik != 5},  # one holder sold the child at once
    }
    after[DNOW][13] = (2_000, 35)  # a buyer who never held the parent
    (leg,) = decide(universe(before, after), EARLIER, LATER).legs
    assert (leg.kind, leg.cusip, leg.new_cusip, leg.ratio_text) == (ActionKind.SPIN_OFF, NOV, DNOW, "1:4")


def test_a_new_cusip_of_the_same_issuer_share_for_share_is_an_exchange():
    before = {TMK: {cik: (shares(cik), 90) for cik in HOLDERS}}
    after = {"891027203": {cik: (shares(cik), 95) for cik in HOLDERS}}
    (leg,) = decide(universe(before, after), EARLIER, LATER).legs
    assert (leg.kind, leg.cusip, leg.new_cusip, leg.ratio_text) == (ActionKind.EXCHANGE, TMK, "891027203", "1:1")


def test_a_recapitalisation_into_three_securities_is_three_legs():
    old = "531229102"
    parts = {"531229409": Fraction(1), "531229870": Fraction(1, 4), "531229706": Fraction(1, 10)}
    before = {old: {cik: (shares(cik) * 40, 50) for cik in HOLDERS}}
    after = {new: {cik: (int(shares(cik) * 40 * r), 20) for cik in HOLDERS} for new, r in parts.items()}
    legs = decide(universe(before, after), EARLIER, LATER).legs
    assert sorted((leg.new_cusip, leg.ratio_text) for leg in legs) == [
        ("531229409", "1:1"),
        ("531229706", "1:10"),
        ("531229870", "1:4"),
    ]


def test_holders_trading_as_usual_decide_no_event_and_settle_every_security_they_hold():
    before = {AAPL: {cik: (shares(cik), 300) for cik in HOLDERS}, GL: dict.fromkeys(HOLDERS, (500, 90))}
    after = {
        AAPL: {cik: (shares(cik) + 100 * cik, 310) for cik in HOLDERS if cik != 2},
        GL: {cik: (500 - 10 * cik, 95) for cik in HOLDERS},
        KHC: {cik: (700 + cik, 30) for cik in HOLDERS if cik < 6},  # a security they began to buy, held by none
    }
    evidence = decide(universe(before, after), EARLIER, LATER)
    assert evidence.legs == () and evidence.settled == {AAPL, GL, KHC}


LMCA, LMCK = "531229102", "531229300"  # Liberty Media Series A and C, and what they became in 2016:
LSXMA, LSXMK, FWONA, FWONK = "531229409", "531229607", "531229870", "531229854"


def test_two_holders_of_two_classes_recapitalised_together_are_paired_by_the_ratios_both_classes_share():
    # Berkshire's own figures (10,000,000 A and 20,000,000 C) and a second holder's: A → 1 SiriusXM A + 1/4 Media A,
    # C alike; every other pairing (A → SiriusXM C at 2:1 …) gives the two classes different ratios
    before = {LMCA: {1: (10_000_000, 38), 2: (3_000_001, 38)}, LMCK: {1: (20_000_000, 38), 2: (6_000_003, 38)}}
    after = {LSXMA: {1: (10_000_000, 31), 2: (3_000_001, 31)}, LSXMK: {1: (20_000_000, 31), 2: (6_000_003, 31)}}
    after |= {FWONA: {1: (2_499_998, 19), 2: (750_000, 19)}, FWONK: {1: (4_999_998, 19), 2: (1_500_000, 19)}}
    legs = decide(universe(before, after), EARLIER, LATER).legs
    assert sorted((leg.cusip, leg.new_cusip, leg.ratio_text) for leg in legs) == [
        (LMCA, LSXMA, "1:1"),
        (LMCA, FWONA, "1:4"),
        (LMCK, LSXMK, "1:1"),
        (LMCK, FWONK, "1:4"),
    ]
    assert all("the one of equal ratios" in leg.source for leg in legs)


def test_one_holder_alone_decides_nothing_however_well_its_book_fits():
    # Berkshire's recapitalisation alone: its book fits every ratio exactly, and is still one book, no witness
    before = {LMCA: {1: (10_000_000, 38)}, LMCK: {1: (20_000_000, 38)}}
    after = {LSXMA: {1: (10_000_000, 31)}, LSXMK: {1: (20_000_000, 31)}}
    after |= {FWONA: {1: (2_499_998, 19)}, FWONK: {1: (4_999_998, 19)}}
    evidence = decide(universe(before, after), EARLIER, LATER)
    assert evidence.legs == () and not {LMCA, LMCK, LSXMA, FWONA} & evidence.settled


def test_two_classes_whose_pairings_fit_equal_ratios_two_ways_stay_open():
    # 10,000,000 of each class into two new securities of 10,000,000 each: A → X and C → Y fit as well as A → Y
    # and C → X, so the holder's books cannot say which class became which
    before = {LMCA: {1: (10_000_000, 38)}, LMCK: {1: (10_000_000, 38)}}
    after = {LSXMA: {1: (10_000_000, 31)}, LSXMK: {1: (10_000_000, 31)}}
    evidence = decide(universe(before, after), EARLIER, LATER)
    assert evidence.legs == () and not {LMCA, LMCK} & evidence.settled
