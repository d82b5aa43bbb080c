"""corporate_actions.csv read strictly, and changes carried through every kind of event on synthetic filings."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from builder.research.artifact import build_artifacts
from builder.research.versions import assign_versions
from builder.sources.tables.corporate_actions import COLUMNS, cusip_check_digit, parse_corporate_actions
from tests.factories import filing, sources

Q1, Q2 = date(2025, 3, 31), date(2025, 6, 30)
CIK, OTHER = "0000000001", "0000000002"
HEADER = ",".join(COLUMNS)
# Real CUSIPs (their check digits hold) keyed in the books by CUSIP, as unmapped securities are.
TSLA, META, NFLX, T, DTV, KO = "88160R101", "30303M102", "64110L106", "00206R102", "25490A309", "191216100"


def changes(
    before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]], records: str, *, omitted: bool = False
) -> tuple[dict, dict, dict]:
    """(held, ended, artifact) of one manager from Q1 to Q2: books as {key: (shares, price)}."""
    filings = [filing(CIK, Q1, before, omitted=omitted), filing(CIK, Q2, after)]
    legs, problems = parse_corporate_actions(f"{HEADER}\n{records}", "corporate_actions.csv")
    assert problems == ()
    built = build_artifacts(dataclasses.replace(sources(filings, [("alpha", CIK)]), corporate_actions=legs))
    artifact = assign_versions(built, [])[0][-1]
    manager = artifact["managers"][0]
    return (
        {p["ticker"]: p["change"] for p in manager["positions"]},
        {e["ticker"]: e["change"] for e in manager["ended"]},
        artifact,
    )


def latest_of_two(alpha: tuple[dict, dict], beta: tuple[dict, dict]) -> dict:
    """The Q2 artifact of alpha (CIK) and beta (OTHER), each manager's books at Q1 and Q2 as {key: (shares, price)}."""
    books = ((CIK, alpha), (OTHER, beta))
    filings = [filing(cik, q, book) for cik, pair in books for q, book in zip((Q1, Q2), pair, strict=True)]
    return assign_versions(build_artifacts(sources(filings, [("alpha", CIK), ("beta", OTHER)])), [])[0][-1]


def summary(change: dict) -> tuple:
    return change["kind"], change["carriedShares"], change["shareDelta"], change["cause"]


def test_a_reverse_split_of_one_for_twenty_is_no_sale():
    held, _, _ = changes({TSLA: (2_000, 5)}, {TSLA: (100, 100)}, "2025-05-01,split,88160R101,,1:20,,reverse split 8-K")
    assert summary(held[TSLA]) == ("unchanged", 100, 0, "corporate-action")


def test_a_few_shares_short_after_a_merger_are_cash_in_lieu_of_fractions_not_a_sale():
    records = "2025-05-20,merger,88160R101,30303M102,1.892:1,,merger 8-K"
    held, ended, _ = changes({TSLA: (31_353, 50)}, {META: (59_312, 26)}, records)  # 59,319 carried: 7 short
    assert summary(held[META]) == ("unchanged", 59_319, 0, "corporate-action")
    assert summary(ended[TSLA])[0] == "converted"
    held, _, _ = changes({TSLA: (31_353, 50)}, {META: (59_299, 26)}, records)  # 20 short: sold
    assert summary(held[META]) == ("reduced", 59_319, -20, "trade-and-corporate-action")


def test_two_splits_between_one_pair_of_quarters_apply_in_date_order():
    records = "2025-06-02,split,88160R101,,3:1,,second split\n2025-04-15,split,88160R101,,2:1,,first split"
    held, _, _ = changes({TSLA: (100, 600)}, {TSLA: (650, 100)}, records)
    assert summary(held[TSLA]) == ("added", 600, 50, "trade-and-corporate-action")
    assert [a["text"] for a in held[TSLA]["corporateActions"]] == [
        "split effective 2025-04-15 (2:1): 100 88160R101 became 200",
        "split effective 2025-06-02 (3:1): 200 88160R101 became 600",
    ]


def test_a_stock_and_cash_merger_into_a_security_already_held_adds_to_it():
    records = "2025-05-20,merger,88160R101,30303M102,0.5:1,10.00,merger 8-K"
    held, ended, _ = changes({TSLA: (100, 50), META: (50, 100)}, {META: (120, 100)}, records)
    assert summary(held[META]) == ("added", 100, 20, "trade-and-corporate-action")
    assert summary(ended[TSLA]) == ("converted", 0, 0, "corporate-action")
    assert ended[TSLA]["corporateActions"][0]["text"] == (
        "merger effective 2025-05-20 (0.5:1): 100 88160R101 became 50 30303M102 and $1,000 ($10.00 a share)"
    )


def test_a_spin_off_keeps_the_parent_and_adds_the_child_within_rounding():
    held, _, _ = changes(
        {KO: (1_001, 60)},
        {KO: (1_001, 62), NFLX: (250, 40)},
        "2025-05-01,spin-off,191216100,64110L106,1:4,,spin-off 8-K",
    )
    assert summary(held[KO]) == ("unchanged", 1_001, 0, "none")
    assert summary(held[NFLX]) == ("unchanged", 250, 0, "corporate-action")  # 250.25 carried: a quarter share in cash


def test_a_three_leg_recapitalisation_converts_the_old_shares_into_three():
    records = (
        "2025-04-15,exchange,191216100,88160R101,1:1,,recap 8-K\n"
        "2025-04-15,exchange,191216100,30303M102,0.25:1,,recap 8-K\n"
        "2025-04-15,exchange,191216100,64110L106,0.1:1,,recap 8-K"
    )
    held, ended, _ = changes({KO: (1_000, 60)}, {TSLA: (1_000, 40), META: (250, 40), NFLX: (100, 30)}, records)
    assert [summary(held[k]) for k in (TSLA, META, NFLX)] == [
        ("unchanged", c, 0, "corporate-action") for c in (1_000, 250, 100)
    ]
    assert summary(ended[KO]) == ("converted", 0, 0, "corporate-action") and len(ended[KO]["corporateActions"]) == 3


def test_a_cash_merger_ends_the_position_without_a_sale():
    _, ended, _ = changes(
        {TSLA: (500, 38), KO: (10, 60)}, {KO: (10, 61)}, "2025-05-01,cash-merger,88160R101,,,40.00,tender 8-K"
    )
    assert summary(ended[TSLA]) == ("converted", 0, 0, "corporate-action")
    assert (
        ended[TSLA]["corporateActions"][0]["text"]
        == "cash merger effective 2025-05-01: 500 88160R101 acquired for $40.00 a share ($20,000)"
    )


def test_a_new_position_after_an_omitting_filing_is_undecided_and_both_versions_say_so():
    held, _, artifact = changes({KO: (10, 60)}, {KO: (10, 61), TSLA: (700, 200)}, "", omitted=True)
    assert summary(held[TSLA]) == ("undecided", 0, None, "undecided")
    assert [c["rule"] for c in held[TSLA]["candidates"]] == ["confidential-omission"]
    assert "confidential-omitted-previous" in {w["code"] for w in artifact["warnings"]}


def test_a_third_sold_across_a_seven_for_one_split_in_a_rising_market_never_reads_as_a_buy():
    # 300 → 1,400 shares (a third of 7 × 300 sold) and the price $70 → $12 (÷7, then up 20 %): one book, no witness
    held, _, _ = changes({TSLA: (300, 70)}, {TSLA: (1_400, 12)}, "")
    assert summary(held[TSLA]) == ("undecided", 300, None, "undecided")
    (candidate,) = held[TSLA]["candidates"]
    assert (candidate["rule"], candidate["record"]) == ("no-evidence", None)  # no split, no ratio, no line to paste
    assert "7:1" not in candidate["text"] and "split" not in candidate["text"]


def test_other_holders_whose_shares_the_split_multiplied_decide_it_and_the_third_sold_is_a_sale():
    others = [(f"000000001{i}", 100 * (i + 3)) for i in range(4)]
    filings = [filing(CIK, Q1, {TSLA: (300, 70)}), filing(CIK, Q2, {TSLA: (1_400, 12)})]
    for cik, shares in others:
        filings += [filing(cik, Q1, {TSLA: (shares, 70)}), filing(cik, Q2, {TSLA: (7 * shares, 12)})]
    managers = [("alpha", CIK), *((f"other{i}", cik) for i, (cik, _) in enumerate(others))]
    artifact = assign_versions(build_artifacts(sources(filings, managers)), [])[0][-1]
    alpha = {p["ticker"]: p["change"] for p in artifact["managers"][0]["positions"]}
    assert summary(alpha[TSLA]) == ("reduced", 2_100, -700, "trade-and-corporate-action")
    assert [(r["kind"], r["ratio"], r["derived"]) for r in artifact["corporateActions"]] == [("split", "7:1", True)]


def test_with_the_record_that_same_change_is_a_sale_of_seven_hundred():
    held, _, _ = changes({TSLA: (300, 70)}, {TSLA: (1_400, 12)}, "2025-05-12,split,88160R101,,7:1,,split 8-K")
    assert summary(held[TSLA]) == ("reduced", 2_100, -700, "trade-and-corporate-action")


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("2025-05-01,split,88160R102,,2:1,,x", "cusip 88160R102 fails its check digit (expected 1)"),
        (
            "2025-05-01,split,88160R1,,2:1,,x",
            "cusip '88160R1' is not a CUSIP (eight letters or digits and a check digit)",
        ),
        (
            "2025-05-01,split,88160R101,,2-for-1,,x",
            "ratio '2-for-1' is not new:old in decimals (e.g. 4:1, 1:20, 1.892:1)",
        ),
        ("2025-05-01,split,88160R101,,0:1,,x", "ratio '0:1' must be above 0 on both sides"),
        (
            "2025-05-01,demerger,88160R101,,2:1,,x",
            "kind 'demerger' is not one of split, merger, cash-merger, spin-off, exchange",
        ),
        ("2025-13-01,split,88160R101,,2:1,,x", "effective '2025-13-01' is not a date YYYY-MM-DD"),
        ("2025-05-01,merger,88160R101,,2:1,,x", "a merger needs new_cusip (the security received)"),
        ("2025-05-01,cash-merger,88160R101,,,,x", "a cash-merger needs cash_per_share"),
        (
            "2025-05-01,spin-off,88160R101,30303M102,1:4,5.00,x",
            "a spin-off pays no cash: cash_per_share must be empty (use merger for stock and cash)",
        ),
        (
            "2025-05-01,split,88160R101,,2:1,,",
            "source is empty: say where the record comes from (a filing, a press release)",
        ),
        (
            "2025-05-01,merger,,30303M102,,,x,,1000",
            "a row with shares (a receipt from outside the 13F book) needs the cik of its manager",
        ),
    ],
)
def test_a_bad_row_is_one_line_naming_file_and_line(row: str, problem: str):
    legs, problems = parse_corporate_actions(f"{HEADER},cik,shares\n{row}\n", "corporate_actions.csv")
    assert legs == () and [str(p) for p in problems] == [f"corporate_actions.csv:2: {problem}"]


def test_every_problem_is_reported_at_once_and_events_must_agree():
    text = (
        f"{HEADER}\n2025-05-01,split,88160R101,,2:1,,x\n2025-05-01,split,88160R101,,2:1,,x\n"
        "2025-05-01,exchange,191216100,30303M102,,,x\n2025-05-01,spin-off,191216100,64110L106,1:2,,x\n"
    )
    _, problems = parse_corporate_actions(text, "corporate_actions.csv")
    assert [str(p) for p in problems] == [
        "corporate_actions.csv:3: repeats the leg of line 2 (88160R101 on 2025-05-01)",
        "corporate_actions.csv:3: a split of 88160R101 on 2025-05-01 is one row, not 2",
        "corporate_actions.csv:5: the legs of 191216100 on 2025-05-01 mix kinds (exchange, spin-off)",
    ]


def test_the_check_digit_is_the_published_one_of_real_cusips():
    assert [cusip_check_digit(c[:8]) for c in (TSLA, META, NFLX, T, DTV, KO, "G5480U104", "16117M305")] == [
        c[8] for c in (TSLA, META, NFLX, T, DTV, KO, "G5480U104", "16117M305")
    ]


def test_a_split_another_holders_steady_book_refutes_is_no_candidate_and_the_change_is_a_trade():
    # Manager alpha's book alone reads like a 2:1 split with a purchase beside it (2,948,285 → 7,346,968 while the
    # price fell from $60 to $28); beta held 500,017 shares at both ends at the same prices: no split happened,
    # and a 2:1 record would invent beta a sale of 500,017 shares.
    artifact = latest_of_two(
        ({TSLA: (2_948_285, 60)}, {TSLA: (7_346_968, 28)}), ({TSLA: (500_017, 60)}, {TSLA: (500_017, 28)})
    )
    alpha, beta = ({p["ticker"]: p["change"] for p in m["positions"]} for m in artifact["managers"])
    assert summary(alpha[TSLA]) == ("added", 2_948_285, 4_398_683, "trade")
    assert summary(beta[TSLA]) == ("unchanged", 500_017, 0, "none")
    assert artifact["corporateActions"] == []


def test_a_hand_record_overrides_the_evidence_in_its_own_quarter_only():
    q3 = date(2025, 9, 30)
    filings = [
        filing(CIK, Q1, {TSLA: (1_013, 400)}),
        filing(CIK, Q2, {TSLA: (2_026, 200)}),  # the recorded 2:1 split
        filing(CIK, q3, {TSLA: (8_104, 50)}),  # a 4:1 split no record names: the two books decide it, to the share
        filing(OTHER, Q1, {TSLA: (2_001, 400)}),
        filing(OTHER, Q2, {TSLA: (4_002, 200)}),
        filing(OTHER, q3, {TSLA: (16_008, 50)}),
    ]
    legs, _ = parse_corporate_actions(f"{HEADER}\n2025-05-01,split,{TSLA},,2:1,,split 8-K", "corporate_actions.csv")
    managers = [("alpha", CIK), ("beta", OTHER)]
    built = build_artifacts(dataclasses.replace(sources(filings, managers), corporate_actions=legs))
    second, third = assign_versions(built, [])[0][-2:]
    assert [(r["ratio"], r["derived"]) for r in second["corporateActions"]] == [("2:1", False)]
    assert [(r["ratio"], r["derived"]) for r in third["corporateActions"]] == [("4:1", True)]
    assert summary(third["managers"][0]["positions"][0]["change"]) == ("unchanged", 8_104, 0, "corporate-action")


def test_a_merger_another_manager_still_filing_the_security_refutes_is_no_story_and_the_change_is_a_sale():
    # alpha's DTV ended and T began at 1.892 to the share for the same value: a merger, one book would say; but beta
    # still files DTV at the later quarter end, so DTV was not merged away: alpha sold DTV and bought T
    artifact = latest_of_two(({DTV: (31_353_468, 85)}, {T: (59_320_756, 45)}), ({DTV: (500_017, 85)},) * 2)
    alpha = artifact["managers"][0]
    ended = next(e for e in alpha["ended"] if e["ticker"] == DTV)["change"]
    assert summary(ended) == ("exited", 31_353_468, -31_353_468, "trade")
    assert summary(next(p for p in alpha["positions"] if p["ticker"] == T)["change"]) == ("new", 0, 59_320_756, "trade")
    # alone, no book says yes or no: undecided, and no merger partner, ratio or line is drawn from alpha's own T
    alone = changes({DTV: (31_353_468, 85)}, {T: (59_320_756, 45)}, "")[1][DTV]["candidates"]
    assert [(c["rule"], c["record"]) for c in alone] == [("no-evidence", None)]
    assert "00206R102" not in alone[0]["text"] and "1.892" not in alone[0]["text"]
