"""The official MCP Python SDK's Streamable HTTP client against `ras serve`'s /mcp, a real server on loopback, at
the newest handshake revision and at 2026-07-28: the stdio server's tools, answers and resources, from the same
release; and the very bytes of each stdio answer over HTTP."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import anyio
import orjson
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from builder.release.publish import publish
from builder.sources.tree import fixture_source
from server.app import create_app
from server.mcp_http.endpoint import MAX_REQUEST_BYTES
from tests.conftest import quiet
from tests.servers import REPO, child_env, fetch, running_server
from tests.test_mcp import assert_same_as_rest, error_cases, list_tools, rest_answer, tool_cases
from tests.test_mcp_errors import BAD_INPUTS

MODES = {"legacy": "2025-11-25", "auto": "2026-07-28"}  # the client's mode → the revision it settles on
SECONDS = 120  # a whole conversation; a hang must still fail
PROMOTION_SECONDS = 20.0  # the server's watcher picks a promotion up within a tick (1 s)


def test_a_server_answering_rest_alone_does_not_load_the_mcp_sdk(published: Path):
    """The SDK and the transport (40 MiB, a second of imports) are loaded by the first /mcp request, not at start."""
    code = (
        "import sys; from pathlib import Path; from server.app import create_app; "
        f"create_app(Path({str(published)!r})); print(sorted(m for m in sys.modules if m.split('.')[0] == 'mcp'))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=child_env(), capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip() == "[]", result.stderr[-2000:]


@pytest.fixture(scope="module")
def served(published: Path) -> Iterator[str]:
    with running_server(published) as (base, _process):
        yield f"{base}/mcp"


@pytest.fixture
async def rest(aiohttp_client, published: Path):
    return await aiohttp_client(create_app(published))


@pytest.mark.parametrize("mode", MODES)
async def test_the_http_client_gets_the_stdio_servers_tools(served: str, published: Path, mode: str):
    with anyio.fail_after(SECONDS):
        async with Client(served, mode=mode) as client:
            remote = (await client.list_tools()).tools
            assert client.protocol_version == MODES[mode]
            assert client.server_info is not None and client.server_info.name == "research-artifact-service"
    assert [tool.model_dump() for tool in remote] == [tool.model_dump() for tool in await list_tools(published)]


@pytest.mark.parametrize("mode", MODES)
async def test_every_tool_over_http_answers_with_the_rest_bytes_and_names_its_release(
    served: str, rest, release, mode: str
):
    cases = [*tool_cases(release).values(), *error_cases(release)]
    with anyio.fail_after(SECONDS):
        async with Client(served, mode=mode) as client:
            for case in cases:
                result = await client.call_tool(case.tool, case.arguments)
                status, body = await rest_answer(rest, case)
                await assert_same_as_rest(client, case, result, status, body, release.data.versions)
                assert result.meta is not None and result.meta["releaseId"] == release.release_id


@pytest.mark.parametrize("mode", MODES)
async def test_bad_arguments_are_error_results_and_an_unknown_tool_a_protocol_error(served: str, mode: str):
    fitting = [
        (tool, arguments, code)
        for tool, arguments, code in BAD_INPUTS
        if len(orjson.dumps(arguments)) < MAX_REQUEST_BYTES
    ]
    assert len(fitting) >= len(BAD_INPUTS) - 3  # the three of a megabyte are refused whole (test_mcp_http_edges)
    with anyio.fail_after(SECONDS):
        async with Client(served, mode=mode) as client:
            for tool, arguments, code in fitting:
                result = await client.call_tool(tool, arguments)
                assert result.is_error and result.structured_content is None, (tool, code)
                assert orjson.loads(result.content[0].text)["error"]["code"] == code, (tool, result.content[0].text)
            with pytest.raises(MCPError, match="unknown tool 'place_order'") as raised:
                await client.call_tool("place_order", {"ticker": "AAPL"})
    assert raised.value.error.code == -32602


async def test_each_answer_over_http_is_the_stdio_servers_answer_byte_for_byte(served: str, published: Path, release):
    """The same request lines to `python -m server.mcp_server` and as POSTs to /mcp: the same bytes back, for a
    success of every tool, every error result and an unknown tool (/mcp answers these calls without the SDK's
    kernel, stdio with it)."""
    cases = [*tool_cases(release).values(), *error_cases(release)]
    calls = [{"name": case.tool, "arguments": case.arguments} for case in cases]
    calls.append({"name": "place_order", "arguments": {"ticker": "AAPL"}})
    lines = [
        orjson.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": call})
        for number, call in enumerate(calls, 1)
    ]
    lines.append(b'{"jsonrpc":"2.0","id":"list","method":"tools/list"}')
    stdio = await stdio_answers(published, lines)
    for line in lines:
        request_id = orjson.loads(line)["id"]
        reply = fetch(
            urlsplit(served).port or 80,
            "/mcp",
            "POST",
            line,
            Content_Type="application/json",
            Accept="application/json, text/event-stream",
            MCP_Protocol_Version="2025-06-18",
        )
        assert reply.status == 200 and reply.body == stdio[request_id], request_id


async def stdio_answers(releases: Path, lines: list[bytes]) -> dict[object, bytes]:
    """Each request line's answer line from the stdio server, by id, after an initialize at 2025-06-18."""
    initialize = {
        "jsonrpc": "2.0",
        "id": "init",
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
    sent = [orjson.dumps(initialize), b'{"jsonrpc":"2.0","method":"notifications/initialized"}', *lines]
    process = await anyio.open_process(
        [sys.executable, "-m", "server.mcp_server", "--releases", str(releases)],
        cwd=str(REPO),
        env={"PYTHONPATH": str(REPO)},
    )
    answers: dict[object, bytes] = {}
    with anyio.fail_after(SECONDS):
        async with process:
            await process.stdin.send(b"".join(line + b"\n" for line in sent))
            buffer = b""
            while len(answers) < len(lines) + 1:
                buffer += await process.stdout.receive()
                *complete, buffer = buffer.split(b"\n")
                answers.update((orjson.loads(line)["id"], line) for line in complete)
            await process.stdin.aclose()
    return answers


async def test_a_promotion_mid_conversation_answers_the_next_call_from_the_new_release(releases_copy: Path):
    with running_server(releases_copy) as (base, _process), anyio.fail_after(SECONDS):
        async with Client(f"{base}/mcp", mode="legacy") as client:
            before = await client.call_tool("get_health", {})
            promoted = publish(fixture_source(), releases_copy, date(2026, 10, 1), quiet)
            after = before
            with anyio.fail_after(PROMOTION_SECONDS):
                while after.meta is not None and after.meta["releaseId"] != promoted:
                    await anyio.sleep(0.2)
                    after = await client.call_tool("get_health", {})
    assert before.meta is not None and before.meta["releaseId"] != promoted
    assert after.structured_content is not None and after.structured_content["releaseId"] == promoted
