"""At an operator's scale (slow): the TypeScript SDK client calls every tool of a 500-manager release over stdio
and over HTTP (`ras serve`'s /mcp) and reads every linked resource without the connection dropping; the parts
rebuild REST's bytes exactly. The Python SDK's HTTP client reads the largest answer's parts too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from bench import synthetic
from bench.weights import LATEST_TEXT_BYTES, MESSAGE_BYTES, RESULT_BYTES, TEXT_BYTES, calls_for, publish_synthetic
from builder.api.contract import TOOLS
from builder.canonical import sha256_hex
from builder.release.store import current_release, load_release
from server.app import create_app
from tests.servers import running_server
from tests.test_mcp import Case, reassembled, rest_answer
from tests.test_mcp_typescript import typescript_client

pytestmark = pytest.mark.slow
SCALE = synthetic.Params(managers=500, quarters=2, positions=60)  # the latest answer alone is about 18 MB: 3 parts
STARTUP_SECONDS = 300  # `ras serve` reads and verifies this release whole before it listens (seconds; minutes loaded)


def rest_case(tool: str, arguments: dict[str, Any]) -> Case:
    """The REST request a call of the complete dataset stands for."""
    operation = TOOLS[tool]
    if operation.method == "POST":
        return Case(tool, arguments, operation.route, arguments)
    path = {p.name: arguments[p.name] for p in operation.params if p.location == "path"}
    query = "&".join(f"{name}={value}" for name, value in arguments.items() if name not in path)
    return Case(tool, arguments, operation.route.format(**path) + (f"?{query}" if query else ""))


@pytest.fixture(scope="module")
def releases(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return publish_synthetic(tmp_path_factory.mktemp("scale"), SCALE)


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_the_typescript_client_reads_a_500_manager_release_whole(
    releases: Path, transport: str, tmp_path: Path, aiohttp_client
):
    calls = calls_for(load_release(current_release(releases)))
    plan = [{"tool": tool, "arguments": args} for tool, args in calls]
    if transport == "stdio":
        report = typescript_client(releases, plan, tmp_path)
    else:
        with running_server(releases, startup=STARTUP_SECONDS) as (base, _process):
            report = typescript_client(releases, plan, tmp_path, f"{base}/mcp")
    assert not report["connectionClosedEarly"]
    rest = await aiohttp_client(create_app(releases))
    parts = 0
    for (tool, arguments), call in zip(calls, report["calls"], strict=True):
        assert "protocolError" not in call and not call["isError"], (tool, call.get("protocolError"))
        limit = LATEST_TEXT_BYTES if tool == "get_latest_pack" else TEXT_BYTES
        assert call["textBytes"] <= limit and call["resultBytes"] <= RESULT_BYTES, (tool, call["textBytes"])
        assert call["body"]["largestReadBytes"] <= MESSAGE_BYTES, tool
        status, body = await rest_answer(rest, rest_case(tool, arguments))
        assert status == 200 and call["body"]["sha256"] == sha256_hex(body) and call["body"]["bytes"] == len(body)
        parts = max(parts, len(call["links"]))
    assert parts > 1  # the latest answer did come in several parts


async def test_the_python_http_client_reads_the_largest_answer_in_parts(releases: Path, aiohttp_client):
    latest = rest_case("get_latest_pack", {"packId": "13f-copycat"})
    with running_server(releases, startup=STARTUP_SECONDS) as (base, _process), anyio.fail_after(600):
        async with Client(f"{base}/mcp", mode="legacy") as client:
            result = await client.call_tool(latest.tool, latest.arguments)
            body = await reassembled(client, result)
    rest = await aiohttp_client(create_app(releases))
    status, expected = await rest_answer(rest, latest)
    links = [block for block in result.content if block.type == "resource_link"]
    assert status == 200 and body == expected and len(links) > 1
