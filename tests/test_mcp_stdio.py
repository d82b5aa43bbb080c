"""One real stdio round trip: the official SDK client starts the server as a child process, as an agent would."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from server.app import create_app
from tests.servers import REPO
from tests.test_mcp import PACK, TOOL_NAMES, Case, assert_same_as_rest, error_cases, rest_answer, tool_cases

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
    assert initialized.server_info.name == "research-artifact-service" and initialized.capabilities.tools is not None
    assert [tool.name for tool in listed] == TOOL_NAMES
    for tool in listed:
        hints = tool.annotations
        assert (hints.read_only_hint, hints.idempotent_hint, hints.destructive_hint, hints.open_world_hint) == (
            True, True, False, False)
    for case, result in zip([*cases, *error_cases(release)], [*results, *failures], strict=True):
        status, body = await rest_answer(rest, case)
        assert_same_as_rest(result, status, body)
    assert all(failure.is_error for failure in failures)
    assert bad.is_error and bad.structured_content["error"]["code"] == "unknown_parameter"
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
    assert names == TOOL_NAMES
    assert health.content[0].text.encode() == release.answers["/api/v1/health"].body
