"""The wire shapes of the release operations, each declared once: health, the pack catalog, a pack's versions.

The handlers return these types, and the OpenAPI components (builder.api.openapi.schemas) and the MCP
output schemas (server.mcp_server.schemas) are generated from them by builder.typed. A field's
description is the glossary's (builder.api.openapi.glossary, contexts), by its component and name.
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from builder.api.wire import ContractVersion
from builder.typed import KEY, Count, Date, Keywords, Sha256

HealthStatus = Literal["consumable", "degraded"]  # degraded while fixture or scope warnings exist
PackLabel = Literal["launch pack", "data preview", "research preview"]  # contract section 1
PackFeature = Literal["views", "diff", "explain", "ethos", "policy"]  # what 13f-copycat answers; a preview pack none
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


COMPONENTS = {
    "Health": Health,
    "PackCatalog": PackCatalog,
    "AvailablePack": AvailablePack,
    "PlannedPack": PlannedPack,
    "VersionCatalog": VersionCatalog,
    "CopycatVersionReference": CopycatVersionReference,
    "PreviewVersionReference": PreviewVersionReference,
}
