"""`ras mcp`: the tools over stdio, next to a releases directory this process watches itself.

stdout carries the protocol, so everything else (logs included) goes to stderr. Run it as
`python -m server.mcp_server --releases DIR` or `ras mcp --releases DIR`.

Each result carries a compact answer and links the full REST answer as resources (server.mcp_server.results),
read with resources/read in parts of at most 8 MiB. The tools' input schemas come from the served release's
OpenAPI document, so a promotion can change them (pack and ethos ids). The release is checked before every call and every WATCH_INTERVAL; when the tool list
changes, clients are told: `notifications/tools/list_changed` to a handshake-era client that has listed or
called the tools, and a tools-list-changed event on the `subscriptions/listen` streams of 2026-era clients.
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.server import Server, ServerRequestContext
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from server.mcp_server.stdio import stdio_transport
from server.mcp_server.toolbox import T, ToolBox, Tools
from server.watch import WATCH_INTERVAL, ReleaseWatch, Serving

LOG = logging.getLogger("ras.mcp")


class LocalTools(Tools):
    """The tools of one stdio client over a release watch of their own, with the notices a promotion sends."""

    notices = True

    def __init__(self, releases: Path) -> None:
        super().__init__(ToolBox(log_calls=True))
        self.watch = ReleaseWatch(releases)
        self.watch.refresh()
        self.listed = self.box.tools(self.watch.serving)
        self.bus = InMemorySubscriptionBus()  # 2026-era clients hear of a new tool list on their listen streams
        # Stdio serves one client. The SDK makes a session object per request, all sending on the one connection:
        # the latest handshake-era request's session is where a notice goes.
        self.session: ServerSession | None = None
        self._lock = anyio.Lock()  # ReleaseWatch and LiveCache are not thread-safe: one call at a time

    async def with_release(self, ctx: ServerRequestContext[Any], work: Callable[[Serving], T]) -> T:
        """Follow the promoted release first (a promotion is picked up before every call), then work in a thread."""
        if ctx.method != "resources/read":
            self._remember(ctx)
            await self.follow()
        async with self._lock:
            return await anyio.to_thread.run_sync(work, self.watch.serving)

    def _remember(self, ctx: ServerRequestContext[Any]) -> None:
        """Keep a handshake-era client's session to notify; 2026-era clients hear on their listen streams."""
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            self.session = ctx.session

    async def follow(self) -> None:
        """One watcher tick; when it changes the tools' schemas, tell every client that may hold the old list.

        The notice is sent under the lock, so it reaches a client before any answer from the new release.
        """
        async with self._lock:
            if await anyio.to_thread.run_sync(self._refresh):
                await self._announce()

    def _refresh(self) -> bool:
        """Follow the promoted release; True when the tool list it gives differs from the one listed so far."""
        try:
            self.watch.refresh()  # one watcher tick: a few lstat calls, and a slice of the scrub
        except Exception:  # as in the HTTP watcher: a failed check leaves the served state as it was
            LOG.exception("release check failed")
        tools = self.box.tools(self.watch.serving)
        changed, self.listed = tools != self.listed, tools
        return changed

    async def _announce(self) -> None:
        LOG.info("the tool schemas changed with the promoted release: notifying the client")
        await self.bus.publish(ToolsListChanged())
        if self.session is not None:
            try:
                await self.session.send_tool_list_changed()
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):  # the client has gone
                self.session = None

    @asynccontextmanager
    async def watching(self, _server: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        """The server's lifespan: a promotion is noticed within WATCH_INTERVAL even while no call comes."""
        async with anyio.create_task_group() as group:
            group.start_soon(self._tick)
            yield {}
            group.cancel_scope.cancel()

    async def _tick(self) -> None:
        while True:
            await anyio.sleep(WATCH_INTERVAL)
            await self.follow()


def create_server(releases: Path) -> Server[Any]:
    """The MCP server over a releases directory; fails at start-up if the directory does not exist."""
    if not releases.is_dir():
        raise FileNotFoundError(f"releases directory {releases} does not exist; run `ras publish` first")
    tools = LocalTools(releases)
    return tools.server(lifespan=tools.watching, on_subscriptions_listen=ListenHandler(tools.bus))


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over this process's stdin and stdout until it closes stdin."""
    async with stdio_transport() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def run(releases: Path) -> None:
    """Log to stderr and serve the tools over stdio."""
    logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    anyio.run(serve_stdio, create_server(releases))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m server.mcp_server", description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=Path, default=Path("releases"), help="directory holding `current`")
    arguments = parser.parse_args(argv)
    try:
        run(arguments.releases)
    except FileNotFoundError as exc:
        parser.exit(2, f"error: {exc}\n")
