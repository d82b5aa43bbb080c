"""One JSON-RPC message of a POST to `/mcp`: a plain tools/call answered by the shared tools themselves, any other
message by the MCP SDK's own dispatch over them.

Every request is answered on its own (stateless). A handshake-era (2025-06-18, 2025-11-25) tools/call whose
params are a tool name and its arguments, nothing else (what the TypeScript and Python SDK clients send), is
answered by ToolBox.call, whose result is already the JSON those revisions send
(server.mcp_server.results.ToolResult): the SDK's kernel would validate the message and its params, build a
connection and a request context, dump the result, check it against the revision's schema and dump it again, for
the same bytes (tests/test_mcp_http_direct.py holds them equal for every tool, error and revision): half of what
MCP added to a never-asked compare_ethos (0.23 of 0.46 ms in process, beside its 0.9 ms of research). Any other
message (initialize, tools/list, resources/read, a call carrying `_meta` or params the SDK may refuse, every
2026-07-28 request) goes to the kernel: a handshake-era one on a connection born initialized
at its MCP-Protocol-Version, a 2026-07-28 one on the connection its `_meta` envelope describes, after the SDK's
validation ladder (mcp.shared.inbound). The kernel (serve_one, the single-exchange dispatch of its own 2026 HTTP
entry) then answers exactly as over stdio: the same handlers, validation, negotiation and per-revision
serialisation. What is left out of the SDK's transport is its per-request machinery (a transport, a task and
memory streams per POST: 0.7 ms of a 1.2 ms ping, measured).

The answer to a tools/call or tools/list is a pure function of the served release, the revision and the
params (the tools answer from the release alone), so a repeated one is sent from MEMO_BYTES of earlier answers
keyed by all three, its id spliced in: a GET-backed tool then costs about what its REST GET does.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
import orjson
import pydantic_core
from mcp.server import ServerRequestContext
from mcp.server.connection import Connection
from mcp.server.runner import modern_error_data, serve_one
from mcp.shared.exceptions import NoBackChannelError
from mcp.shared.inbound import (
    ERROR_CODE_HTTP_STATUS,
    InboundLadderRejection,
    InboundModernRoute,
    classify_inbound_request,
    find_duplicated_routing_header,
)
from mcp.shared.transport_context import TransportContext
from mcp.types import HEADER_MISMATCH, JSONRPCError, JSONRPCMessage, JSONRPCRequest, JSONRPCResponse, RequestId
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from server.dispatch import LiveCache, PostCache
from server.mcp_server.messages import Refused, judged, refusal
from server.mcp_server.toolbox import T, ToolBox, Tools
from server.watch import Serving

HANDSHAKE = ("2025-06-18", "2025-11-25")  # the initialize-era revisions served: those without JSON-RPC batches
MODERN = tuple(MODERN_PROTOCOL_VERSIONS)  # 2026-07-28: no handshake, every request carries its envelope
SUPPORTED = (*HANDSHAKE, *MODERN)
# MCP (basic/transports): without MCP-Protocol-Version a server assumes the revision before the header existed,
# 2025-03-26, which is not served (it has batches); such a request (an initialize, a plain HTTP client) is
# answered at the oldest revision served instead.
ASSUMED = HANDSHAKE[0]
MEMO_METHODS = frozenset({"tools/call", "tools/list"})
MEMO_BYTES = 64 * 1024 * 1024  # earlier answers kept, as the REST POSTs' cache keeps theirs
# REST answers kept for resources/read beside the release's objects and the live cache, which hold the GETs'
# (`ras mcp` keeps 96 MiB): a POST tool's answer not kept is computed again from the call its link names.
REMOTE_HELD_BYTES = 16 * 1024 * 1024
OK = 200
STATELESS = TransportContext(kind="streamable-http", can_send_request=False)
SERVING: contextvars.ContextVar[Serving] = contextvars.ContextVar("serving")


@dataclass(frozen=True, slots=True)
class Reply:
    """What the POST is answered: its status and JSON body (none for 202)."""

    status: int
    body: bytes


ACCEPTED = Reply(202, b"")  # a notification or a response: acknowledged, nothing to answer (stateless)
REQUEST_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
CALL_KEYS = frozenset({"name", "arguments"})


@dataclass(frozen=True, slots=True)
class Call:
    """A plain tools/call: its id, the tool's name and arguments, and its params as sent."""

    request_id: RequestId
    name: str
    arguments: dict[str, Any]
    params: dict[str, Any]


def plain_call(value: Any, version: str) -> Call | None:
    """`value` as a handshake-era tools/call that every check of the SDK's passes as it is, else None.

    Its params hold a string `name` and an object (or null, or no) `arguments`, and nothing else: a `_meta`
    (a progress token to check) or any other member goes to the kernel, as does an id that is not a string or an
    integer (JSON-RPC's; the SDK reads a message with another as a notification).
    """
    if version not in HANDSHAKE or not isinstance(value, dict) or value.keys() != REQUEST_KEYS:
        return None
    request_id, params = value["id"], value["params"]
    if value["jsonrpc"] != "2.0" or value["method"] != "tools/call" or isinstance(request_id, bool):
        return None
    if not isinstance(request_id, str | int) or not isinstance(params, dict) or not params.keys() <= CALL_KEYS:
        return None
    name, arguments = params.get("name"), params.get("arguments")
    if not isinstance(name, str) or not isinstance(arguments, dict | None):
        return None
    return Call(request_id, name, arguments or {}, params)


class RemoteTools(Tools):
    """The tools as `ras serve` answers them: on the event loop, from the release the request was given."""

    async def with_release(self, ctx: ServerRequestContext[Any], work: Callable[[Serving], T]) -> T:
        return work(SERVING.get())


@dataclass(slots=True)
class Single:
    """The SDK's dispatch context of one POST: no back channel (a stateless server asks the client nothing)."""

    request_id: RequestId
    transport: TransportContext = STATELESS
    message_metadata: None = None
    can_send_request: bool = False
    cancel_requested: anyio.Event = field(default_factory=anyio.Event)

    async def send_raw_request(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> dict[str, Any]:
        raise NoBackChannelError(method)

    async def notify(self, method: str, params: Mapping[str, Any] | None, opts: Any = None) -> None:
        """Progress and log notifications have no stream to ride on a JSON answer: dropped."""

    async def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """No progress is reported on a JSON answer."""


def encoded(message: JSONRPCResponse | JSONRPCError) -> bytes:
    """A message as the SDK's stdio transport writes it (so a result's bytes are the same over both)."""
    return message.model_dump_json(by_alias=True, exclude_unset=True).encode()


def failure(request_id: RequestId | None, code: int, text: str, data: Any = None, status: int = 400) -> Reply:
    return Reply(status, encoded(refusal(code, text, request_id, data)))


def raised(request_id: RequestId, exc: Exception, modern: bool) -> Reply:
    """An exception of a request's handling, as the SDK maps it: MCPError as raised, invalid params, else an
    internal error (logged). Handshake-era errors are answers like any other (200); 2026-07-28 maps codes to
    statuses."""
    error = modern_error_data(exc)
    status = ERROR_CODE_HTTP_STATUS.get(error.code, OK) if modern else OK
    return Reply(status, encoded(JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))


def head(request_id: RequestId) -> bytes:
    """The bytes of an answer before its result: a memoised result is sent after the id of the request it answers."""
    return b'{"jsonrpc":"2.0","id":' + pydantic_core.to_json(request_id) + b","


class Exchange:
    """The SDK Server over the shared tools, answering one message at a time, with its memo of earlier answers."""

    def __init__(self, cache: LiveCache) -> None:
        self.box = ToolBox(cache, held_bytes=REMOTE_HELD_BYTES)
        self.server = RemoteTools(self.box).server()
        self.memo = PostCache(MEMO_BYTES)

    async def answer(self, serving: Serving, value: Any, version: str, headers: Mapping[str, str]) -> Reply:
        """The answer to the JSON value of a POST from `serving` at `version` (the MCP-Protocol-Version, checked, or
        ASSUMED): a plain tools/call's by the tools, any other message's by the kernel."""
        call = plain_call(value, version)
        if call is not None:
            return self.direct(serving, call, version)
        message = judged(value, "send one message a request")
        if isinstance(message, Refused):
            return Reply(400, encoded(message.error))
        return await self.reply(serving, message, version, headers)

    def direct(self, serving: Serving, call: Call, version: str) -> Reply:
        """A plain tools/call answered by the tools, as the kernel would answer it, from the memo when it can."""
        key = memo_key(serving, version, "tools/call", call.params)
        tail = self.memo.get(*key) if key is not None else None
        if tail is None:
            try:
                result = self.box.call(serving, call.name, call.arguments)
            except Exception as exc:  # an unknown tool (-32602), or a fault of ours
                return raised(call.request_id, exc, modern=False)
            tail = b'"result":' + pydantic_core.to_json(result) + b"}"
            if key is not None:
                self.memo.put(*key, tail)
        return Reply(OK, head(call.request_id) + tail)

    async def reply(self, serving: Serving, message: JSONRPCMessage, version: str, headers: Mapping[str, str]) -> Reply:
        """The kernel's answer to `message` from `serving` at `version`."""
        if not isinstance(message, JSONRPCRequest):
            return ACCEPTED
        modern = version in MODERN
        if modern:
            verdict = ladder(message, headers)
            if isinstance(verdict, InboundLadderRejection):
                status = ERROR_CODE_HTTP_STATUS.get(verdict.code, 400)
                return failure(message.id, verdict.code, verdict.message, verdict.data, status)
            connection = Connection.from_envelope(version, verdict.client_info, verdict.client_capabilities)
        else:  # born initialized at the revision the client negotiated: no handshake state to keep
            connection = Connection.from_envelope(version, None, None)
        params = offered(message.method, message.params)
        key = memo_key(serving, version, message.method, params)
        tail = self.memo.get(*key) if key is not None else None
        if tail is not None:
            return Reply(OK, head(message.id) + tail)
        reply = await self._dispatch(serving, message, params, connection, modern)
        prefix = head(message.id)
        if key is not None and reply.status == OK and reply.body.startswith(prefix + b'"result"'):
            self.memo.put(*key, reply.body[len(prefix) :])
        return reply

    async def _dispatch(
        self,
        serving: Serving,
        message: JSONRPCRequest,
        params: dict[str, Any] | None,
        connection: Connection,
        modern: bool,
    ) -> Reply:
        token = SERVING.set(serving)  # the one release this request sees, whatever is promoted meanwhile
        try:
            result = await serve_one(
                self.server, Single(message.id), message.method, params, connection=connection, lifespan_state={}
            )
        except Exception as exc:
            return raised(message.id, exc, modern)
        finally:
            SERVING.reset(token)
        return Reply(OK, encoded(JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)))


def ladder(message: JSONRPCRequest, headers: Mapping[str, str]) -> InboundModernRoute | InboundLadderRejection:
    """The SDK's checks of a 2026-07-28 request (envelope, routing headers agreeing with the body): its verdict.

    (`Mcp-Param-*` headers mirror arguments a tool's schema marks with x-mcp-header; no schema here marks one.)
    """
    duplicated = find_duplicated_routing_header(headers.items())
    if duplicated is not None:
        return InboundLadderRejection(HEADER_MISMATCH, f"{duplicated} header appears more than once")
    body = {"jsonrpc": "2.0", "id": message.id, "method": message.method, "params": message.params}
    folded = {name.lower(): value for name, value in headers.items()}
    return classify_inbound_request(body, headers=folded, supported_modern_versions=MODERN)


def offered(method: str, params: dict[str, Any] | None) -> dict[str, Any] | None:
    """The params the kernel is given: an initialize asking for a revision not served is offered the newest one.

    MCP (basic/lifecycle): a server that does not support the requested version answers with one it supports;
    the SDK's negotiation would accept every revision it knows, batches-era ones included.
    """
    if method != "initialize" or not isinstance(params, dict) or params.get("protocolVersion") in HANDSHAKE:
        return params
    return {**params, "protocolVersion": HANDSHAKE[-1]}


def memo_key(
    serving: Serving, version: str, method: str, params: dict[str, Any] | None
) -> tuple[str, str, bytes] | None:
    """(release, revision and method, params but their _meta envelope) of an answer that can be memoised."""
    if method not in MEMO_METHODS or serving.release is None:
        return None
    asked = {name: value for name, value in (params or {}).items() if name != "_meta"}
    try:
        return serving.release.release_id, f"{version} {method}", orjson.dumps(asked)
    except orjson.JSONEncodeError:  # nested past the encoder's limit: answered (refused) by the kernel, not kept
        return None
