"""A tool's answer as an MCP result, and a resource read of the REST bytes behind it.

Success: the compact answer as text (what the agent reads; it stands on its own) and as structuredContent
(matching the tool's output schema), then one resource_link per part of the full REST envelope. Error: the
whole REST error envelope in one text block, `isError`, and no structuredContent — a host's client checks
structured content against the success schema and some hosts show the model only the first block.

A result is made as the JSON the handshake revisions (2025-06-18, 2025-11-25) send, key for key in the order the
SDK's per-revision serialisation writes them (ToolResult): the SDK's Server takes it as its model (`ras mcp`),
and `/mcp` sends it as it is, without the SDK's dispatch (server.mcp_http.exchange), the same bytes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Literal, NotRequired, TypedDict

import orjson
from mcp.shared.exceptions import MCPError
from mcp.types import ReadResourceResult, ResourceTemplate, TextResourceContents

from builder.api import diffs
from builder.api.answers import Arguments, Data, Summarise
from builder.api.contract import Operation
from builder.canonical import sha256_hex
from builder.recent import Recent
from builder.release.objects import Answer, object_path
from builder.release.store import LoadedRelease
from builder.research.agent import fit
from server.mcp_server.resources import (
    FRAGMENT_TYPE,
    HELD_BYTES,
    JSON_TYPE,
    REASSEMBLY,
    TEMPLATE,
    TEMPLATE_DESCRIPTION,
    HeldAnswers,
    Part,
    Request,
    parse_uri,
    part_text,
    parts_of,
)

TOOL_BUDGET = 15 * 1024  # bytes of one compact answer: under the 16 KB a tool's text may take, with its links
RESOURCE_NOT_FOUND = -32002  # the MCP specification's code for resources/read of an unknown resource
COMPACT_KEPT = 256  # compact answers kept by (sha256, call): a repeated call is not summarised again
RELEASE_META = "releaseId"  # a result's _meta key naming the release that answered (health's field of that name)
TEMPLATES = [
    ResourceTemplate(
        name="rest-answer",
        title="Full REST answer of a tool call",
        uri_template=TEMPLATE,
        description=TEMPLATE_DESCRIPTION,
        mime_type=JSON_TYPE,
    )
]


# The wire shapes of a result at the handshake revisions, keys in the order the SDK writes them (the MCP schema's
# models, mcp_types._v2025_11_25, list their fields alphabetically; absent optional keys are left out).
class TextBlock(TypedDict):
    text: str
    type: Literal["text"]


class LinkBlock(TypedDict):
    description: str
    mimeType: str
    name: str
    size: int
    type: Literal["resource_link"]
    uri: str


class ToolResult(TypedDict):
    """A tools/call result: `_meta` names the release that answered, when one did."""

    _meta: NotRequired[dict[str, str]]
    content: list[TextBlock | LinkBlock]
    isError: bool
    structuredContent: NotRequired[dict[str, Any]]


def text_block(text: str) -> TextBlock:
    return {"text": text, "type": "text"}


def error_result(answer: Answer) -> ToolResult:
    """A non-200 answer: the REST error envelope, exactly, as the one text block of an error result."""
    return {"content": [text_block(answer.body.decode("utf-8"))], "isError": True}


def named(result: ToolResult, release_id: str) -> ToolResult:
    """`result` naming the release that answered it (`_meta` first, as on the wire)."""
    return {"_meta": {RELEASE_META: release_id}, **result}


def link(part: Part, route: str, size: int) -> LinkBlock:
    """The resource_link of one part of the REST answer."""
    whole = part.parts == 1
    text = (
        f"The full REST answer of {route} ({size} bytes)"
        if whole
        else f"Part {part.number} of {part.parts} of the full REST answer of {route} ({size} bytes). {REASSEMBLY}"
    )
    return {
        "description": text,
        "mimeType": JSON_TYPE if whole else FRAGMENT_TYPE,
        "name": f"rest-answer-{part.number}-of-{part.parts}",
        "size": part.size,
        "type": "resource_link",
        "uri": part.uri,
    }


class Results:
    """Tool results and resource reads, sharing the REST bytes each result links."""

    def __init__(self, held_bytes: int = HELD_BYTES) -> None:
        self.held = HeldAnswers(held_bytes)
        self._compact: Recent[tuple[str, bytes, tuple[str, ...]], dict[str, Any]] = Recent(COMPACT_KEPT)

    def tool_result(
        self, answer: Answer, operation: Operation, arguments: dict[str, Any], versions: Sequence[str] = ()
    ) -> ToolResult:
        """`versions`: the served release's 13f-copycat version ids, oldest first (some next calls depend on them)."""
        if answer.status != 200:
            return error_result(answer)
        assert operation.tool is not None
        sha256 = sha256_hex(answer.body)
        self.held.keep(sha256, answer.body)
        brief = self._brief(sha256, answer.body, operation, arguments, tuple(versions))
        parts = parts_of(answer.body, operation.tool, arguments, sha256)
        route = f"{operation.method} {operation.route}"
        text = text_block(orjson.dumps(brief).decode())
        links = [link(part, route, len(answer.body)) for part in parts]
        return {"content": [text, *links], "isError": False, "structuredContent": brief}

    def _brief(
        self, sha256: str, body: bytes, operation: Operation, arguments: dict[str, Any], versions: tuple[str, ...]
    ) -> dict[str, Any]:
        key = (sha256, orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS), versions)
        found = self._compact.get(key)
        if found is None:
            assert operation.compact is not None, operation.id  # a tool's operation has its compact answer
            found = compact(operation.compact, orjson.loads(body)["data"], arguments, versions)
            self._compact.put(key, found)
        return found

    def body(self, request: Request, release: LoadedRelease | None) -> bytes | None:
        """The REST bytes a URI names, when held or in the promoted release's content-addressed objects."""
        body = self.held.get(request.sha256)
        if body is None and release is not None and object_path(request.sha256) in release.reader.files:
            body = release.reader.body(request.sha256)
        return body


def parse_resource_uri(uri: str) -> Request:
    request = parse_uri(uri)
    if request is None:
        raise MCPError(
            RESOURCE_NOT_FOUND, f"not a resource of this server: {uri[:200]!r}; see resources/templates/list"
        )
    return request


def read_result(uri: str, request: Request, body: bytes | None) -> ReadResourceResult:
    """The part a URI names, from the REST bytes found for it (None, or other bytes: not found)."""
    if body is None or sha256_hex(body) != request.sha256:
        raise MCPError(
            RESOURCE_NOT_FOUND,
            "this answer is no longer served (a newer release was promoted); call the tool again for a fresh link",
        )
    text = part_text(body, request)
    if text is None:
        raise MCPError(RESOURCE_NOT_FOUND, f"the answer {request.sha256} does not have {request.parts} parts")
    mime_type = JSON_TYPE if request.parts == 1 else FRAGMENT_TYPE
    return ReadResourceResult(contents=[TextResourceContents(uri=uri, mime_type=mime_type, text=text)])


def compact(summarise: Summarise, data: Data, arguments: Arguments, versions: Sequence[str] = ()) -> dict[str, Any]:
    """The compact answer `summarise` (an operation's: builder.api.answers) makes of a REST answer's data, its
    longest lists trimmed until it is within TOOL_BUDGET bytes. `versions`: the served 13f-copycat version ids,
    oldest first (a diff's next calls depend on which is latest)."""
    # the one answer whose next calls depend on the served versions
    chosen: Summarise = functools.partial(diffs.diff, versions=versions) if summarise is diffs.diff else summarise
    answer = dict(chosen(data, arguments))
    return fit(answer, TOOL_BUDGET, list_paths(answer))


def list_paths(node: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The key paths of every list in `node` reached through objects only (`nextCalls` is never trimmed)."""
    if isinstance(node, list):
        return [path]
    if not isinstance(node, dict):
        return []
    return [found for key, value in node.items() if key != "nextCalls" for found in list_paths(value, (*path, key))]
