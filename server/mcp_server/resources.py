"""The full REST answer behind a tool result, as MCP resources: content-addressed, in parts of at most 8 MiB.

A tool result carries the compact answer an agent reads; the REST envelope it summarises stays reachable,
byte-identical, as resources the result links. Each link names the envelope by its sha256 (the REST ETag)
and one part of it. A part is a run of the envelope's characters whose JSON-escaped text fits PART_BUDGET,
so no resources/read message exceeds MAX_MESSAGE_BYTES; concatenating the parts' text in order and encoding
it as UTF-8 gives the REST bytes. The cut is a pure function of the bytes, so a URI stays valid for as long
as the bytes can be found: in the server's memory, in the promoted release's content-addressed objects, or
by answering again the tool call the URI also names (a live view after a restart).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, quote

import orjson

from builder.canonical import sha256_hex
from builder.recent import Recent

SCHEME = "research-artifact"
# The TypeScript SDK's stdio transport closes the connection on a message over 10 MiB: every message stays
# under 8 MiB, and a part's escaped text under 7.5 MiB leaves room for the URI and the JSON-RPC framing.
MAX_MESSAGE_BYTES = 8 * 1024 * 1024
PART_BUDGET = MAX_MESSAGE_BYTES - 512 * 1024
TEMPLATE = SCHEME + "://answers/{sha256}/part/{part}/of/{parts}{?call}"
URI = re.compile(
    SCHEME + r"://answers/(?P<sha256>[0-9a-f]{64})/part/(?P<part>[1-9][0-9]*)/of/(?P<parts>[1-9][0-9]*)"
    r"(?:\?(?P<query>.*))?$"
)
JSON_TYPE = "application/json"
FRAGMENT_TYPE = "text/plain"  # a part of a larger envelope is not JSON on its own
REASSEMBLY = (
    "Concatenate the text of parts 1..N in order and encode it as UTF-8: those bytes are the REST answer, byte "
    "for byte, and their sha256 is the one in the URI (the REST ETag)."
)
TEMPLATE_DESCRIPTION = (
    "The full REST answer (the {data, meta} envelope) behind a tool result, which links each part it needs. "
    "{sha256}: the answer's sha256; {parts}: how many parts it has (each read stays under 8 MiB); {call}: the tool "
    "call that answers it, so a link outlives a server restart. " + REASSEMBLY
)
HELD_BYTES = 96 * 1024 * 1024  # answers kept by sha256 for reading; an answer past it is found again by its call


@dataclass(frozen=True, slots=True)
class Part:
    """One part of an answer: its URI, where it starts and ends in the answer's text, and its size in bytes."""

    uri: str
    number: int
    parts: int
    start: int
    end: int
    size: int


def part_bounds(body: bytes, budget: int = PART_BUDGET) -> list[tuple[int, int]]:
    """Byte ranges that cut `body` into parts whose JSON-escaped text fits `budget`, at UTF-8 character bounds.

    Canonical JSON has no raw control characters, so only '"' and '\\' grow when a part's text is escaped.
    """
    bounds: list[tuple[int, int]] = []
    start = 0
    while start < len(body) or not bounds:
        end = min(len(body), start + budget)
        while (escaped := end - start + _escapes(body, start, end)) > budget:
            end = start + (end - start) * budget // escaped
        while end < len(body) and body[end] & 0xC0 == 0x80:  # never inside a multi-byte character
            end -= 1
        bounds.append((start, end))
        start = end
    return bounds


def _escapes(body: bytes, start: int, end: int) -> int:
    return body.count(b'"', start, end) + body.count(b"\\", start, end)


def call_query(tool: str, arguments: dict[str, Any]) -> str:
    return "call=" + quote(orjson.dumps({"tool": tool, "arguments": arguments}, option=orjson.OPT_SORT_KEYS), safe="")


def parts_of(body: bytes, tool: str, arguments: dict[str, Any], sha256: str | None = None) -> list[Part]:
    """The parts a tool result links for `body` (whose sha256 may be given), each with its URI."""
    sha256, query = sha256 or sha256_hex(body), call_query(tool, arguments)
    bounds = part_bounds(body)
    return [
        Part(
            f"{SCHEME}://answers/{sha256}/part/{number}/of/{len(bounds)}?{query}",
            number,
            len(bounds),
            start,
            end,
            end - start,
        )
        for number, (start, end) in enumerate(bounds, 1)
    ]


@dataclass(frozen=True, slots=True)
class Request:
    """What a resource URI asks for."""

    sha256: str
    part: int
    parts: int
    tool: str | None
    arguments: dict[str, Any]


def parse_uri(uri: str) -> Request | None:
    """The request a URI of TEMPLATE names; None when it is not one."""
    match = URI.match(uri)
    if match is None:
        return None
    part, parts = int(match["part"]), int(match["parts"])
    if part > parts:
        return None
    call: Any = {}
    values = parse_qs(match["query"] or "").get("call")
    if values:
        try:
            call = orjson.loads(values[0])
        except orjson.JSONDecodeError:
            return None
    if not isinstance(call, dict) or not isinstance(call.get("arguments", {}), dict):
        return None
    tool = call.get("tool")
    return Request(match["sha256"], part, parts, tool if isinstance(tool, str) else None, call.get("arguments", {}))


def part_text(body: bytes, request: Request) -> str | None:
    """The text of the part a request names, or None when the body has another number of parts."""
    bounds = part_bounds(body)
    if len(bounds) != request.parts:
        return None
    start, end = bounds[request.part - 1]
    return body[start:end].decode("utf-8")


class HeldAnswers:
    """Answers recently given by tools, by sha256, bounded by their bytes: the first place a read looks."""

    def __init__(self, limit: int = HELD_BYTES) -> None:
        self._bodies: Recent[str, bytes] = Recent(budget=limit, weight=_length, largest=limit)

    @property
    def held(self) -> int:
        return self._bodies.held

    def keep(self, sha256: str, body: bytes) -> None:
        self._bodies.put(sha256, body)

    def get(self, sha256: str) -> bytes | None:
        return self._bodies.get(sha256)


def _length(_sha256: str, body: bytes) -> int:
    return len(body)
