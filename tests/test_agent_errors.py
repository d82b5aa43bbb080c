"""Errors that name the next step, on REST (aiohttp on loopback) and over MCP (the official Python SDK client over
stdio) alike: the valid version ids, the tool that lists the packs, the right name of the managers argument, the
shape an array argument takes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from mcp import ClientSession, stdio_client

from server.app import create_app
from tests.test_mcp_stdio import ROUND_TRIP_SECONDS, child

PACK = "/api/v1/packs/13f-copycat"


@pytest.fixture
async def rest(aiohttp_client, published: Path):
    return await aiohttp_client(create_app(published))


async def rest_response(rest, request: str | tuple[str, Any]):
    """The REST answer to `request`: a GET of its target, or a POST of (route, body)."""
    if isinstance(request, str):
        return await rest.get(request)
    route, body = request
    return await rest.post(route, data=orjson.dumps(body), headers={"Content-Type": "application/json"})


async def rest_error(rest, target: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
    response = await rest_response(rest, target if body is None else (target, body))
    return response.status, orjson.loads(await response.read())["error"]


async def test_an_unknown_version_lists_the_version_ids_and_the_tool_that_lists_them(rest, release):
    newest_first = list(reversed(release.data.versions))
    status, error = await rest_error(
        rest, f"{PACK}/versions/diff?from=multi-manager-1999-12-31-v2.0&to={newest_first[0]}"
    )
    assert (status, error["code"]) == (404, "version_not_found")
    assert error["details"] == {
        "parameter": "from",
        "versionId": "multi-manager-1999-12-31-v2.0",
        "available": newest_first,
    }
    assert "list_pack_versions (GET /api/v1/packs/13f-copycat/versions)" in error["message"]
    assert error["message"].endswith(", ".join(newest_first))


async def test_an_unknown_pack_names_list_packs_and_the_packs_there_are(rest):
    catalog = orjson.loads(await (await rest.get("/api/v1/packs")).read())["data"]["packs"]
    available = [pack["id"] for pack in catalog if pack["status"] == "available"]
    planned = next(pack["id"] for pack in catalog if pack["status"] == "planned")
    status, error = await rest_error(rest, "/api/v1/packs/no-such-pack/latest")
    assert (status, error["code"], error["details"]) == (
        404,
        "pack_not_found",
        {"packId": "no-such-pack", "available": available},
    )
    assert error["message"].startswith("no pack 'no-such-pack'; list_packs (GET /api/v1/packs) lists the packs")
    status, error = await rest_error(rest, f"/api/v1/packs/{planned}/versions")
    assert error["message"].startswith(f"pack {planned!r} is planned, not served yet; list_packs")


async def test_the_post_name_of_the_managers_in_a_query_is_answered_with_the_right_one(rest):
    status, error = await rest_error(rest, f"{PACK}/latest?managerIds=larch")
    assert (status, error["code"], error["details"]) == (
        400,
        "unknown_parameter",
        {"parameter": "managerIds", "expected": "managers", "valid": ["packId", "managers", "mode"]},
    )
    status, error = await rest_error(rest, f"{PACK}/latest?colour=blue")
    # no right name to give, and nothing a colour could be looking for: the parameters it takes
    assert (status, error["details"]) == (400, {"parameter": "colour", "valid": ["packId", "managers", "mode"]})
    assert error["message"] == "unknown parameter 'colour': get_latest_pack takes packId, managers, mode"


async def test_the_get_name_of_the_managers_in_a_body_is_answered_with_the_right_one(rest):
    extra = {"/api/v1/policy/validate": [], "/api/v1/ethos/compare": ["ethosIds", "tickers"]}
    for route in ("/api/v1/policy/validate", "/api/v1/ethos/compare"):
        status, error = await rest_error(rest, route, {"managers": ["larch"]})
        assert (status, error["code"], error["details"]) == (
            400,
            "invalid_body",
            {"path": "managers", "expected": "managerIds", "valid": ["packId", "managerIds", "mode", *extra[route]]},
        )
        assert "here the manager ids are 'managerIds'" in error["message"]


@pytest.mark.parametrize(
    ("route", "body", "path"),
    [
        ("/api/v1/policy/validate", {"managerIds": "larch"}, "managerIds"),
        ("/api/v1/ethos/compare", {"managerIds": "larch,osprey"}, "managerIds"),
        ("/api/v1/ethos/compare", {"tickers": "AAPL"}, "tickers"),
        ("/api/v1/ethos/compare", {"ethosIds": "breadth"}, "ethosIds"),
    ],
)
async def test_a_string_where_a_body_takes_an_array_is_400_with_the_shape(rest, route, body, path):
    status, error = await rest_error(rest, route, body)
    assert (status, error["code"], error["details"]) == (
        400,
        "invalid_body",
        {"path": path, "expected": "an array of strings"},
    )
    assert error["message"] == f"invalid request body at {path}: expected an array of strings, not a string"


async def test_a_body_field_of_the_wrong_scalar_type_says_which_type(rest):
    status, error = await rest_error(rest, "/api/v1/policy/validate", {"mode": 3})
    assert (status, error["details"]) == (400, {"path": "mode", "expected": "a string"})
    assert error["message"] == "invalid request body at mode: expected a string, not a number"


# (tool, arguments, the REST request it stands for: None when only a tool call can say it)
OVER_STDIO = [
    ("compare_versions", {"packId": "13f-copycat", "from": "v0", "to": "v1"}, f"{PACK}/versions/diff?from=v0&to=v1"),
    ("get_latest_pack", {"packId": "no-such-pack"}, "/api/v1/packs/no-such-pack/latest"),
    ("get_latest_pack", {"packId": "13f-copycat", "managerIds": ["larch"]}, f"{PACK}/latest?managerIds=larch"),
    ("validate_policy", {"managers": ["larch"]}, ("/api/v1/policy/validate", {"managers": ["larch"]})),
    ("compare_ethos", {"managerIds": "larch"}, ("/api/v1/ethos/compare", {"managerIds": "larch"})),
    ("get_latest_pack", {"packId": "13f-copycat", "managers": "larch"}, None),
    ("export_audit_trail", {"packId": "13f-copycat", "managers": "larch,osprey"}, None),
]


async def test_over_stdio_each_error_is_the_rest_envelope_and_a_string_for_managers_says_the_shape(published, rest):
    with anyio.fail_after(ROUND_TRIP_SECONDS):
        async with (
            stdio_client(child(["-m", "server.mcp_server"], published)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            results = [await session.call_tool(tool, arguments) for tool, arguments, _ in OVER_STDIO]
            listed = await session.call_tool("get_latest_pack", {"packId": "13f-copycat", "managers": ["larch"]})
    for (tool, arguments, request), result in zip(OVER_STDIO, results, strict=True):
        assert result.is_error and result.structured_content is None, (tool, arguments)
        if request is None:
            error = orjson.loads(result.content[0].text)["error"]
            assert error["code"] == "invalid_parameter" and error["details"] == {
                "parameter": "managers",
                "expected": "an array of strings",
            }
            assert (
                error["message"]
                == f"'managers' is an array of strings, not a string: pass [\"{arguments['managers']}\"]"
            )
            continue
        response = await rest_response(rest, request)
        assert result.content[0].text.encode() == await response.read(), (tool, arguments)
    assert not listed.is_error and listed.structured_content["view"]["managerCount"] == 1


# Six mistakes agents made (the first two the issue's), each as a tool call and the REST request it stands for, with
# what its error must name as the next step.
MISTAKES = [
    (
        "compare_versions",
        {"packId": "13f-copycat", "fromVersion": "{v0}", "to": "{v1}"},
        f"{PACK}/versions/diff?fromVersion={{v0}}&to={{v1}}",
        "unknown parameter 'fromVersion': compare_versions takes packId, from, to, managers, mode; a version id goes "
        "in 'from' (the earlier) and 'to' (the later); list_pack_versions lists them",
    ),
    (
        "get_latest_pack",
        {"packId": "13f-copycat", "quarter": "2025-06-30"},
        f"{PACK}/latest?quarter=2025-06-30",
        "unknown parameter 'quarter': get_latest_pack takes packId, managers, mode; this answers the latest version "
        "only: explain_position (ticker, version) explains a position at an earlier version and compare_versions "
        "(from, to) what changed between two; list_pack_versions lists the versions",
    ),
    (
        "explain_position",
        {"packId": "13f-copycat", "ticker": "AAPL", "quarter": "2025-06-30"},
        f"{PACK}/positions/AAPL/explanation?quarter=2025-06-30",
        "unknown parameter 'quarter': explain_position takes packId, ticker, version, managers, mode; a version id goes "
        "in 'version' (omitted: the latest); list_pack_versions lists them, and compare_versions (from, to) shows "
        "what changed between two",
    ),
    (
        "compare_versions",
        {"packId": "13f-copycat", "from": "{v1}", "to": "{v0}"},
        f"{PACK}/versions/diff?from={{v1}}&to={{v0}}",
        "'from' must be an earlier version than 'to': swap them (from '{v0}', to '{v1}')",
    ),
    (
        "compare_versions",
        {"packId": "13f-copycat", "from": "{v0}"},
        f"{PACK}/versions/diff?from={{v0}}",
        "parameter 'to' is required: compare_versions takes packId, from, to, managers, mode; list_pack_versions lists "
        "the version ids, newest first",
    ),
    (
        "validate_policy",
        {"mode": "overlap", "version": "{v0}"},
        ("/api/v1/policy/validate", {"mode": "overlap", "version": "{v0}"}),
        "unknown parameter 'version': validate_policy takes packId, managerIds, mode; this answers the latest version "
        "only: explain_position (ticker, version) explains a position at an earlier version and compare_versions "
        "(from, to) what changed between two; list_pack_versions lists the versions",
    ),
]


def filled(value, versions: dict[str, str]):
    """`value` with {v0} and {v1} as the fixture's first two version ids."""
    if isinstance(value, str):
        return value.format(**versions) if "{" in value else value
    if isinstance(value, tuple):
        return tuple(filled(item, versions) for item in value)
    return {key: filled(item, versions) for key, item in value.items()} if isinstance(value, dict) else value


async def test_six_mistakes_each_get_an_error_naming_the_next_step_in_the_same_words_on_rest_and_mcp(
    published, rest, release
):
    versions = {"v0": release.data.versions[0], "v1": release.data.versions[1]}
    mistakes = [filled(mistake, versions) for mistake in MISTAKES]
    with anyio.fail_after(ROUND_TRIP_SECONDS):
        async with (
            stdio_client(child(["-m", "server.mcp_server"], published)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            results = [await session.call_tool(tool, arguments) for tool, arguments, _, _ in mistakes]
    for (tool, arguments, request, message), result in zip(mistakes, results, strict=True):
        assert result.is_error, (tool, arguments)
        response = await rest_response(rest, request)
        assert result.content[0].text.encode() == await response.read(), (tool, arguments)
        assert orjson.loads(result.content[0].text)["error"]["message"] == message
