"""The OpenAPI 3.1 document of /api/v1, generated from the one operation table (builder.contract.OPERATIONS).

Paths, operation ids, parameters, request bodies, statuses and MCP tool names all come from the table;
the payload schemas come from builder.api.openapi.schemas and its siblings. Same code, same document: it is
built from constants only, so its bytes (and ETag) change only when the code does.
"""

from __future__ import annotations

from typing import Any

from builder.api.contract import OPERATIONS, RESEARCH_REQUEST, VIEW_REQUEST, Operation, Param
from builder.api.data import ReleaseData
from builder.api.openapi.glossary import describe
from builder.api.openapi.schemas import (
    OPENAPI_VERSION,
    Schema,
    artifact_schemas,
    envelope,
    envelope_schemas,
    error_detail,
    raw_document_schema,
    ref,
    typed_schemas,
    unshared,
)
from builder.api.openapi.text import (
    BODY_CODES,
    ERROR_CODES,
    GET_NOTE,
    POST_NOTE,
    STATUS_TEXT,
    UNAVAILABLE_NOTE,
    URL_CODES,
)
from builder.api.openapi.values import ReleaseValues, body_schema, parameter_example, parameter_schema, release_values
from builder.api.wire import (
    API_PREFIX,
    CONTRACT_VERSION,
    GET_CACHE_CONTROL,
    JSON_TYPE,
    POST_CACHE_CONTROL,
    Data,
    Envelope,
    ErrorCode,
    ErrorDetail,
    ErrorEnvelope,
)
from builder.research.versions import PACK_ID

# The API root relative to this document (served at <root>/api/v1/openapi.json): a client resolving it against
# the document's own URL reaches the server it read the document from, behind any host or path prefix.
SERVERS = [{"url": "../..", "description": "The server this document was read from."}]
IF_NONE_MATCH = {
    "name": "If-None-Match",
    "in": "header",
    "required": False,
    "description": "ETags of answers the client holds (a list, W/ weak comparison and * accepted): when one is "
    "the current ETag, the answer is 304 with no body (RFC 9110 section 13.1.2).",
    "schema": {"type": "string"},
    "example": '"' + "0" * 64 + '"',
}
BODIES = (("ResearchRequest", RESEARCH_REQUEST), ("ViewRequest", VIEW_REQUEST))
BODY_EXAMPLES = {
    "ResearchRequest": {"mode": "overlap", "ethosIds": ["breadth", "conviction"]},
    "ViewRequest": {"mode": "overlap"},
}
PARAM_EXAMPLES = {  # illustrative values in the shapes the contract names (section 2.3)
    "packId": PACK_ID,
    "ticker": "AAPL",
    "from": "multi-manager-2026-06-30-v2.0",
    "to": "multi-manager-2026-09-30-v2.0",
    "mode": "overlap",
}
TAGS = {
    "release": "Release health and this document.",
    "packs": "Pack catalog, artifacts, versions, diffs, explanations and audit exports.",
    "research": "Investing methodologies (ethos) and research policy checks.",
}
HEADERS = {
    "ETag": (
        "A strong validator derived from the bytes alone: the same bytes have the same ETag in every release.",
        {"type": "string", "pattern": '^"[0-9a-f]{64}"$'},
    ),
    "ServiceApiVersion": ("The REST API version (contract section 9).", {"type": "string", "const": "v1"}),
    "CacheControlRevalidate": (
        "Caches may store the answer but must revalidate it.",
        {"type": "string", "const": GET_CACHE_CONTROL},
    ),
    "CacheControlNoStore": ("Not cacheable.", {"type": "string", "const": POST_CACHE_CONTROL}),
}


def openapi_document(data: ReleaseData | None = None) -> dict[str, Any]:
    """The whole document: info, tags, one path item per route, components. A fresh copy: callers may change it.

    With a release's data, its parameters and request bodies enumerate the ids that release answers for.
    """
    values = release_values(data) if data is not None else None
    paths: dict[str, dict[str, Any]] = {}
    for operation in OPERATIONS:
        paths.setdefault(operation.route, {})[operation.method.lower()] = _operation(operation, values)
    document = {
        "openapi": OPENAPI_VERSION,
        "info": _info(),
        "servers": SERVERS,
        "tags": [{"name": name, "description": text} for name, text in TAGS.items()],
        "paths": paths,
        "components": {
            "schemas": describe({**component_schemas(), **_request_schemas(values)}),
            "headers": {
                name: {"description": text, "required": True, "schema": schema}
                for name, (text, schema) in HEADERS.items()
            },
        },
    }
    copy: dict[str, Any] = unshared(document)  # a fresh copy for the caller, with no object shared between two places
    return copy


def _tag(operation: Operation) -> str:
    segment = operation.path.split("/")[1]
    return "packs" if segment == "packs" else "release" if segment in ("health", "openapi.json") else "research"


def _info() -> dict[str, Any]:
    rows = "\n".join(f"| `{code}` | {status} | {text} |" for code, (status, text) in ERROR_CODES.items())
    return {
        "title": "Research Artifact Service",
        "version": CONTRACT_VERSION,
        "summary": "Read-only, versioned, source-backed research artifacts about investment filings.",
        "description": (
            "Research only: no credentials, no brokerage connection, no orders; executionEnabled is always false. "
            f"Every versioned JSON success is the envelope {{data, meta}}; every error is {{error, meta}} with a "
            f"stable error.code; {API_PREFIX}/openapi.json is this document, raw. Each operation's x-tool-name is "
            "the local MCP tool that answers it with the same bytes.\n\n| error.code | status | meaning |\n|---|---|---|\n"
            + rows
        ),
    }


def _operation(operation: Operation, values: ReleaseValues | None) -> dict[str, Any]:
    notes = [
        operation.description,
        operation.decision,
        GET_NOTE if operation.method == "GET" else POST_NOTE,
        UNAVAILABLE_NOTE,
    ]
    entry: dict[str, Any] = {
        "operationId": operation.id,
        "summary": operation.summary,
        "description": " ".join(note for note in notes if note),
        "tags": [_tag(operation)],
    }
    parameters = [_parameter(param, operation, values) for param in operation.params]
    if operation.method == "GET":
        parameters.append(dict(IF_NONE_MATCH))
    entry["parameters"] = parameters
    if operation.body is not None:
        name = next(name for name, schema in BODIES if schema is operation.body)
        content = {"schema": ref(name), "example": BODY_EXAMPLES[name]}
        entry["requestBody"] = {"required": True, "content": {JSON_TYPE: content}}
    entry["responses"] = {str(status): _response(operation, status) for status in statuses(operation)}
    if operation.tool:
        entry["x-tool-name"] = operation.tool
    return entry


def statuses(operation: Operation) -> list[int]:
    """The table's statuses plus what every route of its method can answer."""
    found = set(operation.statuses) | {503}  # release_unavailable: the server answers it on every route
    # A GET with an unknown query parameter is 400 unknown_parameter; a POST body can be malformed or too large.
    found |= {304, 400} if operation.method == "GET" else {400, 413}
    return sorted(found)


def _response(operation: Operation, status: int) -> dict[str, Any]:
    text = operation.status_text.get(status, STATUS_TEXT[status])
    if status == 400 and operation.method == "GET" and not operation.params:
        text = "The operation takes no query parameters."
    get = operation.method == "GET"
    if status == 304:
        return {"description": text, "headers": _headers("ETag", "CacheControlRevalidate")}
    if status == 200:
        name = operation.payload if not operation.envelope else envelope_name(operation)
        headers = _headers("ETag", "CacheControlRevalidate") if get else _headers("CacheControlNoStore")
        return {"description": text, "headers": headers, "content": {JSON_TYPE: {"schema": ref(name)}}}
    return {
        "description": f"{text} error.code: {', '.join(error_codes(operation, status))}.",
        "headers": _headers("CacheControlNoStore"),
        "content": {JSON_TYPE: {"schema": ref(f"Error{status}")}},
    }


def error_codes(operation: Operation, status: int) -> list[str]:
    """The codes an operation's answer of `status` can carry: body codes for POSTs, URL codes for GETs."""
    if operation.method == "GET" and status == 400 and not operation.params:
        return [str(ErrorCode.UNKNOWN_PARAMETER)]
    excluded = set(BODY_CODES if operation.method == "GET" else URL_CODES - {ErrorCode.UNKNOWN_PARAMETER})
    if operation.body is not None and "ethosIds" not in operation.body["properties"]:
        excluded.add(ErrorCode.UNKNOWN_ETHOS)
    return [
        str(code) for code, (code_status, _) in ERROR_CODES.items() if code_status == status and code not in excluded
    ]


def _headers(*names: str) -> dict[str, Any]:
    wire = {"ETag": "ETag", "CacheControlRevalidate": "Cache-Control", "CacheControlNoStore": "Cache-Control"}
    chosen = {wire[name]: name for name in names}
    chosen["X-Service-API-Version"] = "ServiceApiVersion"
    return {header: {"$ref": f"#/components/headers/{name}"} for header, name in chosen.items()}


def envelope_name(operation: Operation) -> str:
    return operation.id[0].upper() + operation.id[1:] + "Response"


def component_schemas() -> dict[str, Schema]:
    """Every schema the document names; two modules defining one name is a programming error."""
    parts = [envelope_schemas(), artifact_schemas(), typed_schemas(), _envelopes(), _errors()]
    schemas: dict[str, Schema] = {}
    for part in parts:
        clash = schemas.keys() & part.keys()
        assert not clash, f"component schemas defined twice: {sorted(clash)}"
        schemas.update(part)
    # Unshared first: a schema may share an object between two places, which must not take one field's text.
    return describe(unshared(dict(sorted(schemas.items()))))


def _request_schemas(values: ReleaseValues | None) -> dict[str, Schema]:
    return {name: body_schema(unshared(schema), values) for name, schema in BODIES}


def _envelopes() -> dict[str, Schema]:
    """Each enveloped operation's success body, meta.capability naming the operation; the raw document's shape."""
    envelopes = {
        envelope_name(op): envelope(
            Envelope, f"The success envelope of {op.id}: meta.capability is '{op.id}'.", {Data: op.payload}
        )
        for op in OPERATIONS
        if op.envelope
    }
    return {**envelopes, "OpenApiDocument": raw_document_schema()}


def _errors() -> dict[str, Schema]:
    """The error envelope of each status, its error.code narrowed to the codes of that status."""
    by_status: dict[int, list[str]] = {}
    for code, (status, _) in ERROR_CODES.items():
        by_status.setdefault(status, []).append(str(code))
    schemas: dict[str, Schema] = {}
    for status, codes in by_status.items():
        schemas[f"Error{status}"] = envelope(
            ErrorEnvelope, f"The error envelope of a {status} answer.", {ErrorDetail: f"Error{status}Detail"}
        )
        schemas[f"Error{status}Detail"] = error_detail(codes, f"The error of a {status} answer.")
    return schemas


def _parameter(param: Param, operation: Operation, values: ReleaseValues | None) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "name": param.name,
        "in": param.location,
        "required": param.required,
        "description": param.description,
        "schema": unshared(parameter_schema(param, operation, values)),
    }
    if param.schema.get("type") == "array":  # ?managers=a&managers=b; the server also splits a,b on commas
        entry.update(style="form", explode=True)
    example = parameter_example(param, operation, values)
    if example is None:
        example = PARAM_EXAMPLES.get(param.name)
    if example is not None:
        entry["example"] = example
    return entry
