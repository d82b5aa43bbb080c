"""The GET surface of `ras serve` over the fixture release, through a real aiohttp test client."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from builder.release.store import current_release
from server.app import create_app
from server.conditional import none_match

LATEST = "/api/v1/packs/13f-copycat/latest"


@pytest.fixture
async def client(aiohttp_client, published: Path):
    return await aiohttp_client(create_app(published))


async def get_json(client, path: str, status: int = 200, **headers):
    response = await client.get(path, headers=headers)
    body = await response.json()
    assert response.status == status, body
    return response, body


async def test_health_is_degraded_with_a_fixture_warning(client):
    response, body = await get_json(client, "/api/v1/health")
    assert body["meta"] == {
        "apiVersion": "v1",
        "contractVersion": "0.1.0",
        "capability": "getHealth",
        "deprecated": False,
    }
    assert body["data"]["status"] == "degraded"
    assert "fixture-data" in [w["code"] for w in body["data"]["warnings"]]
    assert body["data"]["executionEnabled"] is False
    assert response.headers["X-Service-API-Version"] == "v1"
    assert "/" not in body["data"]["releaseId"] and "releases" not in response.headers.get("Location", "")


async def test_health_exposes_no_filesystem_paths_or_commands(client, published: Path):
    response = await client.get("/api/v1/health")
    text = await response.text()
    assert str(published) not in text and "ras publish" not in text and "/tmp" not in text


async def test_304_when_if_none_match_lists_the_current_etag(client):
    first = await client.get(LATEST)
    etag = first.headers["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/")
    for header in (etag, f"W/{etag}", f'"nope", {etag}', "*"):
        again = await client.get(LATEST, headers={"If-None-Match": header})
        assert again.status == 304, header
        assert await again.read() == b""
        assert again.headers["ETag"] == etag
    other = await client.get(LATEST, headers={"If-None-Match": '"something-else"'})
    assert other.status == 200


async def test_equal_manager_views_have_one_etag_and_all_managers_equals_none(client, release):
    ids = sorted(m["id"] for m in release.data.index["copycat"]["managers"])
    a, b = ids[0], ids[1]
    etags = set()
    for query in (
        f"managers={b},{a}",
        f"managers={a}&managers={b}",
        f"managers={a},{b}",
        f"managers=%20{a}%20,{b},{a}",
    ):
        response = await client.get(f"{LATEST}?{query}")
        assert response.status == 200, await response.text()
        etags.add(response.headers["ETag"])
    assert len(etags) == 1
    everyone = await client.get(f"{LATEST}?managers={','.join(reversed(ids))}")
    nobody = await client.get(LATEST)
    explicit_any = await client.get(f"{LATEST}?mode=any")
    assert everyone.headers["ETag"] == nobody.headers["ETag"] == explicit_any.headers["ETag"]


async def test_a_live_subset_view_has_the_bytes_a_builder_render_would_have(client, release):
    from builder.api.contract import BY_ID
    from builder.api.params import resolve
    from builder.api.render import render

    ids = sorted(m["id"] for m in release.data.index["copycat"]["managers"])[:2]
    response = await client.get(f"{LATEST}?managers={','.join(ids)}&mode=overlap")
    operation = BY_ID["getLatestPack"]
    params = resolve(
        operation, release.data, {"packId": "13f-copycat"}, [("managers", ",".join(ids)), ("mode", "overlap")]
    )
    assert await response.read() == render(operation, release.data, params).body
    body = await response.json()
    assert body["data"]["view"]["managers"] == ids and body["data"]["view"]["mode"] == "overlap"


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("managers=nobody", "unknown_manager"),
        ("managers=", "invalid_parameter"),
        ("mode=sideways", "invalid_mode"),
        ("colour=blue", "unknown_parameter"),
    ],
)
async def test_400_for_bad_view_parameters(client, query, code):
    _, body = await get_json(client, f"{LATEST}?{query}", 400)
    assert body["error"]["code"] == code
    assert body["meta"]["capability"] == "getLatestPack"


async def test_every_mode_of_the_latest_version_is_non_empty(client):
    for mode in ("any", "overlap", "exclusive", "disagreement"):
        _, body = await get_json(client, f"{LATEST}?mode={mode}")
        assert body["data"]["view"]["tickerCount"] > 0, mode


async def test_diff_needs_both_versions_in_order(client, release):
    versions = release.data.versions
    base = "/api/v1/packs/13f-copycat/versions/diff"
    _, body = await get_json(client, f"{base}?from={versions[0]}&to={versions[-1]}")
    assert body["data"]["from"] == versions[0] and body["data"]["to"] == versions[-1]
    _, reversed_body = await get_json(client, f"{base}?from={versions[-1]}&to={versions[0]}", 400)
    assert reversed_body["error"]["code"] == "invalid_version_order"
    _, missing = await get_json(client, f"{base}?from={versions[0]}", 400)
    assert missing["error"]["code"] == "missing_parameter"
    _, unknown = await get_json(client, f"{base}?from={versions[0]}&to=multi-manager-1999-12-31-v2.0", 404)
    assert unknown["error"]["code"] == "version_not_found"


async def test_versions_lists_eight_immutable_versions_newest_first(client, release):
    _, body = await get_json(client, "/api/v1/packs/13f-copycat/versions")
    versions = [v["versionId"] for v in body["data"]["versions"]]
    assert len(versions) == 8
    assert versions == sorted(versions, reverse=True)
    assert body["data"]["latestVersion"] == versions[0] == release.data.versions[-1]
    assert [v["latest"] for v in body["data"]["versions"]] == [True] + [False] * 7


@pytest.mark.parametrize("path", ["/api/v1/packs/nope/latest", "/api/v1/packs/nope/versions", "/api/v1/nowhere", "/"])
async def test_404_envelopes_for_unknown_packs_and_routes(client, path):
    _, body = await get_json(client, path, 404)
    assert body["error"]["code"] in ("pack_not_found", "route_not_found")
    assert body["meta"]["apiVersion"] == "v1"


async def test_405_envelope_for_a_wrong_method(client):
    response = await client.delete("/api/v1/packs")
    body = await response.json()
    assert response.status == 405 and body["error"]["code"] == "method_not_allowed"


@pytest.mark.parametrize("path", ["/api/v1/packs/..%2F..%2Fetc%2Fpasswd/latest", "/api/v1/packs/%2e%2e/versions"])
async def test_path_parameters_never_reach_the_filesystem(client, path):
    response = await client.get(path)
    assert response.status == 404
    assert "root:" not in await response.text()


async def test_a_corrupted_release_answers_503_on_health_and_latest(aiohttp_client, releases_copy: Path):
    directory = current_release(releases_copy)
    victim = next((directory / "objects").iterdir())
    victim.write_bytes(victim.read_bytes()[:-1] + b" ")
    client = await aiohttp_client(create_app(releases_copy))
    for path in ("/api/v1/health", LATEST):
        _, body = await get_json(client, path, 503)
        assert body["error"]["code"] == "release_unavailable"


async def test_no_release_answers_503(aiohttp_client, tmp_path: Path):
    client = await aiohttp_client(create_app(tmp_path))
    _, body = await get_json(client, "/api/v1/health", 503)
    assert body["error"]["code"] == "release_unavailable"


async def test_a_promotion_is_picked_up_without_a_restart(aiohttp_client, releases_copy: Path):
    app = create_app(releases_copy, watch_interval=3600)
    client = await aiohttp_client(app)
    _, before = await get_json(client, "/api/v1/health")
    current = current_release(releases_copy)
    os.replace(releases_copy / "current", releases_copy / "parked")
    from server.app import WATCH

    app[WATCH].refresh()
    await get_json(client, "/api/v1/health", 503)
    os.symlink(current.name, releases_copy / "current")
    app[WATCH].refresh()
    _, after = await get_json(client, "/api/v1/health")
    assert after["data"]["releaseId"] == before["data"]["releaseId"]


@pytest.mark.parametrize(
    ("header", "expected"),
    [(None, False), ('"a"', True), ('W/"a"', True), ('"b", "a"', True), ("*", True), ('"b"', False), ('"a', False)],
)
def test_if_none_match_uses_weak_comparison_over_lists(header, expected):
    assert none_match(header, '"a"') is expected
