"""The 13f-copycat pack's identity: its id, and its version ids `multi-manager-<quarter-end>-v<major>.<minor>`, one id
for one content."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date
from typing import Final, TypedDict

from builder.canonical import canonical_json, sha256_hex
from builder.research.schema import PackArtifact

PACK_ID: Final = "13f-copycat"  # the contract's pack id: routes, artifacts, warnings and the release's files name it
MAJOR = 2  # the PackArtifact schema's major version (pack-artifact/2.0: changes carried through corporate actions)


class LedgerEntry(TypedDict):
    """A version id as the ledger keeps it: the quarter and the content it names (content_digest)."""

    versionId: str
    quarter: str
    contentSha256: str


def content_digest(artifact: PackArtifact) -> str:
    """sha256 of the artifact's canonical bytes with its id blanked: what an id must always name."""
    return sha256_hex(canonical_json({**artifact, "versionId": ""}))


def version_id(quarter: str, minor: int) -> str:
    return f"multi-manager-{quarter}-v{MAJOR}.{minor}"


def assign_versions(
    artifacts: Sequence[PackArtifact], ledger: Iterable[LedgerEntry]
) -> tuple[list[PackArtifact], list[LedgerEntry]]:
    """Give each artifact its id (assign_version); the artifacts with ids and the ledger extended by the new versions."""
    entries = {entry["versionId"]: entry for entry in ledger}
    assigned = [assign_version(artifact, entries) for artifact in artifacts]
    return [artifact for artifact, _ in assigned], extended_ledger(entries.values(), [entry for _, entry in assigned])


def assign_version(artifact: PackArtifact, published: Mapping[str, LedgerEntry]) -> tuple[PackArtifact, LedgerEntry]:
    """The artifact with its id, and its ledger entry: the published id of the same content, else the quarter's next
    minor. `published`: every version ever published by id ({versionId, quarter, contentSha256}); a restatement or
    any other change of a published quarter's content therefore gets the next minor, never a used id. Each quarter's
    id depends on that quarter's entries alone, so the versions of a release are assigned in any order alike."""
    digest = content_digest(artifact)
    same = [e for e in published.values() if e["quarter"] == artifact["quarter"]]
    match = next((e["versionId"] for e in same if e["contentSha256"] == digest), None)
    if match is None:
        match = version_id(artifact["quarter"], max((_minor(e["versionId"]) + 1 for e in same), default=0))
    entry: LedgerEntry = {"versionId": match, "quarter": artifact["quarter"], "contentSha256": digest}
    return {**artifact, "versionId": match}, entry


def extended_ledger(ledger: Iterable[LedgerEntry], entries: Iterable[LedgerEntry]) -> list[LedgerEntry]:
    """The ledger with the entries of a release's versions (the new ones added), by version id."""
    found = {entry["versionId"]: entry for entry in ledger}
    found.update((entry["versionId"], entry) for entry in entries if entry["versionId"] not in found)
    return [found[key] for key in sorted(found)]


def _minor(identifier: str) -> int:
    return int(identifier.rsplit(".", 1)[1])


def version_as_of(artifact: PackArtifact) -> date:
    """A version's own as-of: the day its newest filing was filed, the first day a point-in-time release has it.

    An older version in a diff is judged at this date, not at the release's: its freshness is what it was
    while it was the newest, not how stale it looks today.
    """
    return max(date.fromisoformat(f["filed"]) for m in artifact["managers"] for f in m["filings"])
