"""The wire shapes of the release operations, each declared once: health, the pack catalog, a pack's versions,
the latest answers and audit exports (a preview's agent payload as served: with its version and next calls).

The handlers return these types, and the OpenAPI components (builder.api.openapi.schemas) and the MCP
output schemas (builder.api.answers, server.mcp_server.tools) are generated from them by builder.typed. A field's
description is the glossary's (builder.api.openapi.glossary, contexts), by its component and name.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from builder.api.wire import ContractVersion
from builder.research.agent import AgentPayload, NextCall
from builder.research.methods.audit import (
    AuditEvent,
    ContentHash,
    CopycatAuditExport,
    ReleaseIdentity,
    SourceFileRecord,
)
from builder.research.previews.artifacts import ARTIFACTS, PreviewArtifact, PreviewMethodology
from builder.research.previews.pack import PackLabel
from builder.research.previews.shapes import CongressPayload, PersonPayload, SocialPayload
from builder.research.schema import PackArtifact
from builder.research.views import Mode, View
from builder.typed import KEY, Count, Date, Keywords, Sha256

HealthStatus = Literal["consumable", "degraded"]  # degraded while fixture or scope warnings exist
PackFeature = Literal["views", "diff", "explain", "ethos", "policy"]  # what 13f-copycat answers; a preview pack none
PackStatus = Literal["available", "planned"]  # a planned pack is listed, with no links; its routes answer 404
NoExecution = Literal[False]  # research only: no broker, no orders
CopycatVersionId = Annotated[str, Keywords(pattern=r"^multi-manager-[0-9]{4}-[0-9]{2}-[0-9]{2}-v[0-9]+\.[0-9]+$")]


class HealthPack(TypedDict):
    id: Annotated[str, KEY]
    status: Literal["available"]
    latestVersion: Annotated[str, KEY]
    asOf: Date


class HealthWarning(TypedDict):
    code: Annotated[str, KEY]
    message: Annotated[str, KEY]
    pack: str
    manager: str | None
    quarter: Date | None
    accession: str | None


class Health(TypedDict):
    status: HealthStatus
    releaseId: str
    manifestSha256: Sha256
    asOf: Date
    contractVersion: ContractVersion
    fixture: bool
    packs: list[HealthPack]
    warningCount: Count
    warnings: list[HealthWarning]
    executionEnabled: NoExecution


class PackLinks(TypedDict):
    latest: str
    versions: str


class NoLinks(TypedDict):
    """A planned pack's links: none, its routes answer 404."""


class CatalogEntry(TypedDict):
    id: str
    label: PackLabel
    title: str
    description: str
    features: Annotated[list[PackFeature], Keywords(uniqueItems=True)]


class AvailablePack(CatalogEntry):
    status: Literal["available"]
    latestVersion: str
    asOf: Date
    links: PackLinks


class PlannedPack(CatalogEntry):
    status: Literal["planned"]
    latestVersion: None
    asOf: None
    links: NoLinks


class PackCatalog(TypedDict):
    packs: list[AvailablePack | PlannedPack]


class CopycatVersionReference(TypedDict):
    versionId: CopycatVersionId
    quarter: Date
    latest: bool
    artifactSha256: Sha256


class PreviewVersionReference(TypedDict):
    versionId: str
    asOf: Date
    latest: bool


class VersionCatalog(TypedDict):
    packId: str
    latestVersion: str
    versions: list[CopycatVersionReference | PreviewVersionReference]


class ServedPayload(TypedDict):
    """What a preview's agent payload gains where it is served: its version and the calls to make next."""

    versionId: str
    nextCalls: list[NextCall]


class PersonAgentPayload(PersonPayload, ServedPayload):
    pass


class CongressAgentPayload(CongressPayload, ServedPayload):
    pass


class SocialAgentPayload(SocialPayload, ServedPayload):
    pass


PreviewAgentPayload = PersonAgentPayload | CongressAgentPayload | SocialAgentPayload


class PackSummary(TypedDict):
    id: str
    label: PackLabel
    title: str
    status: Literal["available"]


class ManifestEntry(TypedDict):
    file: str
    sha256: Sha256


class ManagerListing(TypedDict):
    id: str
    name: str
    cik: str
    fictional: bool


class CopycatLatestPack(TypedDict):
    pack: PackSummary
    versionId: str
    artifact: PackArtifact
    manifestEntry: ManifestEntry
    managers: list[ManagerListing]
    modes: list[Mode]
    view: View
    agentPayload: AgentPayload
    limitations: list[str]


class PreviewLatestPack(TypedDict):
    pack: PackSummary
    versionId: str
    artifact: PreviewArtifact
    agentPayload: PreviewAgentPayload
    caveats: list[str]
    limitations: list[str]


class PreviewIdentity(TypedDict):
    packId: str
    versionId: str
    asOf: Date


class PreviewAuditExport(TypedDict):
    identity: PreviewIdentity
    release: ReleaseIdentity
    contentHash: ContentHash
    provenance: list[SourceFileRecord]
    methodology: PreviewMethodology
    caveats: list[str]
    policy: None
    events: list[AuditEvent]
    executionEnabled: Literal[False]
    artifact: PreviewArtifact


COMPONENTS = {
    "Health": Health,
    "PackCatalog": PackCatalog,
    "AvailablePack": AvailablePack,
    "PlannedPack": PlannedPack,
    "VersionCatalog": VersionCatalog,
    "CopycatVersionReference": CopycatVersionReference,
    "PreviewVersionReference": PreviewVersionReference,
    "LatestPack": CopycatLatestPack | PreviewLatestPack,
    "PackSummary": PackSummary,
    "CopycatLatestPack": CopycatLatestPack,
    "PreviewLatestPack": PreviewLatestPack,
    "AuditExport": CopycatAuditExport | PreviewAuditExport,
    "CopycatAuditExport": CopycatAuditExport,
    "PreviewAuditExport": PreviewAuditExport,
    **ARTIFACTS,  # the preview packs' artifacts and methodologies (builder.research.previews.artifacts)
    "PersonAgentPayload": PersonAgentPayload,
    "CongressAgentPayload": CongressAgentPayload,
    "SocialAgentPayload": SocialAgentPayload,
    "PreviewArtifact": PreviewArtifact,
    "PreviewAgentPayload": PreviewAgentPayload,
    "PreviewMethodology": PreviewMethodology,
}
