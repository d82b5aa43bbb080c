"""The MCP server: the ten tools and the resources behind their results, over one release watch.

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
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.server import Server, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp.server.models import InitializationOptions
from mcp.server.session import ServerSession
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp.types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    ReadResourceResult,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from builder import __version__
from builder.api.contract import Operation
from builder.release.objects import Answer
from server.dispatch import LiveCache
from server.mcp_server.resources import Request
from server.mcp_server.results import TEMPLATES, Results, parse_resource_uri, read_result
from server.mcp_server.stdio import stdio_transport
from server.mcp_server.tools import answer_call, served_document, tool_specs
from server.watch import WATCH_INTERVAL, ReleaseWatch

LOG = logging.getLogger("ras.mcp")
SERVER_NAME = "research-artifact-service"
INSTRUCTIONS = (
    "Read-only research artifacts about public investment filings (13F packs and data previews). Start with "
    "list_packs and get_latest_pack; every answer is compact JSON with the next calls to make, and links the full "
    "REST answer ({data, meta}) as resources. Research only: no brokerage, account or order access; execution is "
    "always disabled."
)


class ToolBox:
    """What the tools share: the release watch of the HTTP server, its live-answer cache and the tool table."""

    def __init__(self, releases: Path) -> None:
        self.watch = ReleaseWatch(releases)
        self.watch.refresh()
        self.cache = LiveCache()
        self.results = Results()
        self.document = served_document(self.watch.serving.release)
        self.specs = tool_specs(self.document)
        self.bus = InMemorySubscriptionBus()  # 2026-era clients hear of a new tool list on their listen streams
        # Stdio serves one client. The SDK makes a session object per request, all sending on the one connection:
        # the latest handshake-era request's session is where a notice goes.
        self.session: ServerSession | None = None
        self._lock = anyio.Lock()  # ReleaseWatch and LiveCache are not thread-safe: one call at a time

    async def list_tools(
        self, ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        self._remember(ctx)
        await self.follow()
        return ListToolsResult(tools=[spec.tool for spec in self.specs.values()])

    async def call_tool(self, ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        """Answer a call from the promoted release; an unknown tool is a protocol error, as MCP asks."""
        if params.name not in self.specs:
            raise MCPError(INVALID_PARAMS, f"unknown tool {params.name!r}; see tools/list")
        self._remember(ctx)
        await self.follow()  # picks up a promotion before every call
        operation, arguments = self.specs[params.name].operation, params.arguments or {}
        async with self._lock:
            release = self.watch.serving.release
            versions = release.data.versions if release is not None else ()
            answer = await anyio.to_thread.run_sync(self._answer, operation, arguments)
            result = await anyio.to_thread.run_sync(self.results.tool_result, answer, operation, arguments, versions)
        LOG.info("%s -> %d", params.name, answer.status)
        return result

    def _answer(self, operation: Operation, arguments: dict[str, Any]) -> Answer:
        return answer_call(self.watch.serving, self.cache, operation, arguments)

    async def list_resources(
        self, ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListResourcesResult:
        """No fixed resources: every one is the answer of a tool call, linked by its result (see the template)."""
        return ListResourcesResult(resources=[])

    async def list_templates(
        self, ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListResourceTemplatesResult:
        return ListResourceTemplatesResult(resource_templates=TEMPLATES)

    async def read_resource(
        self, ctx: ServerRequestContext[Any], params: ReadResourceRequestParams
    ) -> ReadResourceResult:
        """A part of a REST answer: held, in the promoted release, or answered again from the call in its URI."""
        request = parse_resource_uri(params.uri)
        async with self._lock:
            body = await anyio.to_thread.run_sync(self._body, request)
            return await anyio.to_thread.run_sync(read_result, params.uri, request, body)

    def _body(self, request: Request) -> bytes | None:
        body = self.results.body(request, self.watch.serving.release)
        spec = self.specs.get(request.tool or "")
        if body is None and spec is not None:
            answer = answer_call(self.watch.serving, self.cache, spec.operation, request.arguments)
            body = answer.body if answer.status == 200 else None
        return body

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
        document = served_document(self.watch.serving.release)
        if document is self.document:
            return False
        specs = tool_specs(document)
        changed = [spec.tool for spec in specs.values()] != [spec.tool for spec in self.specs.values()]
        self.document, self.specs = document, specs
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


class ResearchServer(Server[Any]):
    """The SDK's low-level Server, declaring tools.listChanged at the handshake however it is run.

    The SDK takes that flag only as an argument of create_initialization_options, which its in-memory client
    calls without arguments: the default here declares it however the server is run. At the 2026 protocol the
    SDK derives it from serving subscriptions/listen.
    """

    def create_initialization_options(
        self, notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any
    ) -> InitializationOptions:
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, *args, **kwargs)


def create_server(releases: Path) -> Server[Any]:
    """The MCP server over a releases directory; fails at start-up if the directory does not exist."""
    if not releases.is_dir():
        raise FileNotFoundError(f"releases directory {releases} does not exist; run `ras publish` first")
    box = ToolBox(releases)
    return ResearchServer(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=box.watching,
        on_list_tools=box.list_tools,
        on_call_tool=box.call_tool,
        on_list_resources=box.list_resources,
        on_list_resource_templates=box.list_templates,
        on_read_resource=box.read_resource,
        on_subscriptions_listen=ListenHandler(box.bus),
    )


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
