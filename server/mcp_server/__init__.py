"""The research tools over MCP, on the official SDK's low-level Server: `ras mcp` (stdio) and `/mcp` of `ras serve`.

toolbox: the tools and resources, one implementation for both transports; tools: listings and the REST request
of a call; results and resources: results with links to the full REST bytes, read in parts; local and stdio:
`ras mcp`, its release watch and the transport that answers every line. The Streamable HTTP transport of
`ras serve` (server.mcp_http) answers with the same tools.
"""

from server.mcp_server.local import create_server, main, run

__all__ = ["create_server", "main", "run"]
