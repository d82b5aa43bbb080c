"""The tools' input schemas follow the promoted release, and a promotion that changes them is announced.

Two real releases of the fictional fixture: the promoted one and a rebuild in which the manager `juniper` is
called `hazel`. `ras mcp` runs as a child over stdio with the official SDK client, and `ras promote` switches.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import anyio
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

NOTICE_SECONDS = 30  # the server looks every second; a notice that never comes must still fail the test


def run(*args: str) -> str:
    result = CliRunner().invoke(ras, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout.strip()


@pytest.fixture(scope="module")
def two_releases(published: Path, fixture_tree: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A releases directory with the fixture promoted and, unpromoted beside it, a rebuild that renames a manager."""
    work = tmp_path_factory.mktemp("two-releases")
    releases, source = work / "releases", work / "renamed"
    shutil.copytree(published, releases, symlinks=True)
    shutil.copytree(fixture_tree, source)
    packs = (source / "packs.toml").read_text()
    (source / "packs.toml").write_text(packs.replace('id = "juniper"', 'id = "hazel"'))
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


def manager_enum(tools) -> list[str]:
    schemas = {tool.name: tool.input_schema for tool in tools}
    latest = schemas["get_latest_pack"]["properties"]["managers"]["items"]["enum"]
    assert schemas["compare_ethos"]["properties"]["managerIds"]["items"]["enum"] == latest
    return latest


def served_managers(releases: Path) -> list[str]:
    release = load_release(current_release(releases))
    return [manager["id"] for manager in release.data.index["copycat"]["managers"]]


async def test_a_promotion_that_renames_a_manager_is_announced_and_listed_over_stdio(releases, aiohttp_client):
    directory, renamed = releases
    before_ids = served_managers(directory)
    notices = Notices()

    with anyio.fail_after(ROUND_TRIP_SECONDS):
        async with (
            stdio_client(child(["-m", "builder.cli", "mcp"], directory)) as (read, write),
            ClientSession(read, write, message_handler=notices) as session,
        ):
            initialized = await session.initialize()
            before = manager_enum((await session.list_tools()).tools)
            run("promote", renamed, "--releases", str(directory))
            with anyio.fail_after(NOTICE_SECONDS):
                await notices.arrived.wait()  # no call made: the server's own tick noticed the promotion
            after = manager_enum((await session.list_tools()).tools)
            stale = Case("get_latest_pack", {"packId": PACK, "managers": ["juniper"]},
                         f"/api/v1/packs/{PACK}/latest?managers=juniper")
            result = await session.call_tool(stale.tool, stale.arguments)
    assert initialized.capabilities.tools.list_changed is True
    assert before == before_ids and "juniper" in before and "hazel" not in before
    assert after == served_managers(directory) and "hazel" in after and "juniper" not in after
    status, body = await rest_answer(await aiohttp_client(create_app(directory)), stale)
    assert status == 400 and result.structured_content["error"]["code"] == "unknown_manager"
    assert_same_as_rest(result, status, body)


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
        before = manager_enum((await client.list_tools()).tools)
        async with client.listen(tools_list_changed=True) as subscription:
            run("promote", renamed, "--releases", str(directory))
            with anyio.fail_after(NOTICE_SECONDS):
                event = await anext(aiter(subscription))
        after = manager_enum((await client.list_tools()).tools)
    assert type(event).__name__ == "ToolsListChanged"
    assert "juniper" in before and "hazel" in after and "juniper" not in after


async def test_without_a_release_the_schemas_have_no_release_ids_until_one_is_promoted(releases):
    directory, renamed = releases
    (directory / "current").unlink()
    notices = Notices()

    async with Client(create_server(directory), mode="legacy", message_handler=notices) as client:
        empty = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
        run("promote", renamed, "--releases", str(directory))
        promoted = manager_enum((await client.list_tools()).tools)
    latest = empty["get_latest_pack"]["properties"]
    assert "enum" not in latest["managers"]["items"] and "enum" not in latest["packId"]
    assert "enum" not in empty["compare_versions"]["properties"]["from"]
    assert promoted == served_managers(directory) and len(notices.received) == 1
