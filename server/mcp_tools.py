"""The MCP tools, generated from the operation table: schemas, descriptions, and the REST request of a call.

A tool call becomes the request its REST route would see (path dict and query pairs, or the JSON body) and is
answered by server/dispatch.py, so a tool returns the very bytes the route returns for the same request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson
from jsonschema import Draft202012Validator
from mcp.types import CallToolResult, TextContent, Tool, ToolAnnotations

from builder.api.contract import OPERATIONS, Operation
from builder.api.params import body_validator
from builder.api.wire import ApiError, ErrorCode
from builder.release.store import Answer
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
    "managers": "Manager ids to include, as an array (ids as in get_latest_pack's data.managers). Default: all "
    "managers. Canonicalised: order and repetition do not matter, and all managers is the same view as none.",
}
TOOL_NAMES = {operation.id: operation.tool for operation in OPERATIONS if operation.tool}
OPERATION_ID = re.compile(r"\b[a-z]+(?:[A-Z][a-z]+)+\b")  # camelCase words; only operation ids are renamed


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool: its listing, the operation it maps onto and its argument validator (compiled once)."""

    tool: Tool
    operation: Operation
    validator: Draft202012Validator


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


def input_schema(operation: Operation) -> dict[str, Any]:
    """The tool's argument schema: a POST's body schema, else the path and query parameters as properties."""
    if operation.body is not None:
        return _renamed(operation.body)
    properties = {}
    for param in operation.params:
        text = ARGUMENT_DESCRIPTIONS.get(param.name, param.description)
        properties[param.name] = {**param.schema, "description": for_agents(text)}
    schema: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    required = [param.name for param in operation.params if param.required]
    if required:
        schema["required"] = required
    return schema


def description(operation: Operation) -> str:
    """The tool description: the operation's summary and description, then what an agent gets back."""
    route = f"{operation.method} {operation.route}"
    return f"{operation.summary}. {for_agents(operation.description)}\n\n{AGENT_NOTE.format(route=route)}"


def tool_spec(operation: Operation) -> ToolSpec:
    assert operation.tool is not None
    schema = input_schema(operation)
    # A POST tool's arguments are its body: validate them with the compiled validator of the REST route.
    validator = body_validator(operation.id) if operation.body is not None else Draft202012Validator(schema)
    tool = Tool(
        name=operation.tool,
        title=operation.summary,
        description=description(operation),
        input_schema=schema,
        annotations=ToolAnnotations(title=operation.summary, **ANNOTATIONS),
    )
    return ToolSpec(tool, operation, validator)


def tool_specs() -> dict[str, ToolSpec]:
    """Every operation that has a tool, by tool name, in table order."""
    return {operation.tool: tool_spec(operation) for operation in OPERATIONS if operation.tool}


def argument_error(spec: ToolSpec, arguments: Any) -> ApiError | None:
    """The first schema violation of the arguments as a 400 ApiError, or None when they are valid."""
    errors = sorted(spec.validator.iter_errors(arguments), key=lambda error: list(error.absolute_path))
    if not errors:
        return None
    where = "/".join(str(part) for part in errors[0].absolute_path) or "(arguments)"
    message = f"invalid arguments for {spec.tool.name} at {where}: {errors[0].message[:200]}"
    return ApiError(400, ErrorCode.INVALID_PARAMETER, message, {"argument": where})


def get_request(operation: Operation, arguments: dict[str, Any]) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The path dict and query pairs the GET route would see; `managers` becomes one pair per id."""
    path = {p.name: arguments[p.name] for p in operation.params if p.location == "path"}
    query: list[tuple[str, str]] = []
    for param in operation.params:
        if param.location != "query" or param.name not in arguments:
            continue
        value = arguments[param.name]
        values = value if isinstance(value, list) else [value]
        query.extend((param.name, item) for item in values)
    return path, query


def answer_call(serving: Serving, cache: LiveCache, spec: ToolSpec, arguments: dict[str, Any]) -> Answer:
    """The REST answer to the request a tool call stands for; invalid arguments are a 400 envelope."""
    operation = spec.operation
    if operation.method == "POST":
        return answer_post(serving, operation, arguments)  # validates with the same compiled body validator
    error = argument_error(spec, arguments)
    if error is not None:
        return error_answer(operation.id, error)
    path, query = get_request(operation, arguments)
    return answer_get(serving, cache, operation, path, query)


def tool_result(answer: Answer) -> CallToolResult:
    """The envelope as text (the exact bytes) and parsed as structured content; not 200 is an error."""
    return CallToolResult(
        content=[TextContent(type="text", text=answer.body.decode("utf-8"))],
        structured_content=orjson.loads(answer.body),
        is_error=answer.status != 200,
    )
