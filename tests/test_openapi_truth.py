"""The OpenAPI document tells the truth: each field's own description, typed objects, unions a generator can
follow, no request-body defaults, open strings for ids that grow."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest

from builder.api.openapi.document import openapi_document
from builder.research.methods.ethos import ETHOS_IDS
from builder.research.methods.policy import CHECK_IDS

# Differently named fields that are one concept, and so share one description.
SHARED_CONCEPTS = {frozenset({"id", "managerId"}): "a manager's id", frozenset({"id", "packId"}): "a pack id"}


@pytest.fixture(scope="module")
def document(release) -> dict[str, Any]:
    return release.data.openapi  # the document a release serves, with its ids enumerated


def nodes(node: Any, path: str = "#") -> Iterator[tuple[str, dict]]:
    """Every schema-like object of the document with its JSON pointer."""
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from nodes(value, f"{path}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from nodes(value, f"{path}/{index}")


def test_a_description_is_on_two_differently_named_fields_only_for_one_shared_concept(document):
    names: dict[str, set[str]] = defaultdict(set)
    for _, node in nodes(document["components"]["schemas"]):
        for name, schema in (node.get("properties") or {}).items():
            if isinstance(schema, dict) and "description" in schema:
                names[schema["description"]].add(name)
    shared = {text: frozenset(found) for text, found in names.items() if len(found) > 1}
    assert all(found in SHARED_CONCEPTS for found in shared.values()), {
        text[:60]: sorted(found) for text, found in shared.items() if found not in SHARED_CONCEPTS
    }


def test_no_schema_is_a_bare_object(document):
    bare = [
        path
        for path, node in nodes(document["components"]["schemas"])
        if node.get("type") == "object" and not {"properties", "additionalProperties", "propertyNames"} & set(node)
    ]
    assert bare == []


def test_no_schema_uses_if_then_else_and_change_is_a_discriminated_union(document):
    assert [path for path, node in nodes(document) if "if" in node and isinstance(node["if"], dict)] == []
    schemas = document["components"]["schemas"]
    for owner in ("ArtifactPosition", "HeldChange"):
        change = schemas[owner]["properties"]["change"]
        if "$ref" in change:  # the artifact may name its union once
            change = schemas[change["$ref"].rsplit("/", 1)[1]]
        assert change["discriminator"]["propertyName"] == "kind" and len(change["oneOf"]) >= 2
        assert set(change["discriminator"]["mapping"].values()) == {branch["$ref"] for branch in change["oneOf"]}


def test_no_request_body_declares_a_default_and_the_text_says_it(document):
    for name in ("ResearchRequest", "ViewRequest"):
        body = document["components"]["schemas"][name]
        assert [path for path, node in nodes(body) if "default" in node] == [], name
        assert "omitted: any" in body["properties"]["mode"]["description"]
        assert "Omitted: 13f-copycat" in body["properties"]["packId"]["description"]


def test_ids_that_grow_are_open_strings_in_responses_with_the_known_values_listed(document):
    schemas = document["components"]["schemas"]
    ethos_id = schemas["EthosDefinition"]["properties"]["id"]
    check_id = schemas["PolicyResult"]["properties"]["checks"]["items"]["properties"]["id"]
    error_code = schemas["Error"]["properties"]["code"]
    for schema, known in ((ethos_id, ETHOS_IDS), (check_id, CHECK_IDS)):
        assert schema["type"] == "string" and "enum" not in schema and schema["examples"] == list(known)
    assert "enum" not in error_code and "invalid_mode" in error_code["examples"]
    scores = schemas["EthosComparison"]["properties"]["scores"]["items"]["properties"]["scores"]
    assert "enum" not in scores["propertyNames"] and scores["propertyNames"]["examples"] == list(ETHOS_IDS)
    for warning in (
        schemas["ArtifactWarning"]["properties"]["code"],
        schemas["Health"]["properties"]["warnings"]["items"]["properties"]["code"],
    ):
        assert warning["type"] == "string" and "enum" not in warning


def test_the_document_built_without_a_release_tells_the_same_truth():
    document = openapi_document()
    assert [path for path, node in nodes(document) if "if" in node and isinstance(node["if"], dict)] == []
    test_no_schema_is_a_bare_object(document)
    test_a_description_is_on_two_differently_named_fields_only_for_one_shared_concept(document)
