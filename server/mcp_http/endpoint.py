"""`/mcp` of `ras serve`: MCP's Streamable HTTP transport, stateless, one JSON-RPC message per POST.

The transport's own rules are checked here, in the order a request meets them (MCP basic/transports): the
Origin (403 for one not admitted, server.mcp_http.origins), the method (a CORS preflight; GET and DELETE are 405
with Allow: no server-initiated stream, no session to end), Content-Type (415), Accept (406 unless JSON is
acceptable: every answer is application/json), MCP-Protocol-Version (400 naming the revisions served), the body
(413 over MAX_REQUEST_BYTES; one that trickles in past the body timeout is 400 and the connection is closed),
then the message itself (400 for -32700 and -32600, its id echoed). A session id a client sends is ignored.
Every answer is `Cache-Control: no-store`, and its errors are JSON-RPC errors: the envelope MCP clients read.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable

from aiohttp import web
from mcp.types import INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION
from multidict import CIMultiDict

from builder.api.wire import JSON_TYPE
from server.dispatch import LiveCache
from server.mcp_http.exchange import ASSUMED, SUPPORTED, Exchange, Reply, encoded, failure
from server.mcp_http.origins import Origins
from server.mcp_server.messages import Refused, parse
from server.protocol import MAX_BODY_BYTES, hang_up
from server.watch import ReleaseWatch

ALLOW = "POST"
# A tools/call carries at most what its REST request may (a 64 KiB body or request line), inside its envelope.
MAX_REQUEST_BYTES = 2 * MAX_BODY_BYTES
HEADERS = {"Server": "ras", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}
HEADERS_ONLY = CIMultiDict(HEADERS)
JSON_HEADERS = CIMultiDict({**HEADERS, "Content-Type": JSON_TYPE})
VERSION_HEADER = "MCP-Protocol-Version"
ACCEPTABLE = frozenset({JSON_TYPE, "application/*", "*/*"})
ACCEPT_KEPT = 64  # verdicts kept by Accept header: a client sends the same one with every message


@functools.lru_cache(maxsize=ACCEPT_KEPT)
def accepts_json(accept: str | None) -> bool:
    """Whether an Accept header admits application/json (RFC 9110 §12.5.1: none at all admits anything; q=0 is
    "not acceptable")."""
    if accept is None:
        return True
    for item in accept.split(","):
        kind, *parameters = (part.strip().lower() for part in item.split(";"))
        if kind in ACCEPTABLE and _quality(parameters) > 0:
            return True
    return False


def _quality(parameters: list[str]) -> float:
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip() == "q":
            try:
                return float(value)
            except ValueError:
                return 0.0
    return 1.0


def answer(reply: Reply, cors: dict[str, str]) -> web.Response:
    if cors:
        headers = CIMultiDict({**HEADERS, **({"Content-Type": JSON_TYPE} if reply.body else {}), **cors})
    else:  # a server-side client: the header sets built once
        headers = JSON_HEADERS if reply.body else HEADERS_ONLY
    return web.Response(status=reply.status, body=reply.body or None, headers=headers)


def refused(
    status: int, text: str, cors: dict[str, str], code: int = INVALID_REQUEST, data: object = None
) -> web.Response:
    """An HTTP-level refusal, its body a JSON-RPC error with no id (MCP: none can be known before the body)."""
    return answer(failure(None, code, text, data, status), cors)


class TooLarge(Exception):
    """The body is over MAX_REQUEST_BYTES."""


async def read_body(request: web.BaseRequest, seconds: float) -> bytes:
    """The whole body, at most MAX_REQUEST_BYTES (TooLarge), within `seconds` of its head (TimeoutError)."""
    if (request.content_length or 0) > MAX_REQUEST_BYTES:
        raise TooLarge
    if request.content.is_eof():  # the body came with its head, as nearly every message does
        return await request.content.read()
    body = bytearray()
    async with asyncio.timeout(seconds):
        while chunk := await request.content.readany():
            body += chunk
            if len(body) > MAX_REQUEST_BYTES:
                raise TooLarge
    return bytes(body)


def mcp_handler(
    watch: ReleaseWatch, cache: LiveCache, origins: Origins, body_timeout: float
) -> Callable[[web.BaseRequest], Awaitable[web.Response]]:
    """The handler of every method on /mcp."""
    exchange = Exchange(cache)

    async def handle(request: web.BaseRequest) -> web.Response:
        origin = request.headers.get("Origin")
        if origin is not None and not origins.admits(origin, request.host):
            return refused(403, "Forbidden: this Origin is not allowed (ras serve --mcp-allow-origin)", {})
        cors = origins.cors(origin)
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            return web.Response(status=204, headers={**HEADERS, **origins.preflight(origin)})
        if request.method != "POST":
            response = refused(405, f"Method Not Allowed: {request.method}; send each message as a POST", cors)
            response.headers["Allow"] = ALLOW
            return response
        if request.content_type != JSON_TYPE:
            return refused(415, "Unsupported Media Type: Content-Type must be application/json", cors)
        if not accepts_json(request.headers.get("Accept")):
            return refused(406, "Not Acceptable: every answer is application/json; accept it", cors)
        version = request.headers.get(VERSION_HEADER, ASSUMED)
        if version not in SUPPORTED:
            text = f"Bad Request: unsupported {VERSION_HEADER}; served: {', '.join(SUPPORTED)}"
            data = {"supported": list(SUPPORTED), "requested": version[:100]}
            return refused(400, text, cors, UNSUPPORTED_PROTOCOL_VERSION, data)
        try:
            raw = await read_body(request, body_timeout)
        except TooLarge:
            text = f"Payload Too Large: a message is at most {MAX_REQUEST_BYTES} bytes"
            return await hang_up(request, refused(413, text, cors))
        except TimeoutError:
            text = f"Bad Request: the body did not arrive within {body_timeout:g} s of its head"
            return await hang_up(request, refused(400, text, cors))
        value = parse(raw)
        if isinstance(value, Refused):
            return answer(Reply(400, encoded(value.error)), cors)
        return answer(await exchange.answer(watch.serving, value, version, request.headers), cors)

    return handle
