"""The MCP tools, generated from the operation table: light listings, and the REST request of a call.

A tool's input schema is read from the OpenAPI document of the served release (its route's parameters or
request body), with the same patterns, limits and enums except the manager ids, which grow with the
release (get_latest_pack lists them). A tool call becomes the request its REST route would see (path dict
and query pairs, or the JSON body), held to the same limits (request line, body size, nesting), and is
answered by server/dispatch.py: the very bytes the route returns, errors included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import quote

import orjson
from mcp.types import Tool, ToolAnnotations

from builder.api.contract import OPERATIONS, Operation
from builder.api.openapi.document import openapi_document
from builder.api.openapi.schemas import COMPONENTS
from builder.api.params import check_depth, missing_parameter, type_name
from builder.api.wire import JSON_TYPE, MAX_LINE_BYTES, ApiError, ErrorCode
from builder.release.objects import Answer
from builder.release.store import LoadedRelease
from builder.typed import compact_schema
from server.dispatch import LiveCache, answer_get, answer_post, error_answer
from server.protocol import MAX_BODY_BYTES, body_too_large, line_too_long
from server.watch import Serving

# Every tool only reads the promoted release: same arguments, same answer until the next promotion.
# (MCP: destructive and idempotent hints mean something only when a tool is not read-only.)
ANNOTATIONS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
RETURNS = "Brief JSON with nextCalls; links the full {route} answer; error: isError + REST envelope."
ARGUMENT_DESCRIPTIONS = {  # the document's text speaks of a query string; a tool takes an array
    "packId": "A pack id from list_packs.",
    "managers": "Manager ids from get_latest_pack (POST tools: managerIds); default all.",
    "managerIds": "Manager ids from get_latest_pack (GET tools: managers); empty or omitted: all.",
    "mode": "any (default): held by a selected manager; overlap: by 2+; exclusive: by 1; disagreement: one bought, "
    "one sold.",
    "ticker": "Ticker (or an unmapped security's CUSIP); case-insensitive.",
    "tickers": "Tickers of the view to score; omitted: all.",
    "from": "The earlier version id (list_pack_versions lists them).",
    "to": "The later version id.",
    "version": "The version to explain (list_pack_versions lists them); omitted: the latest.",
}
GROWING = (
    "managers",
    "managerIds",
    "from",
    "to",
    "version",
)  # ids that grow with the release: no enum, the pattern stays
Document = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its listing and the operation it maps onto."""

    tool: Tool
    operation: Operation


def served_document(release: LoadedRelease | None) -> Document:
    """The OpenAPI document the REST API serves now: the release's own, else the one without release ids."""
    if release is not None and release.data.openapi is not None:
        return release.data.openapi
    return _document_without_release()


@cache
def _document_without_release() -> Document:
    return openapi_document()


def input_schema(operation: Operation, document: Document) -> dict[str, Any]:
    """The tool's argument schema, from the REST route in `document`: its body schema, else its parameters."""
    entry = document["paths"][operation.route][operation.method.lower()]
    if operation.body is not None:
        content = entry["requestBody"]["content"][JSON_TYPE]
        body = document["components"]["schemas"][content["schema"]["$ref"].removeprefix(COMPONENTS)]
        properties = {name: _argument(name, schema) for name, schema in body["properties"].items()}
        return {"type": "object", "properties": properties, "additionalProperties": False}
    parameters = [parameter for parameter in entry["parameters"] if parameter["in"] != "header"]
    properties = {p["name"]: _argument(p["name"], {**p["schema"], "description": p["description"]}) for p in parameters}
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    required = [parameter["name"] for parameter in parameters if parameter["required"]]
    if required:
        schema["required"] = required
    return schema


def _argument(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """One argument: the document's schema, operation ids named as tools, growing id lists left open.

    A default is said in the description (clients fill in a schema default); an enum makes the pattern moot.
    """
    argument = {key: value for key, value in schema.items() if key != "default"}
    argument["description"] = for_agents(ARGUMENT_DESCRIPTIONS.get(name, schema.get("description", "")))
    if name in GROWING and "items" in argument:
        argument["items"] = {key: value for key, value in argument["items"].items() if key != "enum"}
    elif name in GROWING:
        argument.pop("enum", None)
    if "enum" in argument:
        argument.pop("pattern", None)
    return argument


TOOL_NAMES = {operation.id: operation.tool for operation in OPERATIONS if operation.tool}
OPERATION_ID = re.compile(r"\b[a-z]+(?:[A-Z][a-z]+)+\b")  # camelCase words; only operation ids are renamed


def for_agents(text: str) -> str:
    """The table's prose with operation ids (listPacks) named as the tools an agent can call (list_packs)."""
    return OPERATION_ID.sub(lambda match: TOOL_NAMES.get(match.group(0), match.group(0)), text)


def description(operation: Operation) -> str:
    """When to call the tool, then what it returns."""
    assert operation.tool is not None
    return f"{operation.when} {RETURNS.format(route=f'{operation.method} {operation.route}')}"


def tool_spec(operation: Operation, document: Document) -> ToolSpec:
    assert operation.tool is not None and operation.compact_shape is not None
    tool = Tool(
        name=operation.tool,
        title=operation.summary,
        description=description(operation),
        input_schema=input_schema(operation, document),
        output_schema=compact_schema(operation.compact_shape),  # what the compact answer promises (builder.typed)
        annotations=ANNOTATIONS,
    )
    return ToolSpec(tool, operation)


def tool_specs(document: Document) -> dict[str, ToolSpec]:
    """Every operation that has a tool, by tool name, in table order, its input schema from `document`."""
    return {operation.tool: tool_spec(operation, document) for operation in OPERATIONS if operation.tool}


def _query_value(value: Any) -> str:
    """An argument as a query string carries it: text as it is, anything else as its JSON text."""
    return value if isinstance(value, str) else orjson.dumps(value).decode()


def get_request(operation: Operation, arguments: dict[str, Any]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The path dict and query pairs the GET route would see; a list becomes one pair per item.

    Every argument that is not a path parameter becomes query pairs, unknown ones included, so the REST
    validation answers with its own codes (unknown_parameter, invalid_mode, unknown_manager, ...). A request
    line longer than REST's limit is refused as REST refuses it.
    """
    path_names = [p.name for p in operation.params if p.location == "path"]
    missing = [name for name in path_names if name not in arguments]
    if missing:  # a URL always has its path segments: only a tool call can leave one out
        raise missing_parameter(operation, missing[0])
    for param in operation.params:  # a query string cannot tell one value from a list of one; a tool call can
        value = arguments.get(param.name)
        if param.schema.get("type") == "array" and value is not None and not isinstance(value, list):
            raise ApiError(
                400,
                ErrorCode.INVALID_PARAMETER,
                f"{param.name!r} is an array of strings, not {type_name(value)}"
                + (f": pass [{orjson.dumps(value).decode()}]" if isinstance(value, str) else ""),
                {"parameter": param.name, "expected": "an array of strings"},
            )
    path = {name: _query_value(arguments[name]) for name in path_names}
    query: list[tuple[str, str]] = []
    for name, value in arguments.items():
        if name not in path:
            query.extend((name, _query_value(item)) for item in (value if isinstance(value, list) else [value]))
    target = operation.route.format(**{name: quote(value, safe="") for name, value in path.items()})
    pairs = "&".join(quote(name, safe="") + "=" + quote(value, safe="") for name, value in query)
    if len(f"GET {target}?{pairs} HTTP/1.1".encode()) > MAX_LINE_BYTES:
        raise line_too_long()
    return path, query


def answer_call(serving: Serving, cache: LiveCache, operation: Operation, arguments: dict[str, Any]) -> Answer:
    """The REST answer to the request a tool call stands for, errors included: one vocabulary for both."""
    try:
        if operation.method == "POST":
            if _body_size(arguments) > MAX_BODY_BYTES:
                raise body_too_large()
            return answer_post(serving, operation, arguments)  # the arguments are the body: the same validation
        check_depth(arguments)
        path, query = get_request(operation, arguments)
    except ApiError as error:
        return error_answer(operation.id, error)
    return answer_get(serving, cache, operation, path, query)


def _body_size(arguments: dict[str, Any]) -> int:
    """The size of the body the arguments stand for (as REST checks size before anything else)."""
    try:
        return len(orjson.dumps(arguments))
    except orjson.JSONEncodeError:  # nested past the encoder's limit: the depth check says so in REST's words
        check_depth(arguments)
        raise
