"""Real stdio: the official Python SDK client starts the server as a child process, as an agent would; and raw
lines a client should never send still get a JSON-RPC answer, while the server goes on serving."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import anyio
import orjson
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from server.app import create_app
from tests.servers import REPO
from tests.test_mcp import (
    PACK,
    TOOL_NAMES,
    Case,
    assert_same_as_rest,
    error_cases,
    reassembled,
    rest_answer,
    tool_cases,
)

ROUND_TRIP_SECONDS = 120  # child start-up imports the SDK (seconds on a slow CI box); a hang must still fail


def child(module_args: list[str], releases: Path) -> StdioServerParameters:
    """The server as a child process; the SDK passes the child few variables, so PYTHONPATH is explicit."""
    args = [*module_args, "--releases", str(releases)]
    return StdioServerParameters(command=sys.executable, args=args, cwd=str(REPO), env={"PYTHONPATH": str(REPO)})


@pytest.fixture
async def rest(aiohttp_client, published: Path):
    return await aiohttp_client(create_app(published))


async def test_every_tool_over_stdio_answers_with_the_rest_bytes_and_logs_only_to_stderr(
    published: Path, release, rest, tmp_path: Path
):
    cases = list(tool_cases(release).values())
    invalid = Case("compare_versions", {"packId": PACK, "from": "x", "to": "y", "side": "buy"}, "")
    with (tmp_path / "stderr.log").open("w") as errlog, anyio.fail_after(ROUND_TRIP_SECONDS):
        async with (
            stdio_client(child(["-m", "server.mcp_server"], published), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            initialized = await session.initialize()
            listed = (await session.list_tools()).tools
            results = [await session.call_tool(case.tool, case.arguments) for case in cases]
            bad = await session.call_tool(invalid.tool, invalid.arguments)
            failures = [await session.call_tool(case.tool, case.arguments) for case in error_cases(release)]
            for case, result in zip([*cases, *error_cases(release)], [*results, *failures], strict=True):
                status, body = await rest_answer(rest, case)
                await assert_same_as_rest(session, case, result, status, body, release.data.versions)
    assert initialized.server_info.name == "research-artifact-service" and initialized.capabilities.tools is not None
    assert [tool.name for tool in listed] == TOOL_NAMES
    assert all((tool.annotations.read_only_hint, tool.annotations.open_world_hint) == (True, False) for tool in listed)
    assert all(failure.is_error for failure in failures)
    assert bad.is_error and orjson.loads(bad.content[0].text)["error"]["code"] == "unknown_parameter"
    log = (tmp_path / "stderr.log").read_text()
    assert "serving release" in log and "get_health -> 200" in log


async def test_ras_mcp_serves_the_same_tools_over_stdio(published: Path, release):
    with anyio.fail_after(ROUND_TRIP_SECONDS):
        async with (
            stdio_client(child(["-m", "builder.cli", "mcp"], published)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            names = [tool.name for tool in (await session.list_tools()).tools]
            health = await session.call_tool("get_health", {})
            body = await reassembled(session, health)
    assert names == TOOL_NAMES
    assert body == release.answers["/api/v1/health"].body


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
DEEP = (
    b'{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"validate_policy","arguments":'
    b'{"managerIds":' + b"[" * 999 + b'"larch"' + b"]" * 999 + b"}}}"
)
RAW_LINES = [  # (line, expected id, expected error code or None for a result), in the order they are sent
    (b'{"jsonrpc":"2.0","id":1,"method":"server/discover"}', 1, -32601),  # before initialize
    (b"not json at all", None, -32700),
    (b'{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"x":"\\ud800"}}', 2, -32700),  # a lone surrogate
    (b"[" * 5000 + b"]" * 5000, None, -32700),  # nested past the parser's limit
    (b'[{"jsonrpc":"2.0","id":3,"method":"ping"}]', None, -32600),  # a batch
    (b'{"jsonrpc":"2.0","id":4}', 4, -32600),
    (b'{"id":5,"method":"ping"}', 5, -32600),
    (b'"a string"', None, -32600),
    (orjson.dumps(INITIALIZE), "init", None),
    (b'{"jsonrpc":"2.0","method":"notifications/initialized"}', ..., None),  # a notification: no answer
    (b'{"jsonrpc":"2.0","id":6,"method":"resources/templates/list"}', 6, None),
    (b'{"jsonrpc":"2.0","id":7,"method":"no/such/method"}', 7, -32601),
    (DEEP, "deep", None),  # an error result (isError), not a protocol error
    (b'{"jsonrpc":"2.0","id":8,"method":"ping"}', 8, None),  # still serving
]


async def test_every_raw_line_gets_a_json_rpc_answer_with_its_id_and_the_server_goes_on(published: Path):
    process = await anyio.open_process(
        [sys.executable, "-m", "server.mcp_server", "--releases", str(published)],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO)},
    )
    answers: list[dict] = []
    with anyio.fail_after(ROUND_TRIP_SECONDS):
        async with process:
            await process.stdin.send(b"".join(line + b"\n" for line, _, _ in RAW_LINES))
            buffer = b""
            expected = sum(1 for _, request_id, _ in RAW_LINES if request_id is not ...)
            while len(answers) < expected:
                buffer += await process.stdout.receive()
                *lines, buffer = buffer.split(b"\n")
                answers += [orjson.loads(line) for line in lines]
            await process.stdin.aclose()
    replies = [(request_id, code) for _, request_id, code in RAW_LINES if request_id is not ...]
    # refusals are written at once, answers when the SDK gives them: the same set, not the same order
    assert Counter((a["id"], a.get("error", {}).get("code")) for a in answers) == Counter(replies)
    deep = next(a for a in answers if a["id"] == "deep")["result"]
    assert deep["isError"] is True and "structuredContent" not in deep
    assert orjson.loads(deep["content"][0]["text"])["error"]["code"] == "nesting_too_deep"
