"""The agent payload: what an agent reads first on every pack, bounded, in the artifact's words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from bench import agent as agent_bench
from builder.canonical import canonical_json
from builder.research.agent import BUDGET_BYTES, fit, size
from builder.research.artifact import CHANGE_KINDS
from builder.research.previews.pack import SNAKE
from builder.research.views import MODES

PACK = "/api/v1/packs/13f-copycat"
PREVIEWS = ("congress-trades", "jane-roe-tracker", "wsb-social-momentum")


def data_of(release, key: str) -> dict[str, Any]:
    return orjson.loads(release.answers[key].body)["data"]


@pytest.mark.parametrize("mode", MODES)
def test_the_copycat_payload_has_every_part_within_the_budget(release, mode):
    latest = data_of(release, f"{PACK}/latest" + ("" if mode == "any" else f"?mode={mode}"))
    payload = latest["agentPayload"]
    assert len(canonical_json(payload)) <= BUDGET_BYTES
    assert payload["executionEnabled"] is False and payload["policy"]["executionEnabled"] is False
    assert payload["view"] == {"mode": mode, "managerCount": len(latest["view"]["managers"]),
                               "tickerCount": latest["view"]["tickerCount"]}
    assert payload["limitations"] == latest["limitations"]
    assert set(payload["ethosLeaders"]) == {"accumulation", "breadth", "conviction", "new-money", "persistence"}
    assert payload["changes"]["fromVersionId"] == release.data.versions[-2]


def test_headline_holdings_are_the_largest_of_the_view_with_weights_holders_and_their_filings(release):
    latest = data_of(release, f"{PACK}/latest")
    rows = sorted(latest["view"]["tickers"], key=lambda row: (-row["value"], row["ticker"]))
    headline = latest["agentPayload"]["headline"]
    assert [h["ticker"] for h in headline] == [row["ticker"] for row in rows[: len(headline)]] and len(headline) == 10
    total = sum(row["value"] for row in rows)
    accessions = {f["accession"] for m in latest["artifact"]["managers"] for f in m["filings"]}
    for holding, row in zip(headline, rows, strict=False):
        assert holding["weight"] == round(row["value"] / total, 4) and holding["holderCount"] == row["holderCount"]
        assert {h["managerId"] for h in holding["topHolders"]} <= set(row["holders"])
        assert all(h["accession"] in accessions for h in holding["topHolders"])


def test_changes_agree_with_the_diff_of_the_same_view(release):
    older, newer = release.data.versions[-2:]
    diff = data_of(release, f"{PACK}/versions/diff?from={older}&to={newer}&mode=overlap")
    changes = data_of(release, f"{PACK}/latest?mode=overlap")["agentPayload"]["changes"]
    assert changes["entered"] == diff["tickers"]["entered"][:10] and changes["enteredCount"] == len(diff["tickers"]["entered"])
    assert changes["left"] == diff["tickers"]["left"][:10] and changes["leftCount"] == len(diff["tickers"]["left"])
    top = changes["largestIncreases"][0]
    rows = [p for p in diff["positions"] if p["ticker"] == top["ticker"]]
    trades = [p for p in rows if p["kind"] in ("new", "added", "reduced", "exited")]
    assert top["shareDelta"] == sum(p["shareDelta"] for p in trades) > 0
    # traded shares valued at the later quarter's price, never the change of market value
    price = {id(p): p["toValue"] / p["toShares"] if p["toShares"] else p["fromValue"] / p["fromShares"] for p in trades}
    assert top["valueDelta"] == sum(round(p["shareDelta"] * price[id(p)]) for p in trades)


def test_policy_status_is_the_policy_results(release):
    payload = data_of(release, f"{PACK}/latest")["agentPayload"]
    audit = data_of(release, f"{PACK}/audit")
    policy = audit["policy"]
    assert payload["policy"]["signal"] == policy["signal"]
    assert payload["policy"]["blockingReasons"] == policy["blockingReasons"][:5]
    assert payload["policy"]["warningCount"] == len(policy["warnings"])


def kinds_in(node: Any, keys: tuple[str, ...] = ("kind", "change")) -> set[str]:
    """Every string under a 'kind' or 'change' key, anywhere in `node`."""
    if isinstance(node, list):
        return set().union(*(kinds_in(item, keys) for item in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = {value for key, value in node.items() if key in keys and isinstance(value, str)}
    return found.union(*(kinds_in(value, keys) for value in node.values()))


def test_artifact_views_diffs_explanations_and_payloads_share_one_vocabulary_of_change_kinds(release):
    found: set[str] = set()
    for key, answer in release.answers.items():
        if key.startswith(PACK) and answer.status == 200:
            found |= kinds_in(orjson.loads(answer.body)["data"])
    found |= {kind for payload in (data_of(release, f"{PACK}/latest")["agentPayload"],)
              for move in payload["changes"]["largestIncreases"] + payload["changes"]["largestDecreases"]
              for kind in move["kinds"]}
    assert found <= set(CHANGE_KINDS) and {"new", "added", "reduced", "exited"} <= found


def test_fit_trims_the_longest_lists_until_the_payload_is_within_the_budget():
    payload = {"warnings": ["w" * 100] * 200, "headline": [{"ticker": "T" * 12}] * 10, "executionEnabled": False}
    fitted = fit(payload)
    assert size(fitted) <= BUDGET_BYTES < size({**fitted, "warnings": [*fitted["warnings"], "w" * 100]})
    assert len(fitted["headline"]) == 10 and fitted["executionEnabled"] is False


def test_the_payload_stays_within_the_budget_as_managers_grow(tmp_path: Path):
    sizes = {managers: agent_bench.measure(managers, 2, 20, tmp_path) for managers in (5, 80)}
    for managers, rows in sizes.items():
        for mode, payload, _answer in rows:
            assert payload <= BUDGET_BYTES, (managers, mode)
    small = {mode: answer for mode, _, answer in sizes[5]}
    large = {mode: answer for mode, _, answer in sizes[80]}
    assert large["any"] > 8 * small["any"]  # the full answer grows with the managers; the payload does not


def snake_keys(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(snake_keys(item) for item in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = {key for key in node if SNAKE.fullmatch(key)}
    return found.union(*(snake_keys(value) for value in node.values()))


def test_every_answer_of_the_release_names_its_fields_in_camel_case(release):
    found = {key: keys for key, answer in release.answers.items() if (keys := snake_keys(orjson.loads(answer.body)))}
    assert not found


@pytest.mark.parametrize("pack", PREVIEWS)
def test_a_preview_payload_says_execution_is_disabled_and_keeps_its_caveats(release, pack):
    latest = data_of(release, f"/api/v1/packs/{pack}/latest")
    assert latest["agentPayload"]["executionEnabled"] is False
    assert latest["agentPayload"]["caveats"] == latest["caveats"]
    assert latest["agentPayload"]["limitations"] == latest["limitations"]
