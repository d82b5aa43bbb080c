"""The 13f-copycat pack's identity: its id, and its version ids `multi-manager-<quarter-end>-v<major>.<minor>`, one id
for one content."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date
from typing import Final

from builder.canonical import canonical_json, sha256_hex
from builder.research.schema import PackArtifact

PACK_ID: Final = "13f-copycat"  # the contract's pack id: routes, artifacts, warnings and the release's files name it
MAJOR = 2  # the PackArtifact schema's major version (pack-artifact/2.0: changes carried through corporate actions)


def content_digest(artifact: PackArtifact) -> str:
    """sha256 of the artifact's canonical bytes with its id blanked: what an id must always name."""
    return sha256_hex(canonical_json({**artifact, "versionId": ""}))


def version_id(quarter: str, minor: int) -> str:
    return f"multi-manager-{quarter}-v{MAJOR}.{minor}"


def assign_versions(artifacts: Sequence[PackArtifact], ledger: Iterable[dict]) -> tuple[list[PackArtifact], list[dict]]:
    """Give each artifact its id: the published id of the same content, else the quarter's next minor.

    `ledger` lists every version ever published ({versionId, quarter, contentSha256}); a restatement or
    any other change of a published quarter's content therefore gets the next minor, never a used id.
    Returns the artifacts with ids and the ledger extended by the new versions.
    """
    entries = {entry["versionId"]: entry for entry in ledger}
    assigned: list[PackArtifact] = []
    for artifact in artifacts:
        digest = content_digest(artifact)
        same = [e for e in entries.values() if e["quarter"] == artifact["quarter"]]
        match = next((e["versionId"] for e in same if e["contentSha256"] == digest), None)
        if match is None:
            match = version_id(artifact["quarter"], max((_minor(e["versionId"]) + 1 for e in same), default=0))
            entries[match] = {"versionId": match, "quarter": artifact["quarter"], "contentSha256": digest}
        assigned.append({**artifact, "versionId": match})
    return assigned, [entries[key] for key in sorted(entries)]


def _minor(identifier: str) -> int:
    return int(identifier.rsplit(".", 1)[1])


def version_as_of(artifact: PackArtifact) -> date:
    """A version's own as-of: the day its newest filing was filed, the first day a point-in-time release has it.

    An older version in a diff is judged at this date, not at the release's: its freshness is what it was
    while it was the newest, not how stale it looks today.
    """
    return max(date.fromisoformat(f["filed"]) for m in artifact["managers"] for f in m["filings"])
