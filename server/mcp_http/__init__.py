"""The research tools over MCP's Streamable HTTP transport, at `/mcp` of `ras serve` (stateless, read-only).

mount: the endpoint as the app mounts it, loaded at its first request; endpoint: the HTTP side of the transport
(methods, headers, body); origins: which browser origins are served; exchange: one JSON-RPC message answered by
the tools `ras mcp` serves (a plain tools/call) or by the MCP SDK's dispatch over them (any other).
"""
