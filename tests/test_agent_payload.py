"""The agent payload: what an agent reads first on every pack, bounded, in the artifact's words."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest

from bench import agent as agent_bench
from builder.api import methods
from builder.api.contract import BY_ID
from builder.api.render import render
from builder.canonical import canonical_json
from builder.release.assemble import assemble
from builder.research.agent import BUDGET_BYTES, LIMITS_13F, fit, size, traded_value, trades_by_manager
from builder.research.changes import BOUGHT, CHANGE_KINDS, SOLD
from builder.research.diff import position_changes
from builder.research.views import MODES
from builder.sources.tree import read_sources
from tests.berkshire import berkshire_tree, series

PACK = "/api/v1/packs/13f-copycat"
PREVIEWS = ("congress-trades", "jane-roe-tracker", "wsb-social-momentum")
SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")  # a field name in snake_case


def data_of(release, key: str) -> dict[str, Any]:
    return orjson.loads(release.answers[key].body)["data"]


@pytest.mark.parametrize("mode", MODES)
def test_the_copycat_payload_has_every_part_within_the_budget(release, mode):
    latest = data_of(release, f"{PACK}/latest" + ("" if mode == "any" else f"?mode={mode}"))
    payload, artifact = latest["agentPayload"], latest["artifact"]
    assert len(canonical_json(payload)) <= BUDGET_BYTES
    assert payload["executionEnabled"] is False and "executionEnabled" not in payload["policy"]
    assert payload["view"] == {
        "mode": mode,
        "managerCount": len(latest["view"]["managers"]),
        "tickerCount": latest["view"]["tickerCount"],
    }
    assert (payload["versionId"], payload["quarter"]) == (artifact["versionId"], artifact["quarter"])
    assert payload["previousVersionId"] == release.data.versions[-2] and payload["asOf"] == release.data.index["asOf"]
    assert set(payload["ethosLeaders"]) == {"accumulation", "breadth", "conviction", "new-money", "persistence"}
    assert payload["limits13F"] == list(LIMITS_13F) and "researchOnly" in payload["glossary"]
    assert not set(LIMITS_13F) & set(payload["caveats"])  # stated once


def test_managers_name_their_filings_period_and_filing_dates(release):
    latest = data_of(release, f"{PACK}/latest")
    by_id = {m["id"]: m for m in latest["artifact"]["managers"]}
    listed = latest["agentPayload"]["managers"]
    assert [m["id"] for m in listed] == sorted(by_id, key=lambda i: (-by_id[i]["bookValue"], i))[: len(listed)]
    for entry in listed:
        manager = by_id[entry["id"]]
        assert (entry["name"], entry["cik"], entry["period"]) == (
            manager["name"],
            manager["cik"],
            latest["artifact"]["quarter"],
        )
        assert entry["filings"] == [{"accession": f["accession"], "filed": f["filed"]} for f in manager["filings"]]


def test_freshness_is_the_deadline_the_next_quarter_end_and_its_deadline_as_dates_without_a_verdict(release):
    payload = data_of(release, f"{PACK}/latest")["agentPayload"]
    quarter = date.fromisoformat(payload["quarter"])
    assert quarter == date(2026, 9, 30)  # the fixture's latest quarter (fictional managers)
    assert payload["freshness"] == {
        "filingDeadline": "2026-11-14",
        "supersededAfter": "2026-12-31",
        "nextFilingDeadline": "2027-02-14",
    }
    assert date.fromisoformat(payload["freshness"]["filingDeadline"]) == quarter + timedelta(days=45)
    policy = methods.validate_policy(release.data, {"managers": [], "mode": "any"})
    assert policy["freshness"] == payload["freshness"] and "freshness" not in {c["id"] for c in policy["checks"]}


def test_each_managers_trades_are_the_diffs_trades_ranked_by_shares_traded_at_the_later_price(release):
    older, newer = release.data.versions[-2:]
    diff = data_of(release, f"{PACK}/versions/diff?from={older}&to={newer}")
    payload = data_of(release, f"{PACK}/latest")["agentPayload"]
    for entry in payload["managers"]:
        moves = [p for p in position_changes(diff) if p["managerId"] == entry["id"] and p["kind"] in BOUGHT | SOLD]
        assert entry["tradeCount"] == len(moves) and len(entry["trades"]) == min(3, len(moves))
        expected = sorted(
            (
                {
                    "ticker": p["ticker"],
                    "issuer": p["issuer"],
                    "tickerAsOf": p["tickerAsOf"],
                    "kind": p["kind"],
                    "shareDelta": p["shareDelta"],
                    "tradedValue": round(
                        p["shareDelta"]
                        * (p["toValue"] / p["toShares"] if p["toShares"] else p["fromValue"] / p["fromShares"])
                    ),
                }
                for p in moves
            ),
            key=lambda t: (-abs(t["tradedValue"]), t["ticker"]),
        )
        assert entry["trades"] == expected[:3]
    listed = payload["managers"]  # every trading manager, unless the budget or MANAGERS cut the list
    assert (
        payload["tradeCount"] == sum(m["tradeCount"] for m in listed) or len(listed) < payload["view"]["managerCount"]
    )


def test_a_price_move_does_not_rank_a_trade_above_a_larger_trade():
    small_trade_big_rally = {
        "ticker": "RALLY",
        "kind": "added",
        "fromShares": 1000,
        "toShares": 1010,
        "shareDelta": 10,
        "fromValue": 100_000,
        "toValue": 1_010_000,
    }  # +910k of value, 10 shares at $1,000
    big_trade = {
        "ticker": "TRADE",
        "kind": "added",
        "fromShares": 1000,
        "toShares": 2000,
        "shareDelta": 1000,
        "fromValue": 50_000,
        "toValue": 100_000,
    }  # +50k of value, 1,000 shares at $50
    sold_out = {
        "ticker": "GONE",
        "kind": "exited",
        "fromShares": 300,
        "toShares": 0,
        "shareDelta": -300,
        "fromValue": 30_000,
        "toValue": 0,
    }
    named = {"managerId": "m", "issuer": "Fictional", "tickerAsOf": "quarter-end"}
    ranked = trades_by_manager([{**c, **named} for c in (small_trade_big_rally, big_trade, sold_out)])["m"]
    assert [(t["ticker"], t["tradedValue"]) for t in ranked] == [
        ("TRADE", 50_000),
        ("GONE", -30_000),
        ("RALLY", 10_000),
    ]
    assert traded_value({**sold_out, "carriedShares": 600}) == -15_000  # an exit after a 2:1 split: the carried price


def test_the_next_calls_name_the_largest_trades_and_the_previous_version_with_the_view(release):
    older, newer = release.data.versions[-2:]
    params = {"packId": "13f-copycat", "managers": ["larch", "osprey"], "mode": "overlap"}
    payload = orjson.loads(render(BY_ID["getLatestPack"], release.data, params).body)["data"]["agentPayload"]
    calls = {call["tool"]: call["arguments"] for call in payload["nextCalls"]}
    view = {"managers": ["larch", "osprey"], "mode": "overlap"}
    assert calls["compare_versions"] == {"packId": "13f-copycat", "from": older, "to": newer, **view}
    assert calls["validate_policy"] == {"managerIds": ["larch", "osprey"], "mode": "overlap"}
    explained = [call["arguments"]["ticker"] for call in payload["nextCalls"] if call["tool"] == "explain_position"]
    largest = sorted((t for m in payload["managers"] for t in m["trades"]), key=lambda t: -abs(t["tradedValue"]))
    assert explained and explained[0] == largest[0]["ticker"]


def test_headline_holdings_are_the_largest_of_the_view_with_weights_and_holders(release):
    latest = data_of(release, f"{PACK}/latest")
    rows = sorted(latest["view"]["tickers"], key=lambda row: (-row["value"], row["ticker"]))
    headline = latest["agentPayload"]["headline"]
    assert [h["ticker"] for h in headline] == [row["ticker"] for row in rows[:5]]
    total = sum(row["value"] for row in rows)
    for holding, row in zip(headline, rows, strict=False):
        assert holding["weight"] == round(row["value"] / total, 4) and holding["holderCount"] == row["holderCount"]
        assert {h["managerId"] for h in holding["topHolders"]} <= set(row["holders"])


def test_policy_status_is_the_policy_results(release):
    payload = data_of(release, f"{PACK}/latest")["agentPayload"]
    policy = data_of(release, f"{PACK}/audit")["policy"]
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
    assert found <= set(CHANGE_KINDS) and {"new", "added", "reduced", "exited"} <= found


def test_fit_trims_the_longest_lists_until_the_payload_is_within_the_budget():
    payload = {"caveats": ["w" * 100] * 200, "headline": [{"ticker": "T" * 12}] * 10, "executionEnabled": False}
    fitted = fit(payload)
    assert size(fitted) <= BUDGET_BYTES < size({**fitted, "caveats": [*fitted["caveats"], "w" * 100]})
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
def test_a_preview_payload_keeps_its_own_caveats_once_and_no_13f_line(release, pack):
    latest = data_of(release, f"/api/v1/packs/{pack}/latest")
    payload = latest["agentPayload"]
    assert payload["executionEnabled"] is False and "limitations" not in payload
    assert payload["caveats"] == latest["caveats"] == latest["limitations"] == list(dict.fromkeys(payload["caveats"]))
    assert not [c for c in payload["caveats"] if "13F" in c or "managers and holdings" in c]
    assert payload["versionId"] == latest["versionId"]
    assert {(c["tool"], orjson.dumps(c["arguments"])) for c in payload["nextCalls"]} == {
        ("export_audit_trail", orjson.dumps({"packId": pack})),
        ("list_pack_versions", orjson.dumps({"packId": pack})),
    }


def berkshire_payload(root: Path, last_quarter: str) -> tuple[dict, dict]:
    """Berkshire's real 13F series up to `last_quarter` with the public record of its corporate actions: the agent
    payload of its latest version, and the diff from the version before (as served)."""
    later = sorted({path.name[:10] for path in series().iterdir() if path.name[:10] > last_quarter})
    tree = berkshire_tree(root, without=later, versions=2)
    shutil.copy(Path(__file__).with_name("berkshire_corporate_actions.csv"), tree / "corporate_actions.csv")
    data, _ = assemble(read_sources(tree)[0], [])
    latest = orjson.loads(render(BY_ID["getLatestPack"], data, {"packId": "13f-copycat"}).body)["data"]
    older, newer = data.versions
    diff = orjson.loads(
        render(BY_ID["compareVersions"], data, {"packId": "13f-copycat", "from": older, "to": newer}).body
    )["data"]
    return latest["agentPayload"], diff


def test_on_berkshires_real_filings_the_split_apple_sale_is_the_largest_trade_not_a_purchase(tmp_path):
    # 2020-Q3: Apple split 4-for-1 on 2020-08-31 and Berkshire sold 36,326,710 of the split shares (public record,
    # tests/berkshire_corporate_actions.csv); before corporate actions it read "added 699,139,988".
    payload, diff = berkshire_payload(tmp_path, "2020-09-30")
    (berkshire,) = payload["managers"]
    assert berkshire["trades"][0]["ticker"] == "AAPL"
    assert (berkshire["trades"][0]["kind"], berkshire["trades"][0]["shareDelta"]) == ("reduced", -36_326_710)
    assert berkshire["tradeCount"] == sum(p["kind"] in BOUGHT | SOLD for p in position_changes(diff))


def test_on_berkshires_real_filings_a_merger_is_never_listed_as_a_trade(tmp_path):
    # 2015-Q3: AT&T acquired DirecTV and Kraft merged with Heinz (no trade); the PSX position borders the
    # confidentially omitted 2015-Q2 filing (undecided). None is a trade; each is counted or named as what it is.
    payload, diff = berkshire_payload(tmp_path, "2015-09-30")
    (berkshire,) = payload["managers"]
    changes = position_changes(diff)
    not_trades = {p["ticker"]: p["kind"] for p in changes if p["kind"] not in BOUGHT | SOLD}
    assert {not_trades.get(t) for t in ("DTV", "KRFT")} == {"converted"} and not_trades["PSX"] == "undecided"
    assert not {"DTV", "KRFT", "T", "KHC", "PSX"} & {t["ticker"] for t in berkshire["trades"]}
    assert payload["notTrades"] == dict(sorted(Counter(not_trades.values()).items()))
    assert {"managerId": "berkshire", "ticker": "PSX", "issuer": "PHILLIPS 66", "tickerAsOf": "current"} in payload[
        "undecided"
    ]
    # Viacom was sold out that quarter: no longer in the view, still one of the quarter's trades
    trades = [p for p in changes if p["kind"] in BOUGHT | SOLD]
    assert ("VIAB", "exited") in {(p["ticker"], p["kind"]) for p in trades} and berkshire["tradeCount"] == len(trades)
    # the served diff counts them by kind, and details the mergers and the undecided change (no trade says all of it)
    (counted,) = diff["managers"]
    assert {kind: n for kind, n in counted["counts"].items() if n} == dict(Counter(p["kind"] for p in changes))
    detailed = {d["ticker"]: d["cause"] for d in diff["changeDetails"]}
    assert {detailed[t] for t in ("DTV", "KRFT")} == {"corporate-action"} and detailed["PSX"] == "undecided"
