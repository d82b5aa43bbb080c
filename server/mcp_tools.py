"""The MCP tools, generated from the operation table: schemas, descriptions, and the REST request of a call.

A tool's input schema is read from the OpenAPI document of the served release (its route's parameters or
request body), so it lists the ids that release answers for, with the same examples as the REST document.
A tool call becomes the request its REST route would see (path dict and query pairs, or the JSON body) and is
answered by server/dispatch.py, so a tool returns the very bytes the route returns for the same request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson
from mcp.types import CallToolResult, TextContent, Tool, ToolAnnotations

from builder.api.contract import OPERATIONS, Operation
from builder.api.openapi.bundle import output_schema
from builder.api.openapi.document import openapi_document
from builder.api.openapi.schemas import COMPONENTS
from builder.api.wire import JSON_TYPE, ApiError, ErrorCode
from builder.release.objects import Answer
from builder.release.store import LoadedRelease
from server.dispatch import LiveCache, answer_get, answer_post, error_answer
from server.watch import Serving

# Every tool only reads the promoted release: same arguments, same answer until the next promotion.
ANNOTATIONS = {"read_only_hint": True, "destructive_hint": False, "idempotent_hint": True, "open_world_hint": False}
AGENT_NOTE = (
    "Returns the JSON envelope the REST route {route} returns for the same request: {{data, meta}} on success; "
    "on failure isError is set and the content is the error envelope {{error: {{code, message, details}}, meta}}. "
    "Caveats and limitations stay attached to the data. Research only: there is no brokerage, account or order "
    "access and execution is disabled (a policy result's executionEnabled is always false)."
)
# The table's text for `managers` speaks of repeated query parameters and commas; a tool takes an array.
ARGUMENT_DESCRIPTIONS = {
    "managers": "Manager ids to include, as an array (the enum lists the served release's ids). Default: all "
    "managers. Canonicalised: order and repetition do not matter, and all managers is the same view as none.",
}
Document = dict[str, Any]
TOOL_NAMES = {operation.id: operation.tool for operation in OPERATIONS if operation.tool}
OPERATION_ID = re.compile(r"\b[a-z]+(?:[A-Z][a-z]+)+\b")  # camelCase words; only operation ids are renamed


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its listing and the operation it maps onto."""

    tool: Tool
    operation: Operation


def for_agents(text: str) -> str:
    """The table's prose with operation ids (listPacks) named as the tools an agent can call (list_packs)."""
    return OPERATION_ID.sub(lambda match: TOOL_NAMES.get(match.group(0), match.group(0)), text)


def _renamed(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {
            key: for_agents(value) if key == "description" and isinstance(value, str) else _renamed(value)
            for key, value in schema.items()
        }
    return [_renamed(item) for item in schema] if isinstance(schema, list) else schema


def served_document(release: LoadedRelease | None) -> Document:
    """The OpenAPI document the REST API serves now: the release's own, else the one without release ids."""
    if release is not None and release.data.openapi is not None:
        return release.data.openapi
    return _document_without_release()


@cache
def _document_without_release() -> Document:
    return openapi_document()


def input_schema(operation: Operation, document: Document) -> dict[str, Any]:
    """The tool's argument schema, from the REST route in `document`: its body schema, else its parameters.

    Enums and examples are the document's; only the descriptions are worded for an agent.
    """
    entry = document["paths"][operation.route][operation.method.lower()]
    if operation.body is not None:
        content = entry["requestBody"]["content"][JSON_TYPE]
        body = document["components"]["schemas"][content["schema"]["$ref"].removeprefix(COMPONENTS)]
        return _renamed({**body, "examples": [content["example"]]})
    parameters = [parameter for parameter in entry["parameters"] if parameter["in"] != "header"]
    properties = {parameter["name"]: _argument(parameter) for parameter in parameters}
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    required = [parameter["name"] for parameter in parameters if parameter["required"]]
    if required:
        schema["required"] = required
    return schema


def _argument(parameter: Document) -> dict[str, Any]:
    """A path or query parameter of the document as one property of a tool's arguments."""
    text = ARGUMENT_DESCRIPTIONS.get(parameter["name"]) or parameter["description"]
    argument = {**parameter["schema"], "description": for_agents(text)}
    if "example" in parameter:
        argument["examples"] = [parameter["example"]]
    return argument


def description(operation: Operation) -> str:
    """The tool description: the operation's summary and description, then what an agent gets back."""
    route = f"{operation.method} {operation.route}"
    return f"{operation.summary}. {for_agents(operation.description)}\n\n{AGENT_NOTE.format(route=route)}"


def tool_spec(operation: Operation, document: Document) -> ToolSpec:
    assert operation.tool is not None
    tool = Tool(
        name=operation.tool,
        title=operation.summary,
        description=description(operation),
        input_schema=input_schema(operation, document),
        output_schema=output_schema(operation),  # the REST route's 200 schema: structuredContent of a success
        annotations=ToolAnnotations(title=operation.summary, **ANNOTATIONS),
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
    validation answers with its own codes (unknown_parameter, invalid_mode, unknown_manager, ...).
    """
    path_names = [p.name for p in operation.params if p.location == "path"]
    missing = [name for name in path_names if name not in arguments]
    if missing:  # a URL always has its path segments: only a tool call can leave one out
        raise ApiError(400, ErrorCode.MISSING_PARAMETER, f"argument {missing[0]!r} is required", {"parameter": missing[0]})
    path = {name: _query_value(arguments[name]) for name in path_names}
    query: list[tuple[str, str]] = []
    for name, value in arguments.items():
        if name not in path:
            query.extend((name, _query_value(item)) for item in (value if isinstance(value, list) else [value]))
    return path, query


def answer_call(serving: Serving, cache: LiveCache, spec: ToolSpec, arguments: dict[str, Any]) -> Answer:
    """The REST answer to the request a tool call stands for, errors included: one vocabulary for both."""
    operation = spec.operation
    if operation.method == "POST":
        return answer_post(serving, operation, arguments)  # the arguments are the body: the same validation
    try:
        path, query = get_request(operation, arguments)
    except ApiError as error:
        return error_answer(operation.id, error)
    return answer_get(serving, cache, operation, path, query)


def tool_result(answer: Answer) -> CallToolResult:
    """The envelope as text (the exact bytes) and parsed as structured content; not 200 is an error."""
    return CallToolResult(
        content=[TextContent(type="text", text=answer.body.decode("utf-8"))],
        structured_content=orjson.loads(answer.body),
        is_error=answer.status != 200,
    )
