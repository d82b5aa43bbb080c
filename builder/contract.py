"""The one table of the service's operations (contract §4.2) and the rules that canonicalise a request.

The OpenAPI document, the aiohttp routes, the MCP tools and the builder's list of precomputed GET
answers are all generated from OPERATIONS; nothing here is written twice elsewhere.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from functools import cache

from jsonschema import Draft202012Validator

from builder import handlers, methods
from builder.api import API_PREFIX, ApiError, ErrorCode
from builder.release_data import ReleaseData
from builder.research.artifact import PACK_ID
from builder.research.ethos import canonical_ethos_ids
from builder.research.views import DEFAULT_MODE, MODES

Handler = Callable[[ReleaseData, dict[str, Any]], Any]
PACK_ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,63}$"
TICKER_PATTERN = r"^[A-Z0-9][A-Z0-9.\-]{0,11}$"  # exchange tickers (BRK.B, BF-B) and 9-character CUSIPs
VERSION_PATTERN = r"^[a-z0-9][a-z0-9.\-]{0,79}$"
MAX_MANAGER_VALUES = 256  # more values than any pack has managers is a malformed request, not a view
MAX_TICKERS = 1000  # a view holds at most a few thousand tickers; a longer list is a malformed request
MANAGER_ID_SCHEMA = {"type": "string", "pattern": r"^[a-z0-9][a-z0-9-]{0,63}$"}


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    location: str  # "path" or "query"
    schema: dict[str, Any]
    description: str
    required: bool = False


@dataclass(frozen=True, slots=True)
class Operation:
    id: str
    method: str
    path: str  # under API_PREFIX, with {name} path parameters
    tool: str | None
    summary: str
    description: str
    params: tuple[Param, ...]
    statuses: tuple[int, ...]
    handler: Handler
    feature: str | None = None  # the pack feature the operation needs (422 without it)
    view: bool = False  # takes the shared view parameters `managers` and `mode`
    sealed: bool = False  # its answer names the release (health, audit): rendered after the manifest
    precompute: Callable[[ReleaseData], Iterable[dict[str, Any]]] | None = None
    body: dict[str, Any] | None = None  # JSON Schema of a POST body
    envelope: bool = True  # False only for the raw OpenAPI document

    @property
    def route(self) -> str:
        return API_PREFIX + self.path

    def request_key(self, params: dict[str, Any]) -> str:
        """The canonical request of `params`: path plus query in table order, defaults omitted."""
        path = self.route.format(**{p.name: params[p.name] for p in self.params if p.location == "path"})
        query = [
            f"{p.name}={','.join(params[p.name]) if p.name == 'managers' else params[p.name]}"
            for p in self.params
            if p.location == "query" and p.name in params
        ]
        return path + ("?" + "&".join(query) if query else "")


PACK_PARAM = Param("packId", "path", {"type": "string", "pattern": PACK_ID_PATTERN}, "A pack id from listPacks.", True)
MANAGERS_PARAM = Param(
    "managers",
    "query",
    {"type": "array", "items": MANAGER_ID_SCHEMA, "maxItems": MAX_MANAGER_VALUES},
    "Manager ids to include; repeat the parameter or separate ids with commas. Default: all managers. "
    "Canonicalised (trimmed, de-duplicated, sorted; all managers is the same view as none).",
)
MODE_PARAM = Param(
    "mode",
    "query",
    {"type": "string", "enum": list(MODES), "default": DEFAULT_MODE},
    "any: held by at least one selected manager (default, the complete dataset); overlap: by at least two "
    "(by the one, if only one is selected); exclusive: by exactly one; disagreement: in the quarter at least "
    "one selected manager bought (new/added) and at least one sold (reduced/exited).",
)
VIEW_PARAMS = (MANAGERS_PARAM, MODE_PARAM)
_VIEW_BODY = {
    "packId": {"type": "string", "default": PACK_ID, "description": "Only 13f-copycat supports recalculation."},
    "managerIds": {"type": "array", "items": MANAGER_ID_SCHEMA, "maxItems": MAX_MANAGER_VALUES,
                   "description": "Manager ids to include; empty or omitted: all managers."},
    "mode": {"type": "string", "enum": list(MODES), "default": DEFAULT_MODE},
}
VIEW_REQUEST = {"type": "object", "additionalProperties": False, "properties": _VIEW_BODY}
RESEARCH_REQUEST = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        **_VIEW_BODY,
        "ethosIds": {"type": "array", "minItems": 1, "maxItems": 32, "items": {"type": "string", "maxLength": 64},
                     "description": "Ethos ids from listEthos; omitted: all."},
        "tickers": {"type": "array", "maxItems": MAX_TICKERS,
                    "items": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9.\-]{0,11}$"},
                    "description": "Tickers of the view whose scores to return; omitted: all."},
    },
}


def _default_only(data: ReleaseData) -> Iterable[dict[str, Any]]:
    yield {}


def _available_packs(data: ReleaseData) -> Iterable[dict[str, Any]]:
    for pack in data.index["packs"]:
        if pack["status"] == "available":
            yield {"packId": pack["id"]}


def _mode_params(mode: str) -> dict[str, Any]:
    return {} if mode == DEFAULT_MODE else {"mode": mode}


def _latest_views(data: ReleaseData) -> Iterable[dict[str, Any]]:
    for pack in _available_packs(data):
        modes = MODES if pack["packId"] == PACK_ID else (DEFAULT_MODE,)
        for mode in modes:
            yield {**pack, **_mode_params(mode)}


def _view_tickers(data: ReleaseData) -> Iterable[dict[str, Any]]:
    for mode in MODES:
        for row in methods.view_of(data, data.versions[-1], [], mode)["tickers"]:
            yield {"packId": PACK_ID, "ticker": row["ticker"], **_mode_params(mode)}


def _version_pairs(data: ReleaseData) -> Iterable[dict[str, Any]]:
    for older, newer in combinations(data.versions, 2):
        for mode in MODES:
            yield {"packId": PACK_ID, "from": older, "to": newer, **_mode_params(mode)}


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "getHealth", "GET", "/health", "get_health", "Release health",
        "The last atomically promoted immutable release: id, as-of date, manifest sha256, packs and scope "
        "warnings. 'degraded' while fixture or scope warnings exist, else 'consumable'; 503 when no release "
        "is consumable (missing, or a file fails its manifest hash).",
        (), (200, 304, 503), handlers.get_health, sealed=True, precompute=_default_only,
    ),
    Operation(
        "getOpenApiDocument", "GET", "/openapi.json", None, "OpenAPI document",
        "The raw OpenAPI 3.1 document of /api/v1 (no envelope), generated from this operation table; each "
        "operation's x-tool-name names the MCP tool that answers it.",
        (), (200, 304), handlers.get_openapi_document, precompute=_default_only, envelope=False,
    ),
    Operation(
        "listPacks", "GET", "/packs", "list_packs", "Pack catalog",
        "Available and planned packs with label, status, links (available packs only) and latest version.",
        (), (200, 304), handlers.list_packs, precompute=_default_only,
    ),
    Operation(
        "getLatestPack", "GET", "/packs/{packId}/latest", "get_latest_pack", "Latest artifact of a pack",
        "The latest PackArtifact, its release-manifest entry, the managers and view modes, the selected view "
        "and an agent-ready payload, with limitations attached. Preview packs take no view parameters (400).",
        (PACK_PARAM, *VIEW_PARAMS), (200, 304, 400, 404, 503), handlers.get_latest_pack,
        view=True, precompute=_latest_views,
    ),
    Operation(
        "listPackVersions", "GET", "/packs/{packId}/versions", "list_pack_versions", "Versions of a pack",
        "Immutable version references, newest first, marking the current latest version.",
        (PACK_PARAM,), (200, 304, 404), handlers.list_pack_versions, precompute=_available_packs,
    ),
    Operation(
        "compareVersions", "GET", "/packs/{packId}/versions/diff", "compare_versions", "Compare two versions",
        "Semantic diff of two versions over one view: tickers that entered or left the view, per-manager "
        "position changes, source changes. States what changed, never why. 'from' must be earlier than 'to'.",
        (
            PACK_PARAM,
            Param("from", "query", {"type": "string", "pattern": VERSION_PATTERN}, "The earlier version id.", True),
            Param("to", "query", {"type": "string", "pattern": VERSION_PATTERN}, "The later version id.", True),
            *VIEW_PARAMS,
        ),
        (200, 304, 400, 404, 422), methods.compare_versions, feature="diff", view=True, precompute=_version_pairs,
    ),
    Operation(
        "explainPosition", "GET", "/packs/{packId}/positions/{ticker}/explanation", "explain_position",
        "Explain one position",
        "For a ticker of the selected view in the latest version: each selected manager's structured change, "
        "evidence statements citing source rows by accession number, ethos scores, the overlap result, the "
        "matching source records and limitations. 404 when the ticker is not in the view.",
        (
            PACK_PARAM,
            Param("ticker", "path", {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9.\-]{0,11}$"},
                  "Ticker (or CUSIP of an unmapped security) in the selected view; case-insensitive.", True),
            *VIEW_PARAMS,
        ),
        (200, 304, 400, 404, 422), methods.explain_position, feature="explain", view=True, precompute=_view_tickers,
    ),
    Operation(
        "listEthos", "GET", "/ethos", "list_ethos", "Investing methodologies",
        "Every ethos: id, public name, principles and the scoring configuration (features with formulas and "
        "denominators, weights, normalisation, top-set size) that fully determines its 0–100 scores.",
        (), (200, 304), methods.list_ethos, precompute=_default_only,
    ),
    Operation(
        "compareEthos", "POST", "/ethos/compare", "compare_ethos", "Compare methodology scores",
        "Recalculates, for the latest 13f-copycat version and the selected view, per-ticker scores of the "
        "selected ethos (all when ethosIds is omitted) and their overlap: tickers in every selected top set "
        "and pairwise agreement (Jaccard). managerIds empty or omitted means all managers. 'tickers' narrows "
        "the scores (404 when one is not in the view). Only 13f-copycat supports it (422 otherwise).",
        (), (200, 400, 404, 413, 422), methods.compare_ethos, feature="ethos", body=RESEARCH_REQUEST,
    ),
    Operation(
        "validatePolicy", "POST", "/policy/validate", "validate_policy", "Recalculate policy checks",
        "Recalculates the research policy checks over the selected view of the latest 13f-copycat version: "
        "each check pass / warn / block with its reason, blocking reasons, warnings; executionEnabled is always "
        "false. An empty view blocks (no signal: stay in cash).",
        (), (200, 400, 413, 422), methods.validate_policy, feature="policy", body=VIEW_REQUEST,
    ),
    Operation(
        "exportAuditTrail", "GET", "/packs/{packId}/audit", "export_audit_trail", "Export the audit trail",
        "Artifact identity, release reference (manifest sha256), content hash (sha256 of the canonical artifact "
        "bytes, recomputable by a client), provenance of every source file, methodology, the policy result and "
        "audit events (ingested, validated, sealed). The PackArtifact is schema-validated before it is returned.",
        (PACK_PARAM, *VIEW_PARAMS), (200, 304, 400, 404), methods.export_audit_trail,
        view=True, sealed=True, precompute=_latest_views,
    ),
)
BY_ID = {operation.id: operation for operation in OPERATIONS}
TOOLS = {operation.tool: operation for operation in OPERATIONS if operation.tool}


def resolve(
    operation: Operation, data: ReleaseData, path: dict[str, str], query: Sequence[tuple[str, str]]
) -> dict[str, Any]:
    """Validated, canonical parameters of a request, or ApiError (400 / 404 / 422) saying what is wrong."""
    known = {p.name for p in operation.params if p.location == "query"}
    for name, _ in query:
        if name not in known:
            raise ApiError(400, ErrorCode.UNKNOWN_PARAMETER, f"unknown query parameter {name!r}", {"parameter": name})
    params: dict[str, Any] = dict(path)
    if "packId" in params:
        _check_pack(operation, data, params["packId"])
    if "ticker" in params:
        params["ticker"] = _ticker(params["ticker"])
    for param in operation.params:
        if param.location != "query" or param.name in ("managers", "mode"):
            continue
        params.update(_single(param, query))
    if operation.view:
        params.update(_view(data, params.get("packId", PACK_ID), query))
    return params


def _check_pack(operation: Operation, data: ReleaseData, pack_id: str) -> None:
    pack = data.pack(pack_id)
    if pack is None or pack["status"] != "available":
        raise ApiError(404, ErrorCode.PACK_NOT_FOUND, f"no available pack {pack_id!r}; see /api/v1/packs", {"packId": pack_id})
    if operation.feature and operation.feature not in pack["features"]:
        raise ApiError(
            422, ErrorCode.FEATURE_NOT_SUPPORTED, f"pack {pack_id!r} does not support {operation.id}",
            {"packId": pack_id, "feature": operation.feature},
        )


def _single(param: Param, query: Sequence[tuple[str, str]]) -> dict[str, str]:
    values = [value for name, value in query if name == param.name]
    if not values:
        if param.required:
            raise ApiError(400, ErrorCode.MISSING_PARAMETER, f"query parameter {param.name!r} is required", {"parameter": param.name})
        return {}
    if len(values) > 1 or not re.fullmatch(param.schema["pattern"], values[0]):  # fullmatch: `$` admits a final \n
        raise ApiError(400, ErrorCode.INVALID_PARAMETER, f"invalid value for {param.name!r}", {"parameter": param.name})
    return {param.name: values[0]}


def _ticker(value: str) -> str:
    ticker = value.strip().upper()
    if not re.match(TICKER_PATTERN, ticker):
        raise ApiError(400, ErrorCode.INVALID_TICKER, "a ticker is 1–12 letters, digits, '.' or '-'", {"ticker": value[:32]})
    return ticker


def _view(data: ReleaseData, pack_id: str, query: Sequence[tuple[str, str]]) -> dict[str, Any]:
    raw_managers = [value for name, value in query if name == "managers"]
    modes = [value for name, value in query if name == "mode"]
    if pack_id != PACK_ID:
        if raw_managers or modes:
            raise ApiError(400, ErrorCode.VIEW_NOT_SUPPORTED, f"pack {pack_id!r} takes no view parameters", {"packId": pack_id})
        return {}
    params: dict[str, Any] = {}
    managers = canonical_managers(data, raw_managers)
    if managers:
        params["managers"] = managers
    if len(modes) > 1 or (modes and modes[0] not in MODES):
        raise ApiError(400, ErrorCode.INVALID_MODE, f"mode must be one of {', '.join(MODES)}", {"allowed": list(MODES)})
    if modes and modes[0] != DEFAULT_MODE:
        params["mode"] = modes[0]
    return params


def canonical_managers(data: ReleaseData, values: Sequence[str]) -> list[str]:
    """Trimmed, de-duplicated, sorted manager ids; [] for all managers. Unknown or empty ids are a 400."""
    ids = [part.strip() for value in values for part in value.split(",")]
    if len(ids) > MAX_MANAGER_VALUES:
        raise ApiError(400, ErrorCode.INVALID_PARAMETER, f"at most {MAX_MANAGER_VALUES} manager ids", {"parameter": "managers"})
    if any(not manager for manager in ids):
        raise ApiError(400, ErrorCode.INVALID_PARAMETER, "empty manager id in 'managers'", {"parameter": "managers"})
    every = [m["id"] for m in data.index["copycat"]["managers"]]
    unknown = sorted(set(ids) - set(every))
    if unknown:
        raise ApiError(400, ErrorCode.UNKNOWN_MANAGER, f"unknown manager id(s): {', '.join(unknown[:10])}", {"unknown": unknown[:10], "allowed": every})
    selected = sorted(set(ids))
    return [] if set(selected) == set(every) else selected


@cache
def body_validator(operation_id: str) -> Draft202012Validator:
    """The request-body validator of a POST operation, compiled once."""
    return Draft202012Validator(BY_ID[operation_id].body)


def resolve_body(operation: Operation, data: ReleaseData, body: Any) -> dict[str, Any]:
    """Validated, canonical parameters of a POST body, or ApiError (400 / 422)."""
    error = next(iter(sorted(body_validator(operation.id).iter_errors(body), key=lambda e: list(e.absolute_path))), None)
    if error is not None:
        where = "/".join(str(part) for part in error.absolute_path) or "(body)"
        raise ApiError(400, ErrorCode.INVALID_BODY, f"invalid request body at {where}: {error.message[:200]}", {"path": where})
    pack_id = body.get("packId", PACK_ID)
    if pack_id != PACK_ID:
        raise ApiError(422, ErrorCode.FEATURE_NOT_SUPPORTED, f"pack {pack_id!r} does not support {operation.id}",
                       {"packId": pack_id, "feature": operation.feature})
    params: dict[str, Any] = {}
    managers = canonical_managers(data, body.get("managerIds", [])) if body.get("managerIds") else []
    if managers:
        params["managers"] = managers
    if body.get("mode", DEFAULT_MODE) != DEFAULT_MODE:
        params["mode"] = body["mode"]
    if "ethosIds" in operation.body["properties"]:
        params["ethosIds"] = canonical_ethos_ids(body.get("ethosIds", []))
        params["tickers"] = sorted({ticker.upper() for ticker in body.get("tickers", [])})
    return params
