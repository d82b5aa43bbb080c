"""Ethos scores recomputed by hand from the published formulas (the worked example on the docs page docs/methods.md)."""

from __future__ import annotations

import math

import pytest

from builder.api.wire import ErrorCode, api_error
from builder.canonical import canonical_json
from builder.research.errors import NotInView, UnknownEthos
from builder.research.methods import ethos
from builder.research.methods.ethos import ETHOS_IDS, ethos_definitions, holdings, score_view, select_tickers
from builder.research.views import select_view
from tests.research_samples import make_artifact

# The quarter before QUARTER: alpha held AAPL and MSFT, beta held AAPL; gamma did not file (absent).
HISTORY_BOOKS = {
    "alpha": ({"AAPL": (100, 40_000), "MSFT": (50, 18_000), "XOM": (40, 4_000)}, None),
    "beta": ({"AAPL": (100, 40_000), "MSFT": (20, 7_000)}, None),
}


def _scores(view_mode: str = "any", history: tuple[dict, ...] = (), ids: tuple[str, ...] = ()) -> dict:
    artifact = make_artifact()
    return score_view(select_view(artifact, [], view_mode), artifact, [holdings(h) for h in history], list(ids))


def _entry(result: dict, ticker: str) -> dict:
    return next(e for e in result["scores"] if e["ticker"] == ticker)


def _definition(ethos_id: str) -> dict:
    return next(d for d in ethos_definitions() if d["id"] == ethos_id)


def test_there_are_at_least_five_ethos_each_fully_configured():
    definitions = ethos_definitions()
    assert [d["id"] for d in definitions] == list(ETHOS_IDS)
    assert len(ETHOS_IDS) >= 5
    for definition in definitions:
        scoring = definition["scoring"]
        assert definition["name"] and definition["principles"]
        assert math.isclose(sum(scoring["weights"].values()), 1.0)
        assert [f["name"] for f in scoring["features"]] == list(scoring["weights"])
        assert all(f["formula"] and f["denominator"] for f in scoring["features"])
        assert scoring["normalisation"]["method"] in ethos.NORMALISATIONS
        assert scoring["topSetSize"] == ethos.TOP_SET_SIZE


def test_definitions_are_copies_so_a_caller_cannot_change_the_scoring():
    ethos_definitions()[0]["scoring"]["weights"]["holderShare"] = 0.0
    assert _definition("breadth")["scoring"]["weights"] == {"holderShare": 1.0}


def test_aapl_scores_equal_the_hand_computed_formulas():
    aapl = _entry(_scores(), "AAPL")
    # holders alpha, beta, gamma of 3 selected; weights 60k/100k, 25k/100k, 5k/20k.
    assert aapl["features"]["holderShare"] == 1.0
    assert aapl["features"]["meanWeight"] == round((0.6 + 0.25 + 0.25) / 3, 6)
    assert aapl["features"]["maxWeight"] == 0.6
    # alpha +20 of 100, beta -50 of 100; gamma's change is unknown and left out.
    assert aapl["features"]["netShareChange"] == round((20 - 50) / (100 + 100), 6)
    # meanWeight ranks 2nd of 4 (0.2, 0.366667, 0.475, 0.75); maxWeight 2nd of 4 (0.2, 0.6, 0.75, 0.75).
    conviction = round(100 * (0.7 * 2 / 4 + 0.3 * 2 / 4), 2)
    accumulation = round(100 * (-0.15 + 1) / 2, 2)
    expected = {
        "breadth": 100.0,
        "conviction": conviction,
        "accumulation": accumulation,
        "persistence": 100.0,
        "new-money": 0.0,
    }
    assert aapl["scores"] == expected


def test_ko_scores_equal_the_hand_computed_formulas():
    ko = _entry(_scores(), "KO")
    # alpha alone opened KO: 100 shares, $20,000 of a $100,000 book; NVDA's $75,000 is the most new money.
    assert ko["features"] == {
        "holderShare": 0.333333,
        "meanWeight": 0.2,
        "maxWeight": 0.2,
        "netShareChange": 1.0,
        "heldShareOfWindow": 1.0,
        "newHolderShare": 0.333333,
        "newMoneyValue": 20_000,
    }
    new_money = round(100 * (0.5 * (0.333333 - 0) / (0.333333 - 0) + 0.5 * (20_000 - 0) / (75_000 - 0)), 2)
    assert ko["scores"] == {
        "breadth": round(100 * 0.333333, 2),
        "conviction": round(100 * (0.7 * 1 / 4 + 0.3 * 1 / 4), 2),
        "accumulation": 100.0,
        "persistence": 100.0,
        "new-money": new_money,
    }
    assert new_money == 63.33


def test_tied_maximum_weights_share_the_top_rank_percentile():
    result = _scores()
    # MSFT and NVDA both have maxWeight 0.75: both get rank percentile 4/4.
    assert _entry(result, "MSFT")["scores"]["conviction"] == round(100 * (0.7 * 3 / 4 + 0.3 * 4 / 4), 2)
    assert _entry(result, "NVDA")["scores"]["conviction"] == 100.0


def test_persistence_counts_consecutive_quarters_from_the_older_versions():
    history = make_artifact(HISTORY_BOOKS, quarter="2024-03-31")
    result = _scores(history=(history,))
    assert result["basis"]["persistenceWindow"] == ["2024-06-30", "2024-03-31"]
    # AAPL: alpha 2, beta 2, gamma 1 (absent before) over 3 holders x window 2.
    assert _entry(result, "AAPL")["features"]["heldShareOfWindow"] == round(5 / 6, 6)
    assert _entry(result, "AAPL")["scores"]["persistence"] == round(100 * round(5 / 6, 6), 2)
    assert _entry(result, "MSFT")["scores"]["persistence"] == 75.0  # alpha 2, gamma 1 of 2 x 2
    assert _entry(result, "KO")["scores"]["persistence"] == 50.0  # opened this quarter


def test_a_gap_in_the_versions_ends_the_persistence_window():
    older = make_artifact(HISTORY_BOOKS, quarter="2023-12-31")
    result = _scores(history=(older,))
    assert result["basis"]["persistenceWindow"] == ["2024-06-30"]
    assert all(e["scores"]["persistence"] == 100.0 for e in result["scores"])


def test_history_runs_back_three_quarters_without_a_gap():
    oldest = make_artifact(
        {"alpha": ({"AAPL": (90, 30_000)}, None), "beta": ({"KO": (5, 300)}, None)}, quarter="2023-12-31"
    )
    previous = make_artifact(HISTORY_BOOKS, quarter="2024-03-31")
    result = _scores(history=(oldest, previous))
    assert result["basis"]["persistenceWindow"] == ["2024-06-30", "2024-03-31", "2023-12-31"]
    # AAPL: alpha 3, beta 2 (no AAPL at 2023-12-31), gamma 1, over 3 holders x window 3.
    assert _entry(result, "AAPL")["features"]["heldShareOfWindow"] == round(6 / 9, 6)


def test_new_money_ties_at_zero_score_zero_and_leave_the_top_set():
    result = _scores()
    assert _entry(result, "AAPL")["scores"]["new-money"] == 0.0
    assert result["topSets"]["new-money"] == ["NVDA", "KO"]


def test_breadth_ties_are_broken_by_view_value_then_ticker(monkeypatch):
    monkeypatch.setattr(ethos, "TOP_SET_SIZE", 3)
    result = _scores()
    # KO and NVDA are both held by one manager; NVDA's $75,000 beats KO's $20,000.
    assert result["topSets"]["breadth"] == ["AAPL", "MSFT", "NVDA"]


def test_overlap_lists_tickers_in_every_top_set_and_jaccard_agreement():
    result = _scores(ids=("breadth", "new-money"))
    assert result["overlap"]["tickers"] == ["KO", "NVDA"]
    assert result["overlap"]["pairwise"] == [
        {"a": "breadth", "b": "new-money", "agreement": 0.5, "shared": ["KO", "NVDA"]}
    ]


def test_an_exited_only_ticker_scores_zero_with_undefined_features_null():
    artifact = make_artifact()
    view = select_view(artifact, ["alpha"], "any")
    exit_row = {
        "ticker": "XOM",
        "tickerAsOf": "current",
        "cusip": "30231G102",
        "issuer": "XOM INC",
        "holders": [],
        "holderCount": 0,
        "value": 0,
        "buyers": [],
        "sellers": ["alpha"],
        "managers": [
            {"managerId": "alpha", "shares": 0, "value": 0, "weight": 0.0, "change": "exited", "shareDelta": -40}
        ],
    }
    view = {**view, "tickers": [*view["tickers"], exit_row]}
    xom = _entry(score_view(view, artifact, [], []), "XOM")
    assert set(xom["scores"].values()) == {0.0}
    assert xom["features"]["meanWeight"] is None and xom["features"]["heldShareOfWindow"] is None
    assert xom["features"]["netShareChange"] == -1.0
    assert (xom["issuer"], xom["tickerAsOf"]) == ("XOM INC", "current")  # the name travels with the ticker


def test_requested_ids_come_back_deduplicated_in_canonical_order():
    assert _scores(ids=("new-money", "breadth", "new-money"))["ethosIds"] == ["breadth", "new-money"]
    assert _scores()["ethosIds"] == list(ETHOS_IDS)


def test_an_unknown_ethos_id_is_a_400_naming_it():
    with pytest.raises(UnknownEthos) as raised:
        _scores(ids=("breadth", "astrology"))
    error = api_error(raised.value)
    assert (error.status, error.code) == (400, ErrorCode.UNKNOWN_ETHOS)
    assert raised.value.details["unknown"] == ["astrology"]


def test_scores_are_deterministic_finite_and_within_zero_to_one_hundred():
    first, second = _scores("any"), _scores("any")
    assert canonical_json(first) == canonical_json(second)
    values = [v for e in first["scores"] for v in e["scores"].values()]
    assert all(isinstance(v, float) and math.isfinite(v) and 0 <= v <= 100 for v in values)


def test_a_disagreement_view_scores_only_its_contested_ticker():
    result = _scores("disagreement")
    assert [e["ticker"] for e in result["scores"]] == ["AAPL"]
    assert _entry(result, "AAPL")["scores"]["breadth"] == 100.0


def test_an_empty_view_scores_nothing_and_has_empty_top_sets():
    empty = score_view({"managers": ["gamma"], "mode": "exclusive", "tickers": []}, make_artifact(), [], [])
    assert empty["scores"] == [] and empty["overlap"]["tickers"] == []
    assert all(tickers == [] for tickers in empty["topSets"].values())
    assert [p["agreement"] for p in empty["overlap"]["pairwise"]] == [0.0] * 10


def test_select_tickers_keeps_view_wide_ranks_and_404s_an_absent_ticker():
    result = _scores()
    picked = select_tickers(result, ["KO"])
    assert [e["ticker"] for e in picked["scores"]] == ["KO"] and picked["topSets"] == result["topSets"]
    with pytest.raises(NotInView) as raised:
        select_tickers(result, ["TSLA"])
    error = api_error(raised.value)
    assert (error.status, error.code, error.details) == (404, ErrorCode.POSITION_NOT_FOUND, {"tickers": ["TSLA"]})
