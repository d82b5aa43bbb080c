"""`ras mcp`: the research tools over stdio, on the official MCP SDK's low-level Server.

toolbox: the server (tools, resources, release watch); tools: listings and the REST request of a call;
answers and schemas: each tool's compact answer and its output schema; results and resources: results
with links to the full REST bytes, read in parts; stdio: the transport that answers every line.
"""

from server.mcp_server.toolbox import create_server, main, run

__all__ = ["create_server", "main", "run"]
