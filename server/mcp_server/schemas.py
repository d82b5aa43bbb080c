"""The output schema of each tool: the shape of its compact answer (server.mcp_server.answers), small enough to list.

Root `type: object`, no `$schema`, no `$ref`/`$defs` (MCP hosts' clients trip on them), every top-level
field named and typed, lists typed by their items' required fields. The full REST shapes are in the
OpenAPI document; these say only what the compact answer promises, generated from the TypedDict that
declares it (builder.typed.compact_schema).
"""

from __future__ import annotations

from typing import Any

from builder.typed import compact_schema
from server.mcp_server.answers import ANSWERS

OUTPUT_SCHEMAS: dict[str, dict[str, Any]] = {operation: compact_schema(shape) for operation, shape in ANSWERS.items()}
