"""The <person>-tracker: holdings estimated from disclosed transactions, concentration, freshness."""

from __future__ import annotations

import json
from datetime import date

import pytest

from builder.research.previews.person import build_person, concentration, estimate_holdings, person_trades
from builder.sources.congress.rows import parse_congress
from builder.sources.previews import PersonSource
from tests.conftest import realdata


def tx(ticker: str | None, kind: str, amount: str, traded: str, disclosed: str = "06/30/2026", **changes) -> dict:
    row = {
        "transaction_date": traded,
        "owner": "Self",
        "ticker": ticker,
        "asset_description": f"{ticker} Inc",
        "asset_type": "Stock",
        "type": kind,
        "amount": amount,
        "comment": "--",
        "senator": "Roe, Jane",
        "ptr_link": "https://example.invalid/ptr/",
        "disclosure_date": disclosed,
    }
    return {**row, **changes}


def file_of(*rows: dict):
    return parse_congress(json.dumps(list(rows)).encode(), "person/test.json")


def test_purchases_add_their_range_and_a_partial_sale_takes_its_range_away():
    held = estimate_holdings(
        file_of(
            tx("AAPL", "Purchase", "$15,001 - $50,000", "01/02/2026"),
            tx("AAPL", "Sale (Partial)", "$1,001 - $15,000", "02/02/2026"),
        ).trades
    ).held
    assert [(h.ticker, h.estimate, h.low, h.high) for h in held] == [("AAPL", 32_500 - 8_000, 1, 48_999)]


def test_a_full_sale_closes_a_position_and_a_sale_without_a_disclosed_purchase_is_unmatched():
    estimate = estimate_holdings(
        file_of(
            tx("KO", "Purchase", "$1,001 - $15,000", "01/02/2026"),
            tx("KO", "Sale (Full)", "$1,001 - $15,000", "02/02/2026"),
            tx("PFE", "Sale (Partial)", "$1,001 - $15,000", "02/03/2026"),
        ).trades
    )
    assert (estimate.held, estimate.closed) == ((), ("KO",))
    assert [t.ticker for t in estimate.unmatched_sales] == ["PFE"]


def test_an_open_ended_range_counts_its_lower_bound_and_leaves_the_high_bound_open():
    held = estimate_holdings(file_of(tx("BRK.B", "Purchase", "Over $1,000,000", "01/02/2026")).trades).held
    assert [(h.estimate, h.low, h.high) for h in held] == [(1_000_001, 1_000_001, None)]


def test_untickered_assets_and_exchanges_are_untracked_and_options_listed_apart_none_estimated():
    estimate = estimate_holdings(
        file_of(
            tx("--", "Purchase", "$1,001 - $15,000", "01/02/2026", asset_type="Municipal Security"),
            tx("AAPL", "Purchase", "$1,001 - $15,000", "01/02/2026", asset_type="Stock Option"),
            tx("RTX", "Exchange", "$1,001 - $15,000", "01/02/2026"),
        ).trades
    )
    assert (estimate.held, len(estimate.untracked)) == ((), 2)
    assert [(t.ticker, t.instrument.value) for t in estimate.options] == [("AAPL", "option")]


def test_concentration_reports_top_weights_and_the_herfindahl_index():
    held = estimate_holdings(
        file_of(
            tx("MSFT", "Purchase", "$50,001 - $100,000", "01/02/2026"),
            tx("NVDA", "Purchase", "$50,001 - $100,000", "01/02/2026"),
        ).trades
    ).held
    assert concentration(held) == {
        "positions": 2,
        "hhi": 0.5,
        "effectivePositions": 2.0,
        "top5Weight": 1.0,
        "top": [
            {"ticker": "MSFT", "name": "MSFT Inc", "weight": 0.5},
            {"ticker": "NVDA", "name": "NVDA Inc", "weight": 0.5},
        ],
    }


def test_only_the_person_and_only_transactions_disclosed_by_as_of_are_counted():
    files = (
        file_of(
            tx("AAPL", "Purchase", "$1,001 - $15,000", "01/02/2026", "01/20/2026"),
            tx("MSFT", "Purchase", "$1,001 - $15,000", "01/02/2026", "07/20/2026"),
            tx("NVDA", "Purchase", "$1,001 - $15,000", "01/02/2026", "01/20/2026", senator="Doe, John"),
        ),
    )
    found = person_trades(PersonSource("Sen. Jane Roe", files), date(2026, 6, 30))
    assert [t.ticker for t in found] == ["AAPL"]
    assert [t.ticker for t in person_trades(PersonSource("J. Roe", files, ("Jane Roe",)), date(2026, 6, 30))] == [
        "AAPL"
    ]


def test_the_pack_id_carries_the_slugified_name_and_caveats_stay_attached():
    files = (file_of(tx("AAPL", "Purchase", "$1,001 - $15,000", "01/02/2026", "03/01/2026")),)
    pack = build_person(PersonSource("Jane Roe", files), as_of=date(2026, 6, 30))
    assert (pack.id, pack.label) == ("jane-roe-tracker", "data preview")
    assert pack.version == "jane-roe-tracker-2026-06-30-v1.0"
    assert pack.agent_payload["caveats"] == pack.artifact["caveats"] == list(pack.caveats)
    text = " ".join(pack.caveats)
    assert "Estimated holdings" in text and "Not reconciled with the official filings" in text
    assert pack.agent_payload["freshness"] == {
        "trades": 1,
        "latestTransactionDate": "2026-01-02",
        "latestDisclosureDate": "2026-03-01",
        "medianDaysToDisclose": 58.0,
        "maxDaysToDisclose": 58,
        "lateDisclosures": 1,
        "disclosedBeforeTrade": 0,
        "daysSinceLatestDisclosure": 121,
    }


def test_a_person_without_transactions_gives_an_empty_pack_with_a_warning():
    files = (file_of(tx("AAPL", "Purchase", "$1,001 - $15,000", "01/02/2026")),)
    pack = build_person(PersonSource("Nobody Here", files), as_of=date(2026, 6, 30))
    assert pack.artifact["holdings"] == [] and "person-not-found" in {w.code for w in pack.warnings}


@pytest.fixture(scope="module")
def real_house():
    path = realdata("congress", "house_stock_watcher_sample.json")
    return parse_congress(path.read_bytes(), "congress/house_stock_watcher_sample.json")


def test_a_real_representative_is_tracked_from_27_transactions_with_truncated_ranges_completed(real_house):
    pack = build_person(PersonSource("Alan S. Lowenthal", (real_house,)), as_of=date(2022, 12, 31))
    assert pack.id == "alan-s-lowenthal-tracker"
    assert len(pack.artifact["transactions"]) == 27  # 13 purchases, 9 full and 5 partial sales
    # JIH: six truncated "$1,001 -" purchases, each completed to $1,001–$15,000 (midpoint 8,000)
    assert [(h["ticker"], h["estimate"], h["low"], h["high"]) for h in pack.artifact["holdings"][:2]] == [
        ("JIH", 48_000, 6_006, 90_000),
        ("GM", 24_000, 3_003, 45_000),
    ]
    assert len(pack.artifact["unmatchedSales"]) == 10
    assert pack.agent_payload["freshness"]["latestDisclosureDate"] == "2021-10-04"
    assert {w.code for w in pack.warnings} == {"malformed-rows", "unmatched-sales"}
