"""Research policy checks: every pass, warn and block path, from hand-made artifacts and a given as-of date."""

from __future__ import annotations

import copy
from datetime import date, timedelta

from builder.canonical import canonical_json
from builder.research.methods.policy import CHECK_IDS, POLICY_CONFIG, evaluate_policy, policy_changes
from builder.research.views import census, select_view
from tests.research_samples import make_artifact

DEADLINE = date(2024, 8, 14)  # 2024-06-30 + 45 days
FRESH = DEADLINE + timedelta(days=10)
# Fifteen tickers of equal value: the top one is 1/15, the top five 1/3 of the view.
SPREAD_BOOKS = {"alpha": ({f"T{i:02d}": (10, 1_000) for i in range(15)}, {f"T{i:02d}": 10 for i in range(15)})}


def _policy(artifact: dict | None = None, *, mode: str = "any", as_of: date = FRESH, managers=()) -> dict:
    artifact = artifact or make_artifact()
    result = evaluate_policy(select_view(artifact, list(managers), mode), artifact, as_of=as_of)
    # An older version in a diff is judged on its census's summary of the view: every check, the same answer.
    assert evaluate_policy(census(artifact, list(managers)).summary_view(mode), artifact, as_of=as_of) == result
    return result


def _check(result: dict, check_id: str) -> dict:
    return next(c for c in result["checks"] if c["id"] == check_id)


def test_every_check_is_reported_in_order_and_execution_is_never_enabled():
    result = _policy()
    assert [c["id"] for c in result["checks"]] == list(CHECK_IDS)
    assert len(CHECK_IDS) >= 6 and result["executionEnabled"] is False
    assert _check(result, "execution-disabled")["outcome"] == "pass"
    assert [c["id"] for c in POLICY_CONFIG["checks"]] == list(CHECK_IDS)


def test_source_coverage_passes_when_every_position_cites_its_rows():
    assert _check(_policy(), "source-coverage")["outcome"] == "pass"


def test_source_coverage_blocks_a_position_without_source_rows():
    artifact = make_artifact()
    artifact["managers"][0]["positions"][0]["sources"] = []
    result = _policy(artifact)
    assert _check(result, "source-coverage")["outcome"] == "block"
    assert "alpha/AAPL" in _check(result, "source-coverage")["reason"]
    assert result["signal"] == "no-signal" and result["blockingReasons"] == [
        _check(result, "source-coverage")["reason"]
    ]


def test_source_coverage_blocks_a_citation_of_a_filing_outside_the_managers_book():
    artifact = make_artifact()
    artifact["managers"][1]["positions"][0]["sources"] = [{"accession": "0000000000-24-999999", "row": 1}]
    assert _check(_policy(artifact), "source-coverage")["outcome"] == "block"


def test_freshness_is_dates_a_reader_compares_with_its_own_clock_never_a_verdict():
    # 2024-06-30: due 2024-08-14; the next quarter ends 2024-09-30, its filings due 2024-11-14
    dates = {"filingDeadline": "2024-08-14", "supersededAfter": "2024-09-30", "nextFilingDeadline": "2024-11-14"}
    for as_of in (date(2024, 8, 1), FRESH, DEADLINE + timedelta(days=400)):
        result = _policy(as_of=as_of)
        assert result["freshness"] == dates and "freshness" not in CHECK_IDS
    assert "staleAfterDays" not in POLICY_CONFIG


def test_the_freshness_dates_roll_over_the_year_end():
    artifact = make_artifact()
    artifact["quarter"] = "2019-12-31"
    assert _policy(artifact)["freshness"] == {
        "filingDeadline": "2020-02-14",
        "supersededAfter": "2020-03-31",
        "nextFilingDeadline": "2020-05-15",
    }


def test_fixture_data_warns_only_for_the_fixture():
    assert _check(_policy(make_artifact(fixture=True)), "fixture-data")["outcome"] == "warn"
    assert _check(_policy(make_artifact(fixture=False)), "fixture-data")["outcome"] == "pass"


def test_unmapped_securities_warns_when_the_view_holds_a_cusip_keyed_position():
    artifact = make_artifact({"alpha": ({"AAPL": (1, 100), "88160R101": (2, 200)}, None)})
    check = _check(_policy(artifact), "unmapped-securities")
    assert check["outcome"] == "warn" and "88160R101" in check["reason"]
    assert _check(_policy(), "unmapped-securities")["outcome"] == "pass"


def test_concentration_warns_when_the_top_ticker_passes_its_limit():
    check = _check(_policy(), "concentration")
    # AAPL is $90,000 of $220,000 in the view.
    assert check["outcome"] == "warn" and "AAPL is 40.91%" in check["reason"]


def test_concentration_passes_a_view_spread_over_fifteen_equal_tickers():
    check = _check(_policy(make_artifact(SPREAD_BOOKS)), "concentration")
    assert check["outcome"] == "pass" and "top five are 33.33%" in check["reason"]


def test_concentration_warns_when_only_the_top_five_pass_their_limit():
    books = {"alpha": ({**SPREAD_BOOKS["alpha"][0], **{f"B{i}": (10, 2_000) for i in range(5)}}, None)}
    check = _check(_policy(make_artifact(books)), "concentration")
    # five at $2,000 of $25,000: 8% each, exactly 40% together, which is not past the limit.
    assert check["outcome"] == "pass" and "top five are 40.00%" in check["reason"]
    books["alpha"][0]["B0"] = (10, 3_000)  # now 11.54% and 42.31% of $26,000: only the top five pass their limit
    assert _check(_policy(make_artifact(books)), "concentration")["outcome"] == "warn"


def test_empty_view_blocks_with_no_signal():
    result = _policy(mode="overlap", managers=("beta", "gamma"))  # AAPL is the one both hold
    assert _check(result, "empty-view")["outcome"] == "pass"
    empty = _policy(
        make_artifact({"alpha": ({"AAPL": (1, 10)}, None), "beta": ({"KO": (1, 10)}, None)}), mode="overlap"
    )
    assert _check(empty, "empty-view")["outcome"] == "block"
    assert empty["signal"] == "no-signal" and "stay in cash" in empty["blockingReasons"][0]
    assert _check(empty, "concentration")["outcome"] == "pass" and empty["executionEnabled"] is False


def test_scope_warnings_warn_but_leave_fixture_and_unmapped_to_their_own_checks():
    mismatch = {"code": "summary-mismatch", "message": "rows differ", "source": "sec13f/x.xml"}
    fixture = {"code": "fixture-data", "message": "fictional", "source": "packs.toml"}
    assert _check(_policy(make_artifact(warnings=[mismatch, fixture])), "scope-warnings")["outcome"] == "warn"
    assert _check(_policy(make_artifact(warnings=[fixture])), "scope-warnings")["outcome"] == "pass"


def test_a_research_only_signal_has_warnings_but_no_blocking_reasons():
    result = _policy()
    assert result["signal"] == "research-only" and result["blockingReasons"] == []
    assert result["warnings"] == [c["reason"] for c in result["checks"] if c["outcome"] == "warn"]


def test_policy_changes_lists_only_checks_whose_outcome_moved():
    older = _policy(make_artifact(fixture=True))
    newer = _policy(make_artifact(fixture=False), as_of=DEADLINE + timedelta(days=400))
    changes = policy_changes(older, newer)
    assert [(c["id"], c["from"], c["to"]) for c in changes] == [("fixture-data", "warn", "pass")]
    assert policy_changes(older, copy.deepcopy(older)) == []


def test_the_same_view_and_date_give_the_same_bytes():
    assert canonical_json(_policy()) == canonical_json(_policy())
