"""The tools' input schemas follow the promoted release, and a promotion that changes them is announced.

Two real releases of the fictional fixture: the promoted one and a rebuild without the person-tracker preview,
so the pack ids the tools take change (manager and version ids grow with every release and are left open in
the schemas). `ras mcp` runs as a child over stdio with the official SDK client, and `ras promote` switches.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import anyio
import orjson
import pytest
from click.testing import CliRunner
from mcp import Client, ClientSession, stdio_client
from mcp.types import ToolListChangedNotification

from builder.cli import main as ras
from builder.release.store import current_release, load_release
from server.app import create_app
from server.mcp_server import create_server
from tests.test_mcp import PACK, Case, assert_same_as_rest, rest_answer
from tests.test_mcp_stdio import ROUND_TRIP_SECONDS, child

GONE = "jane-roe-tracker"  # the preview pack the rebuild leaves out
NOTICE_SECONDS = 30  # the server looks every second; a notice that never comes must still fail the test


def run(*args: str) -> str:
    result = CliRunner().invoke(ras, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


@pytest.fixture(scope="module")
def two_releases(published: Path, fixture_tree: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A releases directory with the fixture promoted and, unpromoted beside it, a rebuild without a preview pack."""
    work = tmp_path_factory.mktemp("two-releases")
    releases, source = work / "releases", work / "renamed"
    shutil.copytree(published, releases, symlinks=True)
    shutil.copytree(fixture_tree, source)
    packs = (source / "packs.toml").read_text()
    (source / "packs.toml").write_text(re.sub(r"\n\[person\]\n(?:[^\[].*\n)*", "\n", packs))
    return releases, run("build", "--source", str(source), "--releases", str(releases))


@pytest.fixture
def releases(two_releases: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    """A private copy of the two releases, which the test may promote in."""
    original, renamed = two_releases
    shutil.copytree(original, tmp_path / "releases", symlinks=True)
    return tmp_path / "releases", renamed


class Notices:
    """A client's message handler that keeps the tools/list_changed notifications it receives."""

    def __init__(self) -> None:
        self.received: list[ToolListChangedNotification] = []
        self.arrived = anyio.Event()

    async def __call__(self, message: object) -> None:
        if isinstance(message, ToolListChangedNotification):
            self.received.append(message)
            self.arrived.set()


def pack_enum(tools) -> list[str]:
    schemas = {tool.name: tool.input_schema for tool in tools}
    latest = schemas["get_latest_pack"]["properties"]["packId"]["enum"]
    assert schemas["export_audit_trail"]["properties"]["packId"]["enum"] == latest
    return latest


def served_packs(releases: Path) -> list[str]:
    release = load_release(current_release(releases))
    return [pack["id"] for pack in release.data.index["packs"] if pack["status"] == "available"]


async def test_a_promotion_that_drops_a_pack_is_announced_and_listed_over_stdio(releases, aiohttp_client):
    directory, renamed = releases
    before_ids = served_packs(directory)
    notices = Notices()

    with anyio.fail_after(ROUND_TRIP_SECONDS):
        async with (
            stdio_client(child(["-m", "builder.cli", "mcp"], directory)) as (read, write),
            ClientSession(read, write, message_handler=notices) as session,
        ):
            initialized = await session.initialize()
            before = pack_enum((await session.list_tools()).tools)
            run("promote", renamed, "--releases", str(directory))
            with anyio.fail_after(NOTICE_SECONDS):
                await notices.arrived.wait()  # no call made: the server's own tick noticed the promotion
            after = pack_enum((await session.list_tools()).tools)
            stale = Case("get_latest_pack", {"packId": GONE}, f"/api/v1/packs/{GONE}/latest")
            result = await session.call_tool(stale.tool, stale.arguments)
            status, body = await rest_answer(await aiohttp_client(create_app(directory)), stale)
            await assert_same_as_rest(session, stale, result, status, body)
    assert initialized.capabilities.tools.list_changed is True
    assert before == before_ids and GONE in before and PACK in before
    assert after == served_packs(directory) and GONE not in after and PACK in after
    assert status == 404 and orjson.loads(result.content[0].text)["error"]["code"] == "pack_not_found"


async def test_a_promotion_that_keeps_the_schemas_is_not_announced(releases):
    directory, renamed = releases
    notices = Notices()

    async with Client(create_server(directory), mode="legacy", message_handler=notices) as client:
        before = (await client.list_tools()).tools
        run("promote", current_release(directory).name, "--releases", str(directory))  # the same release again
        again = (await client.list_tools()).tools
        run("promote", renamed, "--releases", str(directory))
        renamed_tools = (await client.list_tools()).tools
    assert again == before and renamed_tools != before
    assert len(notices.received) == 1  # the renaming promotion only; each arrives before the list that shows it


async def test_a_2026_client_hears_of_the_change_on_its_listen_stream(releases):
    directory, renamed = releases
    async with Client(create_server(directory)) as client:
        assert client.protocol_version == "2026-07-28"
        before = pack_enum((await client.list_tools()).tools)
        async with client.listen(tools_list_changed=True) as subscription:
            run("promote", renamed, "--releases", str(directory))
            with anyio.fail_after(NOTICE_SECONDS):
                event = await anext(aiter(subscription))
        after = pack_enum((await client.list_tools()).tools)
    assert type(event).__name__ == "ToolsListChanged"
    assert GONE in before and GONE not in after


async def test_without_a_release_the_schemas_have_no_release_ids_until_one_is_promoted(releases):
    directory, renamed = releases
    (directory / "current").unlink()
    notices = Notices()

    async with Client(create_server(directory), mode="legacy", message_handler=notices) as client:
        empty = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
        run("promote", renamed, "--releases", str(directory))
        promoted = pack_enum((await client.list_tools()).tools)
    latest = empty["get_latest_pack"]["properties"]
    assert "enum" not in latest["managers"]["items"] and "enum" not in latest["packId"]
    assert "enum" not in empty["compare_versions"]["properties"]["from"]
    assert promoted == served_packs(directory) and len(notices.received) == 1
