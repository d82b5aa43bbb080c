from __future__ import annotations

from datetime import date

from builder.records import Amendment
from builder.research.artifact import build_artifacts
from builder.research.diff import diff_versions, position_changes
from builder.research.versions import assign_versions, content_digest
from builder.research.views import select_view
from tests.factories import filing, sources

Q1, Q2, Q3, Q4 = date(2025, 3, 31), date(2025, 6, 30), date(2025, 9, 30), date(2025, 12, 31)
A, B, C = "0000000001", "0000000002", "0000000003"
MANAGERS = [("alpha", A), ("beta", B), ("gamma", C)]


def three_managers() -> list:
    return [
        filing(A, Q1, {"AAPL": 100, "MSFT": 50}),
        filing(A, Q2, {"AAPL": 150, "GOOGL": 10}),
        filing(B, Q1, {"AAPL": 100}),
        filing(B, Q2, {"AAPL": 80, "MSFT": 20}),
        filing(C, Q2, {"MSFT": 5, "88160R101": 7}),
    ]


def artifacts_of(filings: list, managers=MANAGERS) -> list[dict]:
    built = build_artifacts(sources(filings, managers))
    return assign_versions(built, [])[0]


def positions(artifact: dict, manager_id: str) -> dict[str, dict]:
    manager = next(m for m in artifact["managers"] if m["id"] == manager_id)
    return {p["ticker"]: p for p in manager["positions"]}


def test_only_quarters_every_manager_filed_become_versions():
    artifacts = artifacts_of(three_managers())
    assert [a["quarter"] for a in artifacts] == ["2025-06-30"]
    assert artifacts[0]["versionId"] == "multi-manager-2025-06-30-v2.0"


def test_changes_are_measured_against_the_previous_calendar_quarter():
    artifact = artifacts_of(three_managers())[0]
    alpha = positions(artifact, "alpha")
    assert alpha["AAPL"]["change"] == {
        "kind": "added",
        "previousShares": 100,
        "carriedShares": 100,
        "shareDelta": 50,
        "cause": "trade",
        "corporateActions": [],
        "candidates": [],
    }
    assert alpha["GOOGL"]["change"] == {
        "kind": "new",
        "previousShares": 0,
        "carriedShares": 0,
        "shareDelta": 10,
        "cause": "trade",
        "corporateActions": [],
        "candidates": [],
    }
    exited = next(m for m in artifact["managers"] if m["id"] == "alpha")["ended"]
    assert [(e["ticker"], e["change"]["kind"], e["change"]["shareDelta"]) for e in exited] == [("MSFT", "exited", -50)]
    assert positions(artifact, "beta")["AAPL"]["change"]["kind"] == "reduced"


def test_a_missing_prior_quarter_makes_every_change_unknown_not_new():
    artifact = artifacts_of(three_managers())[0]
    gamma = next(m for m in artifact["managers"] if m["id"] == "gamma")
    assert gamma["previousQuarterFiled"] is False
    assert {p["change"]["kind"] for p in gamma["positions"]} == {"unknown"}
    assert gamma["ended"] == []


def test_weights_are_fractions_of_the_long_equity_book_and_unmapped_cusips_stay_keyed_by_cusip():
    artifact = artifacts_of(three_managers())[0]
    gamma = positions(artifact, "gamma")
    assert gamma["MSFT"]["weight"] == round(5 / 12, 6)
    assert gamma["88160R101"]["mapped"] is False
    assert gamma["88160R101"]["cusip"] == "88160R101"
    unmapped = [w for w in artifact["warnings"] if w["code"] == "unmapped-cusip"]
    assert [(w["manager"], w["quarter"], w["cusip"], w["accession"]) for w in unmapped] == [
        ("gamma", artifact["quarter"], "88160R101", None)  # about securities.csv and a CUSIP, not one filing
    ]
    assert unmapped[0]["message"].startswith(
        "CUSIP 88160R101 (88160R101 CORP) has no ticker in securities.csv: a "
        "position of gamma worth $770 is shown under its CUSIP"
    )


def test_new_holdings_amendment_adds_rows_and_restatement_replaces_the_table():
    filings = [
        filing(A, Q1, {"AAPL": 100}),
        filing(A, Q2, {"AAPL": 100}),
        filing(A, Q2, {"MSFT": 30}, amendment=Amendment.NEW_HOLDINGS, amendment_no=1),
        filing(A, Q3, {"AAPL": 100, "MSFT": 30}),
        filing(A, Q3, {"AAPL": 60}, amendment=Amendment.RESTATEMENT, amendment_no=1),
    ]
    q2, q3 = artifacts_of(filings, [("alpha", A)])[-2:]
    assert set(positions(q2, "alpha")) == {"AAPL", "MSFT"}
    assert set(positions(q3, "alpha")) == {"AAPL"}
    assert positions(q3, "alpha")["AAPL"]["shares"] == 60


def test_view_modes_select_by_holder_count_and_by_buyers_against_sellers():
    artifact = artifacts_of(three_managers())[0]
    tickers = {
        mode: [r["ticker"] for r in select_view(artifact, [], mode)["tickers"]]
        for mode in ("any", "overlap", "exclusive", "disagreement")
    }
    assert tickers["any"] == ["88160R101", "AAPL", "GOOGL", "MSFT"]
    assert tickers["overlap"] == ["AAPL", "MSFT"]
    assert tickers["exclusive"] == ["88160R101", "GOOGL"]
    # alpha added AAPL while beta reduced it; beta opened MSFT while alpha exited it
    assert tickers["disagreement"] == ["AAPL", "MSFT"]


def test_overlap_with_one_selected_manager_is_what_that_manager_holds():
    artifact = artifacts_of(three_managers())[0]
    view = select_view(artifact, ["alpha"], "overlap")
    assert [r["ticker"] for r in view["tickers"]] == ["AAPL", "GOOGL"]


def test_diff_names_tickers_that_entered_and_left_and_each_position_change_in_the_artifacts_words():
    filings = [
        *three_managers(),
        filing(A, Q3, {"GOOGL": 10}),
        filing(B, Q3, {"AAPL": 80, "MSFT": 25}),
        filing(C, Q3, {"MSFT": 5}),
    ]
    older, newer = artifacts_of(filings)
    diff = diff_versions(older, newer, [], "any")
    assert diff["tickers"] == {"entered": [], "left": ["88160R101"], "unchanged": 3}
    changes = {(c["managerId"], c["ticker"]): (c["kind"], c["shareDelta"]) for c in position_changes(diff)}
    assert changes == {
        ("alpha", "AAPL"): ("exited", -150),
        ("beta", "MSFT"): ("added", 5),
        ("gamma", "88160R101"): ("exited", -7),
    }
    assert diff["from"] == older["versionId"] and diff["to"] == newer["versionId"]
    # the ticker that left is named once, as an unmapped CUSIP; plain trades need no detail beyond their columns
    assert diff["names"]["88160R101"] == {"issuer": "88160R101 CORP", "tickerAsOf": "unmapped", "mapped": False}
    gamma = diff["managers"][2]
    assert (gamma["managerId"], gamma["counts"]["exited"], diff["changeDetails"]) == ("gamma", 1, [])
    assert gamma["changes"] == {
        "tickers": ["88160R101"],
        "kinds": ["exited"],
        "fromShares": [7],
        "toShares": [0],
        "fromValues": [770],
        "toValues": [0],
    }


def test_same_content_keeps_its_id_and_changed_content_gets_the_next_minor():
    first = artifacts_of(three_managers())
    _, ledger = assign_versions(first, [])
    changed = build_artifacts(sources([*three_managers()[:-1], filing(C, Q2, {"MSFT": 6})], MANAGERS))
    again, _ = assign_versions(first, ledger)
    assert again[0]["versionId"] == "multi-manager-2025-06-30-v2.0"
    restated, ledger3 = assign_versions(changed, ledger)
    assert restated[0]["versionId"] == "multi-manager-2025-06-30-v2.1"
    assert content_digest(restated[0]) != content_digest(first[0])
    assert [e["versionId"] for e in ledger3] == ["multi-manager-2025-06-30-v2.0", "multi-manager-2025-06-30-v2.1"]
