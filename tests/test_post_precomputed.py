"""POSTs at start-up speed: all-manager views precomputed by the release, and recent answers kept by raw body."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builder.api.contract import OPERATIONS
from builder.api.data import ReleaseData
from builder.api.params import resolve_body
from builder.api.render import render
from builder.research.views import MODES
from server import app as server_app
from server import dispatch
from server.app import create_app
from server.dispatch import PostCache

POSTS = [operation for operation in OPERATIONS if operation.method == "POST"]
JSON = {"Content-Type": "application/json"}


@pytest.fixture
async def client(aiohttp_client, published: Path):
    return await aiohttp_client(create_app(published))


def unprimed(data: ReleaseData) -> ReleaseData:
    """The same release data with nothing computed yet."""
    return ReleaseData(data.index, data.artifacts, data.identity, data.openapi)


@pytest.mark.parametrize("operation", POSTS, ids=lambda op: op.id)
@pytest.mark.parametrize("mode", MODES)
def test_the_release_holds_each_all_manager_view_exactly_as_computed_live(release, operation, mode):
    params = resolve_body(operation, release.data, {"mode": mode})
    stored = release.answers[operation.request_key(params)]
    live = render(operation, unprimed(release.data), params)
    assert (stored.status, stored.body) == (live.status, live.body)


def no_rendering(*_arguments):
    raise AssertionError("rendered live although the release holds the answer")


@pytest.mark.parametrize("operation", POSTS, ids=lambda op: op.id)
async def test_every_spelling_of_the_all_manager_view_is_answered_from_the_release(
    client, release, operation, monkeypatch
):
    monkeypatch.setattr(dispatch, "render", no_rendering)
    managers = [manager["id"] for manager in release.data.index["copycat"]["managers"]]
    spellings = [{}, {"packId": "13f-copycat", "mode": "any"}, {"managerIds": managers[::-1]}, {"managerIds": []}]
    expected = release.answers[operation.request_key(resolve_body(operation, release.data, {}))].body
    for body in spellings:
        response = await client.post(operation.route, data=orjson.dumps(body), headers=JSON)
        assert (response.status, await response.read()) == (200, expected), body
        assert response.headers["Cache-Control"] == "no-store" and "ETag" not in response.headers


async def test_a_subset_is_still_computed_live(client, release, monkeypatch):
    first = release.data.index["copycat"]["managers"][0]["id"]
    response = await client.post("/api/v1/policy/validate", data=orjson.dumps({"managerIds": [first]}), headers=JSON)
    assert response.status == 200
    monkeypatch.setattr(dispatch, "render", no_rendering)
    other = release.data.index["copycat"]["managers"][1]["id"]
    response = await client.post("/api/v1/policy/validate", data=orjson.dumps({"managerIds": [other]}), headers=JSON)
    assert response.status == 500


async def test_the_same_raw_body_again_is_answered_without_parsing_it(client, release, monkeypatch):
    calls = []
    answer_post = server_app.answer_post
    monkeypatch.setattr(server_app, "answer_post", lambda *args: calls.append(args[2]) or answer_post(*args))
    first = release.data.index["copycat"]["managers"][0]["id"]
    raw = orjson.dumps({"managerIds": [first], "mode": "overlap"})
    answers = []
    for body in (raw, raw, b" " + raw):
        response = await client.post("/api/v1/ethos/compare", data=body, headers=JSON)
        assert response.status == 200 and response.headers["Content-Type"] == "application/json"
        assert response.headers["Cache-Control"] == "no-store" and response.headers["X-Service-API-Version"] == "v1"
        answers.append(await response.read())
    assert len(set(answers)) == 1
    assert len(calls) == 2, "the second identical body came from the cache; another spelling is computed"


async def test_errors_are_never_kept(client, monkeypatch):
    calls = []
    answer_post = server_app.answer_post
    monkeypatch.setattr(server_app, "answer_post", lambda *args: calls.append(1) or answer_post(*args))
    for _ in range(2):
        response = await client.post("/api/v1/policy/validate", data=b'{"mode": "sideways"}', headers=JSON)
        assert response.status == 400
    assert len(calls) == 2


def test_the_post_cache_is_bounded_by_bytes_and_keyed_by_release():
    cache = PostCache(limit=8000)
    for n in range(20):
        cache.put("r1", "op", str(n).encode(), b"x" * 500)
    assert cache.held <= 8000 and cache.get("r1", "op", b"0") is None and cache.get("r1", "op", b"19") == b"x" * 500
    assert cache.get("r2", "op", b"19") is None and cache.get("r1", "other", b"19") is None
    cache.put("r1", "op", b"big", b"x" * 1001)  # over an eighth of the limit: not kept
    assert cache.get("r1", "op", b"big") is None


def test_a_prepared_release_answers_a_never_asked_subset_without_reading_an_older_artifact_whole(published: Path):
    from builder.release.store import current_release, load_release, prepare

    directory = current_release(published)
    assert directory is not None
    release = load_release(directory)
    prepare(release)  # what ras serve does before it serves a release
    data, operation = release.data, next(op for op in POSTS if op.id == "compareEthos")
    kept = release.data.artifacts._loaded  # type: ignore[attr-defined]  # the artifacts parsed and kept
    assert list(kept) == [data.versions[-1]]  # the latest only; the older ones left their holdings
    assert ("book-facts", data.versions[-1]) in data._memo  # what every validatePolicy reads of the whole book
    body = {"managerIds": [data.latest["managers"][0]["id"]], "mode": "any"}
    answer = render(operation, data, resolve_body(operation, data, body))
    assert answer.status == 200 and list(kept) == [data.versions[-1]]
    fresh = load_release(directory)  # the same answer from a release read the lazy way, every artifact whole
    assert render(operation, fresh.data, resolve_body(operation, fresh.data, body)).body == answer.body
    assert len(fresh.data.artifacts._loaded) == len(data.versions)  # type: ignore[attr-defined]
