"""The HTTP protocol's own refusals as envelopes: a request the parser rejects never reaches a route.

aiohttp answers a request line or header over its limit, or bytes that are not HTTP, with a plain-text
400 that echoes the offending bytes. Here that answer is the error envelope like every other, with a
stable code and a message that repeats nothing the client sent.

This and server/runner.py subclass aiohttp's internals (RequestHandler, Server, AppRunner._make_server and
their private attributes): pyproject.toml pins aiohttp below 4, tests/test_aiohttp_internals.py names any
that a 3.x release takes away.
"""

from __future__ import annotations

from aiohttp import web
from aiohttp.http_exceptions import LineTooLong
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest
from aiohttp.web_server import Server

from builder.api.wire import COMMON_HEADERS, JSON_TYPE, MAX_LINE_BYTES, POST_CACHE_CONTROL, ApiError, ErrorCode
from server.dispatch import error_answer

ROUTER = "router"  # the capability of answers no operation gave
MAX_BODY_BYTES = 64 * 1024  # a ResearchRequest with every manager and ticker is a few kB; more is not a request


def line_too_long() -> ApiError:
    """A request line or header field over the limit (MCP: the request line a tool call stands for)."""
    return ApiError(
        400, ErrorCode.MALFORMED_REQUEST, f"the request line or a header field is over {MAX_LINE_BYTES} bytes"
    )


def body_too_large() -> ApiError:
    """A POST body over the limit (MCP: the body a tool call's arguments stand for)."""
    return ApiError(413, ErrorCode.PAYLOAD_TOO_LARGE, f"request body over {MAX_BODY_BYTES} bytes")


async def hang_up(request: BaseRequest, response: web.Response) -> web.Response:
    """Send the answer, then close the connection: the rest of a slow or oversized body is neither waited for nor
    read (aiohttp would otherwise read it out before closing, for up to its lingering timeout)."""
    response.force_close()
    await response.prepare(request)
    await response.write_eof()
    if request.transport is not None:
        request.transport.close()
    return response


def protocol_error(status: int, exc: BaseException | None) -> ApiError:
    """The envelope's error for what the HTTP layer refused: 400 for an unreadable request, else 500."""
    if status == 400 and isinstance(exc, LineTooLong):
        return line_too_long()
    if status == 400:
        return ApiError(400, ErrorCode.MALFORMED_REQUEST, "the request is not valid HTTP/1.1")
    return ApiError(500, ErrorCode.INTERNAL_ERROR, "internal error")


class EnvelopeRequestHandler(RequestHandler):
    """aiohttp's connection handler, its error answers (parser refusals, handler crashes) made envelopes."""

    def handle_error(
        self, request: BaseRequest, status: int = 500, exc: BaseException | None = None, message: str | None = None
    ) -> web.StreamResponse:
        super().handle_error(request, status, exc, message)  # logs, and refuses when a response already began
        error = protocol_error(status, exc)
        headers = {**COMMON_HEADERS, "Server": "ras", "Cache-Control": POST_CACHE_CONTROL}
        response = web.Response(
            status=error.status, body=error_answer(ROUTER, error).body, content_type=JSON_TYPE, headers=headers
        )
        response.force_close()  # the stream may be mid-request: never read another request from it
        return response


class EnvelopeServer(Server):
    """A Server whose connections are EnvelopeRequestHandlers (or `handler_class`, a subclass of it)."""

    handler_class: type[EnvelopeRequestHandler] = EnvelopeRequestHandler

    def __call__(self) -> RequestHandler:
        return self.handler_class(self, loop=self._loop, **self._kwargs)


class EnvelopeRunner(web.AppRunner):
    """An AppRunner serving through EnvelopeServer (or `server_class`), with the app's own handler and settings."""

    server_class: type[EnvelopeServer] = EnvelopeServer

    async def _make_server(self) -> Server:
        plain = await super()._make_server()  # runs the app's startup and gathers its handler_args
        return self.server_class(
            plain.request_handler, request_factory=plain.request_factory, loop=plain._loop, **plain._kwargs
        )
