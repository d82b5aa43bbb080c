"""One error vocabulary: every invalid REST request, made as the tool call it stands for, gets the same envelope."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, unquote

import orjson
import pytest
from jsonschema import Draft202012Validator

from builder.api.contract import OPERATIONS, Operation
from builder.api.openapi.document import component_schemas, envelope_name
from server.app import create_app
from tests.test_mcp import connect, list_tools, tool_cases

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
ROUTES = [(re.compile("^" + re.sub(r"\{([^}]+)\}", r"(?P<\1>[^/]+)", op.route) + "$"), op)
          for op in OPERATIONS if op.tool and op.method == "GET"]


def tool_call(target: str) -> tuple[Operation, dict[str, Any]]:
    """The tool and arguments a GET target stands for: path parameters, then each query name once (a list if repeated)."""
    path, _, query = target.partition("?")
    operation, match = next((op, m) for pattern, op in ROUTES if (m := pattern.match(path)))
    arguments: dict[str, Any] = {name: unquote(value) for name, value in match.groupdict().items()}
    for name, value in parse_qsl(query, keep_blank_values=True):
        arguments[name] = [*arguments[name], value] if isinstance(arguments.get(name), list) else (
            [arguments[name], value] if name in arguments else value)
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
            assert result.is_error, target
            assert result.content[0].text.encode() == body, (target, arguments)
            codes.add(orjson.loads(body)["error"]["code"])
    assert codes == {"unknown_parameter", "pack_not_found", "unknown_manager", "invalid_parameter", "invalid_mode",
                     "view_not_supported", "invalid_version_order", "missing_parameter", "version_not_found",
                     "feature_not_supported", "invalid_ticker", "position_not_found"}


async def test_every_invalid_post_body_gets_the_same_envelope_as_tool_arguments(published, rest):
    by_id = {op.id: op for op in OPERATIONS}
    codes = set()
    async with connect(published) as tools:
        for operation_id, body in INVALID_POSTS:
            operation = by_id[operation_id]
            response = await rest.post(operation.route, data=orjson.dumps(body),
                                       headers={"Content-Type": "application/json"})
            expected = await response.read()
            assert 400 <= response.status < 500, body
            result = await tools.call_tool(operation.tool, body)
            assert result.is_error and result.content[0].text.encode() == expected, body
            codes.add(orjson.loads(expected)["error"]["code"])
    assert codes == {"invalid_body", "unknown_ethos", "unknown_manager", "position_not_found", "feature_not_supported"}


async def test_every_tool_declares_its_rest_200_schema_as_output_schema(published):
    components = component_schemas()
    for tool in await list_tools(published):
        operation = next(op for op in OPERATIONS if op.tool == tool.name)
        schema = tool.output_schema
        Draft202012Validator.check_schema(schema)
        root = components[envelope_name(operation)]
        assert schema["type"] == "object" and schema["required"] == root["required"]
        assert schema["properties"]["data"] == {"$ref": "#/$defs/" + root["properties"]["data"]["$ref"].rsplit("/", 1)[1]}


async def test_structured_content_of_every_tool_validates_against_its_output_schema(published, release):
    schemas = {tool.name: tool.output_schema for tool in await list_tools(published)}
    async with connect(published) as tools:  # the SDK client checks too; this says what it checks
        for case in tool_cases(release).values():
            result = await tools.call_tool(case.tool, case.arguments)
            assert not result.is_error, case.tool
            errors = list(Draft202012Validator(schemas[case.tool]).iter_errors(result.structured_content))
            assert not errors, (case.tool, [error.message[:200] for error in errors[:3]])
