"""Audit export: identity, content hash of the canonical bytes, provenance, methodology, policy, events."""

from __future__ import annotations

import hashlib
from datetime import date

import pytest

from builder.canonical import canonical_json
from builder.research.methods.audit import audit_record
from builder.research.methods.ethos import ethos_definitions
from builder.research.methods.policy import POLICY_CONFIG, evaluate_policy
from builder.research.schema import validate_artifact
from builder.research.views import select_view
from tests.research_samples import make_artifact

RELEASE = {"releaseId": "r-2024-09-01-abc123", "manifestSha256": "ab" * 32, "path": "/srv/releases/r-2024-09-01-abc123"}
PROVENANCE = [
    {"path": "securities.csv", "sha256": "cd" * 32, "size": 120},
    {"path": "packs.toml", "sha256": "ef" * 32, "size": 80},
]
AS_OF = "2024-09-01"


def _export(artifact: dict | None = None, sha: str | None = None) -> dict:
    artifact = artifact or make_artifact(fixture=True)
    view = select_view(artifact, ["alpha", "beta"], "overlap")
    policy = evaluate_policy(view, artifact, as_of=date.fromisoformat(AS_OF))
    return audit_record(
        artifact,
        artifact_sha256=sha or hashlib.sha256(canonical_json(artifact)).hexdigest(),
        release=RELEASE,
        provenance=PROVENANCE,
        view=view,
        ethos=ethos_definitions(),
        policy=policy,
        as_of=AS_OF,
    )


def test_the_content_hash_is_the_sha256_of_the_canonical_artifact_bytes():
    artifact = make_artifact(fixture=True)
    export = _export(artifact)
    assert export["contentHash"]["algorithm"] == "sha256"
    assert export["contentHash"]["value"] == hashlib.sha256(canonical_json(export["artifact"])).hexdigest()
    assert export["artifact"] == artifact


def test_a_hash_that_is_not_the_artifacts_is_refused():
    with pytest.raises(ValueError, match="is not the hash of the artifact"):
        _export(sha="00" * 32)


def test_a_broken_artifact_is_refused_by_the_schema_check_the_audit_runs_first():
    # exportAuditTrail (builder.api.methods) validates the artifact, then builds its record with audit_record
    artifact = make_artifact()
    artifact["managers"][0]["positions"][0]["shares"] = -3
    with pytest.raises(ValueError, match=r"at \$\.managers\[0\]\.positions\[0\]\.shares"):
        validate_artifact(artifact)


def test_identity_and_release_reference_name_the_version_and_the_manifest_only():
    export = _export()
    assert export["identity"] == {
        "packId": "13f-copycat",
        "versionId": "multi-manager-2024-06-30-v2.0",
        "quarter": "2024-06-30",
        "schema": "pack-artifact/2.0",
    }
    assert export["release"] == {"releaseId": RELEASE["releaseId"], "manifestSha256": RELEASE["manifestSha256"]}
    assert "/srv" not in canonical_json(export).decode()


def test_provenance_lists_every_source_file_sorted_by_path():
    assert _export()["provenance"] == sorted(PROVENANCE, key=lambda f: f["path"])


def test_methodology_holds_the_view_ethos_scoring_and_policy_config():
    methodology = _export()["methodology"]
    assert methodology["view"] == {"managers": ["alpha", "beta"], "mode": "overlap", "tickerCount": 1}
    assert [e["scoring"] for e in methodology["ethos"]] == [d["scoring"] for d in ethos_definitions()]
    assert methodology["policy"] == POLICY_CONFIG


def test_events_run_ingested_validated_sealed_dated_as_of_never_the_clock():
    events = _export()["events"]
    assert [e["event"] for e in events] == ["ingested", "validated", "sealed"]
    assert {e["at"] for e in events} == {AS_OF}
    assert "2 source files" in events[0]["detail"] and RELEASE["manifestSha256"] in events[2]["detail"]


def test_the_policy_result_is_attached_and_execution_stays_disabled():
    export = _export()
    assert export["policy"]["executionEnabled"] is False and export["executionEnabled"] is False
    assert {c["id"]: c["outcome"] for c in export["policy"]["checks"]}["fixture-data"] == "warn"


def test_the_same_inputs_export_the_same_bytes():
    assert canonical_json(_export()) == canonical_json(_export())
