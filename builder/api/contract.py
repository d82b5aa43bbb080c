"""The one table of the service's operations (contract §4.2); builder.api.params canonicalises a request.

The OpenAPI document, the aiohttp routes, the MCP tools and the builder's list of precomputed GET
answers are all generated from OPERATIONS; nothing here is written twice elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, get_args

from builder.api import answers, diffs, handlers, methods
from builder.api.answers import Summarise
from builder.api.data import ReleaseData
from builder.api.shapes import PackFeature
from builder.api.wire import API_PREFIX, Params
from builder.canonical import canonical_json
from builder.research.methods.ethos import canonical_ethos_ids
from builder.research.versions import PACK_ID
from builder.research.views import DEFAULT_MODE, MODES, Mode

Handler = Callable[[ReleaseData, Params], Any]
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Operation:
    """Everything about one operation, from which its route, OpenAPI entry, MCP tool and precomputed answers are
    generated; built by keyword."""

    id: str
    method: str
    path: str  # under API_PREFIX, with {name} path parameters
    summary: str
    description: str
    decision: str = ""  # what the contract leaves open, decided (DESIGN.md), where agents read it
    params: tuple[Param, ...] = ()
    statuses: tuple[int, ...]
    status_text: Mapping[int, str] = field(default_factory=dict)  # its own words for a status (contract §4.2, §7)
    handler: Handler
    payload: str  # the OpenAPI component of its answer's `data` (of the whole body when not enveloped)
    tool: str | None = None  # the MCP tool that answers it, and for the tool:
    when: str = ""  # when an agent calls it: the first words of its description
    compact: Summarise | None = None  # its compact answer of the REST answer's data
    compact_shape: Any = None  # the TypedDict `compact` returns: the tool's output schema is generated from it
    feature: str | None = None  # the pack feature the operation needs (422 without it)
    view: bool = False  # takes the shared view parameters `managers` and `mode`
    sealed: bool = False  # its answer names the release (health, audit): rendered after the manifest
    precompute: Callable[[ReleaseData], Iterable[Params]] | None = None
    # What a precomputed answer is a function of, beside the code (JSON-ready): where a publish finds the same
    # inputs behind the promoted release's answer, it copies that answer instead of computing it again.
    inputs: Callable[[ReleaseData, Params], Any] | None = None
    body: dict[str, Any] | None = None  # JSON Schema of a POST body
    envelope: bool = True  # False only for the raw OpenAPI document

    @property
    def route(self) -> str:
        return API_PREFIX + self.path

    def request_key(self, params: Mapping[str, object]) -> str:
        """The canonical request of `params`: path plus query in table order, defaults omitted.

        A POST's is `POST <route> <canonical JSON of its parameters>`: no request target, so never a GET's.
        """
        if self.method == "POST":
            return f"POST {self.route} {canonical_json(params).decode()}"
        path = self.route.format(**{p.name: params[p.name] for p in self.params if p.location == "path"})
        query = [
            f"{p.name}={_query_value(params[p.name])}"
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


def _default_only(data: ReleaseData) -> Iterable[Params]:
    yield {}


def _available_packs(data: ReleaseData) -> Iterable[Params]:
    for pack in data.index["packs"]:
        if pack["status"] == "available":
            yield {"packId": pack["id"]}


def _query_value(value: object) -> str:
    """A parameter as the canonical query writes it: managers comma-separated."""
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def _mode_params(mode: Mode) -> Params:
    return {} if mode == DEFAULT_MODE else {"mode": mode}


def _latest_views(data: ReleaseData) -> Iterable[Params]:
    for pack in _available_packs(data):
        modes = MODES if pack["packId"] == PACK_ID else (DEFAULT_MODE,)
        for mode in modes:
            yield {**pack, **_mode_params(mode)}


def _all_managers(data: ReleaseData) -> Iterable[Params]:
    """The POST views agents ask first: every manager, each mode (at 500 managers, 0.6–1.2 s each to compute)."""
    for mode in MODES:
        yield _mode_params(mode)


def _all_managers_all_ethos(data: ReleaseData) -> Iterable[Params]:
    for params in _all_managers(data):
        yield {**params, "ethosIds": canonical_ethos_ids([]), "tickers": []}


def _view_tickers(data: ReleaseData) -> Iterable[Params]:
    for mode in MODES:
        for ticker in methods.explained_tickers(data, [], mode):
            yield {"packId": PACK_ID, "ticker": ticker, **_mode_params(mode)}


def _past_view_tickers(data: ReleaseData) -> Iterable[Params]:
    """The default view's explanations of every version before the latest (PRECOMPUTE_PAST: see explainPosition)."""
    for version in data.versions[:-1] if PRECOMPUTE_PAST else ():
        for ticker in methods.explained_tickers(data, [], DEFAULT_MODE, version):
            yield {"packId": PACK_ID, "ticker": ticker, "version": version}


def _explanations(data: ReleaseData) -> Iterable[Params]:
    yield from _view_tickers(data)
    yield from _past_view_tickers(data)


# Precomputing the default view's explanations of every earlier version doubles a release (bench.past_explanations:
# 100 managers × 8 quarters × 150 positions, 285 → 583 MB and a publish of 30 → 67 s; the fixture 6.3 → 12.6 MB), for
# answers an agent asks far less than the latest's: `ras serve` computes them when asked, as it does manager subsets.
PRECOMPUTE_PAST = False


def _version_pairs(data: ReleaseData) -> Iterable[Params]:
    """The diffs of consecutive versions and those up to the latest (what the answers' next calls ask for), in every
    mode; ras serve computes the rest when asked (see compareVersions)."""
    latest = data.versions[-1] if data.versions else None
    for older, newer in combinations(data.versions, 2):
        if newer == latest or data.versions.index(newer) == data.versions.index(older) + 1:
            for mode in MODES:
                yield {"packId": PACK_ID, "from": older, "to": newer, **_mode_params(mode)}


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        id="getHealth",
        method="GET",
        path="/health",
        summary="Release health",
        description="The last atomically promoted immutable release: id, as-of date, manifest sha256, packs and scope "
        "warnings. 'degraded' while fixture or scope warnings exist, else 'consumable'; 503 when no release "
        "is consumable (missing, or a file fails its manifest hash).",
        decision="Never shows filesystem paths, snapshot locations or commands.",
        statuses=(200, 304, 503),
        handler=handlers.get_health,
        payload="Health",
        tool="get_health",
        when="Call if answers look stale or fail with release_unavailable: the served release, as-of date, warnings.",
        compact=answers.health,
        compact_shape=answers.HealthAnswer,
        sealed=True,
        precompute=_default_only,
    ),
    Operation(
        id="getOpenApiDocument",
        method="GET",
        path="/openapi.json",
        summary="OpenAPI document",
        description="The raw OpenAPI 3.1 document of /api/v1 (no envelope), generated from this operation table; each "
        "operation's x-tool-name names the MCP tool that answers it.",
        statuses=(200, 304),
        handler=handlers.get_openapi_document,
        payload="OpenApiDocument",
        precompute=_default_only,
        envelope=False,
    ),
    Operation(
        id="listPacks",
        method="GET",
        path="/packs",
        summary="Pack catalog",
        description="Available and planned packs with label, status, links (available packs only) and latest version.",
        decision="Planned packs carry no links and latestVersion null; their routes answer 404.",
        statuses=(200, 304),
        handler=handlers.list_packs,
        payload="PackCatalog",
        tool="list_packs",
        when="Call first: the packs (13f-copycat, data previews), what each answers, latest versions.",
        compact=answers.packs,
        compact_shape=answers.PacksAnswer,
        precompute=_default_only,
    ),
    Operation(
        id="getLatestPack",
        method="GET",
        path="/packs/{packId}/latest",
        summary="Latest artifact of a pack",
        description="The latest PackArtifact, its release-manifest entry, the managers and view modes, the selected view "
        "and an agent-ready payload, with limitations attached. Preview packs take no view parameters (400).",
        decision="Without mode: the complete dataset (any). managers omitted, or listing every manager, is one "
        "view with the same bytes and ETag.",
        params=(PACK_PARAM, *VIEW_PARAMS),
        statuses=(200, 304, 400, 404, 503),
        status_text={
            400: "Invalid view parameters, or view parameters sent to a preview pack.",
            404: "Pack or artifact not found (unknown or planned pack).",
        },
        handler=handlers.get_latest_pack,
        payload="LatestPack",
        tool="get_latest_pack",
        when="Call to read a pack. 13f-copycat: managers, filings, each one's largest trades this quarter, top "
        "holdings, ethos leaders, policy signal, freshness dates, 13F limits; managers and mode select a view. "
        "Previews: signal, caveats.",
        compact=answers.latest,
        compact_shape=answers.LatestAnswer,
        view=True,
        precompute=_latest_views,
    ),
    Operation(
        id="listPackVersions",
        method="GET",
        path="/packs/{packId}/versions",
        summary="Versions of a pack",
        description="Immutable version references, newest first, marking the current latest version.",
        decision="13f-copycat lists one version per common quarter; a preview pack lists its one version.",
        params=(PACK_PARAM,),
        statuses=(200, 304, 404),
        status_text={404: "Pack or artifact not found."},
        handler=handlers.list_pack_versions,
        payload="VersionCatalog",
        tool="list_pack_versions",
        when="Call for the version ids compare_versions takes, newest first.",
        compact=answers.versions,
        compact_shape=answers.VersionsAnswer,
        precompute=_available_packs,
    ),
    Operation(
        id="compareVersions",
        method="GET",
        path="/packs/{packId}/versions/diff",
        summary="Compare two versions",
        description="Semantic diff of two versions over one view: tickers that entered or left the view, per-manager "
        "position changes between them, source changes, and for a window of more than one quarter each manager's "
        "trades of every quarter inside it (windowTrades). States what changed, never why. 'from' must be earlier "
        "than 'to'.",
        decision="Version ids as listPackVersions gives them: an unknown id is 404 version_not_found, whose "
        "details.available lists them. Position changes are those of the view's tickers (in the view in either version) "
        "and the view's managers: mode overlap lists the overlap's trades only. A diff across several quarters "
        "carries the older book through every corporate action between them, so each position's change is the sum "
        "of its quarters' trades. windowTrades lists every trade inside the window in mode any (the complete "
        "dataset), largest traded value first, with its quarter and filing rows; in the other modes it is empty "
        "(their views choose tickers at the window's two ends): listing it in every mode would nearly double a "
        "release (100 managers × 8 quarters × 150 positions: 259 MB more over 286). Precomputed files, in every "
        "mode: the diffs of consecutive versions and every diff up to the latest version (where the answers' next "
        "calls lead); a diff of two earlier versions further apart is computed when asked by ras serve (a static "
        "host passes it to its upstream): precomputing every pair too, with its window's trades, would add 503 MB to "
        "a release of 500 managers × 10 quarters × 150 positions (1.01 GB as it is; 0.97 GB before windows' trades "
        "and positions' histories).",
        params=(
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
        statuses=(200, 304, 400, 404, 422),
        status_text={
            400: "Invalid or missing parameters ('from', 'to', view), or 'from' not earlier than 'to'.",
            404: "Pack or version not found.",
            422: "The pack does not support version comparison.",
        },
        handler=methods.compare_versions,
        payload="VersionDiff",
        tool="compare_versions",
        when="Call to see what changed between two quarters: tickers in and out of the view, each manager's largest "
        "trades by traded value (over several quarters, each kind's largest inside them), source and policy "
        "changes; never why.",
        compact=diffs.diff,
        compact_shape=diffs.DiffAnswer,
        feature="diff",
        view=True,
        precompute=_version_pairs,
        inputs=methods.diff_inputs,
    ),
    Operation(
        id="explainPosition",
        method="GET",
        path="/packs/{packId}/positions/{ticker}/explanation",
        summary="Explain one position",
        description="For a ticker of the selected view in one version (the latest unless 'version' names another): each "
        "selected manager's structured change, evidence statements citing source rows by accession number, ethos "
        "scores, the overlap result, the matching source records and limitations; a ticker that left the view in "
        "that version is explained too (viewStatus left-view). history (mode any): the position at every published "
        "version, for each selected manager that held it in one (shares, value, weight, change kind and cause, the "
        "corporate actions cited, the filing rows), versions where it held none included. 404 when the view never "
        "held it then.",
        decision="'version' omitted, or naming the latest version (the same request), explains the latest. 'In the "
        "selected view' includes a ticker that left the view in the version explained (every selected manager exited, "
        "or a corporate action ended the position, or fewer managers hold it than the mode needs): it is answered "
        "with viewStatus left-view, the changes that ended it, the previous quarter's rows they ended (cited) and the "
        "filings of both quarters, and no ethos scores. history is given in mode any and null in the other modes: "
        "its rows are the same in every mode (the same call in mode any has them), and in every mode they would add "
        "187 MB to the explanations of a 500-manager release (94 MB in mode any). 404 position_not_found means the view held it in neither that "
        "version nor the one before; its details.heldIn lists the quarters whose view did (heldInVersions their "
        "version ids, to pass as 'version'); an unknown version is 404 version_not_found. The ticker is "
        "case-insensitive (aapl is AAPL) and surrounding whitespace is ignored. Precomputed files: the latest "
        "version's explanations of every mode's view of all managers, the answers a static host (ras export) holds. "
        "A past version, like a manager subset, is computed when asked by ras serve (a static host passes it to its "
        "upstream): precomputing the default view's explanations of every past version would double a release "
        "(100 managers × 8 quarters × 150 positions: 285 → 583 MB, its publish 30 → 67 s).",
        params=(
            PACK_PARAM,
            Param(
                "ticker",
                "path",
                {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9.\-]{0,11}$"},
                "Ticker (or CUSIP of an unmapped security) in the selected view; case-insensitive.",
                True,
            ),
            Param(
                "version",
                "query",
                {"type": "string", "pattern": VERSION_PATTERN},
                "The version to explain, as listPackVersions gives it; omitted: the latest (naming the latest is "
                "the same request).",
            ),
            *VIEW_PARAMS,
        ),
        statuses=(200, 304, 400, 404, 422),
        status_text={
            400: "Invalid ticker or view parameters.",
            404: "Pack not found, or the view held the ticker in neither the latest version nor the one before "
            "(details.heldIn: the quarters that did).",
            422: "The pack does not support structured explanations.",
        },
        handler=methods.explain_position,
        payload="PositionExplanation",
        tool="explain_position",
        when="Call to explain a ticker of the latest quarter (or of an earlier 'version'), held or just ended: each "
        "manager's trade, position and filing rows, its history over every version, evidence, ethos scores, policy.",
        compact=answers.explanation,
        compact_shape=answers.ExplanationAnswer,
        feature="explain",
        view=True,
        precompute=_explanations,
    ),
    Operation(
        id="listEthos",
        method="GET",
        path="/ethos",
        summary="Investing methodologies",
        description="Every ethos: id, public name, principles and the scoring configuration (features with formulas and "
        "denominators, weights, normalisation, top-set size) that fully determines its 0–100 scores.",
        statuses=(200, 304),
        handler=methods.list_ethos,
        payload="EthosList",
        tool="list_ethos",
        when="Call to learn how each ethos (a scoring method over filing data) scores tickers.",
        compact=answers.ethos_list,
        compact_shape=answers.EthosListAnswer,
        precompute=_default_only,
    ),
    Operation(
        id="compareEthos",
        method="POST",
        path="/ethos/compare",
        summary="Compare methodology scores",
        description="Recalculates, for the latest 13f-copycat version and the selected view, per-ticker scores of the "
        "selected ethos (all when ethosIds is omitted) and their overlap: tickers in every selected top set "
        "and pairwise agreement (Jaccard). managerIds empty or omitted means all managers. 'tickers' narrows "
        "the scores (404 when one is not in the view). Only 13f-copycat supports it (422 otherwise).",
        decision="Always the latest version. ethosIds omitted: every ethos; tickers omitted: every ticker of the "
        "view; an unknown ethos id is 400 unknown_ethos.",
        statuses=(200, 400, 404, 413, 422),
        status_text={
            400: "Malformed or invalid request (not JSON, not application/json, schema, unknown manager or ethos).",
            404: "A requested ticker is not in the selected view.",
            422: "The pack does not support ethos comparison.",
        },
        handler=methods.compare_ethos,
        payload="EthosComparison",
        tool="compare_ethos",
        when="Call to score the view's tickers under each ethos: rankings, top sets, where they agree.",
        compact=answers.ethos_comparison,
        compact_shape=answers.ComparisonAnswer,
        feature="ethos",
        body=RESEARCH_REQUEST,
        precompute=_all_managers_all_ethos,
    ),
    Operation(
        id="validatePolicy",
        method="POST",
        path="/policy/validate",
        summary="Recalculate policy checks",
        description="Recalculates the research policy checks over the selected view of the latest 13f-copycat version: "
        "each check pass / warn / block with its reason, blocking reasons, warnings; executionEnabled is always "
        "false. An empty view blocks (no signal: stay in cash).",
        decision="Always the latest version. managerIds empty or omitted: all managers; mode omitted: any.",
        statuses=(200, 400, 413, 422),
        status_text={
            400: "Malformed or invalid request (not JSON, not application/json, schema, unknown manager).",
            422: "The pack does not support policy recalculation.",
        },
        handler=methods.validate_policy,
        payload="PolicyResult",
        tool="validate_policy",
        when="Call before relying on a view: each policy check (sources, fixture, concentration, empty view): "
        "pass, warn or block; freshness dates.",
        compact=answers.policy,
        compact_shape=answers.PolicyAnswer,
        feature="policy",
        body=VIEW_REQUEST,
        precompute=_all_managers,
    ),
    Operation(
        id="exportAuditTrail",
        method="GET",
        path="/packs/{packId}/audit",
        summary="Export the audit trail",
        description="Artifact identity, release reference (manifest sha256), content hash (sha256 of the canonical artifact "
        "bytes, recomputable by a client), provenance of every source file, methodology, the policy result and "
        "audit events (ingested, validated, sealed). The PackArtifact is schema-validated before it is returned.",
        decision="Preview packs take no view parameters; their export has policy null and the preview's own "
        "methodology.",
        params=(PACK_PARAM, *VIEW_PARAMS),
        statuses=(200, 304, 400, 404),
        status_text={
            400: "Invalid view parameters, or view parameters sent to a preview pack.",
            404: "Pack or artifact not found.",
        },
        handler=methods.export_audit_trail,
        payload="AuditExport",
        tool="export_audit_trail",
        when="Call to verify provenance: sha256 of the artifact and every source file, methodology, audit events.",
        compact=answers.audit,
        compact_shape=answers.AuditAnswer,
        view=True,
        sealed=True,
        precompute=_latest_views,
    ),
)
BY_ID = {operation.id: operation for operation in OPERATIONS}
TOOLS = {operation.tool: operation for operation in OPERATIONS if operation.tool}
