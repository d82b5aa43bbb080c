"""Component schemas of the OpenAPI document: small builders, envelopes, the PackArtifact, catalog and views.

Schemas are closed (`additionalProperties: false`) wherever the payload's shape is fixed, so a payload
that grows or loses a field fails the response tests instead of drifting away from its description.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from builder.api.contract import COPYCAT_FEATURES
from builder.api.wire import API_VERSION, CONTRACT_VERSION, ErrorCode
from builder.research.artifact import PACK_ID
from builder.research.schema import artifact_schema
from builder.research.views import MODES

Schema = dict[str, Any]
COMPONENTS = "#/components/schemas/"
ARTIFACT_DEFS = "#/$defs/"
PACK_LABELS = ("launch pack", "data preview", "research preview")  # contract section 1
ARTIFACT_PREFIX = "Artifact"  # the PackArtifact's $defs become components ArtifactPosition, ArtifactFiling, …


def ref(name: str) -> Schema:
    return {"$ref": COMPONENTS + name}


def closed(properties: dict[str, Schema], *, optional: Iterable[str] = (), description: str = "") -> Schema:
    """An object with exactly these properties, all required except `optional`."""
    skip = set(optional)
    schema: Schema = {"type": "object", "additionalProperties": False, "properties": properties}
    required = [name for name in properties if name not in skip]
    if required:
        schema["required"] = required
    if description:
        schema["description"] = description
    return schema


def array(items: Schema, **extra: Any) -> Schema:
    return {"type": "array", "items": items, **extra}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def mapping(keys: Iterable[str], values: Schema) -> Schema:
    """An object keyed by some of `keys` (e.g. ethos ids), every value matching `values`."""
    return {"type": "object", "propertyNames": {"enum": list(keys)}, "additionalProperties": values}


def enum(values: Iterable[str]) -> Schema:
    return {"type": "string", "enum": [str(value) for value in values]}


STRING = {"type": "string"}
STRINGS = array(STRING)
INTEGER = {"type": "integer"}
COUNT = {"type": "integer", "minimum": 0}
NUMBER = {"type": "number"}
FRACTION = {"type": "number", "minimum": 0, "maximum": 1}
BOOLEAN = {"type": "boolean"}
DATE = {"type": "string", "format": "date"}
SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
MODE = enum(MODES)
NO_EXECUTION = {"const": False, "description": "Always false: research only, no broker, no orders."}
VIEW_REF = closed({"managers": STRINGS, "mode": MODE}, description="The canonical view: managers sorted, mode.")


def envelope_schemas() -> dict[str, Schema]:
    """ApiMeta and the error envelope; `error.code` lists every ErrorCode."""
    return {
        "ApiMeta": closed({
            "apiVersion": {"const": API_VERSION},
            "contractVersion": {"const": CONTRACT_VERSION},
            "capability": {"type": "string", "description": "The operation id that answered, or 'router'."},
            "deprecated": {"const": False},
        }),
        "Error": closed({
            "code": {**enum(ErrorCode), "description": "Stable machine-readable code; see the README, section 'The OpenAPI document'."},
            "message": {"type": "string", "description": "Safe to show: never paths or stack traces."},
            "details": {"type": "object", "additionalProperties": True},
        }, optional=("details",)),
        "ErrorEnvelope": closed({"error": ref("Error"), "meta": ref("ApiMeta")}),
    }


def artifact_schemas() -> dict[str, Schema]:
    """The PackArtifact JSON Schema (builder/schemas/pack-artifact.schema.json), its $defs hoisted to components."""
    source = artifact_schema()
    defs = source.pop("$defs", {})
    for keyword in ("$schema", "$id"):  # an $id would re-base every $ref inside the component
        source.pop(keyword, None)
    hoisted = {artifact_name(name): _rebase(schema) for name, schema in defs.items()}
    return {"PackArtifact": _rebase(source), **hoisted}


def artifact_name(definition: str) -> str:
    return ARTIFACT_PREFIX + definition[0].upper() + definition[1:]


def artifact_properties(definition: str) -> dict[str, Schema]:
    """The properties of one of the PackArtifact's $defs, rebased, for payloads that extend it."""
    return _rebase(artifact_schema()["$defs"][definition]["properties"])


def _rebase(node: Any) -> Any:
    """`node` with every `#/$defs/x` reference pointing at the hoisted component instead."""
    if isinstance(node, list):
        return [_rebase(item) for item in node]
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("$ref"), str) and node["$ref"].startswith(ARTIFACT_DEFS):
        return {**node, "$ref": COMPONENTS + artifact_name(node["$ref"].removeprefix(ARTIFACT_DEFS))}
    return {key: _rebase(value) for key, value in node.items()}


def release_schemas() -> dict[str, Schema]:
    """Health, the pack catalog and version catalogs."""
    return {
        "Health": closed({
            "status": {**enum(("consumable", "degraded")), "description": "degraded while fixture or scope warnings exist."},
            "releaseId": STRING,
            "manifestSha256": SHA256,
            "asOf": DATE,
            "contractVersion": {"const": CONTRACT_VERSION},
            "fixture": BOOLEAN,
            "packs": array(closed({"id": STRING, "status": {"const": "available"}, "latestVersion": STRING, "asOf": DATE})),
            "warningCount": COUNT,
            "warnings": array(closed({"code": STRING, "message": STRING, "pack": STRING})),
            "executionEnabled": NO_EXECUTION,
        }),
        "PackCatalog": closed({"packs": array({"anyOf": [ref("AvailablePack"), ref("PlannedPack")]})}),
        "AvailablePack": _catalog_entry(
            "available", STRING, DATE, closed({"latest": STRING, "versions": STRING}), "An available pack: its routes answer."
        ),
        "PlannedPack": _catalog_entry(
            "planned", {"type": "null"}, {"type": "null"}, closed({}), "Announced, not served: its routes answer 404."
        ),
        "VersionCatalog": closed({
            "packId": STRING,
            "latestVersion": STRING,
            "versions": array({"anyOf": [ref("CopycatVersionReference"), ref("PreviewVersionReference")]},
                              description="Newest first."),
        }),
        "CopycatVersionReference": closed({
            "versionId": {"type": "string", "pattern": r"^multi-manager-[0-9]{4}-[0-9]{2}-[0-9]{2}-v[0-9]+\.[0-9]+$"},
            "quarter": DATE,
            "latest": BOOLEAN,
            "artifactSha256": {**SHA256, "description": "sha256 of the canonical PackArtifact bytes."},
        }),
        "PreviewVersionReference": closed({"versionId": STRING, "asOf": DATE, "latest": BOOLEAN}),
    }


def _catalog_entry(status: str, version: Schema, as_of: Schema, links: Schema, description: str) -> Schema:
    return closed({
        "id": STRING,
        "label": enum(PACK_LABELS),
        "title": STRING,
        "description": STRING,
        "features": array(enum(COPYCAT_FEATURES), uniqueItems=True),
        "status": {"const": status},
        "latestVersion": version,
        "asOf": as_of,
        "links": links,
    }, description=description)


def latest_schemas() -> dict[str, Schema]:
    """getLatestPack: the 13f-copycat answer (artifact, view, agent payload) or a preview pack's."""
    summary = closed({"id": STRING, "label": enum(PACK_LABELS), "title": STRING, "status": {"const": "available"}})
    return {
        "LatestPack": {"anyOf": [ref("CopycatLatestPack"), ref("PreviewLatestPack")]},
        "PackSummary": summary,
        "CopycatLatestPack": closed({
            "pack": ref("PackSummary"),
            "versionId": STRING,
            "artifact": ref("PackArtifact"),
            "manifestEntry": closed({"file": STRING, "sha256": SHA256},
                                    description="The release-manifest entry vouching for the artifact's bytes."),
            "managers": array(closed({"id": STRING, "name": STRING, "cik": STRING, "fictional": BOOLEAN})),
            "modes": array(MODE),
            "view": ref("View"),
            "agentPayload": ref("AgentPayload"),
            "limitations": STRINGS,
        }, description=f"The latest {PACK_ID} version."),
        "PreviewLatestPack": closed({
            "pack": ref("PackSummary"),
            "versionId": STRING,
            "artifact": ref("PreviewArtifact"),
            "agentPayload": ref("PreviewAgentPayload"),
            "caveats": STRINGS,
            "limitations": STRINGS,
        }, description="A preview pack: caveats stay attached."),
        "View": closed({"managers": STRINGS, "mode": MODE, "tickerCount": COUNT, "tickers": array(ref("ViewTicker"))}),
        "ViewTicker": closed({
            "ticker": STRING,
            "cusip": STRING,
            "issuer": STRING,
            "managers": array(ref("ViewPosition")),
            "holders": STRINGS,
            "holderCount": COUNT,
            "value": COUNT,
            "buyers": STRINGS,
            "sellers": STRINGS,
        }, description="One ticker of a view: every selected manager's position or exit, holders, buyers, sellers."),
        "ViewPosition": closed({
            "managerId": STRING,
            "shares": COUNT,
            "value": COUNT,
            "weight": FRACTION,
            "change": enum(("new", "added", "reduced", "unchanged", "exited", "unknown")),
            "shareDelta": nullable(INTEGER),
        }),
        "AgentPayload": closed({
            "summary": STRING,
            "quarter": DATE,
            "versionId": STRING,
            "topByValue": array(closed({
                "ticker": STRING, "issuer": STRING, "holders": STRINGS, "value": COUNT, "buyers": STRINGS, "sellers": STRINGS,
            })),
            "warnings": STRINGS,
            "executionEnabled": NO_EXECUTION,
        }, description="A compact summary for an agent: the view's top tickers by value and the artifact's warnings."),
    }
