"""The PackArtifact JSON Schema: what artifact.py builds is valid, and broken artifacts are refused by path."""

from __future__ import annotations

import copy
import dataclasses
import json
from datetime import date

import pytest
from jsonschema import Draft202012Validator

from builder.research.artifact import build_artifacts
from builder.research.caveats import warning
from builder.research.schema import (
    artifact_schema,
    artifact_validator,
    fast_validator,
    schema_file_text,
    validate_artifact,
)
from builder.research.versions import assign_versions
from tests.factories import filing, row, sources
from tests.research_samples import make_artifact

Q1, Q2 = date(2025, 3, 31), date(2025, 6, 30)
A, B = "0000000001", "0000000002"


def _built() -> list[dict]:
    """Real artifacts of artifact.py: adds, exits, a new position, an unmapped CUSIP and an option row."""
    with_option = filing(A, Q2, {"AAPL": 150, "GOOGL": 10, "88160R101": 7})
    with_option = dataclasses.replace(
        with_option, rows=(*with_option.rows, row(4, "MSFT", 100, 5_000, put_call="Call"))
    )
    filings = [filing(A, Q1, {"AAPL": 100, "MSFT": 50}), with_option, filing(B, Q1, {"AAPL": 100})]
    filings.append(filing(B, Q2, {"AAPL": 80}))
    return assign_versions(build_artifacts(sources(filings, [("alpha", A), ("beta", B)])), [])[0]


def test_the_schema_is_a_valid_2020_12_schema_and_the_validator_is_built_once():
    Draft202012Validator.check_schema(artifact_schema())
    assert artifact_schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert artifact_validator() is artifact_validator()


def test_the_compiled_validator_has_every_reference_inlined():
    assert '"$ref"' not in json.dumps(artifact_validator().schema)
    assert '"$ref"' in json.dumps(artifact_schema())


def test_every_artifact_built_by_artifact_py_is_valid():
    built = _built()
    kinds = {p["change"]["kind"] for a in built for m in a["managers"] for p in (*m["positions"], *m["ended"])}
    assert {"new", "added", "reduced", "exited", "unknown"} <= kinds
    assert any(m["otherHoldings"] for a in built for m in a["managers"])
    for artifact in built:
        validate_artifact(artifact)
        assert not list(artifact_validator().iter_errors(artifact))  # the explaining validator agrees


def test_an_artifact_before_its_version_id_is_assigned_is_valid():
    validate_artifact(build_artifacts(sources([filing(A, Q1, {"AAPL": 1})], [("alpha", A)]))[0])


def test_the_hand_made_samples_are_valid():
    validate_artifact(make_artifact())
    validate_artifact(
        make_artifact(
            fixture=True,
            warnings=[
                warning(
                    "summary-mismatch", "m", "", manager="alpha", quarter="2024-03-31", accession="0000000001-24-000001"
                )
            ],
        )
    )


def _broken(path: tuple, value) -> dict:
    artifact = copy.deepcopy(make_artifact())
    target = artifact
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return artifact


@pytest.mark.parametrize(
    ("path", "value", "where"),
    [
        (("managers", 0, "positions", 0, "change", "kind"), "sold", "$.managers[0].positions[0].change.kind"),
        (("managers", 0, "positions", 0, "shares"), 120.5, "$.managers[0].positions[0].shares"),
        (("managers", 0, "positions", 0, "value"), -1, "$.managers[0].positions[0].value"),
        (("managers", 0, "positions", 0, "sources"), [], "$.managers[0].positions[0].sources"),
        (("managers", 0, "bookValue"), "100000", "$.managers[0].bookValue"),
        (("managers", 0, "ended", 0, "change", "kind"), "unknown", "$.managers[0].ended[0].change.carriedShares"),
        (("managers", 0, "positions", 0, "change", "shareDelta"), None, "$.managers[0].positions[0].change.shareDelta"),
        (
            ("managers", 2, "positions", 0, "change", "previousShares"),
            0,
            "$.managers[2].positions[0].change.previousShares",
        ),
        (("managers", 0, "cik"), "1067983", "$.managers[0].cik"),
        (("quarter",), "2024-02-30", "$.quarter"),
        (("packId",), "congress-trades", "$.packId"),
        (("versionId",), "v1", "$.versionId"),
        (("warnings",), KeyError, "$"),
        (("managers", 0, "surprise"), True, "$.managers[0]"),
    ],
)
def test_a_broken_artifact_fails_validation_naming_its_path(path, value, where):
    assert not fast_validator().is_valid(_broken(path, value))  # the fast judge agrees, so never waves it through
    with pytest.raises(ValueError, match=r"fails its schema at (\S+):") as raised:
        validate_artifact(_broken(path, value))
    assert f"at {where}:" in str(raised.value)


def test_indexes_are_ordered_as_numbers_when_picking_the_first_error():
    books = {f"m{i:02d}": ({"AAPL": (1, 10)}, None) for i in range(11)}
    artifact = make_artifact(books)
    artifact["managers"][2]["bookValue"] = -1
    artifact["managers"][10]["bookValue"] = -1
    with pytest.raises(ValueError, match=r"at \$\.managers\[2\]\.bookValue: .*\(and 1 more\)"):
        validate_artifact(artifact)


def test_validation_reports_the_first_error_in_path_order_and_counts_the_rest():
    artifact = _broken(("managers", 1, "bookValue"), -5)
    artifact["managers"][0]["name"] = 7
    with pytest.raises(ValueError, match=r"at \$\.managers\[0\]\.name: .*\(and 1 more\)"):
        validate_artifact(artifact)


def test_the_shipped_schema_file_is_what_the_artifact_types_generate():
    from scripts.artifact_schema import TARGET

    assert TARGET.read_text(encoding="utf-8") == schema_file_text(), "regenerate: python -m scripts.artifact_schema"
    assert json.loads(TARGET.read_text(encoding="utf-8"))["$defs"]["change"] == {
        "oneOf": [{"$ref": f"#/$defs/{kind}Change"} for kind in ("trade", "converted", "undecided", "unknown")]
    }
