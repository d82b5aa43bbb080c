"""The audit export of a 13f-copycat version: identity, hashes, provenance, methodology, policy, events."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Annotated, Final, Literal, NotRequired, TypedDict

from builder.canonical import canonical_json, sha256_hex
from builder.records import ManagerConfig
from builder.research.methods.ethos import EthosDefinition, EthosId, EthosScoring
from builder.research.methods.policy import POLICY_CONFIG, PolicyConfig, PolicyResult
from builder.research.schema import SCHEMA_FILE, PackArtifact
from builder.research.views import Mode, View
from builder.selection import Selection
from builder.typed import KEY, Count, Date, Keywords, Sha256

HASH_ALGORITHM: Final = "sha256"  # contract section 8: the audit export digest is SHA-256
HASHED_BYTES = "canonical PackArtifact bytes: orjson, sorted keys, no whitespace"


AuditEventKind = Literal["ingested", "validated", "sealed"]


class ReleaseIdentity(TypedDict):
    releaseId: str
    manifestSha256: Sha256


class ContentHash(TypedDict):  # KEY: what export_audit_trail's compact answer promises (so below)
    algorithm: Annotated[Literal["sha256"], KEY]
    value: Annotated[Sha256, KEY]
    of: str


class SourceFileRecord(TypedDict):
    path: Annotated[str, KEY]
    sha256: Annotated[Sha256, KEY]
    size: Count


class AuditEvent(TypedDict):
    event: Annotated[AuditEventKind, KEY]
    at: Annotated[Date, KEY]
    detail: str


class CopycatIdentity(TypedDict):
    packId: Literal["13f-copycat"]
    versionId: str
    quarter: Date
    schema: Literal["pack-artifact/2.0"]


class ViewSummary(TypedDict):
    managers: list[str]
    mode: Mode
    tickerCount: Count


class EthosMethod(TypedDict):
    id: EthosId
    name: str
    scoring: EthosScoring


class Methodology(TypedDict):
    view: ViewSummary
    ethos: list[EthosMethod]
    policy: PolicyConfig


class SelectedFiler(TypedDict):
    rank: Annotated[int, Keywords(minimum=1)]
    cik: Annotated[str, KEY]
    managerId: str
    reportedValue: Count
    accession: str
    dataset: str


class ManagerSelection(TypedDict):
    """How packs.toml's `largest = N` chose managers of the pack: the N filers of the SEC's Form 13F data sets with
    the largest reported value at the newest quarter end the sets hold (each filer's original holdings report, its
    summary page's total in dollars), ties by CIK; beside the managers packs.toml lists."""

    statement: str
    largest: Count
    quarter: Date
    ranked: Count
    datasets: list[str]
    filers: list[SelectedFiler]


class CopycatAuditExport(TypedDict):
    identity: CopycatIdentity
    release: ReleaseIdentity
    contentHash: ContentHash
    provenance: list[SourceFileRecord]
    selection: NotRequired[ManagerSelection]
    methodology: Methodology
    policy: PolicyResult
    events: list[AuditEvent]
    executionEnabled: Literal[False]
    artifact: PackArtifact


def _events(
    artifact: PackArtifact, release: ReleaseIdentity, provenance: Sequence[object], as_of: str
) -> list[AuditEvent]:
    """ingested → validated → sealed, all dated `as_of` (the release's date, never the clock)."""
    filings = [f for m in artifact["managers"] for f in m["filings"]]
    return [
        {
            "event": "ingested",
            "at": as_of,
            "detail": f"{len(provenance)} source files read; {len(filings)} 13F filings of "
            f"{len(artifact['managers'])} managers for the quarter {artifact['quarter']}",
        },
        {
            "event": "validated",
            "at": as_of,
            "detail": f"PackArtifact valid against {SCHEMA_FILE} ({artifact['schema']}); "
            f"{len(artifact['warnings'])} scope warnings attached",
        },
        {
            "event": "sealed",
            "at": as_of,
            "detail": f"release {release['releaseId']} sealed; manifest sha256 {release['manifestSha256']}",
        },
    ]


def manager_selection(selection: Selection, managers: Sequence[ManagerConfig]) -> ManagerSelection:
    """The selection as the release index and the audit export describe it, each filer with its manager id."""
    ids = {manager.cik: manager.id for manager in managers}
    return {
        "statement": selection.described(),
        "largest": selection.largest,
        "quarter": selection.quarter.isoformat(),
        "ranked": selection.ranked,
        "datasets": list(selection.datasets),
        "filers": [
            {
                "rank": filer.rank,
                "cik": filer.cik,
                "managerId": ids[filer.cik],
                "reportedValue": filer.value,
                "accession": filer.accession,
                "dataset": filer.dataset,
            }
            for filer in selection.filers
        ],
    }


def audit_record(
    artifact: PackArtifact,
    *,
    artifact_sha256: str,
    release: ReleaseIdentity,
    provenance: Sequence[SourceFileRecord],
    view: View,
    ethos: list[EthosDefinition],
    policy: PolicyResult,
    as_of: str,
    selection: ManagerSelection | None = None,
) -> CopycatAuditExport:
    """The audit trail of an `artifact` already validated against its schema; ValueError if the hash is not its own."""
    actual = sha256_hex(canonical_json(artifact))
    if actual != artifact_sha256:
        raise ValueError(f"artifact_sha256 {artifact_sha256} is not the hash of the artifact's bytes ({actual})")
    made: CopycatAuditExport = {
        "identity": {
            "packId": artifact["packId"],
            "versionId": artifact["versionId"],
            "quarter": artifact["quarter"],
            "schema": artifact["schema"],
        },
        "release": {"releaseId": release["releaseId"], "manifestSha256": release["manifestSha256"]},
        "contentHash": {"algorithm": HASH_ALGORITHM, "value": artifact_sha256, "of": HASHED_BYTES},
        "provenance": sorted(
            ({"path": f["path"], "sha256": f["sha256"], "size": f["size"]} for f in provenance), key=lambda f: f["path"]
        ),
        "methodology": {
            "view": {"managers": list(view["managers"]), "mode": view["mode"], "tickerCount": len(view["tickers"])},
            "ethos": [{"id": e["id"], "name": e["name"], "scoring": e["scoring"]} for e in ethos],
            "policy": copy.deepcopy(POLICY_CONFIG),
        },
        "policy": policy,
        "events": _events(artifact, release, provenance, as_of),
        "executionEnabled": False,
        "artifact": artifact,
    }
    if selection is not None:  # only a pack that selects its managers by size says how
        made["selection"] = selection
    return made
