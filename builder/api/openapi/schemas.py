"""Component schemas of the OpenAPI document: small builders, envelopes, the PackArtifact, latest and views.

Health, the pack catalog and version catalogs are generated from their types (builder.api.shapes).

Schemas are closed (`additionalProperties: false`) wherever the payload's shape is fixed, so a payload
that grows or loses a field fails the response tests instead of drifting away from its description.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, get_args

import orjson

from builder.api.shapes import PackLabel
from builder.api.wire import API_PREFIX, API_VERSION, CONTRACT_VERSION, ErrorCode
from builder.research.schema import DEFINITIONS, PackArtifact, artifact_schema
from builder.research.versions import PACK_ID
from builder.research.views import MODES
from builder.research.views import SHAPES as VIEW_SHAPES
from builder.typed import object_schemas

Schema = dict[str, Any]
COMPONENTS = "#/components/schemas/"
ARTIFACT_DEFS = "#/$defs/"
PACK_LABELS = get_args(PackLabel)
ARTIFACT_PREFIX = "Artifact"  # the PackArtifact's $defs become components ArtifactPosition, ArtifactFiling, …
DISCRIMINATOR = "kind"  # the field that tells the artifact's unions apart (a change's kind)


def unshared(node: Any) -> Any:
    """A copy of a schema tree in which no two places share an object. copy.deepcopy keeps shared references
    shared (STRING used by forty fields stays one dict), so describing one field would describe all of them."""
    return orjson.loads(orjson.dumps(node))


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
    """An object keyed by ids such as `keys` (ethos ids, feature names: open, more may be published), every value
    matching `values`."""
    return {"type": "object", "propertyNames": open_id(keys), "additionalProperties": values}


def open_id(known: Iterable[str]) -> Schema:
    """An id of a set that grows (ethos ids, check ids, error codes): any string, the known ones as examples, so a
    client generated today still parses an answer that names one published later."""
    return {"type": "string", "examples": [str(value) for value in known]}


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
        "ApiMeta": closed(
            {
                "apiVersion": {"const": API_VERSION},
                "contractVersion": {"const": CONTRACT_VERSION},
                "capability": {"type": "string", "description": "The operation id that answered, or 'router'."},
                "deprecated": {"const": False},
            }
        ),
        "Error": error_detail(list(ErrorCode), "An error: its stable code, a message for people, details."),
        "ErrorEnvelope": closed(
            {"error": ref("Error"), "meta": ref("ApiMeta")},
            description="Every answer other than 200 and 304 (contract section 2.1).",
        ),
    }


def error_detail(codes: Iterable[str], description: str) -> Schema:
    """The `error` object of the envelope, its code one of `codes`."""
    return closed(
        {
            "code": {
                **open_id(codes),
                "description": "Stable machine-readable code (the examples are this status's "
                "codes today; see info.description for the table).",
            },
            "message": {"type": "string", "description": "For people; safe to show: never paths or stack traces."},
            "details": {
                "type": "object",
                "additionalProperties": True,
                "description": "Which parameter, id or body path is at fault, when the code alone does not say.",
            },
        },
        optional=("details",),
        description=description,
    )


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


def typed_schemas(shapes: dict[str, Any]) -> dict[str, Schema]:
    """The components of payload types (builder.typed), a field of an artifact type a `$ref` to its component."""
    artifact = {PackArtifact: "PackArtifact", **{shape: artifact_name(name) for name, shape in DEFINITIONS.items()}}
    return object_schemas(shapes, artifact)


def artifact_properties(definition: str) -> dict[str, Schema]:
    """The properties of one of the PackArtifact's $defs, rebased, for payloads that extend it."""
    return _rebase(artifact_schema()["$defs"][definition]["properties"])


def _rebase(node: Any) -> Any:
    """`node` with every `#/$defs/x` reference pointing at the hoisted component instead, and every if/then/else
    on a discriminating field made a oneOf with a discriminator (generators type if/then/else as unknown)."""
    return discriminated(
        rebased(node, ARTIFACT_DEFS, lambda name: COMPONENTS + artifact_name(name)), artifact_schema()["$defs"]
    )


def discriminated(node: Any, defs: dict[str, Schema]) -> Any:
    """`node` with each union of the artifact's definitions on their `kind` — a `oneOf` of references, or an
    `{if: {properties: {kind: {const: v}}}, then: A, else: B}` — made a `oneOf` with a discriminator (kind value
    → reference), which generators type as a union a `kind` check narrows."""
    if isinstance(node, list):
        return [discriminated(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if set(node.get("if", {}).get("properties", {})) == {DISCRIMINATOR} and "$ref" in node.get("then", {}):
        node = {"oneOf": [node["then"], node["else"]]}
    branches = node.get("oneOf")
    if isinstance(branches, list) and branches and all(_kinds(branch, defs) for branch in branches):
        mapping = {value: branch["$ref"] for branch in branches for value in _kinds(branch, defs)}
        return {**node, "discriminator": {"propertyName": DISCRIMINATOR, "mapping": mapping}}
    return {key: discriminated(value, defs) for key, value in node.items()}


def _kinds(branch: Any, defs: dict[str, Schema]) -> list[str]:
    """The `kind` values of the artifact definition a hoisted reference names ([] when it is not one)."""
    reference = branch.get("$ref", "") if isinstance(branch, dict) else ""
    if not reference.startswith(COMPONENTS + ARTIFACT_PREFIX):
        return []
    name = reference.removeprefix(COMPONENTS + ARTIFACT_PREFIX)
    kind = defs.get(name[0].lower() + name[1:], {}).get("properties", {}).get(DISCRIMINATOR, {})
    return [kind["const"]] if "const" in kind else list(kind.get("enum", []))


def rebased(node: Any, source: str, target: Callable[[str], str]) -> Any:
    """`node` with every `$ref` that starts with `source` replaced by `target` of the name after it."""
    if isinstance(node, list):
        return [rebased(item, source, target) for item in node]
    if not isinstance(node, dict):
        return node
    if isinstance(node.get("$ref"), str) and node["$ref"].startswith(source):
        return {**node, "$ref": target(node["$ref"].removeprefix(source))}
    return {key: rebased(value, source, target) for key, value in node.items()}


def latest_schemas() -> dict[str, Schema]:
    """getLatestPack: the 13f-copycat answer (artifact, view, agent payload) or a preview pack's."""
    summary = closed({"id": STRING, "label": enum(PACK_LABELS), "title": STRING, "status": {"const": "available"}})
    return {
        "LatestPack": {"anyOf": [ref("CopycatLatestPack"), ref("PreviewLatestPack")]},
        "PackSummary": summary,
        "CopycatLatestPack": closed(
            {
                "pack": ref("PackSummary"),
                "versionId": STRING,
                "artifact": ref("PackArtifact"),
                "manifestEntry": closed(
                    {"file": STRING, "sha256": SHA256},
                    description="The release-manifest entry vouching for the artifact's bytes.",
                ),
                "managers": array(closed({"id": STRING, "name": STRING, "cik": STRING, "fictional": BOOLEAN})),
                "modes": array(MODE),
                "view": ref("View"),
                "agentPayload": ref("AgentPayload"),
                "limitations": STRINGS,
            },
            description=f"The latest {PACK_ID} version.",
        ),
        "PreviewLatestPack": closed(
            {
                "pack": ref("PackSummary"),
                "versionId": STRING,
                "artifact": ref("PreviewArtifact"),
                "agentPayload": ref("PreviewAgentPayload"),
                "caveats": STRINGS,
                "limitations": STRINGS,
            },
            description="A preview pack: caveats stay attached.",
        ),
        **typed_schemas(VIEW_SHAPES),
    }


OPENAPI_VERSION = "3.1.0"


def raw_document_schema() -> Schema:
    """getOpenApiDocument's answer: this document, raw (no envelope)."""
    operation = {
        "type": "object",
        "required": ["operationId", "responses"],
        "description": "An operation.",
        "properties": {
            "operationId": {"type": "string", "description": "The operation id."},
            "x-tool-name": {"type": "string", "description": "The MCP tool that answers it."},
        },
    }
    text = {"type": "string", "description": "What it is."}
    schema = {"type": "object", "description": "A JSON Schema.", "properties": {"description": text}}
    header = {
        "type": "object",
        "description": "A header.",
        "required": ["schema"],
        "properties": {"description": text, "schema": schema},
    }
    document = {
        "type": "object",
        "required": ["openapi", "info", "paths", "components"],
        "properties": {
            "openapi": {"const": OPENAPI_VERSION},
            "info": {
                "type": "object",
                "required": ["title", "version"],
                "properties": {"title": {"type": "string"}, "version": {"const": CONTRACT_VERSION}},
            },
            "paths": {
                "type": "object",
                "propertyNames": {"pattern": "^" + API_PREFIX + "/"},
                "additionalProperties": {
                    "type": "object",
                    "propertyNames": {"enum": ["get", "post"]},
                    "additionalProperties": operation,
                },
            },
            "components": {
                "type": "object",
                "required": ["schemas"],
                "properties": {
                    "schemas": {"type": "object", "additionalProperties": schema},
                    "headers": {"type": "object", "additionalProperties": header},
                },
            },
        },
        "description": "This OpenAPI 3.1 document, raw (no envelope).",
    }
    return document
