"""Assemble a release's data from its sources: the pack catalog, the 13f-copycat artifacts, the index."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import NamedTuple

from builder.api.contract import COPYCAT_FEATURES
from builder.api.data import (
    CopycatIndex,
    IndexedPack,
    IndexWarning,
    Learned,
    PreviewEntry,
    ReleaseData,
    ReleaseIndex,
    bare_index,
)
from builder.api.methods import (
    artifact_sha256,
    carried_through,
    completed_on,
    facts_of,
    history_step,
    keying_of,
    view_tickers_of,
)
from builder.api.openapi.document import openapi_document
from builder.api.shapes import CatalogEntry
from builder.canonical import canonical_json, sha256_hex
from builder.cores import forked_map
from builder.records import Sources
from builder.release.objects import Artifacts, held_artifact, kept_decoded, packed_artifact
from builder.research.artifact import Lender, Made, built_artifacts
from builder.research.caveats import identity, sortable
from builder.research.changes.actions import QuarterActions
from builder.research.changes.listing import UndecidedEntry, VersionFacts, actions_of, version_facts
from builder.research.methods.audit import manager_selection
from builder.research.previews.pack import PreviewPack
from builder.research.schema import ArtifactWarning, PackArtifact
from builder.research.versions import PACK_ID, LedgerEntry, assign_version, extended_ledger
from builder.research.views import MODES

COPYCAT_ENTRY: CatalogEntry = {
    "id": PACK_ID,
    "label": "launch pack",
    "title": "13F copycat: multi-manager filing pack",
    "description": "Positions and quarter-over-quarter changes of the selected managers from SEC Form 13F-HR filings, "
    "with cross-manager views (any, overlap, exclusive, disagreement).",
    "features": list(COPYCAT_FEATURES),
}
# Announced in the catalog so agents can plan for them; their routes answer 404 until they ship.
PLANNED_PACKS: tuple[CatalogEntry, ...] = (
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


class Packed(NamedTuple):
    """One version as a publish holds it from building to rendering: its canonical JSON compressed (the file the
    release stores) and its objects pickled and compressed (what the publish decodes), with what the release index
    reads of it. A build worker sends back these bytes, not the dicts."""

    version: str
    quarter: str
    sha256: str  # of the canonical JSON: the artifact's identity (artifact_sha256, contentHash)
    stored: bytes  # packed_artifact(canonical JSON): its file
    held: bytes  # held_artifact(artifact): what the publish decodes
    size: int  # of the canonical JSON
    entry: LedgerEntry
    warnings: list[ArtifactWarning]
    learned: Learned  # what the checks and answers of every kind read of it (derived), made while it was at hand
    taken: bool  # from an earlier build (the promoted release), not built


def assemble(
    sources: Sources,
    ledger: Iterable[LedgerEntry],
    previews: Iterable[PreviewPack] = (),
    earlier: Lender | None = None,
    workers: int = 1,
) -> tuple[ReleaseData, list[LedgerEntry]]:
    """The release data of `sources`; `ledger` lists versions already published. Returns the new ledger too.

    `earlier`: what reads the artifacts an earlier build made from the same inputs (see
    research.artifact.build_artifacts); every artifact is read or built on `workers` processes, a quarter each at a
    time (the same artifacts on any number), and those taken so are pinned as ("taken", version). Each is held as
    bytes (Packed) and decoded when read, a few kept decoded (objects.Artifacts, kept_decoded).
    """
    published = {entry["versionId"]: entry for entry in ledger}

    def packed(made: Made) -> Packed:
        with_id, entry = assign_version(made.artifact, published)
        body = canonical_json(with_id)
        sha256, stored, size = sha256_hex(body), packed_artifact(body), len(body)
        del body  # 0.12 GB at 2,000 managers: let go before `derived` adds the census
        return Packed(
            entry["versionId"],
            entry["quarter"],
            sha256,
            stored,
            held_artifact(with_id),
            size,
            entry,
            with_id["warnings"],
            derived(with_id, sha256, entry["contentSha256"]),
            made.taken,
        )

    built = built_artifacts(
        sources,
        earlier,
        # read or built in forked processes only, one for each quarter: a quarter's books and evidence never grow the
        # heap that lives on, nor the next quarter's
        lambda task, quarters: forked_map(
            lambda quarter: packed(task(quarter)), quarters, workers, here=False, fresh=True
        ),
    )
    stored = {version.version: version.stored for version in built}  # handed over once, to write the files
    held = {version.version: version.held for version in built}
    preview_entries = {p.id: _preview_entry(p) for p in previews}
    index: ReleaseIndex = {
        "asOf": sources.as_of.isoformat(),
        "fixture": sources.fixture,
        "packs": _catalog(built[-1], preview_entries),
        "copycat": _copycat_index(sources, list(stored)),
        "previews": preview_entries,
        "warnings": _warnings(built, preview_entries),
        "skipped": [{"code": w.code, "message": w.message, "source": w.source} for w in sources.skipped],
        "provenance": [{"path": f.path, "sha256": f.sha256, "size": f.size} for f in sources.files],
    }
    artifacts = Artifacts(list(stored), stored.pop, kept_decoded(max(v.size for v in built)), held.__getitem__)
    data = ReleaseData(index, artifacts)
    for version in built:  # what the publish knows of each without decoding it
        data.pinned.update({("sha256", version.version): version.sha256, ("quarter", version.version): version.quarter})
        if version.taken:
            data.pinned[("taken", version.version)] = True
        data.adopt(version.learned)
    new_ledger = extended_ledger(published.values(), [version.entry for version in built])
    return data, new_ledger


def documented(data: ReleaseData) -> ReleaseData:
    """`data` with its OpenAPI document, which enumerates this release's ids and names the latest view's largest
    holding: from the latest version's census, which its build worker sent back (`derived`), so this process
    decodes no artifact for it (what it decoded would stay in the heap every render process inherits)."""
    return replace(data, openapi=openapi_document(data))


def _copycat_index(sources: Sources, versions: list[str]) -> CopycatIndex:
    """The versions, the managers, and how `largest` chose some of them (only when packs.toml asks for it)."""
    managers = sources.copycat.managers
    index: CopycatIndex = {
        "versions": versions,
        "managers": [{"id": m.id, "name": m.name, "cik": m.cik, "fictional": m.fictional} for m in managers],
    }
    if sources.selection is not None:
        index["selection"] = manager_selection(sources.selection, managers)
    return index


def _catalog(latest: Packed, previews: Mapping[str, PreviewEntry]) -> list[IndexedPack]:
    copycat: IndexedPack = {
        **COPYCAT_ENTRY,
        "status": "available",
        "latestVersion": latest.version,
        "asOf": latest.quarter,
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


def _preview_entry(pack: PreviewPack) -> PreviewEntry:
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


def _warnings(artifacts: list[Packed], previews: Mapping[str, PreviewEntry]) -> list[IndexWarning]:
    """The scope warnings of what is published, each once and each naming its pack and what it is about (manager,
    quarter, accession, CUSIP), as views see them: health stays degraded while any exists.

    Only the published versions' warnings count: a confidential omission in a quarter outside the window is
    not this release's problem. A warning two versions carry alike (the fixture label) is listed once.
    """
    found: dict[tuple[str | None, ...], IndexWarning] = {identity(w): {**w} for a in artifacts for w in a.warnings}
    for pack_id, preview in previews.items():
        scoped: Iterable[IndexWarning] = (
            {**w, "pack": pack_id, "manager": None, "quarter": None, "accession": None, "cusip": None}
            for w in preview["warnings"]
        )
        found.update((identity(w), w) for w in scoped)
    return sorted(found.values(), key=_by_pack)


def _by_pack(w: IndexWarning) -> tuple[str, ...]:
    """A warning's place in the index: by pack, then what it is about."""
    return sortable((w["pack"], w["manager"], w["quarter"], w["code"], w["accession"], w["cusip"], w["message"]))


def warning_lines(warnings: list[IndexWarning]) -> list[str]:
    """The console summary of a release's warnings: one line per code and pack, with a count and an example."""
    groups: dict[tuple[str, str], list[IndexWarning]] = {}
    for warning in warnings:
        groups.setdefault((warning["code"], warning["pack"]), []).append(warning)
    if not groups:
        return ["warnings: none (health: consumable)"]
    packs = len({pack for _, pack in groups})
    lines = [f"warnings: {len(warnings)} in {packs} pack(s) (health: degraded while any is published)"]
    for (code, pack), found in sorted(groups.items()):
        example = found[0]
        where = f" ({example['source']})" if example["source"] else ""
        lines.append(f"  {code} ×{len(found)} [{pack}] e.g.{where} {example['message']}")
    return lines


def warm(data: ReleaseData, versions: Iterable[str]) -> None:
    """Compute what answers of every kind share of each version (its hash, as-of, views in every mode, holdings, what
    a diff carries through it and reads of its keys): `derived` does, in the build worker that made it, so that the
    rendering processes inherit it instead of each computing it again (and decoding the version for it)."""
    for version in versions:
        artifact_sha256(data, version)
        facts_of(data, version)
        completed_on(data, version)
        carried_through(data, version)
        keying_of(data, version)
        history_step(data, version)
        data.holdings(version)
        for mode in MODES:
            view_tickers_of(data, version, [], mode)


def derived(artifact: PackArtifact, sha256: str, digest: str) -> Learned:
    """What the publish checks of a version, what a review shows of it and what answers of every kind read of it,
    computed by the process that built it while the artifact is at hand, so no process decodes it for them: its
    VersionFacts (pinned as ("facts", version); `digest`: its content digest, from its ledger entry) and what `warm`
    computes. The process that assembles the release adopts it."""
    version = artifact["versionId"]
    data = ReleaseData(bare_index([version]), {version: artifact}, pinned={("sha256", version): sha256})

    def facts() -> None:
        data.pinned[("facts", version)] = version_facts(artifact, digest)
        warm(data, [version])

    return data.learned(facts)[1]


def versions_facts(data: ReleaseData) -> dict[str, VersionFacts]:
    """Each version's VersionFacts, as its build worker read them (`derived`)."""
    return {version: data.pinned[("facts", version)] for version in data.versions}


def checked(data: ReleaseData) -> tuple[list[QuarterActions], list[UndecidedEntry], dict[str, tuple[set[str], float]]]:
    """What the publish checks and reports of every version (`derived`): the corporate actions each applies, the
    undecided changes, oldest first, and the unmapped CUSIPs with their share of each version's value."""
    facts = versions_facts(data)
    return (
        actions_of(facts.values()),
        [change for found in facts.values() for change in found.undecided],
        {version: (found.unmapped, found.unmapped_share) for version, found in facts.items()},
    )
