"""What a release knows: the pack catalog, every artifact and the release index, as plain JSON data.

The builder assembles it from the sources; the server loads it back from the release files. Both hand
the same object to the same handlers, so a live answer has the bytes the builder would have written.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any, TypeVar

from builder.records import Sources
from builder.research.artifact import PACK_ID, build_artifacts
from builder.research.versions import assign_versions

T = TypeVar("T")
MEMO_SIZE = 512  # derived values (views, scores, policy) kept per release; live subsets are unbounded otherwise
COPYCAT_FEATURES = ("views", "diff", "explain", "ethos", "policy")
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


@dataclass(frozen=True, slots=True)
class ReleaseData:
    """Everything handlers read. `identity` (release id, manifest sha256) exists only once sealed."""

    index: Mapping[str, Any]
    artifacts: Mapping[str, dict]  # 13f-copycat artifacts by version id
    identity: Mapping[str, str] | None = None
    _packs: dict[str, dict] = field(default_factory=dict)
    _memo: OrderedDict[Hashable, Any] = field(default_factory=OrderedDict)

    def __post_init__(self) -> None:
        self._packs.update({pack["id"]: pack for pack in self.index["packs"]})

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """A value derived from this release, computed once (bounded LRU); pure, so caching changes no byte."""
        if key in self._memo:
            self._memo.move_to_end(key)
            return self._memo[key]
        value = self._memo[key] = compute()
        if len(self._memo) > MEMO_SIZE:
            self._memo.popitem(last=False)
        return value

    @property
    def as_of(self) -> date:
        return date.fromisoformat(self.index["asOf"])

    def history(self, version: str) -> list[dict]:
        """The 13f-copycat artifacts older than `version`, oldest first."""
        return [self.artifacts[v] for v in self.versions[: self.versions.index(version)]]

    def with_identity(self, identity: Mapping[str, str]) -> ReleaseData:
        return ReleaseData(self.index, self.artifacts, identity, _memo=self._memo)  # memo keys never name the release

    def pack(self, pack_id: str) -> dict | None:
        return self._packs.get(pack_id)

    @property
    def versions(self) -> list[str]:
        """13f-copycat version ids, oldest first."""
        return self.index["copycat"]["versions"]

    @property
    def latest(self) -> dict:
        return self.artifacts[self.versions[-1]]

    def preview(self, pack_id: str) -> dict | None:
        return self.index["previews"].get(pack_id)


def assemble(sources: Sources, ledger: Iterable[dict], previews: Iterable[Any] = ()) -> tuple[ReleaseData, list[dict]]:
    """The release data of `sources`; `ledger` lists versions already published. Returns the new ledger too."""
    artifacts, new_ledger = assign_versions(build_artifacts(sources), ledger)
    preview_entries = {p.id: _preview_entry(p) for p in previews}
    index = {
        "asOf": sources.as_of.isoformat(),
        "fixture": sources.fixture,
        "packs": _catalog(artifacts, preview_entries),
        "copycat": {
            "versions": [a["versionId"] for a in artifacts],
            "managers": [{"id": m.id, "name": m.name, "cik": m.cik, "fictional": m.fictional} for m in sources.copycat.managers],
        },
        "previews": preview_entries,
        "warnings": _warnings(sources, artifacts, preview_entries),
        "skipped": [{"code": w.code, "message": w.message, "source": w.source} for w in sources.skipped],
        "provenance": [{"path": f.path, "sha256": f.sha256, "size": f.size} for f in sources.files],
    }
    return ReleaseData(index, {a["versionId"]: a for a in artifacts}), new_ledger


def _catalog(artifacts: list[dict], previews: Mapping[str, dict]) -> list[dict]:
    latest = artifacts[-1]
    copycat = {**COPYCAT_ENTRY, "status": "available", "latestVersion": latest["versionId"], "asOf": latest["quarter"]}
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


def _warnings(sources: Sources, artifacts: list[dict], previews: Mapping[str, dict]) -> list[dict]:
    """Every scope warning of the release, once: health stays degraded while any exists."""
    found = {(w["code"], w["source"], w["message"]): w for a in artifacts for w in a["warnings"]}
    found.update({(w.code, w.source, w.message): {"code": w.code, "message": w.message, "source": w.source} for w in sources.warnings})
    for pack_id, preview in previews.items():
        found.update({(w["code"], w["source"], w["message"]): w for w in preview["warnings"]})
    return [found[key] for key in sorted(found)]
