"""The private parts of aiohttp that server/runner.py and server/protocol.py build on, all still there.

pyproject.toml pins aiohttp below 4 for them; within 3.x a release may still rename one. This file fails at
import when a module or class moved, and its test names every attribute or method that went, so an upgrade
says what to adapt instead of failing deep inside a connection.
"""

from __future__ import annotations

import inspect

import aiohttp
from aiohttp import web
from aiohttp.http_exceptions import LineTooLong  # noqa: F401 (server/protocol.py: a request line over the limit)
from aiohttp.web_protocol import RequestHandler
from aiohttp.web_request import BaseRequest
from aiohttp.web_server import Server

from server.protocol import EnvelopeServer

# What each class must have, and who needs it.
HANDLER_ATTRIBUTES = (  # RequestHandler instances: GuardedHandler (server/runner.py)
    "_manager",  # the Server it belongs to: make_room, the guard
    "_loop",  # the head timer
    "_request_count",  # a whole request head arrived
    "_force_close",  # idle or waiting?
    "_request_in_progress",
    "_messages",
)
SERVER_ATTRIBUTES = (  # Server instances: EnvelopeServer, EnvelopeRunner (protocol.py), GuardedServer (runner.py)
    "_connections",  # the open connections, oldest first: make_room
    "_loop",
    "_kwargs",  # the handler settings AppRunner gathered, passed on to each connection
    "request_handler",  # the app's handler, which GuardedRunner wraps: precomputed GETs first (server/app.py)
    "request_factory",
)
METHODS = {
    RequestHandler: ("handle_error", "force_close", "connection_made", "data_received", "connection_lost"),
    Server: ("__call__",),
    web.AppRunner: ("_make_server",),  # EnvelopeRunner swaps in its own Server
}
HANDLE_ERROR_PARAMETERS = ("self", "request", "status", "exc", "message")  # EnvelopeRequestHandler.handle_error


async def _no_answer(request: BaseRequest) -> web.StreamResponse:
    raise AssertionError("never called")


async def test_every_private_aiohttp_name_the_server_uses_is_still_there():
    server = EnvelopeServer(_no_answer)
    connection = server()
    missing = [f"Server().{name}" for name in SERVER_ATTRIBUTES if not hasattr(server, name)]
    missing += [f"RequestHandler().{name}" for name in HANDLER_ATTRIBUTES if not hasattr(connection, name)]
    missing += [f"{cls.__name__}.{name}" for cls, names in METHODS.items() for name in names if not hasattr(cls, name)]
    if hasattr(RequestHandler, "handle_error"):
        parameters = tuple(inspect.signature(RequestHandler.handle_error).parameters)
        if parameters != HANDLE_ERROR_PARAMETERS:
            missing.append(f"RequestHandler.handle_error{parameters} (was {HANDLE_ERROR_PARAMETERS})")
    assert isinstance(getattr(server, "_connections", None), dict), "Server()._connections is no longer a dict"
    assert not missing, (
        f"aiohttp {aiohttp.__version__} no longer has {', '.join(missing)}: adapt server/runner.py and "
        "server/protocol.py, then this list"
    )
