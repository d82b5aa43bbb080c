"""Position explanations: structured changes, statements citing filed rows, scores, overlap, sources."""

from __future__ import annotations

from datetime import date

import pytest

from builder.api.wire import ErrorCode, api_error
from builder.records import Amendment, ValueUnit
from builder.research.errors import NotInView
from builder.research.methods.ethos import score_view
from builder.research.methods.explain import explain_position
from builder.research.methods.explained import citations, source_paths, source_record
from builder.research.methods.policy import evaluate_policy
from builder.research.schema import ArtifactFiling
from builder.research.views import select_view
from tests.research_samples import make_artifact


def _explain(ticker: str, *, mode: str = "any", managers=(), with_policy: bool = False) -> tuple[dict, dict]:
    artifact = make_artifact(fixture=True)
    view = select_view(artifact, list(managers), mode)
    scores = score_view(view, artifact, [], [])
    policy = evaluate_policy(view, artifact, as_of=date(2024, 9, 1)) if with_policy else None
    return explain_position(ticker, view, artifact, scores, policy), artifact


def _filed(artifact: dict) -> dict[str, set[str]]:
    return {m["id"]: {f["accession"] for f in m["filings"]} for m in artifact["managers"]}


@pytest.mark.parametrize("ticker", ["AAPL", "KO", "MSFT", "NVDA"])
def test_every_statement_cites_that_managers_filings_this_quarter_or_the_rows_an_exit_ended(ticker):
    explanation, artifact = _explain(ticker)
    filed = _filed(artifact)
    ended = {
        (m["id"], s["accession"], s["row"]) for m in artifact["managers"] for e in m["ended"] for s in e["sources"]
    }
    statements = explanation["evidence"]["statements"]
    assert statements and all(s["text"] and citations(explanation, s) for s in statements)
    for statement in statements:
        for c in citations(explanation, statement):
            assert c["accession"] in filed[c["managerId"]] or (c["managerId"], c["accession"], c["row"]) in ended


def test_held_citations_name_the_rows_the_position_came_from():
    explanation, _ = _explain("AAPL")
    alpha = next(s for s in explanation["evidence"]["statements"] if s["text"].startswith("Alpha"))
    change = next(c for c in explanation["changes"] if c["managerId"] == "alpha")
    assert [(c["accession"], c["row"]) for c in citations(explanation, alpha)] == [
        (s["accession"], s["row"]) for s in change["sources"]
    ]
    assert (
        alpha["text"] == "Alpha Capital bought 20 shares (from 100 to 120), now worth $60,000, 60.00% of its 13F book."
    )


def test_changes_are_the_artifacts_own_entries_for_the_selected_managers():
    explanation, artifact = _explain("MSFT")
    assert [(c["managerId"], c["change"]["kind"]) for c in explanation["changes"]] == [
        ("alpha", "unchanged"),
        ("beta", "exited"),
        ("gamma", "unknown"),
    ]
    beta = next(m for m in artifact["managers"] if m["id"] == "beta")
    exit_change = explanation["changes"][1]
    assert exit_change["sources"] == beta["ended"][0]["sources"] and explanation["previousQuarter"] == "2024-03-31"
    assert exit_change["held"] is False and exit_change["absentFrom"] == [f["accession"] for f in beta["filings"]]


def test_an_exit_statement_cites_this_quarters_filing_without_a_row_then_the_rows_it_ended():
    explanation, artifact = _explain("MSFT")
    exit_statement = next(s for s in explanation["evidence"]["statements"] if "exited" in s["text"])
    assert exit_statement["text"] == "Beta Capital exited: 20 shares at 2024-03-31, no row in its 13F for 2024-06-30."
    beta = next(m for m in artifact["managers"] if m["id"] == "beta")
    assert [(c["accession"], c["row"]) for c in citations(explanation, exit_statement)] == [
        (beta["filings"][0]["accession"], None),
        *((s["accession"], s["row"]) for s in beta["ended"][0]["sources"]),
    ]
    assert any("absence of a row" in note for note in explanation["limitations"])


def test_source_records_are_exactly_the_filings_the_statements_cite():
    explanation, _ = _explain("AAPL")
    cited = {
        (c["managerId"], c["accession"])
        for s in explanation["evidence"]["statements"]
        for c in citations(explanation, s)
    }
    assert {(r["managerId"], r["accession"]) for r in explanation["sourceRecords"]} == cited
    assert all(r["formType"] == "13F-HR" for r in explanation["sourceRecords"])


def test_a_source_records_folder_and_files_are_the_filings_source_paths():
    explanation, artifact = _explain("MSFT")
    filings = {(m["id"], f["accession"]): f for m in artifact["managers"] for f in m["filings"]}
    for record in explanation["sourceRecords"]:
        filing = filings[(record["managerId"], record["accession"])]
        assert source_paths(record) == filing["source"]
        assert {k: v for k, v in record.items() if k not in ("managerId", "folder", "files")} == {
            k: v for k, v in filing.items() if k != "source"
        }
    assert all(record["folder"].startswith("sec13f/") and record["files"] for record in explanation["sourceRecords"])


@pytest.mark.parametrize(
    ("source", "folder", "files"),
    [
        (
            "sec13f/1/1-26-14/primary_doc.xml + sec13f/1/1-26-14/infotable.xml",
            "sec13f/1/1-26-14",
            ["primary_doc.xml", "infotable.xml"],
        ),
        ("sec13f/1/1-26-14.txt", "sec13f/1", ["1-26-14.txt"]),
        ("a/x.xml + b/y.xml", "", ["a/x.xml", "b/y.xml"]),
        ("data/set.tsv:12", "data", ["set.tsv:12"]),
    ],
)
def test_source_paths_are_split_at_their_common_folder_and_joined_back(source, folder, files):
    filing: ArtifactFiling = {
        "accession": "1",
        "url": None,
        "formType": "13F-HR",
        "amendment": Amendment.ORIGINAL,
        "amendmentNo": 0,
        "filed": "2014-02-14",
        "filedFrom": "submission header",
        "source": source,
        "unit": ValueUnit.THOUSANDS,
        "unitRule": "filed-before-2023-01-03",
        "rows": 2,
        "tableEntryTotal": 2,
        "tableValueTotal": 30,
    }
    record = source_record("m", filing)
    assert (record["folder"], record["files"]) == (folder, files)
    assert source_paths(record) == source
    assert record["managerId"] == "m" and {**record, "source": source} == {
        **filing,
        "managerId": "m",
        "folder": folder,
        "files": files,
    }


def test_the_explanation_carries_the_tickers_scores_and_overlap():
    explanation, artifact = _explain("NVDA")
    view = select_view(artifact, [], "any")
    scores = score_view(view, artifact, [], [])
    assert explanation["ethos"]["scores"] == next(e["scores"] for e in scores["scores"] if e["ticker"] == "NVDA")
    assert explanation["overlap"]["inEveryTopSet"] is True
    assert explanation["overlap"]["ranks"]["new-money"] == 1


def test_a_ticker_outside_some_top_sets_is_not_in_every_top_set():
    explanation, _ = _explain("AAPL")
    assert explanation["overlap"]["inEveryTopSet"] is False
    assert "new-money" not in explanation["overlap"]["topSets"] and explanation["overlap"]["ranks"]["new-money"] is None


def test_an_unknown_change_is_stated_and_listed_as_a_limitation():
    explanation, _ = _explain("MSFT")
    gamma = next(s for s in explanation["evidence"]["statements"] if s["text"].startswith("Gamma"))
    assert "the change is unknown" in gamma["text"]
    assert (
        "Change unknown for Gamma Capital: the previous quarter's 13F is not in the sources."
        in explanation["limitations"]
    )


def test_policy_warnings_and_fixture_data_join_the_limitations():
    explanation, _ = _explain("AAPL", with_policy=True)
    assert explanation["policy"]["executionEnabled"] is False and explanation["policy"]["signal"] == "research-only"
    assert set(explanation["policy"]["warnings"]) <= set(explanation["limitations"])
    assert any(note.startswith("Fixture data") for note in explanation["limitations"])


def test_a_ticker_not_in_the_view_is_a_404_position_not_found():
    with pytest.raises(NotInView) as raised:
        _explain("KO", mode="overlap")
    error = api_error(raised.value)
    assert (error.status, error.code) == (404, ErrorCode.POSITION_NOT_FOUND)
    assert error.details == {"ticker": "KO", "managers": ["alpha", "beta", "gamma"], "mode": "overlap"}


def test_only_the_selected_managers_are_explained():
    explanation, _ = _explain("AAPL", managers=("beta",))
    assert [c["managerId"] for c in explanation["changes"]] == ["beta"]
    assert explanation["evidence"]["statements"][0]["text"].startswith("1 of 1 selected managers hold AAPL")
    assert explanation["view"] == {"mode": "any", "managerCount": 1, "managers": ["beta"]}


def test_the_whole_versions_view_is_counted_not_listed():
    explanation, artifact = _explain("AAPL")
    assert explanation["view"] == {"mode": "any", "managerCount": len(artifact["managers"]), "managers": None}


def test_the_naming_is_said_once_and_a_change_repeats_only_what_differs():
    artifact = make_artifact(fixture=True)
    (entry,) = [p for m in artifact["managers"] if m["id"] == "beta" for p in m["positions"] if p["ticker"] == "AAPL"]
    entry["issuer"] = "APPLE INC (as Beta filed it)"  # the test's own edit: one holder's issuer differs
    view = select_view(artifact, [], "any")
    explanation = explain_position("AAPL", view, artifact, score_view(view, artifact, [], []))
    assert (explanation["issuer"], explanation["mapped"], explanation["tickerAsOf"]) == ("AAPL INC", True, "current")
    named = {
        c["managerId"]: {k: c[k] for k in ("issuer", "cusip", "mapped", "tickerAsOf") if k in c}
        for c in explanation["changes"]
    }
    assert named == {"alpha": {}, "beta": {"issuer": "APPLE INC (as Beta filed it)"}, "gamma": {}}
    assert all("ticker" not in c and "sourcesQuarter" not in c for c in explanation["changes"])
