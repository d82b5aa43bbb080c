"""Component schemas of the 13f-copycat research payloads: diff, explanation, policy config and audit export (the
ethos payloads and PolicyResult are generated from the types their research functions return: builder.typed)."""

from __future__ import annotations

from builder.api.openapi.schemas import (
    BOOLEAN,
    COUNT,
    DATE,
    FRACTION,
    INTEGER,
    MODE,
    NO_EXECUTION,
    SHA256,
    STRING,
    STRINGS,
    VIEW_REF,
    Schema,
    array,
    artifact_properties,
    closed,
    enum,
    mapping,
    nullable,
    open_id,
    ref,
)
from builder.research.artifact import ARTIFACT_SCHEMA
from builder.research.changes import CAUSES, CHANGE_KINDS
from builder.research.methods.ethos import ETHOS_IDS, FEATURES
from builder.research.methods.ethos import SHAPES as ETHOS_SHAPES
from builder.research.methods.policy import CHECK_IDS, Outcome, PolicyResult
from builder.research.versions import PACK_ID
from builder.typed import object_schemas

OUTCOME = enum(Outcome)
SIGNAL = {**enum(("research-only", "no-signal")), "description": "no-signal when any check blocks: stay in cash."}
ETHOS_ID = open_id(ETHOS_IDS)
FEATURE_VALUE = {"type": ["number", "null"], "description": "null when undefined for the ticker (normalised to 0)."}
SCORE = {"type": "number", "minimum": 0, "maximum": 100}
SHARE_CHANGES = [kind for kind in CHANGE_KINDS if kind != "unknown"]  # a diff lists moves, actions and undecided


def diff_schemas() -> dict[str, Schema]:
    """compareVersions: tickers in and out of the view, position, source and policy changes."""
    return {
        "VersionDiff": closed(
            {
                "from": STRING,
                "to": STRING,
                "fromQuarter": DATE,
                "toQuarter": DATE,
                "view": VIEW_REF,
                "tickers": closed({"entered": STRINGS, "left": STRINGS, "unchanged": COUNT}),
                "positions": array(ref("PositionChange")),
                "sources": array(
                    closed(
                        {"managerId": STRING, "fromAccessions": STRINGS, "toAccessions": STRINGS, "amendments": STRINGS}
                    )
                ),
                "warnings": closed(
                    {"appeared": array(ref("ArtifactWarning")), "disappeared": array(ref("ArtifactWarning"))},
                    description="Warnings about the pack and the view's managers that appeared since `from` "
                    "(in `to` or a version between) and those `to` no longer has.",
                ),
                "policy": array(ref("PolicyChange")),
            },
            description="What changed between two versions over one view; never why.",
        ),
        "PositionChange": closed(
            {
                "managerId": STRING,
                "ticker": STRING,
                "mapped": {
                    **BOOLEAN,
                    "description": "false: securities.csv has no ticker for it; `ticker` is its CUSIP.",
                },
                "kind": {
                    **enum(SHARE_CHANGES),
                    "description": "The trade, measured against the older book carried through "
                    "the corporate actions between the versions: new, added, reduced, unchanged, exited; converted "
                    "(ended through a corporate action, not sold); undecided (not counted as bought or sold).",
                },
                "fromShares": COUNT,
                "toShares": COUNT,
                "carriedShares": nullable(COUNT),
                "shareDelta": nullable(INTEGER),
                "fromValue": COUNT,
                "toValue": COUNT,
                "cause": enum(CAUSES),
                "corporateActions": array(ref("ArtifactCorporateAction")),
                "candidates": array(ref("ArtifactCandidate")),
            }
        ),
        "PolicyChange": closed(
            {
                "id": STRING,
                "from": nullable(OUTCOME),
                "to": nullable(OUTCOME),
                "fromReason": nullable(STRING),
                "toReason": nullable(STRING),
            },
            description="A policy check whose outcome differs between the two versions.",
        ),
    }


def explanation_schemas() -> dict[str, Schema]:
    """explainPosition: changes, cited evidence, ethos scores, overlap, source records, limitations."""
    held: dict[str, Schema] = {
        "managerId": STRING,
        "managerName": STRING,
        "held": {"const": True},
        "sourcesQuarter": DATE,
    }
    ended = {**held, "held": {"const": False}}
    return {
        "PositionExplanation": closed(
            {
                "ticker": STRING,
                "issuer": STRING,
                "cusip": STRING,
                "versionId": STRING,
                "quarter": DATE,
                "view": VIEW_REF,
                "viewStatus": {"enum": ["in-view", "left-view"]},
                "summary": closed(
                    {"holders": STRINGS, "holderCount": COUNT, "buyers": STRINGS, "sellers": STRINGS, "value": COUNT}
                ),
                "changes": array({"anyOf": [ref("HeldChange"), ref("EndedChange")]}),
                "evidence": closed({"statements": array(ref("EvidenceStatement"))}),
                "ethos": closed(
                    {
                        "ethosIds": array(ETHOS_ID),
                        "scores": mapping(ETHOS_IDS, SCORE),
                        "features": mapping(FEATURES, FEATURE_VALUE),
                    }
                ),
                "overlap": closed(
                    {
                        "inEveryTopSet": BOOLEAN,
                        "topSets": array(ETHOS_ID),
                        "ranks": mapping(ETHOS_IDS, {"type": ["integer", "null"], "minimum": 1}),
                    }
                ),
                "sourceRecords": array(closed({"managerId": STRING, **artifact_properties("filing")})),
                "warnings": {
                    **array(ref("ArtifactWarning")),
                    "description": "The view's warnings about the pack, the "
                    "explained managers' filings and this security (an unmapped CUSIP among them).",
                },
                "limitations": STRINGS,
                "policy": nullable(
                    closed(
                        {
                            "signal": SIGNAL,
                            "executionEnabled": NO_EXECUTION,
                            "blockingReasons": STRINGS,
                            "warnings": STRINGS,
                        }
                    )
                ),
                "executionEnabled": NO_EXECUTION,
            }
        ),
        "HeldChange": closed(
            {**held, **artifact_properties("position")},
            description="The artifact's position of a selected manager, with its quarter's sources.",
        ),
        "EndedChange": closed(
            {**ended, **artifact_properties("ended")},
            description="A position no longer held: the sources are the previous quarter's rows.",
        ),
        "EvidenceStatement": closed(
            {
                "text": STRING,
                "citations": array(
                    closed(
                        {
                            "accession": STRING,
                            "row": {
                                "type": ["integer", "null"],
                                "minimum": 1,
                                "description": "null for a position no longer held (no row this quarter).",
                            },
                            "managerId": STRING,
                        }
                    )
                ),
            }
        ),
    }


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
    typed = object_schemas({**ETHOS_SHAPES, "PolicyResult": PolicyResult})
    return {**diff_schemas(), **explanation_schemas(), **typed, **policy_schemas(), **audit_schemas()}
