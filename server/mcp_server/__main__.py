"""`python -m server.mcp_server --releases DIR`: the MCP server over stdio."""

from server.mcp_server.local import main

main()
