"""The stdio transport of `ras mcp`: one JSON-RPC message a line, and an answer to every line that needs one.

The SDK's own stdio transport drops a line it cannot parse without a word, so a client waits forever.
Here every line is judged first (server.mcp_server.messages: -32700 Parse error, -32600 Invalid Request, each
echoing the id whenever it can be read), and serving goes on. A valid message goes to the SDK, which
answers an unknown method with -32601 at once, before `initialize` too. No line may exceed
MAX_MESSAGE_BYTES (the limit of our own answers); a longer one is discarded up to its newline.
"""

from __future__ import annotations

import logging
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.shared._context_streams import ContextSendStream, create_context_streams
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError

from server.mcp_server.messages import Refused, judge, refusal
from server.mcp_server.resources import MAX_MESSAGE_BYTES

LOG = logging.getLogger("ras.mcp")
CHUNK = 64 * 1024  # bytes read from stdin at a time
Incoming = SessionMessage | JSONRPCError | None


def triage(line: bytes) -> Incoming:
    """A line as a message for the SDK, or the error response it gets instead; None for a blank line."""
    if not line.strip():
        return None
    message = judge(line, "send one message a line")
    return message.error if isinstance(message, Refused) else SessionMessage(message)


def lines_of(buffer: bytearray, chunk: bytes, skipping: bool) -> tuple[list[bytes | None], bool]:
    """The lines `chunk` completes after what `buffer` holds (None for one over the limit, discarded), and whether
    the line still open is over the limit (its bytes are skipped up to its newline)."""
    *complete, rest = chunk.split(b"\n")
    found: list[bytes | None] = []
    for piece in complete:
        found.append(None if skipping or len(buffer) + len(piece) > MAX_MESSAGE_BYTES else bytes(buffer) + piece)
        buffer.clear()
        skipping = False
    if skipping or len(buffer) + len(rest) > MAX_MESSAGE_BYTES:
        buffer.clear()
        return found, True
    buffer += rest
    return found, False


def claim_stdio() -> tuple[BinaryIO, BinaryIO, Callable[[], None]]:
    """Private duplicates of fd 0 and 1 for the protocol; fd 0 then reads the null device and fd 1 writes to
    stderr, so nothing else in the process (a stray print, a child) touches the client's streams."""
    wire_in, wire_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)

    def restore() -> None:
        os.dup2(wire_in, 0)
        os.dup2(wire_out, 1)

    return os.fdopen(wire_in, "rb", buffering=0, closefd=False), os.fdopen(wire_out, "wb", closefd=False), restore


async def read_messages(stdin: BinaryIO, to_server: ContextSendStream[Any], to_client: ContextSendStream[Any]) -> None:
    """Judge each line of stdin: valid messages to the server, error responses straight to the client."""
    buffer, skipping = bytearray(), False
    async with to_server, to_client:
        while chunk := await anyio.to_thread.run_sync(stdin.read, CHUNK, abandon_on_cancel=True):
            lines, skipping = lines_of(buffer, chunk, skipping)
            for line in lines:
                message = (
                    triage(line)
                    if line is not None
                    else refusal(
                        types.INVALID_REQUEST, f"Invalid Request: a message is at most {MAX_MESSAGE_BYTES} bytes"
                    )
                )
                if isinstance(message, SessionMessage):
                    await to_server.send(message)
                elif message is not None:
                    LOG.info("refused a line: %s", message.error.message[:120])
                    await to_client.send(SessionMessage(message))


async def write_messages(stdout: BinaryIO, from_server: AsyncIterator[SessionMessage]) -> None:
    """Every outgoing message as one line of JSON."""
    async for session_message in from_server:
        message = session_message.message
        try:
            line = message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
        except ValueError:
            LOG.exception("a message could not be serialised")
            request_id = getattr(message, "id", None)
            line = refusal(types.INTERNAL_ERROR, "Internal error", request_id).model_dump_json().encode() + b"\n"
        await anyio.to_thread.run_sync(_write, stdout, line)


def _write(stdout: BinaryIO, line: bytes) -> None:
    stdout.write(line)
    stdout.flush()


@asynccontextmanager
async def stdio_transport(
    stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) for `Server.run`, over this process's stdin and stdout (or the given files)."""
    restore = None
    if stdin is None or stdout is None:
        stdin, stdout, restore = claim_stdio()
    to_server, server_reads = create_context_streams[SessionMessage | Exception](0)
    server_writes, to_client = create_context_streams[SessionMessage](0)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(read_messages, stdin, to_server, server_writes.clone())
            group.start_soon(write_messages, stdout, to_client)
            yield server_reads, server_writes
            group.cancel_scope.cancel()
    finally:
        if restore is not None:
            restore()
