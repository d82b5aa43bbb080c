"""The MCP tools in memory: generated from the operation table, each answer the compact form of the REST route's,
the REST bytes themselves linked as resources, an error the REST error envelope."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from mcp import Client, MCPError

from builder.api.contract import OPERATIONS, RESEARCH_REQUEST, TOOLS, VIEW_REQUEST
from builder.cli import main as ras
from builder.release.publish import publish
from builder.release.store import LoadedRelease
from builder.sources.tree import fixture_source
from server import mcp_server
from server.app import create_app
from server.mcp_server import create_server
from server.mcp_server.results import compact
from tests.conftest import quiet

PACK = "13f-copycat"
TOOL_NAMES = [
    "get_health", "list_packs", "get_latest_pack", "list_pack_versions", "compare_versions",
    "explain_position", "list_ethos", "compare_ethos", "validate_policy", "export_audit_trail",
]  # fmt: skip


@dataclass(frozen=True)
class Case:
    """A tool call and the REST request it stands for."""

    tool: str
    arguments: dict[str, Any]
    path: str  # REST path and query
    body: dict[str, Any] | None = None  # a POST body; None for a GET


def view_tickers(release: LoadedRelease, query: str) -> list[str]:
    body = release.answers[f"/api/v1/packs/{PACK}/latest{query}"].body
    return [row["ticker"] for row in orjson.loads(body)["data"]["view"]["tickers"]]


def tool_cases(release: LoadedRelease) -> dict[str, Case]:
    """One real call per tool, with arguments taken from the fixture release."""
    older, newer = release.data.versions[-2:]
    ticker = view_tickers(release, "?mode=overlap")[0].lower()  # tickers are case-insensitive
    pack = f"/api/v1/packs/{PACK}"
    cases = [
        Case("get_health", {}, "/api/v1/health"),
        Case("list_packs", {}, "/api/v1/packs"),
        Case(
            "get_latest_pack",
            {"packId": PACK, "managers": ["osprey", "larch"], "mode": "overlap"},
            f"{pack}/latest?managers=osprey&managers=larch&mode=overlap",
        ),
        Case("list_pack_versions", {"packId": PACK}, f"{pack}/versions"),
        Case(
            "compare_versions",
            {"packId": PACK, "from": older, "to": newer, "mode": "overlap"},
            f"{pack}/versions/diff?from={older}&to={newer}&mode=overlap",
        ),
        Case(
            "explain_position",
            {"packId": PACK, "ticker": ticker, "mode": "overlap"},
            f"{pack}/positions/{ticker}/explanation?mode=overlap",
        ),
        Case("list_ethos", {}, "/api/v1/ethos"),
        Case(
            "compare_ethos",
            ethos := {"managerIds": ["larch", "osprey"], "mode": "overlap", "ethosIds": ["breadth"]},
            "/api/v1/ethos/compare",
            ethos,
        ),
        Case("validate_policy", policy := {"managerIds": ["larch"], "mode": "any"}, "/api/v1/policy/validate", policy),
        Case(
            "export_audit_trail",
            {"packId": PACK, "managers": ["larch", "osprey"]},
            f"{pack}/audit?managers=larch&managers=osprey",
        ),
    ]
    return {case.tool: case for case in cases}


async def rest_answer(rest, case: Case) -> tuple[int, bytes]:
    """Status and body bytes of the REST request a case stands for."""
    if case.body is None:
        response = await rest.get(case.path)
    else:
        headers = {"Content-Type": "application/json"}
        response = await rest.post(case.path, data=orjson.dumps(case.body), headers=headers)
    return response.status, await response.read()


async def reassembled(client, result) -> bytes:
    """The REST bytes a success links: the text of its resource parts, read and joined in order."""
    links = [content for content in result.content if content.type == "resource_link"]
    texts = []
    for number, link in enumerate(links, 1):
        read = await client.read_resource(link.uri)
        assert f"/part/{number}/of/{len(links)}?" in link.uri and read.contents[0].uri == link.uri
        texts.append(read.contents[0].text)
    return "".join(texts).encode()


async def assert_same_as_rest(
    client, case: Case, result, status: int, body: bytes, versions: Sequence[str] = ()
) -> None:
    """An error: the REST error envelope as the only (text) block, no structured content. A success: the compact
    answer of the REST data as text and as structured content, and links whose parts join into the REST bytes.
    `versions`: the release's version ids (a diff's compact answer proposes its next calls from them)."""
    assert result.is_error is (status != 200)
    if status != 200:
        assert [content.type for content in result.content] == ["text"] and result.structured_content is None
        assert result.content[0].text.encode() == body
        return
    assert result.content[0].type == "text" and {c.type for c in result.content[1:]} == {"resource_link"}
    expected = compact(TOOLS[case.tool].compact, orjson.loads(body)["data"], case.arguments, versions)
    assert orjson.loads(result.content[0].text) == result.structured_content == expected
    assert await reassembled(client, result) == body


def connect(releases: Path) -> Client:
    """An in-memory client over JSON-RPC streams (the handshake era, as over stdio)."""
    # Entered in each test, not in a fixture: the SDK's task groups must open and close in one task.
    return Client(create_server(releases), mode="legacy")


async def list_tools(releases: Path):
    async with connect(releases) as client:
        return (await client.list_tools()).tools


@pytest.fixture
async def rest(aiohttp_client, published: Path):
    return await aiohttp_client(create_app(published))


async def test_the_tools_are_the_ten_of_the_contract_generated_from_the_operation_table(published):
    listed = await list_tools(published)
    assert [tool.name for tool in listed] == TOOL_NAMES
    assert [tool.name for tool in listed] == [operation.tool for operation in OPERATIONS if operation.tool]


async def test_every_tool_is_read_only_and_closed_world_with_a_title(published):
    for tool in await list_tools(published):
        hints = tool.annotations
        assert (hints.read_only_hint, hints.open_world_hint) == (True, False), tool.name
        assert tool.title == TOOLS[tool.name].summary


async def test_get_tool_schemas_are_the_route_parameters_with_path_and_required_query_required(published):
    schemas = {tool.name: tool.input_schema for tool in await list_tools(published)}
    for name in ("get_health", "list_packs", "list_ethos"):
        assert schemas[name] == {"type": "object", "properties": {}, "additionalProperties": False}
    diff = schemas["compare_versions"]
    assert list(diff["properties"]) == ["packId", "from", "to", "managers", "mode"]
    assert diff["required"] == ["packId", "from", "to"] and diff["additionalProperties"] is False
    assert diff["properties"]["managers"]["type"] == "array"
    assert diff["properties"]["mode"]["enum"] == ["any", "overlap", "exclusive", "disagreement"]
    assert schemas["explain_position"]["required"] == ["packId", "ticker"]
    assert schemas["export_audit_trail"]["required"] == ["packId"]


def without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {key: without_descriptions(value) for key, value in schema.items() if key != "description"}
    return [without_descriptions(item) for item in schema] if isinstance(schema, list) else schema


async def test_post_tool_schemas_are_the_request_body_schemas_without_defaults(published, release):
    schemas = {tool.name: tool.input_schema for tool in await list_tools(published)}
    components = release.data.openapi["components"]["schemas"]
    for name, body, component in (
        ("compare_ethos", RESEARCH_REQUEST, "ResearchRequest"),
        ("validate_policy", VIEW_REQUEST, "ViewRequest"),
    ):
        document = components[component]["properties"]
        assert set(schemas[name]["properties"]) == set(body["properties"]) == set(document)
        assert schemas[name]["additionalProperties"] is False
        for field, argument in schemas[name]["properties"].items():
            assert "default" not in argument and argument["type"] == document[field]["type"], (name, field)
            assert argument.get("maxItems") == document[field].get("maxItems"), (name, field)
    ethos_ids = schemas["compare_ethos"]["properties"]["ethosIds"]
    assert ethos_ids["description"] == "Ethos ids from list_ethos; omitted: all."


async def test_ids_that_grow_with_a_release_are_patterns_and_fixed_sets_are_enums(published, release):
    schemas = {tool.name: tool.input_schema for tool in await list_tools(published)}
    packs = [pack["id"] for pack in release.data.index["packs"] if pack["status"] == "available"]
    latest, diff = schemas["get_latest_pack"]["properties"], schemas["compare_versions"]["properties"]
    for argument in (
        latest["managers"]["items"],
        schemas["compare_ethos"]["properties"]["managerIds"]["items"],
        diff["from"],
        diff["to"],
    ):
        assert "enum" not in argument and argument["pattern"].startswith("^")
    assert latest["packId"]["enum"] == packs
    assert schemas["explain_position"]["properties"]["packId"]["enum"] == [PACK]  # the one pack that explains
    ethos = orjson.loads(release.answers["/api/v1/ethos"].body)["data"]
    assert schemas["compare_ethos"]["properties"]["ethosIds"]["items"]["enum"] == [e["id"] for e in ethos["ethos"]]
    assert latest["mode"]["enum"] == ["any", "overlap", "exclusive", "disagreement"] and "default" not in latest["mode"]


async def test_descriptions_say_when_to_call_the_tool_and_name_tools_not_operations(published):
    for tool in await list_tools(published):
        operation = TOOLS[tool.name]
        assert tool.description.startswith(operation.when + " ") and len(tool.description.encode()) < 2048
        assert f"{operation.method} {operation.route}" in tool.description and "isError" in tool.description
        text = tool.description + orjson.dumps(tool.input_schema).decode()
        assert not [operation.id for operation in OPERATIONS if operation.id in text], tool.name


async def test_the_server_names_itself_and_tells_an_agent_it_is_research_only(published):
    async with connect(published) as tools:
        assert tools.server_info.name == "research-artifact-service" and tools.server_info.version == "0.1.0"
        assert "execution is always disabled" in tools.instructions


@pytest.mark.parametrize("name", TOOL_NAMES)
async def test_each_tool_answers_with_the_rest_bytes_for_the_same_request(published, rest, release, name):
    case = tool_cases(release)[name]
    status, body = await rest_answer(rest, case)
    assert status == 200, body
    async with connect(published) as tools:
        result = await tools.call_tool(case.tool, case.arguments)
        await assert_same_as_rest(tools, case, result, status, body, release.data.versions)


async def test_a_canonical_call_is_answered_with_the_precomputed_bytes(published, release):
    older, newer = release.data.versions[:2]
    async with connect(published) as tools:
        result = await tools.call_tool("compare_versions", {"packId": PACK, "from": older, "to": newer, "mode": "any"})
        body = await reassembled(tools, result)
    assert body == release.answers[f"/api/v1/packs/{PACK}/versions/diff?from={older}&to={newer}"].body


async def test_a_managers_array_is_the_same_view_in_any_order_with_repeats(published):
    async with connect(published) as tools:
        first = await tools.call_tool("get_latest_pack", {"packId": PACK, "managers": ["osprey", "larch"]})
        second = await tools.call_tool("get_latest_pack", {"packId": PACK, "managers": ["larch", "osprey", "larch"]})
    assert not first.is_error and first.content[0].text == second.content[0].text


INVALID_ARGUMENTS = [  # what a URL cannot say: the path arguments left out
    ("get_latest_pack", {"managers": ["larch"]}, "packId"),
    ("explain_position", {"packId": PACK}, "ticker"),
]


@pytest.mark.parametrize(("name", "arguments", "missing"), INVALID_ARGUMENTS)
async def test_a_missing_path_argument_is_a_400_missing_parameter_envelope(published, name, arguments, missing):
    async with connect(published) as tools:
        result = await tools.call_tool(name, arguments)
    assert result.is_error and result.structured_content is None and len(result.content) == 1
    envelope = orjson.loads(result.content[0].text)
    assert envelope["error"]["code"] == "missing_parameter" and envelope["error"]["details"] == {"parameter": missing}
    assert envelope["meta"] == {
        "apiVersion": "v1",
        "contractVersion": "0.1.0",
        "capability": TOOLS[name].id,
        "deprecated": False,
    }


def error_cases(release: LoadedRelease) -> list[Case]:
    """Calls that pass the schema but not the service, with the REST requests that fail the same way."""
    older, newer = release.data.versions[:2]
    return [
        Case(
            "explain_position",
            {"packId": "congress-trades", "ticker": "NVDA"},
            "/api/v1/packs/congress-trades/positions/NVDA/explanation",
        ),
        Case("get_latest_pack", {"packId": "no-such-pack"}, "/api/v1/packs/no-such-pack/latest"),
        Case(
            "get_latest_pack", {"packId": PACK, "managers": ["nobody"]}, f"/api/v1/packs/{PACK}/latest?managers=nobody"
        ),
        Case(
            "get_latest_pack",
            {"packId": "congress-trades", "mode": "overlap"},
            "/api/v1/packs/congress-trades/latest?mode=overlap",
        ),
        Case(
            "compare_versions",
            {"packId": PACK, "from": newer, "to": older},
            f"/api/v1/packs/{PACK}/versions/diff?from={newer}&to={older}",
        ),
        Case(
            "compare_versions",
            {"packId": PACK, "from": "multi-manager-1999-12-31-v2.0", "to": older},
            f"/api/v1/packs/{PACK}/versions/diff?from=multi-manager-1999-12-31-v2.0&to={older}",
        ),
        Case("compare_ethos", {"packId": "congress-trades"}, "/api/v1/ethos/compare", {"packId": "congress-trades"}),
        Case("compare_ethos", {"tickers": ["ZZZZ"]}, "/api/v1/ethos/compare", {"tickers": ["ZZZZ"]}),
    ]


async def test_non_200_answers_are_error_results_with_the_rest_envelope(published, rest, release):
    statuses = []
    async with connect(published) as tools:
        for case in error_cases(release):
            status, body = await rest_answer(rest, case)
            statuses.append(status)
            await assert_same_as_rest(tools, case, await tools.call_tool(case.tool, case.arguments), status, body)
    assert statuses == [422, 404, 400, 400, 400, 404, 422, 404]


async def test_an_unknown_tool_is_a_protocol_error(published):
    async with connect(published) as tools:
        with pytest.raises(MCPError, match="unknown tool 'place_order'"):
            await tools.call_tool("place_order", {"ticker": "AAPL"})


async def test_without_a_promoted_release_health_is_a_503_error_result(tmp_path: Path):
    async with connect(tmp_path) as client:
        result = await client.call_tool("get_health", {})
    assert result.is_error and error_code(result) == "release_unavailable"


def error_code(result) -> str:
    """The error.code of an error result: in its one text block, the REST error envelope."""
    assert result.is_error and result.structured_content is None
    return orjson.loads(result.content[0].text)["error"]["code"]


async def test_a_promotion_is_picked_up_before_the_next_call(releases_copy: Path):
    async with connect(releases_copy) as client:
        before = (await client.call_tool("get_health", {})).structured_content["releaseId"]
        after_id = publish(fixture_source(), releases_copy, date(2026, 10, 1), quiet)
        after = (await client.call_tool("get_health", {})).structured_content["releaseId"]
        (releases_copy / "current").unlink()
        gone = await client.call_tool("get_health", {})
    assert before != after == after_id
    assert error_code(gone) == "release_unavailable"


async def test_the_2026_protocol_gets_the_same_tools_and_answers(published: Path, release):
    async with Client(create_server(published)) as client:
        assert client.protocol_version == "2026-07-28"
        assert [tool.name for tool in (await client.list_tools()).tools] == TOOL_NAMES
        result = await client.call_tool("get_latest_pack", {"packId": PACK, "mode": "overlap"})
        body = await reassembled(client, result)
    assert body == release.answers[f"/api/v1/packs/{PACK}/latest?mode=overlap"].body


def test_a_missing_releases_directory_stops_both_entry_points_with_one_line(tmp_path: Path, capsys):
    missing = tmp_path / "missing"
    result = CliRunner().invoke(ras, ["mcp", "--releases", str(missing)])
    assert result.exit_code == 1 and result.stderr.startswith(f"Error: releases directory {missing} does not exist")
    with pytest.raises(SystemExit) as stopped:
        mcp_server.main(["--releases", str(missing)])
    assert stopped.value.code == 2 and "does not exist; run `ras publish` first" in capsys.readouterr().err


MCP_PAGE = Path(__file__).resolve().parents[1] / "docs" / "mcp.md"


def doc_examples() -> list[tuple[str, dict[str, Any], Any]]:
    """(tool, arguments, result excerpt) of every example on the docs' MCP page, one per `### `tool``."""
    section = MCP_PAGE.read_text().split("## One call of each tool", 1)[1].split("\n## ", 1)[0]
    examples = section.split("\n### ")[1:]
    found = []
    for section in examples:
        tool = section.split("`")[1]
        blocks = [block.split("```", 1)[0] for block in section.split("```json\n")[1:]]
        assert len(blocks) == 2, section[:80]
        found.append((tool, orjson.loads(blocks[0]), orjson.loads(blocks[1])))
    return found


def is_excerpt(part: Any, whole: Any) -> bool:
    """Objects with a subset of the keys, arrays with the first items, values unchanged."""
    if isinstance(part, dict):
        return isinstance(whole, dict) and all(key in whole and is_excerpt(v, whole[key]) for key, v in part.items())
    if isinstance(part, list):
        return isinstance(whole, list) and len(part) <= len(whole) and all(map(is_excerpt, part, whole))
    return part == whole and type(part) is type(whole)


async def test_every_example_in_docs_mcp_is_an_excerpt_of_the_real_result(published):
    examples = doc_examples()
    assert {tool for tool, _, _ in examples} == set(TOOL_NAMES)
    async with connect(published) as tools:
        for tool, arguments, excerpt in examples:
            result = await tools.call_tool(tool, arguments)
            assert result.is_error is ("error" in excerpt), (tool, arguments)
            shown = orjson.loads(result.content[0].text) if result.is_error else result.structured_content
            assert is_excerpt(excerpt, shown), (tool, arguments)
