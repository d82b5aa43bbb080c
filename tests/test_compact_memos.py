"""What a release keeps of each version for its life (holdings for the streaks, the policy's book facts): compact,
shared across versions, and the same answers as reading the artifact's books."""

from __future__ import annotations

import copy
import json
import pickle
from datetime import date

from builder.canonical import canonical_json
from builder.research.methods.ethos import holdings
from builder.research.methods.policy import book_facts, evaluate_policy
from builder.research.views import select_view
from tests.research_samples import make_artifact

AS_OF = date(2024, 8, 24)  # ten days past the filing deadline of 2024-06-30


def _decoded(artifact: dict) -> dict:
    """The artifact as a release reads it back: every string a new object."""
    return json.loads(canonical_json(artifact))


def _coverage(artifact: dict, managers: list[str]) -> str:
    result = evaluate_policy(select_view(artifact, managers, "any"), artifact, as_of=AS_OF)
    return next(c["reason"] for c in result["checks"] if c["id"] == "source-coverage")


def test_holdings_list_each_managers_held_tickers_once_sorted_and_not_its_exits():
    kept = holdings(make_artifact())
    assert (kept.quarter, kept.previous_quarter) == ("2024-06-30", "2024-03-31")
    assert kept.held == {"alpha": ("AAPL", "KO", "MSFT"), "beta": ("AAPL", "NVDA"), "gamma": ("AAPL", "MSFT")}


def test_two_versions_read_back_separately_share_one_string_per_ticker_and_manager():
    older, newer = holdings(_decoded(make_artifact())), holdings(_decoded(make_artifact()))
    assert older.held["alpha"][0] is newer.held["alpha"][0] is newer.held["beta"][0]  # one "AAPL"
    assert next(iter(older.held)) is next(iter(newer.held))  # one "alpha"
    facts = book_facts(_decoded(make_artifact()))
    assert facts.entries["alpha"][0] is newer.held["alpha"][0]


def test_holdings_and_book_facts_come_back_from_pickle_equal():
    artifact = make_artifact()
    kept, facts = holdings(artifact), book_facts(artifact)
    assert pickle.loads(pickle.dumps(kept)) == kept
    assert pickle.loads(pickle.dumps(facts)) == facts


def test_book_facts_list_every_entry_of_a_manager_positions_and_exits():
    facts = book_facts(make_artifact())
    assert facts.entries["alpha"] == ("AAPL", "KO", "MSFT", "XOM")  # XOM sold in full: an exit
    assert facts.entries["beta"] == ("AAPL", "MSFT", "NVDA")


def test_source_coverage_counts_the_entries_behind_the_views_manager_ticker_pairs():
    artifact = make_artifact()
    # alpha AAPL, KO, MSFT (XOM is out of the view); beta AAPL, NVDA and its exit of MSFT; gamma AAPL, MSFT
    assert _coverage(artifact, []) == "All 8 manager positions in the view cite their 13F source rows."
    assert _coverage(artifact, ["beta"]) == "All 2 manager positions in the view cite their 13F source rows."
    assert _coverage(artifact, ["alpha", "gamma"]) == "All 5 manager positions in the view cite their 13F source rows."


def test_a_ticker_both_held_and_ended_by_one_manager_counts_twice():
    artifact = copy.deepcopy(make_artifact())
    alpha = artifact["managers"][0]
    alpha["ended"].append({**copy.deepcopy(alpha["ended"][0]), "ticker": "AAPL"})
    assert book_facts(artifact).entries["alpha"] == ("AAPL", "AAPL", "KO", "MSFT", "XOM")
    assert _coverage(artifact, []) == "All 9 manager positions in the view cite their 13F source rows."
