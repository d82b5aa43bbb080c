"""Component schemas of the 13f-copycat research payloads: diff, explanation, policy config and audit export (the
ethos payloads and PolicyResult are generated from the types their research functions return: builder.typed)."""

from __future__ import annotations

from builder.api.openapi.schemas import (
    COUNT,
    DATE,
    FRACTION,
    MODE,
    NO_EXECUTION,
    SHA256,
    STRING,
    STRINGS,
    Schema,
    array,
    closed,
    enum,
    open_id,
    ref,
    typed_schemas,
)
from builder.research.agent import SHAPES as AGENT_SHAPES
from builder.research.artifact import ARTIFACT_SCHEMA
from builder.research.changes import CHANGE_KINDS
from builder.research.diff import SHAPES as DIFF_SHAPES
from builder.research.methods.ethos import ETHOS_IDS
from builder.research.methods.ethos import SHAPES as ETHOS_SHAPES
from builder.research.methods.explain import EXTENDED
from builder.research.methods.explain import SHAPES as EXPLAIN_SHAPES
from builder.research.methods.policy import CHECK_IDS, Outcome, PolicyResult
from builder.research.versions import PACK_ID

OUTCOME = enum(Outcome)
SIGNAL = {**enum(("research-only", "no-signal")), "description": "no-signal when any check blocks: stay in cash."}
ETHOS_ID = open_id(ETHOS_IDS)
FEATURE_VALUE = {"type": ["number", "null"], "description": "null when undefined for the ticker (normalised to 0)."}
SCORE = {"type": "number", "minimum": 0, "maximum": 100}
SHARE_CHANGES = [kind for kind in CHANGE_KINDS if kind != "unknown"]  # a diff lists moves, actions and undecided


def policy_schemas() -> dict[str, Schema]:
    """The policy configuration published with every audit."""
    return {
        "PolicyConfig": closed(
            {
                "executionEnabled": NO_EXECUTION,
                "filingDeadlineDays": COUNT,
                "staleAfterDays": COUNT,
                "topTickerMaxShare": FRACTION,
                "topFiveMaxShare": FRACTION,
                "scopeWarningsCoveredElsewhere": STRINGS,
                "signal": STRING,
                "asOf": STRING,
                "checks": array(closed({"id": open_id(CHECK_IDS), "name": STRING, "rule": STRING})),
            }
        )
    }


def audit_schemas() -> dict[str, Schema]:
    """exportAuditTrail: the 13f-copycat export or a preview pack's."""
    common = {
        "release": closed({"releaseId": STRING, "manifestSha256": SHA256}),
        "contentHash": closed(
            {"algorithm": {"const": "sha256"}, "value": SHA256, "of": STRING},
            description="sha256 of the canonical artifact bytes: recomputable by a client.",
        ),
        "provenance": array(
            closed({"path": STRING, "sha256": SHA256, "size": COUNT}), description="Every source file of the release."
        ),
    }
    events = array(closed({"event": enum(("ingested", "validated", "sealed")), "at": DATE, "detail": STRING}))
    return {
        "AuditExport": {"anyOf": [ref("CopycatAuditExport"), ref("PreviewAuditExport")]},
        "CopycatAuditExport": closed(
            {
                "identity": closed(
                    {
                        "packId": {"const": PACK_ID},
                        "versionId": STRING,
                        "quarter": DATE,
                        "schema": {"const": ARTIFACT_SCHEMA},
                    }
                ),
                **common,
                "methodology": closed(
                    {
                        "view": closed({"managers": STRINGS, "mode": MODE, "tickerCount": COUNT}),
                        "ethos": array(closed({"id": ETHOS_ID, "name": STRING, "scoring": ref("EthosScoring")})),
                        "policy": ref("PolicyConfig"),
                    }
                ),
                "policy": ref("PolicyResult"),
                "events": events,
                "executionEnabled": NO_EXECUTION,
                "artifact": ref("PackArtifact"),
            },
            description="The artifact was validated against the PackArtifact schema before it was returned.",
        ),
        "PreviewAuditExport": closed(
            {
                "identity": closed({"packId": STRING, "versionId": STRING, "asOf": DATE}),
                **common,
                "methodology": ref("PreviewMethodology"),
                "caveats": STRINGS,
                "policy": {"type": "null", "description": "Preview packs have no policy recalculation."},
                "events": events,
                "executionEnabled": NO_EXECUTION,
                "artifact": ref("PreviewArtifact"),
            }
        ),
    }


def payload_schemas() -> dict[str, Schema]:
    """The payloads still built here, and those generated from their types (builder.typed): ethos, PolicyResult."""
    shapes = {**AGENT_SHAPES, **DIFF_SHAPES, **EXPLAIN_SHAPES, **EXTENDED, **ETHOS_SHAPES, "PolicyResult": PolicyResult}
    return {**typed_schemas(shapes), **policy_schemas(), **audit_schemas()}
