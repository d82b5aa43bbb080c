"""Schemathesis hooks (SCHEMATHESIS_HOOKS=tests.schemathesis_hooks): what the document says but cannot express.

The served document enumerates every id the release answers for, so a schema-valid request is accepted,
with two exceptions that span two parameters, which a schema cannot tie together: compareVersions needs
'from' earlier than 'to', and a preview pack takes no view parameters (getLatestPack, exportAuditTrail).
Both are written in those operations' descriptions; these filters leave exactly those requests out.
"""

from __future__ import annotations

from typing import Any

import schemathesis

PACK = "13f-copycat"
DIFF = "GET /api/v1/packs/{packId}/versions/diff"
VIEWS = ("GET /api/v1/packs/{packId}/latest", "GET /api/v1/packs/{packId}/audit")


def _versions(case: Any) -> list[str]:
    """The version ids in the order the document lists them: oldest first."""
    parameters = case.operation.definition.raw["parameters"]
    return next(p["schema"]["enum"] for p in parameters if p["name"] == "from")


def _query(case: Any, name: str) -> Any:
    return (case.query or {}).get(name)


@schemathesis.hook
def filter_case(ctx: Any, case: Any) -> bool:
    """False for 'from' not earlier than 'to', and for view parameters sent to a preview pack."""
    if case.operation.label == DIFF:
        versions, older, newer = _versions(case), _query(case, "from"), _query(case, "to")
        if older in versions and newer in versions:
            return versions.index(older) < versions.index(newer)
    if case.operation.label in VIEWS and (case.path_parameters or {}).get("packId") != PACK:
        return not _query(case, "managers") and _query(case, "mode") in (None, "any")
    return True
