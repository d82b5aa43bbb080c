"""The research tools over MCP, on the official SDK's low-level Server: `ras mcp` (stdio) and `/mcp` of `ras serve`.

toolbox: the tools and resources, one implementation for both transports; tools: listings and the REST request
of a call; results and resources: results with links to the full REST bytes, read in parts; local and stdio:
`ras mcp`, its release watch and the transport that answers every line; exchange and http: the Streamable HTTP
transport of `ras serve`, one JSON-RPC message per POST answered by the SDK's dispatch.
"""

from server.mcp_server.local import create_server, main, run

__all__ = ["create_server", "main", "run"]
