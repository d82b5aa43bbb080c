"""One error vocabulary: every invalid REST request, made as the tool call it stands for, gets the same envelope,
as an error result every host reads (isError, the envelope in one text block, no structured content); every
success's structured content fits the tool's compact output schema."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import parse_qsl, unquote

import orjson
import pytest
from jsonschema import Draft202012Validator

from builder.api.contract import OPERATIONS, Operation
from builder.research.versions import PACK_ID
from server.app import create_app
from tests.servers import running_server
from tests.test_mcp import Case, connect, list_tools, tool_cases

PACK = "/api/v1/packs/13f-copycat"
OLDER, NEWER = "multi-manager-2026-06-30-v2.0", "multi-manager-2026-09-30-v2.0"
INVALID_GETS = [  # every 4xx a GET route gives for its parameters
    "/api/v1/health?verbose=1",
    "/api/v1/packs?page=2",
    "/api/v1/ethos?x=",
    "/api/v1/packs/no-such-pack/latest",
    "/api/v1/packs/13d-activist-stakes/versions",
    f"{PACK}/latest?managers=larch&managers=nobody",
    f"{PACK}/latest?managers=larch,,osprey",
    f"{PACK}/latest?mode=sideways",
    f"{PACK}/latest?mode=any&mode=overlap",
    f"{PACK}/latest?side=buy",
    "/api/v1/packs/wsb-social-momentum/latest?mode=overlap",
    "/api/v1/packs/congress-trades/audit?managers=larch",
    f"{PACK}/versions/diff?from={NEWER}&to={OLDER}",
    f"{PACK}/versions/diff?from={OLDER}&to={OLDER}",
    f"{PACK}/versions/diff?from={OLDER}%0A&to={NEWER}",
    f"{PACK}/versions/diff?to={NEWER}",
    f"{PACK}/versions/diff?from={OLDER}",
    f"{PACK}/versions/diff?from=multi-manager-1999-12-31-v2.0&to={NEWER}",
    f"{PACK}/versions/diff?from={OLDER}&from={OLDER}&to={NEWER}",
    "/api/v1/packs/congress-trades/versions/diff?from=a&to=b",
    f"{PACK}/positions/NOT_A_TICKER!/explanation",
    f"{PACK}/positions/ZZZZ/explanation",
    f"{PACK}/positions/aapl/explanation?managers=nobody",
    "/api/v1/packs/jane-roe-tracker/positions/MSFT/explanation",
    f"{PACK}/audit?mode=bullish",
]
INVALID_POSTS = [  # every 4xx a POST route gives for a JSON object body
    ("compareEthos", {"colour": "blue"}),
    ("compareEthos", {"managerIds": "larch"}),
    ("compareEthos", {"ethosIds": []}),
    ("compareEthos", {"ethosIds": ["astrology"]}),
    ("compareEthos", {"mode": "sideways"}),
    ("compareEthos", {"managerIds": ["nobody"]}),
    ("compareEthos", {"tickers": ["ZZZZ"]}),
    ("compareEthos", {"packId": "congress-trades"}),
    ("validatePolicy", {"ethosIds": ["breadth"]}),
    ("validatePolicy", {"managerIds": ["larch"], "orders": ["buy"]}),
    ("validatePolicy", {"packId": "jane-roe-tracker"}),
]
ROUTES = [
    (re.compile("^" + re.sub(r"\{([^}]+)\}", r"(?P<\1>[^/]+)", op.route) + "$"), op)
    for op in OPERATIONS
    if op.tool and op.method == "GET"
]


def tool_call(target: str) -> tuple[Operation, dict[str, Any]]:
    """The tool and arguments a GET target stands for: path parameters, then each query name once (a list if repeated)."""
    path, _, query = target.partition("?")
    operation, match = next((op, m) for pattern, op in ROUTES if (m := pattern.match(path)))
    arguments: dict[str, Any] = {name: unquote(value) for name, value in match.groupdict().items()}
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name == "managers":  # an array argument, one item per query value
            arguments[name] = [*arguments.get(name, []), value]
        else:
            arguments[name] = (
                [*arguments[name], value]
                if isinstance(arguments.get(name), list)
                else ([arguments[name], value] if name in arguments else value)
            )
    return operation, arguments


@pytest.fixture
async def rest(aiohttp_client, published):
    return await aiohttp_client(create_app(published))


async def test_every_invalid_get_gets_the_same_status_code_and_envelope_from_its_tool(published, rest):
    codes = set()
    async with connect(published) as tools:
        for target in INVALID_GETS:
            operation, arguments = tool_call(target)
            response = await rest.get(target)
            body = await response.read()
            assert 400 <= response.status < 500, target
            result = await tools.call_tool(operation.tool, arguments)
            assert result.is_error and result.structured_content is None and len(result.content) == 1, target
            assert result.content[0].text.encode() == body, (target, arguments)
            codes.add(orjson.loads(body)["error"]["code"])
    assert codes == {
        "unknown_parameter",
        "pack_not_found",
        "unknown_manager",
        "invalid_parameter",
        "invalid_mode",
        "view_not_supported",
        "invalid_version_order",
        "missing_parameter",
        "version_not_found",
        "feature_not_supported",
        "invalid_ticker",
        "position_not_found",
    }


async def test_every_invalid_post_body_gets_the_same_envelope_as_tool_arguments(published, rest):
    by_id = {op.id: op for op in OPERATIONS}
    codes = set()
    async with connect(published) as tools:
        for operation_id, body in INVALID_POSTS:
            operation = by_id[operation_id]
            response = await rest.post(
                operation.route, data=orjson.dumps(body), headers={"Content-Type": "application/json"}
            )
            expected = await response.read()
            assert 400 <= response.status < 500, body
            result = await tools.call_tool(operation.tool, body)
            assert result.is_error and result.structured_content is None and len(result.content) == 1, body
            assert result.content[0].text.encode() == expected, body
            codes.add(orjson.loads(expected)["error"]["code"])
    assert codes == {"invalid_body", "unknown_ethos", "unknown_manager", "position_not_found", "feature_not_supported"}


async def test_every_output_schema_is_compact_self_contained_and_rooted_in_an_object(published):
    for tool in await list_tools(published):
        schema = tool.output_schema
        Draft202012Validator.check_schema(schema)
        text = orjson.dumps(schema).decode()
        assert schema["type"] == "object" and "nextCalls" in schema["properties"], tool.name
        assert "$schema" not in text and "$ref" not in text and "$defs" not in text, tool.name


async def test_structured_content_of_every_tool_validates_against_its_output_schema(published, release):
    schemas = {tool.name: tool.output_schema for tool in await list_tools(published)}
    previews = [
        Case(tool, {"packId": pack}, "")
        for pack in ("congress-trades", "jane-roe-tracker", "wsb-social-momentum")
        for tool in ("get_latest_pack", "export_audit_trail", "list_pack_versions")
    ]
    async with connect(published) as tools:
        for case in [*tool_cases(release).values(), *previews]:
            result = await tools.call_tool(case.tool, case.arguments)
            assert not result.is_error, case
            errors = list(Draft202012Validator(schemas[case.tool]).iter_errors(result.structured_content))
            assert not errors, (case.tool, [error.message[:200] for error in errors[:3]])


def nested(depth: int) -> Any:
    value: Any = "larch"
    for _ in range(depth - 1):
        value = [value]
    return value


# The bad inputs an agent developer tried, with the REST code each must come back with (issue tracker, "Agents first").
BAD_INPUTS = [
    ("get_latest_pack", {"packId": PACK_ID, "mode": "sideways"}, "invalid_mode"),
    ("get_latest_pack", {"packId": "no-such-pack"}, "pack_not_found"),
    ("compare_versions", {"packId": PACK_ID, "from": NEWER, "to": OLDER}, "invalid_version_order"),
    ("explain_position", {"packId": PACK_ID, "ticker": "ZZZZ"}, "position_not_found"),
    ("compare_versions", {"packId": "congress-trades", "from": OLDER, "to": NEWER}, "feature_not_supported"),
    ("compare_ethos", {"ethosIds": []}, "invalid_body"),
    ("validate_policy", {"mode": "bullish"}, "invalid_body"),
    # 200 levels: as deep as the Python SDK client sends (the stdio and TypeScript tests send 1,000)
    ("validate_policy", {"managerIds": nested(200)}, "nesting_too_deep"),
    ("get_latest_pack", {"packId": PACK_ID, "managers": nested(200)}, "nesting_too_deep"),
    ("get_latest_pack", {"packId": PACK_ID, "managers": ["larch"] * 100_000}, "malformed_request"),
    ("explain_position", {"packId": PACK_ID, "ticker": "A" * 1_000_000}, "malformed_request"),
    ("validate_policy", {"managerIds": ["larch"] * 100_000}, "payload_too_large"),
]


@pytest.mark.parametrize(("tool", "arguments", "code"), BAD_INPUTS, ids=[f"{t}-{c}" for t, _, c in BAD_INPUTS])
async def test_each_bad_input_is_an_error_result_with_the_rest_code(published, tool, arguments, code):
    async with connect(published) as tools:
        result = await tools.call_tool(tool, arguments)
    assert result.is_error and result.structured_content is None and [c.type for c in result.content] == ["text"]
    assert orjson.loads(result.content[0].text)["error"]["code"] == code


def test_rest_answers_the_oversized_and_nested_requests_with_the_same_codes(published):
    """Over a real socket: the request line and body limits are the HTTP server's, the nesting limit the API's."""
    deep = b'{"managerIds":' + b"[" * 999 + b'"larch"' + b"]" * 999 + b"}"
    with running_server(published) as (base, _process):
        assert rest_code(f"{base}/api/v1/policy/validate", deep) == (400, "nesting_too_deep")
        assert rest_code(f"{base}/api/v1/policy/validate", orjson.dumps({"managerIds": ["larch"] * 100_000})) == (
            413,
            "payload_too_large",
        )
        managers = "&".join(["managers=larch"] * 100_000)
        assert rest_code(f"{base}{PACK}/latest?{managers}") == (400, "malformed_request")
        assert rest_code(f"{base}{PACK}/positions/{'A' * 1_000_000}/explanation") == (400, "malformed_request")


def rest_code(url: str, body: bytes | None = None) -> tuple[int, str]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    request = urllib.request.Request(url, data=body, headers=headers, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, ""
    except urllib.error.HTTPError as error:
        return error.code, orjson.loads(error.read())["error"]["code"]
