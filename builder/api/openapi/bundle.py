"""An operation's success schema as one self-contained JSON Schema: the components it reaches, as $defs.

MCP tools declare it as their outputSchema, so a tool's structuredContent is checked against the very
component schemas the OpenAPI document gives the REST route.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from builder.api.contract import Operation
from builder.api.openapi.document import PAYLOADS, component_schemas, envelope_name
from builder.api.openapi.schemas import COMPONENTS, Schema, rebased

DEFS = "#/$defs/"


def output_schema(operation: Operation) -> Schema:
    """The schema of the operation's 200 body: the envelope (or the raw document) with what it references."""
    return copy.deepcopy(_bundled(envelope_name(operation) if operation.envelope else PAYLOADS[operation.id]))


@cache
def _bundled(root: str) -> Schema:
    components = component_schemas()
    names = sorted(_reachable(components, root) - {root})
    return {**_rebased(components[root]), "$defs": {name: _rebased(components[name]) for name in names}}


def _reachable(components: dict[str, Schema], root: str) -> set[str]:
    """Every component name `root` refers to, directly or through other components, and root itself."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_references(components[name]))
    return seen


def _references(node: Any) -> list[str]:
    if isinstance(node, list):
        return [name for item in node for name in _references(item)]
    if not isinstance(node, dict):
        return []
    found = [node["$ref"].removeprefix(COMPONENTS)] if str(node.get("$ref", "")).startswith(COMPONENTS) else []
    return found + [name for value in node.values() for name in _references(value)]


def _rebased(node: Any) -> Any:
    """`node` with every component reference pointing into $defs instead."""
    return rebased(node, COMPONENTS, lambda name: DEFS + name)
