"""`/mcp` as the app mounts it: the MCP SDK behind it is loaded at the first request, not when a worker starts.

Importing the SDK and the transport costs a worker about 40 MiB and a second (more on a loaded machine), which a
`ras serve` that answers REST alone should not pay before it listens. The first /mcp request loads them in a
thread, so REST goes on being answered meanwhile; requests that arrive during the load wait for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from aiohttp import web

from server.dispatch import LiveCache
from server.mcp_http.origins import Origins
from server.watch import ReleaseWatch

Handler = Callable[[web.BaseRequest], Awaitable[web.Response]]


class LazyEndpoint:
    """The /mcp handler, made by server.mcp_http.endpoint once its first request comes."""

    def __init__(self, watch: ReleaseWatch, cache: LiveCache, origins: Origins, body_timeout: float) -> None:
        self._arguments = (watch, cache, origins, body_timeout)
        self._handler: Handler | None = None
        self._loading: asyncio.Future[Handler] | None = None

    async def handle(self, request: web.BaseRequest) -> web.Response:
        if self._handler is None:
            if self._loading is None:
                self._loading = asyncio.get_running_loop().run_in_executor(None, self._load)
            self._handler = await asyncio.shield(self._loading)
        return await self._handler(request)

    def _load(self) -> Handler:
        from server.mcp_http.endpoint import mcp_handler  # the heavy imports, in the loading thread

        return mcp_handler(*self._arguments)
