"""Assemble a release's data from its sources: the pack catalog, the 13f-copycat artifacts, the index."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from builder.api.contract import COPYCAT_FEATURES
from builder.api.data import ReleaseData
from builder.api.openapi.document import openapi_document
from builder.cores import forked_map
from builder.records import Sources
from builder.research.artifact import build_artifacts
from builder.research.caveats import SCOPE, identity, sortable
from builder.research.schema import PackArtifact
from builder.research.versions import PACK_ID, assign_versions

COPYCAT_ENTRY = {
    "id": PACK_ID,
    "label": "launch pack",
    "title": "13F copycat: multi-manager filing pack",
    "description": "Positions and quarter-over-quarter changes of the selected managers from SEC Form 13F-HR filings, "
    "with cross-manager views (any, overlap, exclusive, disagreement).",
    "features": list(COPYCAT_FEATURES),
}
# Announced in the catalog so agents can plan for them; their routes answer 404 until they ship.
PLANNED_PACKS = (
    {
        "id": "13d-activist-stakes",
        "label": "data preview",
        "title": "Schedule 13D/13G activist stakes",
        "description": "Beneficial-ownership stakes above 5% from Schedules 13D and 13G.",
        "features": [],
    },
    {
        "id": "form4-insider-clusters",
        "label": "data preview",
        "title": "Form 4 insider purchase clusters",
        "description": "Open-market purchases by several insiders of one issuer from Form 4 filings.",
        "features": [],
    },
)


def assemble(
    sources: Sources,
    ledger: Iterable[dict],
    previews: Iterable[Any] = (),
    earlier: Callable[[list], dict | None] | None = None,
    workers: int = 1,
) -> tuple[ReleaseData, list[dict]]:
    """The release data of `sources`; `ledger` lists versions already published. Returns the new ledger too.

    `earlier`: artifacts an earlier build made from the same inputs (see research.artifact.build_artifacts); the
    others are built on `workers` processes, a quarter each at a time (the same artifacts on any number).
    """
    built = build_artifacts(sources, earlier, lambda task, quarters: forked_map(task, quarters, workers))
    artifacts, new_ledger = assign_versions(built, ledger)
    preview_entries = {p.id: _preview_entry(p) for p in previews}
    index = {
        "asOf": sources.as_of.isoformat(),
        "fixture": sources.fixture,
        "packs": _catalog(artifacts, preview_entries),
        "copycat": {
            "versions": [a["versionId"] for a in artifacts],
            "managers": [
                {"id": m.id, "name": m.name, "cik": m.cik, "fictional": m.fictional} for m in sources.copycat.managers
            ],
        },
        "previews": preview_entries,
        "warnings": _warnings(artifacts, preview_entries),
        "skipped": [{"code": w.code, "message": w.message, "source": w.source} for w in sources.skipped],
        "provenance": [{"path": f.path, "sha256": f.sha256, "size": f.size} for f in sources.files],
    }
    data = ReleaseData(index, {a["versionId"]: a for a in artifacts})
    return replace(data, openapi=openapi_document(data)), new_ledger  # the document enumerates this release's ids


def _catalog(artifacts: list[PackArtifact], previews: Mapping[str, dict]) -> list[dict]:
    latest = artifacts[-1]
    copycat: dict[str, Any] = {
        **COPYCAT_ENTRY,
        "status": "available",
        "latestVersion": latest["versionId"],
        "asOf": latest["quarter"],
    }
    entries = [copycat]
    for pack_id in sorted(previews):
        preview = previews[pack_id]
        entries.append(
            {
                "id": pack_id,
                "label": preview["label"],
                "title": preview["title"],
                "description": preview["description"],
                "features": [],
                "status": "available",
                "latestVersion": preview["version"],
                "asOf": preview["asOf"],
            }
        )
    entries += [{**planned, "status": "planned", "latestVersion": None, "asOf": None} for planned in PLANNED_PACKS]
    return entries


def _preview_entry(pack: Any) -> dict:
    return {
        "id": pack.id,
        "label": pack.label,
        "title": pack.title,
        "description": pack.artifact.get("description", pack.title),
        "version": pack.version,
        "asOf": pack.as_of.isoformat(),
        "artifact": pack.artifact,
        "agentPayload": pack.agent_payload,
        "caveats": list(pack.caveats),
        "methodology": pack.methodology,
        "warnings": [{"code": w.code, "message": w.message, "source": w.source} for w in pack.warnings],
    }


def _warnings(artifacts: list[PackArtifact], previews: Mapping[str, dict]) -> list[Mapping[str, Any]]:
    """The scope warnings of what is published, each once and each naming its pack and what it is about (manager,
    quarter, accession, CUSIP), as views see them: health stays degraded while any exists.

    Only the published versions' warnings count: a confidential omission in a quarter outside the window is
    not this release's problem. A warning two versions carry alike (the fixture label) is listed once.
    """
    found: dict[tuple[Any, ...], Mapping[str, Any]] = {identity(w): w for a in artifacts for w in a["warnings"]}
    for pack_id, preview in previews.items():
        scoped = ({**dict.fromkeys(SCOPE), **w, "pack": pack_id} for w in preview["warnings"])
        found.update((identity(w), w) for w in scoped)
    order = ("pack", "manager", "quarter", "code", "accession", "cusip", "message")  # by pack, then what it is about
    return sorted(found.values(), key=lambda w: sortable(tuple(w[field] for field in order)))


def warning_lines(warnings: list[dict]) -> list[str]:
    """The console summary of a release's warnings: one line per code and pack, with a count and an example."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for warning in warnings:
        groups.setdefault((warning["code"], warning["pack"]), []).append(warning)
    if not groups:
        return ["warnings: none (health: consumable)"]
    packs = len({pack for _, pack in groups})
    lines = [f"warnings: {len(warnings)} in {packs} pack(s) (health: degraded while any is published)"]
    for (code, pack), found in sorted(groups.items()):
        example = found[0]
        where = f" ({example['source']})" if example.get("source") else ""
        lines.append(f"  {code} ×{len(found)} [{pack}] e.g.{where} {example['message']}")
    return lines
