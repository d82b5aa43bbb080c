"""Component schemas of the OpenAPI document: small builders, envelopes, the PackArtifact, catalog and views.

Schemas are closed (`additionalProperties: false`) wherever the payload's shape is fixed, so a payload
that grows or loses a field fails the response tests instead of drifting away from its description.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from builder.api.contract import COPYCAT_FEATURES
from builder.api.wire import API_VERSION, CONTRACT_VERSION, ErrorCode
from builder.research.agent import BUDGET_BYTES as AGENT_BUDGET_BYTES
from builder.research.artifact import PACK_ID
from builder.research.changes import CAUSES, CHANGE_KINDS
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
        "Error": error_detail(list(ErrorCode), "An error: its stable code, a message for people, details."),
        "ErrorEnvelope": closed({"error": ref("Error"), "meta": ref("ApiMeta")},
                                description="Every answer other than 200 and 304 (contract section 2.1)."),
    }


def error_detail(codes: Iterable[str], description: str) -> Schema:
    """The `error` object of the envelope, its code one of `codes`."""
    return closed({
        "code": {**enum(codes), "description": "Stable machine-readable code; see info.description for the table."},
        "message": {"type": "string", "description": "For people; safe to show: never paths or stack traces."},
        "details": {"type": "object", "additionalProperties": True,
                    "description": "Which parameter, id or body path is at fault, when the code alone does not say."},
    }, optional=("details",), description=description)


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
    return rebased(node, ARTIFACT_DEFS, lambda name: COMPONENTS + artifact_name(name))


def rebased(node: Any, source: str, target: Callable[[str], str]) -> Any:
    """`node` with every `$ref` that starts with `source` replaced by `target` of the name after it."""
    if isinstance(node, list):
        return [rebased(item, source, target) for item in node]
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("$ref"), str) and node["$ref"].startswith(source):
        return {**node, "$ref": target(node["$ref"].removeprefix(source))}
    return {key: rebased(value, source, target) for key, value in node.items()}


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
            "warnings": array(closed({"code": STRING, "message": STRING, "pack": STRING, "manager": nullable(STRING),
                                      "quarter": nullable(DATE), "accession": nullable(STRING)})),
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
        "View": closed({"managers": STRINGS, "mode": MODE, "tickerCount": COUNT, "tickers": array(ref("ViewTicker")),
                        "warnings": array(ref("ArtifactWarning"))}),
        "ViewTicker": closed({
            "ticker": STRING,
            "tickerAsOf": enum(("quarter-end", "current", "unmapped")),
            "cusip": STRING,
            "issuer": STRING,
            "managers": array(ref("ViewPosition")),
            "holders": STRINGS,
            "holderCount": COUNT,
            "value": COUNT,
            "buyers": STRINGS,
            "sellers": STRINGS,
        }, description="One ticker of a view: every selected manager's position or ended one, holders, buyers, sellers."),
        "ViewPosition": closed({
            "managerId": STRING,
            "held": BOOLEAN,
            "shares": COUNT,
            "value": COUNT,
            "weight": FRACTION,
            "change": enum(CHANGE_KINDS),
            "cause": enum(CAUSES),
            "shareDelta": nullable(INTEGER),
        }),
        **agent_payload_schemas(),
    }


def agent_payload_schemas() -> dict[str, Schema]:
    """The 13f-copycat agent payload (builder.research.agent): bounded, whatever the number of managers."""
    leaders = array(closed({"ticker": STRING, "score": {"type": "number", "minimum": 0, "maximum": 100}}))
    move = closed({
        "ticker": STRING,
        "shareDelta": INTEGER,
        "valueDelta": INTEGER,
        "kinds": mapping(CHANGE_KINDS, COUNT),
    }, description="A ticker's net change over the selected managers, and how many made each kind of change.")
    return {
        "AgentPayload": closed({
            "summary": STRING,
            "versionId": STRING,
            "quarter": DATE,
            "view": closed({"mode": MODE, "managerCount": COUNT, "tickerCount": COUNT}),
            "headline": array(ref("AgentHolding")),
            "changes": nullable(ref("AgentChanges")),
            "ethosLeaders": {"type": "object", "additionalProperties": leaders},
            "policy": ref("AgentPolicy"),
            "warningCount": COUNT,
            "warnings": STRINGS,
            "limitations": STRINGS,
            "executionEnabled": NO_EXECUTION,
        }, description=f"What an agent reads first, at most {AGENT_BUDGET_BYTES} bytes of canonical JSON at any "
                       "number of managers; the full view, artifact and audit are beside it."),
        "AgentHolding": closed({
            "ticker": STRING,
            "issuer": STRING,
            "value": COUNT,
            "weight": FRACTION,
            "holderCount": COUNT,
            "topHolders": array(closed({
                "managerId": STRING, "weight": {**FRACTION, "description": "Of the manager's 13F book."},
                "change": enum(CHANGE_KINDS),
                "accession": nullable(STRING),
            })),
        }, description="A headline holding: its weight in the view's total value and its largest holders."),
        "AgentChanges": closed({
            "fromVersionId": STRING,
            "enteredCount": COUNT,
            "entered": STRINGS,
            "leftCount": COUNT,
            "left": STRINGS,
            "largestIncreases": array(move),
            "largestDecreases": array(move),
        }, description="Since the previous version, over the same view."),
        "AgentPolicy": closed({
            "signal": enum(("research-only", "no-signal")),
            "blockingReasonCount": COUNT,
            "blockingReasons": STRINGS,
            "warningCount": COUNT,
            "warnings": STRINGS,
            "executionEnabled": NO_EXECUTION,
        }, description="The policy result in brief; validatePolicy gives every check."),
    }
