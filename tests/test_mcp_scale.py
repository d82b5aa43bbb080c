"""At an operator's scale (slow): the TypeScript SDK client calls every tool of a 500-manager release over stdio
and reads every linked resource without the connection dropping; the parts rebuild REST's bytes exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import synthetic
from bench.weights import LATEST_TEXT_BYTES, MESSAGE_BYTES, RESULT_BYTES, TEXT_BYTES, calls_for, publish_synthetic
from builder.api.contract import TOOLS
from builder.canonical import sha256_hex
from builder.release.store import current_release, load_release
from server.app import create_app
from tests.test_mcp import Case, rest_answer
from tests.test_mcp_typescript import typescript_client

pytestmark = pytest.mark.slow
SCALE = synthetic.Params(managers=500, quarters=2, positions=60)  # the latest answer alone is about 18 MB: 3 parts


def rest_case(tool: str, arguments: dict[str, Any]) -> Case:
    """The REST request a call of the complete dataset stands for."""
    operation = TOOLS[tool]
    if operation.method == "POST":
        return Case(tool, arguments, operation.route, arguments)
    path = {p.name: arguments[p.name] for p in operation.params if p.location == "path"}
    query = "&".join(f"{name}={value}" for name, value in arguments.items() if name not in path)
    return Case(tool, arguments, operation.route.format(**path) + (f"?{query}" if query else ""))


async def test_the_typescript_client_reads_a_500_manager_release_whole(tmp_path: Path, aiohttp_client):
    releases = publish_synthetic(tmp_path, SCALE)
    calls = calls_for(load_release(current_release(releases)))
    report = typescript_client(releases, [{"tool": tool, "arguments": args} for tool, args in calls], tmp_path)
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
