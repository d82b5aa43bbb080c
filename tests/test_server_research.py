"""Ethos, policy, explanations and audit over the fixture release, GET precomputed and POST live."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from builder.canonical import canonical_json
from builder.release.objects import unpacked_artifact
from builder.release.store import artifact_file
from builder.research.methods.explained import citations
from builder.sources.tree import read_sources
from server.app import create_app

PACK = "/api/v1/packs/13f-copycat"


@pytest.fixture
async def client(aiohttp_client, published: Path):
    return await aiohttp_client(create_app(published))


async def get_json(client, path: str, status: int = 200):
    response = await client.get(path)
    body = await response.json()
    assert response.status == status, body
    return body


async def post(client, path: str, body, status: int = 200, **kwargs):
    data = body if isinstance(body, (bytes, str)) else orjson.dumps(body)
    headers = kwargs.pop("headers", {"Content-Type": "application/json"})
    response = await client.post(path, data=data, headers=headers)
    payload = await response.json()
    assert response.status == status, payload
    assert response.headers["Cache-Control"] == "no-store" and "ETag" not in response.headers
    return payload


async def test_list_ethos_publishes_five_methodologies_with_their_formulas(client):
    body = await get_json(client, "/api/v1/ethos")
    ethos = body["data"]["ethos"]
    assert [e["id"] for e in ethos] == ["breadth", "conviction", "accumulation", "persistence", "new-money"]
    for entry in ethos:
        assert entry["principles"] and entry["scoring"]["weights"] and entry["scoring"]["topSetSize"] == 10
        assert all(feature["formula"] and feature["denominator"] for feature in entry["scoring"]["features"])


async def test_every_explanation_statement_cites_an_accession_that_exists_in_the_sources(release, fixture_tree):
    sources, _ = read_sources(fixture_tree)
    accessions = {filing.accession for filing in sources.filings}
    explanations = [k for k in release.answers if "/explanation" in k]
    assert len(explanations) >= 100
    for key in explanations:
        data = orjson.loads(release.answers[key].body)["data"]
        statements = data["evidence"]["statements"]
        assert statements, key
        for statement in statements:
            cited = citations(data, statement)
            assert cited, (key, statement["text"])
            assert {c["accession"] for c in cited} <= accessions, key


async def test_explanation_errors_are_envelopes_with_stable_codes(client, release):
    view = orjson.loads(release.answers[f"{PACK}/latest?mode=exclusive"].body)["data"]["view"]
    only_one = view["tickers"][0]["ticker"]
    overlap = {
        r["ticker"]
        for r in orjson.loads(release.answers[f"{PACK}/latest?mode=overlap"].body)["data"]["view"]["tickers"]
    }
    assert only_one not in overlap
    body = await get_json(client, f"{PACK}/positions/{only_one}/explanation?mode=overlap", 404)
    assert body["error"]["code"] == "position_not_found"
    body = await get_json(client, f"{PACK}/positions/NOT_A_TICKER!/explanation", 400)
    assert body["error"]["code"] == "invalid_ticker"
    body = await get_json(client, "/api/v1/packs/congress-trades/positions/NVDA/explanation", 422)
    assert body["error"]["code"] == "feature_not_supported"


async def test_a_lower_case_ticker_is_the_same_explanation(client):
    upper = await client.get(f"{PACK}/positions/AAPL/explanation")
    lower = await client.get(f"{PACK}/positions/aapl/explanation")
    assert upper.status == lower.status == 200
    assert upper.headers["ETag"] == lower.headers["ETag"]


async def test_audit_content_hash_is_the_sha256_of_the_artifact_bytes(client, release):
    body = await get_json(client, f"{PACK}/audit")
    audit = body["data"]
    artifact_bytes = canonical_json(audit["artifact"])
    assert audit["contentHash"]["value"] == hashlib.sha256(artifact_bytes).hexdigest()
    version = audit["identity"]["versionId"]
    assert artifact_bytes == unpacked_artifact((release.directory / artifact_file(version)).read_bytes())
    manifest = (release.directory / "manifest.json").read_bytes()
    assert audit["release"]["manifestSha256"] == hashlib.sha256(manifest).hexdigest()
    assert [e["event"] for e in audit["events"]] == ["ingested", "validated", "sealed"]
    assert {f["path"] for f in audit["provenance"]} >= {"packs.toml", "securities.csv"}
    assert audit["executionEnabled"] is False


async def test_preview_packs_answer_422_for_methods_and_400_for_view_parameters(client):
    diff = await get_json(client, "/api/v1/packs/congress-trades/versions/diff?from=a&to=b", 422)
    assert diff["error"]["code"] == "feature_not_supported"
    latest = await get_json(client, "/api/v1/packs/congress-trades/latest?mode=overlap", 400)
    assert latest["error"]["code"] == "view_not_supported"
    audit = await get_json(client, "/api/v1/packs/congress-trades/audit")
    assert audit["data"]["identity"]["packId"] == "congress-trades" and audit["data"]["caveats"]


async def test_diff_carries_the_policy_checks_whose_outcome_changed(client, release):
    versions = release.data.versions
    body = await get_json(client, f"{PACK}/versions/diff?from={versions[0]}&to={versions[-1]}")
    assert isinstance(body["data"]["policy"], list)
    for change in body["data"]["policy"]:
        assert change["from"] != change["to"]


async def test_post_policy_for_the_default_view_equals_the_precomputed_audit_policy(client, release):
    payload = await post(client, "/api/v1/policy/validate", {})
    audit = orjson.loads(release.answers[f"{PACK}/audit"].body)["data"]
    assert payload["data"] == audit["policy"]
    assert payload["data"]["executionEnabled"] is False
    assert payload["meta"]["capability"] == "validatePolicy"


async def test_post_ethos_scores_equal_the_scores_in_the_precomputed_explanations(client, release):
    payload = await post(client, "/api/v1/ethos/compare", {"mode": "overlap", "tickers": ["aapl", "MSFT"]})
    scores = {entry["ticker"]: entry["scores"] for entry in payload["data"]["scores"]}
    assert set(scores) == {"AAPL", "MSFT"}
    for ticker in scores:
        explanation = orjson.loads(release.answers[f"{PACK}/positions/{ticker}/explanation?mode=overlap"].body)["data"]
        assert explanation["ethos"]["scores"] == scores[ticker]
    assert set(payload["data"]["overlap"]) == {"tickers", "pairwise"}


async def test_ethos_ids_omitted_means_all_and_a_subset_is_honoured(client):
    every = await post(client, "/api/v1/ethos/compare", {})
    assert every["data"]["ethosIds"] == ["breadth", "conviction", "accumulation", "persistence", "new-money"]
    some = await post(
        client, "/api/v1/ethos/compare", {"ethosIds": ["conviction", "breadth"], "managerIds": ["larch", "osprey"]}
    )
    assert set(some["data"]["ethosIds"]) == {"conviction", "breadth"}
    assert some["data"]["basis"]["managers"] == ["larch", "osprey"]


@pytest.mark.parametrize(
    ("path", "body", "status", "code"),
    [
        ("/api/v1/ethos/compare", b"{not json", 400, "malformed_json"),
        ("/api/v1/ethos/compare", b"", 400, "malformed_json"),
        ("/api/v1/ethos/compare", {"colour": "blue"}, 400, "invalid_body"),
        ("/api/v1/ethos/compare", {"managerIds": "larch"}, 400, "invalid_body"),
        ("/api/v1/ethos/compare", {"ethosIds": []}, 400, "invalid_body"),
        ("/api/v1/ethos/compare", {"ethosIds": ["astrology"]}, 400, "unknown_ethos"),
        ("/api/v1/ethos/compare", {"managerIds": ["nobody"]}, 400, "unknown_manager"),
        ("/api/v1/ethos/compare", {"mode": "sideways"}, 400, "invalid_body"),
        ("/api/v1/ethos/compare", {"packId": "congress-trades"}, 422, "feature_not_supported"),
        ("/api/v1/ethos/compare", {"tickers": ["ZZZZ"]}, 404, "position_not_found"),
        ("/api/v1/policy/validate", [], 400, "invalid_body"),
        ("/api/v1/policy/validate", {"ethosIds": ["breadth"]}, 400, "invalid_body"),
        ("/api/v1/policy/validate", {"packId": "wsb-social-momentum"}, 422, "feature_not_supported"),
    ],
)
async def test_post_errors_are_envelopes_with_stable_codes(client, path, body, status, code):
    payload = await post(client, path, body, status)
    assert payload["error"]["code"] == code


async def test_post_needs_json_content_type_and_a_bounded_body(client):
    wrong = await post(client, "/api/v1/policy/validate", "{}", 400, headers={"Content-Type": "text/plain"})
    assert wrong["error"]["code"] == "unsupported_media_type"
    huge = {"managerIds": ["larch"] * 20000}
    too_big = await post(client, "/api/v1/policy/validate", huge, 413)
    assert too_big["error"]["code"] == "payload_too_large"


async def test_an_empty_view_blocks_with_no_signal(client):
    # one manager cannot both buy and sell a ticker in a quarter: its disagreement view is empty
    payload = await post(client, "/api/v1/policy/validate", {"managerIds": ["larch"], "mode": "disagreement"})
    data = payload["data"]
    outcomes = {check["id"]: check["outcome"] for check in data["checks"]}
    assert outcomes["empty-view"] == "block"
    assert outcomes["execution-disabled"] == "pass"
    assert data["signal"] == "no-signal" and len(data["blockingReasons"]) == 1
    assert data["executionEnabled"] is False
