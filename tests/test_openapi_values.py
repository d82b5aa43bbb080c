"""The OpenAPI document of a release says which values are valid, and declares nothing a client cannot take whole."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from builder.api.contract import BY_ID, OPERATIONS
from builder.api.openapi.document import openapi_document
from builder.research.methods.ethos import ETHOS_IDS
from server.app import create_app


@pytest.fixture(scope="module")
def document(release) -> dict[str, Any]:
    return orjson.loads(release.answers["/api/v1/openapi.json"].body)


def parameters(document: dict[str, Any], operation_id: str) -> dict[str, dict[str, Any]]:
    operation = BY_ID[operation_id]
    return {p["name"]: p for p in document["paths"][operation.route][operation.method.lower()].get("parameters", [])}


def test_the_document_uses_plain_references_and_no_all_of(document):
    assert b"allOf" not in orjson.dumps(document)
    assert document["components"]["schemas"]["GetHealthResponse"]["properties"]["meta"] == {
        "$ref": "#/components/schemas/ApiMeta"
    }


def test_servers_is_the_api_root_relative_to_the_document():
    # served at /api/v1/openapi.json: ../.. resolves to the root the paths (/api/v1/...) hang from
    assert [server["url"] for server in openapi_document()["servers"]] == ["../.."]


def test_every_get_declares_if_none_match_and_no_post_does(document):
    for operation in OPERATIONS:
        header = parameters(document, operation.id).get("If-None-Match")
        assert (header is not None) == (operation.method == "GET"), operation.id
        if header:
            assert header["in"] == "header" and header["required"] is False


def test_manager_version_and_pack_ids_are_the_release_enums(document, release):
    managers = [manager["id"] for manager in release.data.index["copycat"]["managers"]]
    latest = parameters(document, "getLatestPack")
    assert latest["managers"]["schema"]["items"]["enum"] == managers
    available = [pack["id"] for pack in release.data.index["packs"] if pack["status"] == "available"]
    assert latest["packId"]["schema"]["enum"] == available and "13d-activist-stakes" not in available
    diff = parameters(document, "compareVersions")
    assert diff["from"]["schema"]["enum"] == diff["to"]["schema"]["enum"] == release.data.versions
    assert (diff["from"]["example"], diff["to"]["example"]) == tuple(release.data.versions[-2:])
    assert diff["packId"]["schema"]["enum"] == ["13f-copycat"]  # the only pack that compares versions
    body = document["components"]["schemas"]["ResearchRequest"]["properties"]
    assert body["managerIds"]["items"]["enum"] == managers and body["ethosIds"]["items"]["enum"] == list(ETHOS_IDS)
    assert body["packId"]["enum"] == ["13f-copycat"]


def test_declared_defaults_are_accepted_by_every_pack_they_apply_to(document):
    for operation in OPERATIONS:
        for name, entry in parameters(document, operation.id).items():
            if "default" in entry["schema"]:
                assert (name, entry["schema"]["default"]) == ("mode", "any"), (operation.id, name)


async def test_a_preview_pack_takes_mode_any_as_the_default_view_and_refuses_others(aiohttp_client, published):
    client = await aiohttp_client(create_app(published))
    for pack in ("congress-trades", "jane-roe-tracker", "wsb-social-momentum"):
        plain = await client.get(f"/api/v1/packs/{pack}/latest")
        named = await client.get(f"/api/v1/packs/{pack}/latest?mode=any")
        assert named.status == 200 and await named.read() == await plain.read()
        assert named.headers["ETag"] == plain.headers["ETag"]
        audit = await client.get(f"/api/v1/packs/{pack}/audit?mode=any")
        assert audit.status == 200
        refused = await client.get(f"/api/v1/packs/{pack}/latest?mode=overlap")
        assert refused.status == 400 and (await refused.json())["error"]["code"] == "view_not_supported"


def test_the_ticker_example_is_a_position_the_release_explains(document, release):
    ticker = parameters(document, "explainPosition")["ticker"]["example"]
    answer = release.answers[f"/api/v1/packs/13f-copycat/positions/{ticker}/explanation"]
    assert answer.status == 200


def undescribed(document: dict[str, Any]) -> list[str]:
    """Components and properties without a description (a plain $ref is described by its component)."""
    components = document["components"]["schemas"]
    found = [name for name, schema in components.items() if not schema.get("description")]

    def walk(node: Any, where: str) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item, where)
        elif isinstance(node, dict):
            for name, schema in (node.get("properties") or {}).items():
                if not schema.get("description") and set(schema) != {"$ref"}:
                    found.append(f"{where}.{name}")
            for value in node.values():
                walk(value, where)

    for name, schema in components.items():
        walk(schema, name)
    return found


def test_every_component_and_every_property_is_described(document):
    assert undescribed(document) == []


def places(node: Any, path: tuple[str, ...]) -> set[tuple[str, ...]]:
    """Every property's place in a schema: its component, then the property names down to it."""
    if isinstance(node, list):
        return set().union(*(places(item, path) for item in node))
    if not isinstance(node, dict):
        return set()
    found = set()
    for name, schema in (node.get("properties") or {}).items():
        found |= {(*path, name)} | places(schema, (*path, name))
    for key, value in node.items():
        if key != "properties":
            found |= places(value, path)
    return found


def test_every_description_key_names_a_place_the_document_has():
    from builder.api.openapi.contexts import IN_CONTEXT, PREVIEW_FIELDS
    from builder.api.openapi.glossary import FIELDS

    schemas = openapi_document()["components"]["schemas"]
    found = set().union(*(places(schema, (name,)) for name, schema in schemas.items()))
    by_name = {place[-1] for place in found if ".".join(place) not in IN_CONTEXT}
    assert [key for key in IN_CONTEXT if tuple(key.split(".")) not in found] == []
    assert [name for name in FIELDS if name not in by_name] == []
    assert [name for name in PREVIEW_FIELDS if name not in by_name - FIELDS.keys()] == []


def test_describing_the_document_leaves_the_types_keywords_as_declared():
    from builder.typed import Count, Date

    openapi_document()
    assert [Count.__metadata__[0].keywords, Date.__metadata__[0].keywords] == [{"minimum": 0}, {"format": "date"}]
