"""The one table of the service's operations (contract §4.2); builder.api.params canonicalises a request.

The OpenAPI document, the aiohttp routes, the MCP tools and the builder's list of precomputed GET
answers are all generated from OPERATIONS; nothing here is written twice elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Any, get_args

from builder.api import handlers, methods
from builder.api.data import ReleaseData
from builder.api.shapes import PackFeature
from builder.api.wire import API_PREFIX
from builder.canonical import canonical_json
from builder.research.methods.ethos import canonical_ethos_ids
from builder.research.versions import PACK_ID
from builder.research.views import DEFAULT_MODE, MODES

Handler = Callable[[ReleaseData, dict[str, Any]], Any]
PACK_ID_PATTERN = r"^[a-z0-9][a-z0-9-]{0,63}$"
TICKER_PATTERN = r"^[A-Z0-9][A-Z0-9.\-]{0,11}$"  # exchange tickers (BRK.B, BF-B) and 9-character CUSIPs
VERSION_PATTERN = r"^[a-z0-9][a-z0-9.\-]{0,79}$"
MAX_MANAGER_VALUES = 256  # more values than any pack has managers is a malformed request, not a view
MAX_TICKERS = 1000  # a view holds at most a few thousand tickers; a longer list is a malformed request
MANAGER_ID_SCHEMA = {"type": "string", "pattern": r"^[a-z0-9][a-z0-9-]{0,63}$"}
COPYCAT_FEATURES: tuple[PackFeature, ...] = get_args(PackFeature)


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
    # What a precomputed answer is a function of, beside the code (JSON-ready): where a publish finds the same
    # inputs behind the promoted release's answer, it copies that answer instead of computing it again.
    inputs: Callable[[ReleaseData, dict[str, Any]], Any] | None = None
    body: dict[str, Any] | None = None  # JSON Schema of a POST body
    envelope: bool = True  # False only for the raw OpenAPI document

    @property
    def route(self) -> str:
        return API_PREFIX + self.path

    def request_key(self, params: dict[str, Any]) -> str:
        """The canonical request of `params`: path plus query in table order, defaults omitted.

        A POST's is `POST <route> <canonical JSON of its parameters>`: no request target, so never a GET's.
        """
        if self.method == "POST":
            return f"POST {self.route} {canonical_json(params).decode()}"
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
_VIEW_BODY = {  # no `default` keywords: generated clients make a field with a default required; the text says it
    "packId": {"type": "string", "description": f"Omitted: {PACK_ID}, the only pack that supports recalculation."},
    "managerIds": {
        "type": "array",
        "items": MANAGER_ID_SCHEMA,
        "maxItems": MAX_MANAGER_VALUES,
        "description": "Manager ids to include; empty or omitted: all managers.",
    },
    "mode": {
        "type": "string",
        "enum": list(MODES),
        "description": f"The view mode; omitted: {DEFAULT_MODE}. " + MODE_PARAM.description,
    },
}
VIEW_REQUEST = {"type": "object", "additionalProperties": False, "properties": _VIEW_BODY}
RESEARCH_REQUEST = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        **_VIEW_BODY,
        "ethosIds": {
            "type": "array",
            "minItems": 1,
            "maxItems": 32,
            "items": {"type": "string", "maxLength": 64},
            "description": "Ethos ids from listEthos; omitted: all.",
        },
        "tickers": {
            "type": "array",
            "maxItems": MAX_TICKERS,
            "items": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9.\-]{0,11}$"},
            "description": "Tickers of the view whose scores to return; omitted: all.",
        },
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


def _all_managers(data: ReleaseData) -> Iterable[dict[str, Any]]:
    """The POST views agents ask first: every manager, each mode (at 500 managers, 0.6–1.2 s each to compute)."""
    for mode in MODES:
        yield _mode_params(mode)


def _all_managers_all_ethos(data: ReleaseData) -> Iterable[dict[str, Any]]:
    for params in _all_managers(data):
        yield {**params, "ethosIds": canonical_ethos_ids([]), "tickers": []}


def _view_tickers(data: ReleaseData) -> Iterable[dict[str, Any]]:
    for mode in MODES:
        for ticker in methods.explained_tickers(data, [], mode):
            yield {"packId": PACK_ID, "ticker": ticker, **_mode_params(mode)}


def _version_pairs(data: ReleaseData) -> Iterable[dict[str, Any]]:
    for older, newer in combinations(data.versions, 2):
        for mode in MODES:
            yield {"packId": PACK_ID, "from": older, "to": newer, **_mode_params(mode)}


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "getHealth",
        "GET",
        "/health",
        "get_health",
        "Release health",
        "The last atomically promoted immutable release: id, as-of date, manifest sha256, packs and scope "
        "warnings. 'degraded' while fixture or scope warnings exist, else 'consumable'; 503 when no release "
        "is consumable (missing, or a file fails its manifest hash).",
        (),
        (200, 304, 503),
        handlers.get_health,
        sealed=True,
        precompute=_default_only,
    ),
    Operation(
        "getOpenApiDocument",
        "GET",
        "/openapi.json",
        None,
        "OpenAPI document",
        "The raw OpenAPI 3.1 document of /api/v1 (no envelope), generated from this operation table; each "
        "operation's x-tool-name names the MCP tool that answers it.",
        (),
        (200, 304),
        handlers.get_openapi_document,
        precompute=_default_only,
        envelope=False,
    ),
    Operation(
        "listPacks",
        "GET",
        "/packs",
        "list_packs",
        "Pack catalog",
        "Available and planned packs with label, status, links (available packs only) and latest version.",
        (),
        (200, 304),
        handlers.list_packs,
        precompute=_default_only,
    ),
    Operation(
        "getLatestPack",
        "GET",
        "/packs/{packId}/latest",
        "get_latest_pack",
        "Latest artifact of a pack",
        "The latest PackArtifact, its release-manifest entry, the managers and view modes, the selected view "
        "and an agent-ready payload, with limitations attached. Preview packs take no view parameters (400).",
        (PACK_PARAM, *VIEW_PARAMS),
        (200, 304, 400, 404, 503),
        handlers.get_latest_pack,
        view=True,
        precompute=_latest_views,
    ),
    Operation(
        "listPackVersions",
        "GET",
        "/packs/{packId}/versions",
        "list_pack_versions",
        "Versions of a pack",
        "Immutable version references, newest first, marking the current latest version.",
        (PACK_PARAM,),
        (200, 304, 404),
        handlers.list_pack_versions,
        precompute=_available_packs,
    ),
    Operation(
        "compareVersions",
        "GET",
        "/packs/{packId}/versions/diff",
        "compare_versions",
        "Compare two versions",
        "Semantic diff of two versions over one view: tickers that entered or left the view, per-manager "
        "position changes, source changes. States what changed, never why. 'from' must be earlier than 'to'.",
        (
            PACK_PARAM,
            Param(
                "from",
                "query",
                {"type": "string", "pattern": VERSION_PATTERN},
                "The earlier version id: it must come before 'to' in listPackVersions, else 400 "
                "invalid_version_order (a rule between two parameters, which the schema cannot state).",
                True,
            ),
            Param(
                "to",
                "query",
                {"type": "string", "pattern": VERSION_PATTERN},
                "The later version id: it must come after 'from'.",
                True,
            ),
            *VIEW_PARAMS,
        ),
        (200, 304, 400, 404, 422),
        methods.compare_versions,
        feature="diff",
        view=True,
        precompute=_version_pairs,
        inputs=methods.diff_inputs,
    ),
    Operation(
        "explainPosition",
        "GET",
        "/packs/{packId}/positions/{ticker}/explanation",
        "explain_position",
        "Explain one position",
        "For a ticker of the selected view in the latest version: each selected manager's structured change, "
        "evidence statements citing source rows by accession number, ethos scores, the overlap result, the "
        "matching source records and limitations; a ticker that left the view in the latest version is explained "
        "too (viewStatus left-view). 404 when the view never held it then.",
        (
            PACK_PARAM,
            Param(
                "ticker",
                "path",
                {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9.\-]{0,11}$"},
                "Ticker (or CUSIP of an unmapped security) in the selected view; case-insensitive.",
                True,
            ),
            *VIEW_PARAMS,
        ),
        (200, 304, 400, 404, 422),
        methods.explain_position,
        feature="explain",
        view=True,
        precompute=_view_tickers,
    ),
    Operation(
        "listEthos",
        "GET",
        "/ethos",
        "list_ethos",
        "Investing methodologies",
        "Every ethos: id, public name, principles and the scoring configuration (features with formulas and "
        "denominators, weights, normalisation, top-set size) that fully determines its 0–100 scores.",
        (),
        (200, 304),
        methods.list_ethos,
        precompute=_default_only,
    ),
    Operation(
        "compareEthos",
        "POST",
        "/ethos/compare",
        "compare_ethos",
        "Compare methodology scores",
        "Recalculates, for the latest 13f-copycat version and the selected view, per-ticker scores of the "
        "selected ethos (all when ethosIds is omitted) and their overlap: tickers in every selected top set "
        "and pairwise agreement (Jaccard). managerIds empty or omitted means all managers. 'tickers' narrows "
        "the scores (404 when one is not in the view). Only 13f-copycat supports it (422 otherwise).",
        (),
        (200, 400, 404, 413, 422),
        methods.compare_ethos,
        feature="ethos",
        body=RESEARCH_REQUEST,
        precompute=_all_managers_all_ethos,
    ),
    Operation(
        "validatePolicy",
        "POST",
        "/policy/validate",
        "validate_policy",
        "Recalculate policy checks",
        "Recalculates the research policy checks over the selected view of the latest 13f-copycat version: "
        "each check pass / warn / block with its reason, blocking reasons, warnings; executionEnabled is always "
        "false. An empty view blocks (no signal: stay in cash).",
        (),
        (200, 400, 413, 422),
        methods.validate_policy,
        feature="policy",
        body=VIEW_REQUEST,
        precompute=_all_managers,
    ),
    Operation(
        "exportAuditTrail",
        "GET",
        "/packs/{packId}/audit",
        "export_audit_trail",
        "Export the audit trail",
        "Artifact identity, release reference (manifest sha256), content hash (sha256 of the canonical artifact "
        "bytes, recomputable by a client), provenance of every source file, methodology, the policy result and "
        "audit events (ingested, validated, sealed). The PackArtifact is schema-validated before it is returned.",
        (PACK_PARAM, *VIEW_PARAMS),
        (200, 304, 400, 404),
        methods.export_audit_trail,
        view=True,
        sealed=True,
        precompute=_latest_views,
    ),
)
BY_ID = {operation.id: operation for operation in OPERATIONS}
TOOLS = {operation.tool: operation for operation in OPERATIONS if operation.tool}
