"""Instruments from words, one identity per person, report links, each trade once, and the row-level rules
(owners, faults, impossible dates, statutory amounts), on made-up rows."""

from __future__ import annotations

import json
from datetime import date

import pytest

from builder.research.previews.congress import DEMO_RULE, CongressInput, build_congress, clusters_on, congress_input
from builder.research.previews.disclosures import distinct_trades
from builder.research.previews.person import build_person, estimate_holdings
from builder.sources.congress.instrument import classify
from builder.sources.congress.people import People, name_key
from builder.sources.congress.rows import RowOutcome, parse_congress
from builder.sources.previews import PersonSource, read_previews


def house(**changes: object) -> dict:
    row = {
        "disclosure_date": "06/10/2026",
        "transaction_date": "2026-06-01",
        "owner": "joint",
        "ticker": "NVDA",
        "asset_description": "NVIDIA Corporation",
        "type": "purchase",
        "amount": "$1,001 - $15,000",
        "representative": "Hon. Pat Example",
        "district": "ZZ01",
        "ptr_link": "https://example.invalid/1.pdf",
    }
    return {**row, **changes}


def parse(*rows: object, source: str = "house.json"):
    return parse_congress(json.dumps(list(rows)).encode(), source)


@pytest.mark.parametrize(
    ("description", "instrument", "rule", "shares"),
    [
        ("Generac Holdings Inc. Call Opt strike @ $300 exp 6/18/21", "option", "option-wording", None),
        ("Roku Inc - Call Opts at $130, expires 4/16", "option", "option-wording", None),
        ("Apple Inc - 50 CALL options @ $100 expiry 06/17/22", "option", "option-wording", None),
        ("Eli Lilly and Company $180 PUT Option", "option", "option-wording", None),
        (
            "Microsoft Corporation - Exercised 100 call options (10K shares) expiring 3/19/2021 @ $140",
            "stock",
            "exercise",
            10_000,
        ),
        ("Tesla Inc - Exercised 25 Call options expiring 3/18/22 @ $500", "stock", "exercise", 2_500),  # 25 × 100
        ("LOWEs COS INC NOTE CALL MAKE WHOLE 3.10% 5/03/27", "bond", "bond-wording", None),
        ("Example Corp 4.50% 06/01/35 CALL 06/01/30 @ 100", "bond", "bond-wording", None),
        ("American Express Company", "stock", "ticker", None),
        ("Putnam Investments Fund", "stock", "ticker", None),  # "Put" inside a word is no put
    ],
)
def test_a_house_description_names_its_instrument(description, instrument, rule, shares):
    found = classify("", description, "XYZ")
    assert (found.instrument.value, found.rule, found.shares) == (instrument, rule, shares)


def test_a_blanket_stock_type_is_evidence_the_words_overrule_and_a_named_kind_decides_silent_words():
    worded = classify("Stock", "Apple Inc Call Opts at $130, expires 4/16", "AAPL")
    assert (worded.instrument.value, worded.rule, worded.contradicted) == ("option", "option-wording", "Stock")
    assert classify("Stock Option", "Apple Inc", "AAPL").instrument.value == "option"
    assert classify("Corporate Bond", "Apple Inc", None).instrument.value == "bond"
    plain = classify("Stock", "Apple Inc", "AAPL")
    assert (plain.instrument.value, plain.rule, plain.contradicted, plain.strength) == ("stock", "stock-type", "", 1)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Hon. Marie Newman", "None Marie Newman"),
        ("Hon. Mark Dr Green", "Mark Green"),
        ("Honorable Gilbert Ray Cisneros", "Hon. Gilbert Cisneros"),
        ("Hon. Neal P. Dunn, MD, FACS", "Dunn, Neal"),
        ("Mrs. Marjorie Taylor Greene", "Greene, Marjorie"),
        ("Hon. Raúl M. Grijalva", "Raul Grijalva"),
        ("Hon. Debbie Wasserman Schultz", "Wasserman Schultz, Debbie"),
        ("Boozman, John", "Sen. John Boozman (fixture)"),
    ],
)
def test_spellings_of_one_name_give_one_key(a, b):
    assert name_key(a) == name_key(b)


def test_one_name_in_two_states_is_two_people_and_an_alias_merges_a_nickname():
    trades = parse(
        house(),
        house(representative="Hon. Pat Example", district="YY02"),
        house(representative="Patricia Example", district="ZZ01"),
    ).trades
    assert len({People(trades).key(t) for t in trades}) == 3
    merged = People(trades, [("Pat Example", "Patricia Example")])
    assert len({merged.key(t) for t in trades}) == 2 and merged.of(trades[2]).name == "Pat Example"


def test_a_cluster_that_exists_only_through_one_members_two_spellings_is_not_a_cluster():
    trades = parse(house(), house(representative="None Pat Example", transaction_date="2026-06-02")).trades
    assert {t.member for t in trades} == {"Hon. Pat Example", "None Pat Example"}
    assert clusters_on(trades, DEMO_RULE, date(2026, 6, 10)) == ()
    pack = build_congress(
        CongressInput((parse(house(), house(representative="None Pat Example")),)), as_of=date(2026, 6, 30)
    )
    assert pack.agent_payload["outcome"] == "no-signal"
    assert pack.artifact["people"] == [
        {
            "person": "Pat Example",
            "chamber": "house",
            "state": "ZZ",
            "spellings": [{"spelling": "Hon. Pat Example", "rows": 1}, {"spelling": "None Pat Example", "rows": 1}],
        }
    ]
    other = parse(house(), house(representative="None Pat Example"), house(representative="Hon. Sam Other")).trades
    assert [(c.members, len(c.trades)) for c in clusters_on(other, DEMO_RULE, date(2026, 6, 10))] == [
        (("Pat Example", "Sam Other"), 3)
    ]


def test_a_configured_alias_merges_members_for_clusters(tmp_path):
    (tmp_path / "house.json").write_text(json.dumps([house(), house(representative="Hon. Patsy Example")]))
    found = read_previews(
        tmp_path, {"congress": {"files": ["house.json"], "aliases": {"Pat Example": ["Hon. Patsy Example"]}}}
    )
    assert found.problems == () and found.sources["congress"].aliases == (("Pat Example", "Hon. Patsy Example"),)
    pack = build_congress(congress_input(found.sources["congress"]), as_of=date(2026, 6, 30))
    assert pack.agent_payload["outcome"] == "no-signal"
    bad = read_previews(tmp_path, {"congress": {"files": ["house.json"], "aliases": {"Pat Example": "Patsy"}}})
    assert [p.message for p in bad.problems] == [
        "[congress] aliases must be a table of \"name\" = [\"other spelling\", …], not {'Pat Example': 'Patsy'}"
    ]


def test_a_tracker_keeps_the_stock_when_the_same_person_sells_all_their_call_options():
    stock = house(ticker="AAPL", asset_description="Apple Inc", amount="$15,001 - $50,000")
    calls = dict(
        stock,
        asset_description="Apple Inc - 50 CALL options @ $100 expiry 06/17/22",
        amount="$1,001 - $15,000",
        transaction_date="2026-06-02",
    )
    sold = dict(calls, type="sale_full", transaction_date="2026-06-03")
    estimate = estimate_holdings(parse(stock, calls, sold).trades)
    assert [(h.ticker, h.estimate, len(h.trades)) for h in estimate.held] == [("AAPL", 32_500, 1)]
    assert [(t.row, t.trade_type.value) for t in estimate.options] == [(2, "purchase"), (3, "sale_full")]
    assert estimate.closed == () and estimate.unmatched_sales == ()


def test_an_exercise_adds_its_shares_and_a_full_sale_of_the_stock_clears_them():
    exercise = house(
        ticker="MSFT",
        asset_description="Microsoft - Exercised 100 call options (10K shares) @ $140",
        amount="$1,000,001 - $5,000,000",
    )
    held = estimate_holdings(parse(exercise, dict(exercise, transaction_date="2026-06-02")).trades).held
    assert [(h.ticker, h.exercised_shares) for h in held] == [("MSFT", 20_000)]
    gone = estimate_holdings(
        parse(
            exercise, dict(exercise, type="sale_full", asset_description="Microsoft", transaction_date="2026-06-03")
        ).trades
    )
    assert (gone.held, gone.closed) == ((), ("MSFT",))


def test_a_row_without_a_report_link_says_so():
    pack = build_congress(
        CongressInput((parse(house(ptr_link=None), house(representative="Hon. Sam Other")),)), as_of=date(2026, 6, 30)
    )
    trades = {t["member"]: t for t in pack.artifact["windowTrades"]}
    assert (trades["Hon. Pat Example"]["ptrLink"], trades["Hon. Pat Example"]["flags"]) == (None, ["no-report-link"])
    assert trades["Hon. Sam Other"]["ptrLink"] == "https://example.invalid/1.pdf"
    assert pack.artifact["sources"][0]["withoutReportLink"] == 1


def test_copies_across_files_count_once_but_identical_rows_in_one_file_stay():
    summary = parse(house(), house(), house(ticker="XOM"), source="all.json")  # one report listing NVDA twice
    daily = parse(
        house(),
        house(),
        house(),
        house(ticker="XOM", owner="self"),  # another owner field: scrapers differ there, still a copy
        house(ticker="XOM", amount="$15,001 - $50,000"),  # another amount range: another trade
        source="daily.json",
    )
    distinct = distinct_trades((summary, daily))
    assert [(t.source, t.row) for t in distinct.trades] == [
        ("all.json", 1),
        ("all.json", 2),
        ("all.json", 3),
        ("daily.json", 3),
        ("daily.json", 5),
    ]
    assert [(c.source, c.of, c.rows) for c in distinct.copies] == [("daily.json", "all.json", (1, 2, 4))]
    respelled = parse(house(representative="Pat Example", ptr_link="https://mirror.invalid/ptr/1"), source="b.json")
    assert distinct_trades((summary, respelled)).copies[0].rows == (1,)  # same person, same report id


@pytest.mark.parametrize(
    ("owner", "expected", "code"),
    [
        ("Dependent Child", "dependent", None),
        ("Child", "dependent", None),
        ("SP", "spouse", None),
        ("JT", "joint", None),
        ("Self", "self", None),
        ("--", "not stated", None),
        ("", "not stated", None),
        ("Trust", "not stated", "owner-unreadable"),
    ],
)
def test_owners_are_mapped_to_the_documented_values(owner, expected, code):
    parsed = parse(house(owner=owner))
    assert parsed.trades[0].owner == expected
    assert [i.code for i in parsed.issues] == ([code] if code else [])


def test_every_fault_of_a_row_is_counted():
    parsed = parse(house(), house(transaction_date="2026-02-30", amount="$1,234 -", type="gift", ticker="--AMCR"))
    assert [(i.row, i.code, i.outcome) for i in parsed.issues] == [
        (2, "type-unknown", RowOutcome.EXCLUDED),
        (2, "date-unreadable", RowOutcome.EXCLUDED),
        (2, "amount-unreadable", RowOutcome.EXCLUDED),
        (2, "ticker-unreadable", RowOutcome.EXCLUDED),
    ]
    pack = build_congress(CongressInput((parsed,)), as_of=date(2026, 6, 30))
    entry = pack.artifact["sources"][0]
    assert (entry["malformed"], entry["excluded"]) == (1, 1)
    assert entry["reasons"] == {"amount-unreadable": 1, "date-unreadable": 1, "ticker-unreadable": 1, "type-unknown": 1}


def test_an_impossible_transaction_date_is_reported_and_left_out_of_derived_dates():
    rows = (house(), house(transaction_date="2035-06-01", ticker="XOM"))  # a typo: 2035 for 2025
    pack = build_person(PersonSource("Pat Example", (parse(*rows),)), as_of=date(2026, 6, 30))
    freshness = pack.agent_payload["freshness"]
    assert (freshness["latestTransactionDate"], freshness["disclosedBeforeTrade"]) == ("2026-06-01", 1)
    assert freshness["maxDaysToDisclose"] == 9
    xom = next(h for h in pack.artifact["holdings"] if h["ticker"] == "XOM")
    assert (xom["firstTransactionDate"], xom["lastTransactionDate"]) == (None, None)
    warning = next(w for w in pack.warnings if w.code == "disclosed-before-trade")
    assert warning.source == "house.json" and "rows 2" in warning.message


def test_the_unmatched_sales_warning_names_the_file_its_rows_are_in():
    first = parse(house(), source="a.json")
    second = parse(house(ticker="PFE", type="sale_partial"), source="b.json")
    pack = build_person(PersonSource("Pat Example", (first, second)), as_of=date(2026, 6, 30))
    assert [(w.source, w.message) for w in pack.warnings if w.code == "unmatched-sales"] == [
        ("b.json", "1 sale(s) without a disclosed purchase before them (rows 1)")
    ]
