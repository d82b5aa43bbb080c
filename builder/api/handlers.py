"""The GET handlers: (release data, canonical params) → the `data` of the success envelope.

Pure: the builder calls them to precompute every GET answer and the server calls them for views it
did not precompute. Parameters arrive validated and canonical (see builder.api.params).
"""

from __future__ import annotations

from typing import Any, cast

from builder.api import methods
from builder.api.data import IndexedPack, PreviewEntry, ReleaseData
from builder.api.shapes import (
    AvailablePack,
    CopycatLatestPack,
    CopycatVersionReference,
    Health,
    HealthPack,
    HealthWarning,
    ManifestEntry,
    PackCatalog,
    PackLinks,
    PackSummary,
    PlannedPack,
    PreviewAgentPayload,
    PreviewLatestPack,
    PreviewVersionReference,
    VersionCatalog,
)
from builder.api.wire import API_PREFIX, CONTRACT_VERSION, ApiError, ErrorCode, Params
from builder.research.agent import LIMITS_13F, RESEARCH_ONLY, AgentPayload, NextCall, agent_payload
from builder.research.methods.ethos import ETHOS_IDS
from builder.research.previews.artifacts import PreviewArtifact
from builder.research.versions import PACK_ID
from builder.research.views import DEFAULT_MODE, MODES, Mode, View
from builder.typed import picked

COPYCAT_LIMITATIONS = (
    *LIMITS_13F,
    "Option rows are reported at the underlying's notional value; they are kept apart from long-equity positions.",
    "A change is measured against the manager's previous calendar quarter; without that filing it is 'unknown'.",
    RESEARCH_ONLY,
)
FIXTURE_LIMITATION = "Fixture data: the managers and holdings are fictional, over real securities. Not investment data."
PREVIEW_LISTED = 20  # items of a long list in a preview's latest artifact; the audit export carries it whole
PREVIEW_NEXT = (  # a preview answers latest, versions and audit only
    ("export_audit_trail", "the preview's sources with their sha256 and its methodology"),
    ("list_pack_versions", "the preview's version"),
)


def _pack_links(pack_id: str) -> PackLinks:
    return {"latest": f"{API_PREFIX}/packs/{pack_id}/latest", "versions": f"{API_PREFIX}/packs/{pack_id}/versions"}


def get_health(data: ReleaseData, params: Params) -> Health:
    """Health of the sealed release: identity, freshness, warnings; never paths or commands."""
    assert data.identity is not None, "health is rendered only for a sealed release"
    warnings = data.index["warnings"]
    return {
        "status": "degraded" if warnings else "consumable",
        "releaseId": data.identity["releaseId"],
        "manifestSha256": data.identity["manifestSha256"],
        "asOf": data.index["asOf"],
        "contractVersion": CONTRACT_VERSION,
        "fixture": data.index["fixture"],
        "packs": [picked(HealthPack, p) for p in data.index["packs"] if p["status"] == "available"],
        "warningCount": len(warnings),
        "warnings": [picked(HealthWarning, w) for w in warnings],
        "executionEnabled": False,
    }


def get_openapi_document(data: ReleaseData, params: Params) -> dict[str, Any]:
    """The OpenAPI 3.1 document the release step generated into this release, served raw."""
    if data.openapi is None:
        raise ApiError(404, ErrorCode.ROUTE_NOT_FOUND, "this release carries no OpenAPI document")
    return data.openapi


def list_packs(data: ReleaseData, params: Params) -> PackCatalog:
    return {"packs": [_catalog_entry(p) for p in data.index["packs"]]}


def _catalog_entry(p: IndexedPack) -> AvailablePack | PlannedPack:
    """A pack of the release index with the links of its routes (none for a planned pack)."""
    if p["status"] == "available":
        return picked(AvailablePack, {**p, "links": _pack_links(p["id"])})
    return picked(PlannedPack, {**p, "links": {}})


def artifact_reference(data: ReleaseData, version: str) -> ManifestEntry:
    """Where the release holds an artifact (its canonical JSON, gzip) and the sha256 of that canonical JSON."""
    return {"file": methods.artifact_file(version), "sha256": methods.artifact_sha256(data, version)}


def get_latest_pack(data: ReleaseData, params: Params) -> CopycatLatestPack | PreviewLatestPack:
    preview = data.preview(params["packId"])
    if preview is not None:
        return _latest_preview(data, preview)
    artifact = data.latest
    managers, mode = params.get("managers", []), params.get("mode", DEFAULT_MODE)
    view = methods.view_of(data, artifact["versionId"], managers, mode)
    return {
        "pack": _pack_summary(data, PACK_ID),
        "versionId": artifact["versionId"],
        "artifact": artifact,
        "manifestEntry": artifact_reference(data, artifact["versionId"]),
        "managers": data.index["copycat"]["managers"],
        "modes": list(MODES),
        "view": view,
        "agentPayload": _agent_payload(data, view, managers, mode),
        "limitations": _limitations(data.index["fixture"]),
    }


def _latest_preview(data: ReleaseData, preview: PreviewEntry) -> PreviewLatestPack:
    """A preview's latest: its own caveats once (they carry its fixture and research-only lines), next calls."""
    caveats = list(dict.fromkeys(preview["caveats"]))
    payload = {key: value for key, value in preview["agentPayload"].items() if key != "limitations"}
    next_calls: list[NextCall] = [
        {"tool": tool, "arguments": {"packId": preview["id"]}, "why": why} for tool, why in PREVIEW_NEXT
    ]
    served = {**payload, "caveats": caveats, "versionId": preview["version"], "nextCalls": next_calls}
    return {
        "pack": _pack_summary(data, preview["id"]),
        "versionId": preview["version"],
        "artifact": _lists_cut(preview["artifact"]),
        # cast: a PreviewPayload with what serving adds is its PreviewAgentPayload; a union unpacked into a literal
        # loses which member it was
        "agentPayload": cast(PreviewAgentPayload, served),
        "caveats": caveats,
        "limitations": caveats,
    }


def _lists_cut(artifact: PreviewArtifact) -> PreviewArtifact:
    """A preview artifact with each list longer than PREVIEW_LISTED (at its top or in a table at its top, such
    as signals.demo) cut to its first items, and `listsCut` saying which, how many listed of how many."""
    cut: dict[str, dict[str, int]] = {}

    def shortened(value: Any, path: str, depth: int) -> Any:
        if isinstance(value, list) and len(value) > PREVIEW_LISTED:
            cut[path] = {"listed": PREVIEW_LISTED, "total": len(value)}
            return value[:PREVIEW_LISTED]
        if isinstance(value, dict) and depth < 1:
            return {key: shortened(item, f"{path}.{key}", depth + 1) for key, item in value.items()}
        return value

    trimmed = {key: shortened(value, key, 0) for key, value in artifact.items()}
    # cast: the artifact, its longest lists cut and `listsCut` added (a field every PreviewArtifact may have)
    return cast(PreviewArtifact, {**trimmed, "listsCut": cut}) if cut else artifact


def _pack_summary(data: ReleaseData, pack_id: str) -> PackSummary:
    pack = data.pack(pack_id)
    assert pack is not None, pack_id  # the request resolved it
    return picked(PackSummary, pack)


def _limitations(fixture: bool) -> list[str]:
    return [*COPYCAT_LIMITATIONS, *([FIXTURE_LIMITATION] if fixture else [])]


def _agent_payload(data: ReleaseData, view: View, managers: list[str], mode: Mode) -> AgentPayload:
    """The bounded agent payload of the latest version's view, with the trades since the version before it."""
    artifact, fixture = data.latest, data.index["fixture"]
    version = artifact["versionId"]
    previous = data.versions[-2] if len(data.versions) > 1 else None
    summary = (
        f"{view['tickerCount']} tickers in mode '{mode}' across {len(view['managers'])} managers' 13F filings for "
        f"the quarter ended {artifact['quarter']}" + (" (fictional fixture data)" if fixture else "")
    )
    return agent_payload(
        view,
        artifact,
        previous=previous,
        diff=methods.diff_of(data, previous, version, managers, mode) if previous else None,
        scores=methods.scores_of(data, version, managers, mode, ETHOS_IDS),
        policy=methods.policy_of(data, version, managers, mode),
        as_of=data.index["asOf"],
        summary=summary,
    )


def list_pack_versions(data: ReleaseData, params: Params) -> VersionCatalog:
    preview = data.preview(params["packId"])
    if preview is not None:
        entry: PreviewVersionReference = {"versionId": preview["version"], "asOf": preview["asOf"], "latest": True}
        return {"packId": preview["id"], "latestVersion": preview["version"], "versions": [entry]}
    latest = data.versions[-1]
    entries: list[CopycatVersionReference | PreviewVersionReference] = [
        {
            "versionId": version,
            "quarter": methods.quarter_of(data, version),
            "latest": version == latest,
            "artifactSha256": artifact_reference(data, version)["sha256"],
        }
        for version in reversed(data.versions)
    ]
    return {"packId": PACK_ID, "latestVersion": latest, "versions": entries}
