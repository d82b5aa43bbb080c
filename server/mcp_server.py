"""`ras mcp`: the research tools over stdio, on the official MCP SDK's low-level Server.

stdout carries the protocol, so everything else (logs included) goes to stderr. Run it as
`python -m server.mcp_server --releases DIR` or `ras mcp --releases DIR`.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolRequestParams, CallToolResult, ListToolsResult, PaginatedRequestParams

from builder import __version__
from builder.release.objects import Answer
from server.dispatch import LiveCache
from server.mcp_tools import ToolSpec, answer_call, tool_result, tool_specs
from server.watch import ReleaseWatch

LOG = logging.getLogger("ras.mcp")
SERVER_NAME = "research-artifact-service"
INSTRUCTIONS = (
    "Read-only research artifacts about public investment filings (13F packs and data previews). Start with "
    "list_packs and get_latest_pack; every answer is the REST envelope {data, meta} with its caveats and "
    "limitations attached. Research only: no brokerage, account or order access; execution is always disabled."
)


class ToolBox:
    """What the tools share: the release watch of the HTTP server, its live-answer cache and the tool table."""

    def __init__(self, releases: Path) -> None:
        self.watch = ReleaseWatch(releases)
        self.cache = LiveCache()
        self.specs = tool_specs()
        self._lock = anyio.Lock()  # ReleaseWatch and LiveCache are not thread-safe: one call at a time

    async def list_tools(
        self, _ctx: ServerRequestContext[Any], _params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=[spec.tool for spec in self.specs.values()])

    async def call_tool(self, _ctx: ServerRequestContext[Any], params: CallToolRequestParams) -> CallToolResult:
        """Answer a call from the promoted release; an unknown tool is a protocol error, as MCP asks."""
        spec = self.specs.get(params.name)
        if spec is None:
            raise MCPError(INVALID_PARAMS, f"unknown tool {params.name!r}; see tools/list")
        async with self._lock:
            answer = await anyio.to_thread.run_sync(self._answer, spec, params.arguments or {})
        LOG.info("%s -> %d", params.name, answer.status)
        return tool_result(answer)

    def _answer(self, spec: ToolSpec, arguments: dict[str, Any]) -> Answer:
        try:
            self.watch.refresh()  # one watcher tick (a few lstat calls): picks up a promotion before every call
        except Exception:  # as in the HTTP watcher: a failed check leaves the served state as it was
            LOG.exception("release check failed")
        return answer_call(self.watch.serving, self.cache, spec, arguments)


def create_server(releases: Path) -> Server[Any]:
    """The MCP server over a releases directory; fails at start-up if the directory does not exist."""
    if not releases.is_dir():
        raise FileNotFoundError(f"releases directory {releases} does not exist; run `ras publish` first")
    box = ToolBox(releases)
    box.watch.refresh()
    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=box.list_tools,
        on_call_tool=box.call_tool,
    )


async def serve_stdio(server: Server[Any]) -> None:
    """Serve one client over this process's stdin and stdout until it closes stdin."""
    async with stdio_server() as (read_stream, write_stream):
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


if __name__ == "__main__":
    main()
