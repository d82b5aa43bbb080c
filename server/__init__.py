"""Serving: the aiohttp app (GETs from release bytes, POSTs live) and the stdio MCP server."""
