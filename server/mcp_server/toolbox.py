"""The ten tools and the resources behind their results: one implementation, served over stdio and over HTTP.

`ToolBox` answers from a `Serving` (one release, read once per call) and knows nothing of a transport; `Tools`
makes its answers the low-level SDK Server's handlers, each transport saying how a call reaches the release:
stdio (server.mcp_server.local) follows the promoted release itself and answers in a worker thread, HTTP
(server.mcp_http.exchange) answers on the event loop from the release `ras serve` is serving, as REST does.
Every tool result names the release it came from in `_meta` (RELEASE_META), as health and the audit do. A call's
result is its wire JSON (server.mcp_server.results.ToolResult), which the SDK's Server is given as its model.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from mcp.server import Server, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp.server.models import InitializationOptions
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
    Tool,
)

from builder import __version__
from builder.release.store import LoadedRelease
from server.dispatch import LiveCache
from server.mcp_server.resources import HELD_BYTES, Request
from server.mcp_server.results import TEMPLATES, Results, ToolResult, named, parse_resource_uri, read_result
from server.mcp_server.tools import Document, ToolSpec, answer_call, served_document, tool_specs
from server.watch import Serving

LOG = logging.getLogger("ras.mcp")
SERVER_NAME = "research-artifact-service"
INSTRUCTIONS = (
    "Read-only research artifacts about public investment filings (13F packs and data previews). Start with "
    "list_packs and get_latest_pack; every answer is compact JSON with the next calls to make, and links the full "
    "REST answer ({data, meta}) as resources. Research only: no brokerage, account or order access; execution is "
    "always disabled."
)
T = TypeVar("T")


class ToolBox:
    """Tool listings, calls and resource reads against a Serving; the tool table follows the served document."""

    def __init__(self, cache: LiveCache | None = None, log_calls: bool = False, held_bytes: int = HELD_BYTES) -> None:
        self.cache = cache if cache is not None else LiveCache()
        self.log_calls = log_calls  # each call's status on the log: stdio's one client, not HTTP's thousands
        self.results = Results(held_bytes)
        self._document: Document | None = None
        self._specs: dict[str, ToolSpec] = {}

    def specs(self, release: LoadedRelease | None) -> dict[str, ToolSpec]:
        """The tools of the release's OpenAPI document (input schemas carry its ids), built once per document."""
        document = served_document(release)
        if document is not self._document:
            self._document, self._specs = document, tool_specs(document)
        return self._specs

    def tools(self, serving: Serving) -> list[Tool]:
        return [spec.tool for spec in self.specs(serving.release).values()]

    def listing(self, serving: Serving) -> ListToolsResult:
        return ListToolsResult(tools=self.tools(serving))

    def call(self, serving: Serving, name: str, arguments: dict[str, Any]) -> ToolResult:
        """A tool's result from `serving`; an unknown tool is a protocol error, as MCP asks."""
        spec = self.specs(serving.release).get(name)
        if spec is None:
            raise MCPError(INVALID_PARAMS, f"unknown tool {name!r}; see tools/list")
        release = serving.release
        answer = answer_call(serving, self.cache, spec.operation, arguments)
        if self.log_calls:
            LOG.info("%s -> %d", name, answer.status)
        versions = release.data.versions if release is not None else ()
        result = self.results.tool_result(answer, spec.operation, arguments, versions)
        return named(result, release.release_id) if release is not None else result

    def read(self, serving: Serving, uri: str, request: Request) -> ReadResourceResult:
        """A part of a REST answer: held, in the served release, or answered again from the call in its URI."""
        body = self.results.body(request, serving.release)
        spec = self.specs(serving.release).get(request.tool or "")
        if body is None and spec is not None:
            answer = answer_call(serving, self.cache, spec.operation, request.arguments)
            body = answer.body if answer.status == 200 else None
        return read_result(uri, request, body)


class Tools(ABC):
    """The SDK Server's handlers over a ToolBox; a transport says how a piece of work reaches the release."""

    notices = False  # whether clients are told when the tool list changes (tools.listChanged)

    def __init__(self, box: ToolBox) -> None:
        self.box = box

    @abstractmethod
    async def with_release(self, ctx: ServerRequestContext[Any], work: Callable[[Serving], T]) -> T:
        """`work` done against the release this request is answered from."""

    async def list_tools(
        self, ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return await self.with_release(ctx, self.box.listing)

    async def call_tool(self, ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        return await self.with_release(ctx, partial(_call, self.box, params.name, params.arguments or {}))

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
        request = parse_resource_uri(params.uri)
        return await self.with_release(ctx, partial(_read, self.box, params.uri, request))

    def server(self, **options: Any) -> Server[Any]:
        """The low-level SDK Server answering with these handlers (`options`: lifespan, listen handler)."""
        return ResearchServer(
            SERVER_NAME,
            version=__version__,
            instructions=INSTRUCTIONS,
            on_list_tools=self.list_tools,
            on_call_tool=self.call_tool,
            on_list_resources=self.list_resources,
            on_list_resource_templates=self.list_templates,
            on_read_resource=self.read_resource,
            notices=self.notices,
            **options,
        )


def _call(box: ToolBox, name: str, arguments: dict[str, Any], serving: Serving) -> CallToolResult:
    return CallToolResult.model_validate(box.call(serving, name, arguments))


def _read(box: ToolBox, uri: str, request: Request, serving: Serving) -> ReadResourceResult:
    return box.read(serving, uri, request)


class ResearchServer(Server[Any]):
    """The SDK's low-level Server, declaring tools.listChanged at the handshake as its transport can honour it.

    The SDK takes that flag only as an argument of create_initialization_options, which its in-memory client
    and the single-exchange dispatch call without arguments: the default here declares it however the server is
    run. At the 2026 protocol the SDK derives it from serving subscriptions/listen.
    """

    def __init__(self, name: str, *, notices: bool, **options: Any) -> None:
        super().__init__(name, **options)
        self.notices = notices

    def create_initialization_options(
        self, notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any
    ) -> InitializationOptions:
        options = notification_options or NotificationOptions(tools_changed=self.notices)
        return super().create_initialization_options(options, *args, **kwargs)
