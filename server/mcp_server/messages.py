"""One JSON-RPC message judged before the SDK sees it, as both transports do: an answer to every malformed one.

JSON-RPC 2.0 section 5.1: bytes that are not UTF-8 or not JSON (a lone surrogate, nesting past the parser's
1,024 levels) are -32700 Parse error; an array (batching left MCP in 2025-06-18), a non-object or a message that
is neither request, notification nor response is -32600 Invalid Request; both echo the id whenever it can be read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import mcp_types as types
import orjson
from mcp.types import ErrorData, JSONRPCError, JSONRPCMessage


@dataclass(frozen=True, slots=True)
class Refused:
    """The error response a message gets instead of being served."""

    error: JSONRPCError


def refusal(code: int, message: str, request_id: Any = None, data: Any = None) -> JSONRPCError:
    error = ErrorData(code=code, message=message) if data is None else ErrorData(code=code, message=message, data=data)
    return JSONRPCError(jsonrpc="2.0", id=request_id, error=error)


def readable_id(value: Any) -> str | int | None:
    """The id of a message, when it has one of the types JSON-RPC allows (a string or an integer)."""
    request_id = value.get("id") if isinstance(value, dict) else None
    return request_id if isinstance(request_id, (str, int)) and not isinstance(request_id, bool) else None


def judge(raw: bytes, one_message: str) -> JSONRPCMessage | Refused:
    """The message `raw` holds, or its refusal; `one_message` says how a batch should have been sent instead."""
    value = parse(raw)
    return value if isinstance(value, Refused) else judged(value, one_message)


def parse(raw: bytes) -> Any:
    """The JSON value `raw` holds, or its refusal (-32700)."""
    try:
        return orjson.loads(raw)  # strict: refuses lone surrogates, invalid UTF-8 and nesting past 1,024
    except orjson.JSONDecodeError as exc:
        return Refused(refusal(types.PARSE_ERROR, f"Parse error: {str(exc)[:200]}", _lenient_id(raw)))


def judged(value: Any, one_message: str) -> JSONRPCMessage | Refused:
    """The message a parsed JSON value is, or its refusal."""
    request_id = readable_id(value)
    if isinstance(value, list):
        return Refused(refusal(types.INVALID_REQUEST, f"Invalid Request: batches are not supported; {one_message}"))
    if not isinstance(value, dict) or value.get("jsonrpc") != "2.0":
        return Refused(refusal(types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 object", request_id))
    if "method" in value and not isinstance(value["method"], str):
        return Refused(refusal(types.INVALID_REQUEST, "Invalid Request: method is not a string", request_id))
    try:
        return types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValueError:
        return Refused(
            refusal(
                types.INVALID_REQUEST, "Invalid Request: neither a request, a notification nor a response", request_id
            )
        )


def _lenient_id(raw: bytes) -> str | int | None:
    """The id of bytes the strict parser refused, when Python's lenient one reads them (a lone surrogate)."""
    try:
        return readable_id(json.loads(raw))
    except (ValueError, RecursionError):
        return None
