"""The output schema of each tool: the shape of its compact answer (server.mcp_server.answers), small enough to list.

Root `type: object`, no `$schema`, no `$ref`/`$defs` (MCP hosts' clients trip on them), every top-level
field named and typed, lists typed by their items' required fields. The full REST shapes are in the
OpenAPI document; these say only what the compact answer promises. Where the compact answer is declared as a
TypedDict (server.mcp_server.answers), its schema is generated from it (builder.typed.compact_schema);
the rest are built here until they are.
"""

from __future__ import annotations

from typing import Any

from builder.typed import compact_schema, compact_type
from server.mcp_server.answers import (
    ComparisonAnswer,
    EthosListAnswer,
    HealthAnswer,
    NextCall,
    PacksAnswer,
    PolicyAnswer,
    VersionsAnswer,
)

Schema = dict[str, Any]
STRING: Schema = {"type": "string"}
INTEGER: Schema = {"type": "integer"}
NUMBER: Schema = {"type": "number"}
BOOLEAN: Schema = {"type": "boolean"}
OBJECT: Schema = {"type": "object"}
NO_EXECUTION: Schema = {"const": False}


def nullable(kind: str) -> Schema:
    return {"type": [kind, "null"]}


def strings() -> Schema:
    return {"type": "array", "items": STRING}


def items(*required: str) -> Schema:
    """An array of objects that each carry `required`."""
    return {"type": "array", "items": {"type": "object", "required": list(required)}}


def obj(properties: dict[str, Schema], optional: tuple[str, ...] = ()) -> Schema:
    """An object with these fields, all required but `optional`; other fields allowed (the answer may grow)."""
    return {"type": "object", "properties": properties, "required": [key for key in properties if key not in optional]}


def part(properties: dict[str, Schema]) -> Schema:
    """A nested object: these fields typed where present (the required ones are the top level's)."""
    return {"type": "object", "properties": properties}


NEXT_CALLS = compact_type(list[NextCall])
VIEW = OBJECT

OUTPUT_SCHEMAS: dict[str, Schema] = {
    "getHealth": compact_schema(HealthAnswer),
    "listPacks": compact_schema(PacksAnswer),
    "getLatestPack": obj(
        {
            "pack": STRING,
            "versionId": STRING,
            "asOf": STRING,
            "caveats": strings(),
            "nextCalls": NEXT_CALLS,
            "executionEnabled": NO_EXECUTION,
            "managers": items("id", "name", "cik", "period", "filings", "trades"),
            "freshness": part({"daysSinceDeadline": INTEGER, "stale": BOOLEAN}),
            "glossary": OBJECT,
            "limits13F": strings(),
        },
        optional=("managers", "freshness", "glossary", "limits13F"),
    ),  # a preview pack has its own fields instead
    "listPackVersions": compact_schema(VersionsAnswer),
    "compareVersions": obj(
        {
            "from": STRING,
            "to": STRING,
            "fromQuarter": STRING,
            "toQuarter": STRING,
            "view": VIEW,
            "tickers": part(
                {
                    "enteredCount": INTEGER,
                    "entered": strings(),
                    "leftCount": INTEGER,
                    "left": strings(),
                    "unchanged": INTEGER,
                }
            ),
            "tradeCount": INTEGER,
            "largestTrades": items("managerId", "ticker", "kind", "shareDelta", "tradedValue"),
            "notTradeCount": INTEGER,
            "notTrades": items("managerId", "ticker", "kind"),
            "amendments": strings(),
            "policyChanges": items("id", "from", "to"),
            "nextCalls": NEXT_CALLS,
        }
    ),
    "explainPosition": obj(
        {
            "ticker": STRING,
            "issuer": STRING,
            "cusip": STRING,
            "versionId": STRING,
            "quarter": STRING,
            "view": VIEW,
            "viewStatus": STRING,
            "summary": OBJECT,
            "changeCount": INTEGER,
            "changes": items("managerId", "held", "change", "accession"),
            "evidence": items("text", "citations"),
            "ethosScores": OBJECT,
            "overlap": OBJECT,
            "policy": nullable("object"),
            "limitations": strings(),
            "executionEnabled": NO_EXECUTION,
            "nextCalls": NEXT_CALLS,
        }
    ),
    "listEthos": compact_schema(EthosListAnswer),
    "compareEthos": compact_schema(ComparisonAnswer),
    "validatePolicy": compact_schema(PolicyAnswer),
    "exportAuditTrail": obj(
        {
            "identity": OBJECT,
            "release": OBJECT,
            "contentHash": part({"algorithm": STRING, "value": STRING}),
            "provenance": part({"fileCount": INTEGER, "bytes": INTEGER, "files": items("path", "sha256")}),
            "methodology": OBJECT,
            "policy": nullable("object"),
            "events": items("event", "at"),
            "caveats": strings(),
            "executionEnabled": NO_EXECUTION,
            "nextCalls": NEXT_CALLS,
        }
    ),
}
