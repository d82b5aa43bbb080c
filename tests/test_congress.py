"""House/Senate Stock Watcher parsing and the congress-trades cluster signal, on made-up rows and real files."""

from __future__ import annotations

import json
from datetime import date

import pytest

from builder.research.previews.congress import (
    DEMO_RULE,
    STRICT_RULE,
    ClusterRule,
    CongressInput,
    Outcome,
    build_congress,
    clusters_on,
    signal_history,
)
from builder.research.previews.pack import json_ready
from builder.sources.congress.people import name_key
from builder.sources.congress.rows import RowOutcome, TradeType, parse_congress
from tests.conftest import realdata


def house(**changes: object) -> dict:
    row = {
        "disclosure_year": "2026",
        "disclosure_date": "06/10/2026",
        "transaction_date": "2026-06-01",
        "owner": "joint",
        "ticker": "NVDA",
        "asset_description": "NVIDIA Corporation",
        "type": "purchase",
        "amount": "$1,001 - $15,000",
        "representative": "Hon. Test Member",
        "district": "ZZ01",
        "ptr_link": "https://example.invalid/ptr.pdf",
        "cap_gains_over_200_usd": "False",
    }
    return {**row, **changes}


def senate(**changes: object) -> dict:
    row = {
        "transaction_date": "06/01/2026",
        "owner": "Spouse",
        "ticker": "NVDA",
        "asset_description": "NVIDIA",
        "asset_type": "Stock",
        "type": "Purchase",
        "amount": "$15,001 - $50,000",
        "comment": "--",
        "senator": "Sample, Sam",
        "ptr_link": "https://example.invalid/ptr/",
        "disclosure_date": "06/12/2026",
    }
    return {**row, **changes}


def parse(*rows: object):
    return parse_congress(json.dumps(list(rows)).encode(), "congress/test.json")


def test_a_house_row_reads_its_mm_dd_yyyy_disclosure_and_iso_transaction_dates():
    trade = parse(house()).trades[0]
    assert (trade.chamber, trade.traded, trade.disclosed) == ("house", date(2026, 6, 1), date(2026, 6, 10))
    assert (trade.amount.low, trade.amount.high, trade.owner, trade.district) == (1_001, 15_000, "joint", "ZZ01")


def test_a_senate_row_reads_both_dates_as_mm_dd_yyyy_and_normalises_type_and_owner():
    trade = parse(senate(type="Sale (Partial)", owner="Child")).trades[0]
    assert (trade.chamber, trade.traded, trade.disclosed) == ("senate", date(2026, 6, 1), date(2026, 6, 12))
    assert (trade.trade_type, trade.owner, trade.asset_type) == (TradeType.SALE_PARTIAL, "dependent", "Stock")


def test_a_daily_report_gives_its_transactions_the_office_name_and_received_date():
    link = '<a href="https://finance.yahoo.com/q?s=HQL" target="_blank">HQL</a>'
    report = {
        "first_name": "Test",
        "last_name": "Person",
        "office": "Person, Test (Senator)",
        "ptr_link": "https://example.invalid/r/",
        "date_recieved": "03/03/2020",
        "transactions": [
            {
                "transaction_date": "02/22/2020",
                "owner": "Spouse",
                "ticker": link,
                "asset_description": "S&amp;P <div>fund</div>",
                "asset_type": "Stock",
                "type": "Purchase",
                "amount": "$1,001 - $15,000",
                "comment": "--",
            }
        ],
    }
    trade = parse(report).trades[0]
    assert (trade.member, trade.ticker, trade.disclosed) == ("Person, Test", "HQL", date(2020, 3, 3))
    assert (trade.asset_description, trade.ptr_link) == ("S&P fund", "https://example.invalid/r/")


@pytest.mark.parametrize(
    ("text", "low", "high", "code"),
    [
        ("$1,001 - $15,000", 1_001, 15_000, None),
        ("$5,000,001 - $25,000,000", 5_000_001, 25_000_000, None),
        ("$1,001 -", 1_001, 15_000, "amount-truncated"),
        ("$250,001 -", 250_001, 500_000, "amount-truncated"),
        ("$1,001 -\n$15,000", 1_001, 15_000, "amount-multiline"),
        ("Over $50,000,000", 50_000_001, None, None),
        ("Over $1,000,000", 1_000_001, None, None),  # the spouse / dependent category
        ("$15,000", 15_000, 15_000, "amount-nonstatutory"),  # kept as filed, reported
        ("$1,000 - $15,000", 1_001, 15_000, "amount-nonstatutory"),  # within $1 of a category: read as it
        ("$2,000 - $3,000", 2_000, 3_000, "amount-nonstatutory"),
    ],
)
def test_amount_ranges_are_read_as_integer_dollar_bounds(text, low, high, code):
    parsed = parse(house(amount=text))
    assert (parsed.trades[0].amount.low, parsed.trades[0].amount.high) == (low, high)
    assert [issue.code for issue in parsed.issues] == ([code] if code else [])
    assert all(issue.outcome is RowOutcome.KEPT for issue in parsed.issues)


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"amount": "$1,234 -"}, "amount-unreadable"),
        ({"amount": "$15,000 - $1,001"}, "amount-unreadable"),
        ({"amount": None}, "amount-unreadable"),
        ({"transaction_date": "2021-02-30"}, "date-unreadable"),
        ({"transaction_date": "0021-06-28"}, "date-unreadable"),
        ({"disclosure_date": ""}, "date-unreadable"),
        ({"type": "gift"}, "type-unknown"),
        ({"representative": ""}, "member-missing"),
    ],
)
def test_an_unusable_row_is_excluded_counted_and_reported_not_fatal(changes, code):
    parsed = parse(house(), house(**changes))
    assert (parsed.rows, len(parsed.trades)) == (2, 1)
    assert [(i.row, i.code, i.outcome) for i in parsed.issues] == [(2, code, RowOutcome.EXCLUDED)]


@pytest.mark.parametrize(
    ("ticker", "expected", "code"),
    [
        ("--", None, None),
        (None, None, None),
        ("", None, None),
        ("brk.b", "BRK.B", None),
        ('<a href="https://finance.yahoo.com/q?s=VZ" target="_blank">VZ</a>', "VZ", None),
        ('<a href="x">RTN</a> <br> <a href="y">RTX</a>', None, "ticker-ambiguous"),
        ("--AMCR", None, "ticker-unreadable"),
    ],
)
def test_tickers_come_from_text_or_links_and_an_unreadable_one_is_reported(ticker, expected, code):
    parsed = parse(house(ticker=ticker))
    assert parsed.trades[0].ticker == expected
    assert [issue.code for issue in parsed.issues] == ([code] if code else [])


def test_a_file_that_is_not_a_json_array_is_an_error_not_rows():
    with pytest.raises(ValueError, match="expected a JSON array"):
        parse_congress(b'{"rows": []}', "x.json")
    with pytest.raises(ValueError, match="Expecting property name"):
        parse_congress(b"[{", "x.json")


def test_a_row_that_is_not_an_object_is_excluded():
    parsed = parse(house(), "junk")
    assert [(i.code, i.outcome) for i in parsed.issues] == [("row-not-object", RowOutcome.EXCLUDED)]


def test_names_match_regardless_of_order_honorifics_and_parentheses():
    assert name_key("Boozman, John") == name_key("Sen. John Boozman") == name_key("Hon. John Boozman (fixture)")


def trades(*rows: dict):
    return parse(*rows).trades


def test_a_trade_counts_only_from_its_disclosure_date_so_there_is_no_look_ahead():
    found = trades(house(), senate(disclosure_date="06/20/2026"))
    assert clusters_on(found, DEMO_RULE, date(2026, 6, 19)) == ()
    assert [c.ticker for c in clusters_on(found, DEMO_RULE, date(2026, 6, 20))] == ["NVDA"]
    assert clusters_on(found, DEMO_RULE, date(2026, 7, 10)) == ()  # the 2026-06-10 disclosure left the window


def test_one_member_buying_twice_is_not_a_cluster_and_options_and_sales_do_not_count():
    found = trades(
        house(),
        house(transaction_date="2026-06-02"),
        senate(asset_type="Stock Option"),
        senate(senator="Other, Test", type="Sale (Full)"),
    )
    assert clusters_on(found, DEMO_RULE, date(2026, 6, 20)) == ()


def test_strict_thresholds_need_more_members_and_larger_trades():
    found = trades(house(amount="$15,001 - $50,000"), senate(), senate(senator="Third, Test"))
    assert [c.members for c in clusters_on(found, STRICT_RULE, date(2026, 6, 12))] == [
        ("Sam Sample", "Test Member", "Test Third")  # one display form: "First Last"
    ]
    assert clusters_on(trades(house(), senate(), senate(senator="Third, Test")), STRICT_RULE, date(2026, 6, 12)) == ()


def test_history_lists_every_disclosure_day_with_a_cluster():
    found = trades(house(), senate(), house(ticker="XOM", disclosure_date="08/01/2026"))
    assert signal_history(found, ClusterRule(5, 2, 0), date(2026, 12, 31)) == [
        {"date": "2026-06-12", "tickers": ["NVDA"]}
    ]


def test_no_qualifying_cluster_answers_stay_in_cash_with_the_definition_attached():
    pack = build_congress(CongressInput((parse(house()),)), as_of=date(2026, 6, 30))
    payload = pack.agent_payload
    assert (payload["outcome"], payload["stance"], payload["signal"]) == ("no-signal", "stay in cash", [])
    assert payload["definition"]["demo"] == json_ready(DEMO_RULE.as_json()) and "Stay in cash" in payload["answer"]
    assert payload["definition"]["demo"]["windowDays"] == DEMO_RULE.window_days and payload["executionEnabled"] is False
    assert payload["caveats"] == list(pack.caveats) == pack.artifact["caveats"]


def test_a_disclosure_dated_before_its_trade_is_flagged_not_fatal():
    pack = build_congress(CongressInput((parse(house(transaction_date="2026-06-11")),)), as_of=date(2026, 6, 30))
    assert pack.artifact["windowTrades"][0]["flags"] == ["disclosed-before-trade"]
    assert pack.artifact["windowTrades"][0]["daysToDisclose"] == -1
    assert "disclosed-before-trade" in {w.code for w in pack.warnings}


def test_a_strict_cluster_is_the_headline_signal():
    files = (parse(house(amount="$15,001 - $50,000"), senate(), senate(senator="Third, Test")),)
    payload = build_congress(CongressInput(files), as_of=date(2026, 6, 30)).agent_payload
    assert (payload["outcome"], payload["producedBy"]) == ("strict-signal", "strict")
    assert payload["strictTickers"] == ["NVDA"]
    assert payload["signal"][0]["memberCount"] == 3 and payload["signal"][0]["amountLowTotal"] == 45_003
    assert payload["signal"][0]["disclosedWithin45Days"] == 3
    assert payload["signal"][0]["trades"][0] == {
        "member": "Hon. Test Member",
        "person": "Test Member",
        "chamber": "house",
        "assetDescription": "NVIDIA Corporation",
        "instrument": "stock",
        "instrumentRule": "ticker",
        "transactionDate": "2026-06-01",
        "disclosureDate": "2026-06-10",
        "daysToDisclose": 9,
        "amount": {"low": 15_001, "high": 50_000, "text": "$15,001 - $50,000"},
        "owner": "joint",
        "ptrLink": "https://example.invalid/ptr.pdf",
        "flags": [],
    }


# Real files: figures counted independently from the raw JSON (rows, malformed rows and their reasons).
REAL_FILES = {
    "house_stock_watcher_sample.json": (400, {"amount-truncated": 11}),
    # "--AMCR"; two bond ETFs' and a structured note's "Stock" type overruled by "Corporate Bond", "Linked Note"
    "senate_transactions_2025_sample.json": (300, {"ticker-unreadable": 1, "asset-type-contradicted": 3}),
    "senate_stock_watcher_daily/transaction_report_for_02_28_2020.json": (0, {}),  # an empty day
    "senate_stock_watcher_daily/transaction_report_for_03_03_2020.json": (90, {}),
    "senate_stock_watcher_daily/transaction_report_for_04_01_2020.json": (14, {}),
    "senate_stock_watcher_daily/transaction_report_for_05_01_2020.json": (182, {"ticker-ambiguous": 1}),  # RTN/RTX
    "senate_stock_watcher_daily/transaction_report_for_12_31_2020.json": (17, {}),
    "house_stock_watcher_options_and_names_sample.json": (1397, {"ticker-unreadable": 1}),  # "BROADCOM INC."
    "capitol_watch_house_sample.json": (60, {"owner-from-description": 4}),  # owner "Self", "SP …", "JT …"
}
LATER = {"house_stock_watcher_options_and_names_sample.json", "capitol_watch_house_sample.json"}  # own tests


def first_samples(real_files: dict) -> tuple:
    """The real files the cluster tests below were written on (the later samples have tests of their own)."""
    return tuple(parsed for name, parsed in real_files.items() if name not in LATER)


@pytest.fixture(scope="module")
def real_files():
    root = realdata("congress")
    return {
        p.relative_to(root).as_posix(): parse_congress(p.read_bytes(), p.relative_to(root).as_posix())
        for p in sorted(root.rglob("*.json"))
    }


def test_every_real_congress_file_is_read_with_its_rows_and_malformed_rows_counted(real_files):
    assert sorted(real_files) == sorted(REAL_FILES)
    for name, (rows, reasons) in REAL_FILES.items():
        parsed = real_files[name]
        assert (parsed.rows, len(parsed.trades)) == (rows, rows), name  # every malformed real row is kept
        assert {issue.code: sum(i.code == issue.code for i in parsed.issues) for issue in parsed.issues} == reasons


def test_real_house_rows_keep_their_types_and_one_disclosure_predates_its_trade(real_files):
    trades_ = real_files["house_stock_watcher_sample.json"].trades
    counts = {kind: sum(t.trade_type is kind for t in trades_) for kind in TradeType}
    assert counts == {
        TradeType.PURCHASE: 179,
        TradeType.SALE_FULL: 155,
        TradeType.SALE_PARTIAL: 65,
        TradeType.SALE: 0,
        TradeType.EXCHANGE: 1,
    }
    assert [(t.row, t.ticker, t.traded, t.disclosed) for t in trades_ if t.disclosed < t.traded] == [
        (293, "GS", date(2021, 4, 24), date(2021, 4, 23))
    ]


def test_real_senate_rows_without_a_ticker_are_kept_without_one(real_files):
    trades_ = real_files["senate_transactions_2025_sample.json"].trades
    assert sum(t.ticker is None for t in trades_) == 89  # 88 null tickers and "--AMCR"


def test_real_data_holds_a_demo_cluster_on_dis_as_of_2020_04_01_and_none_strict(real_files):
    pack = build_congress(CongressInput(first_samples(real_files)), as_of=date(2020, 4, 1))
    assert pack.agent_payload["outcome"] == Outcome.DEMO_SIGNAL.value
    assert [(s["ticker"], s["members"]) for s in pack.agent_payload["signal"]] == [
        ("DIS", ["David Perdue", "Thomas R. Carper"])
    ]
    assert pack.artifact["signals"]["strict"] == []
    assert {w.code for w in pack.warnings} >= {"relaxed-thresholds", "malformed-rows"}


def test_real_data_as_of_its_last_disclosure_says_stay_in_cash_and_keeps_the_history(real_files):
    pack = build_congress(CongressInput(first_samples(real_files)), as_of=date(2026, 8, 20))
    assert (pack.agent_payload["outcome"], pack.agent_payload["stance"]) == ("no-signal", "stay in cash")
    assert pack.artifact["history"] == {
        "demo": [{"date": "2020-04-01", "tickers": ["DIS"]}, {"date": "2021-01-26", "tickers": ["COST"]}],
        "strict": [],
    }
    assert pack.artifact["disclosure"]["disclosedBeforeTrade"] == 1
    assert [(s["path"], s["rows"], s["malformed"]) for s in pack.artifact["sources"] if s["malformed"]] == [
        ("house_stock_watcher_sample.json", 400, 11),
        ("senate_stock_watcher_daily/transaction_report_for_05_01_2020.json", 182, 1),
        ("senate_transactions_2025_sample.json", 300, 4),
    ]
