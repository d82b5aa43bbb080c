"""The OpenAPI 3.1 document: valid, generated from the operation table, and every answer of the service fits it."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import openapi_spec_validator
import orjson
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from builder.api.contract import BY_ID, OPERATIONS, Operation
from builder.api.openapi.document import PARAM_EXAMPLES, error_codes, openapi_document, statuses
from builder.api.openapi.text import ERROR_CODES
from builder.api.wire import ErrorCode
from builder.canonical import canonical_json
from builder.release.store import CURRENT
from server.app import create_app

DOCUMENT_URI = "urn:research-artifact-service:openapi"
API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "api.md"
PACK = "/api/v1/packs/13f-copycat"
ROUTES = [(re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", op.route) + "$"), op) for op in OPERATIONS]


class Contract:
    """The document as a test oracle: the schema and headers of each documented response."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        resource = Resource.from_contents(document, default_specification=DRAFT202012)
        self.registry = Registry().with_resource(DOCUMENT_URI, resource)
        self._validators: dict[tuple[str, int], Draft202012Validator] = {}

    def response(self, operation: Operation, status: int) -> dict[str, Any]:
        responses = self.document["paths"][operation.route][operation.method.lower()]["responses"]
        assert str(status) in responses, f"{operation.id} answered an undocumented {status}"
        return responses[str(status)]

    def body_errors(self, operation: Operation, status: int, body: Any) -> list[str]:
        key = (operation.id, status)
        if key not in self._validators:
            self.response(operation, status)
            pointer = "/".join(
                [
                    "paths",
                    operation.route.replace("/", "~1"),
                    operation.method.lower(),
                    "responses",
                    str(status),
                    "content",
                    "application~1json",
                    "schema",
                ]
            )
            schema = {"$ref": f"{DOCUMENT_URI}#/{pointer}"}
            self._validators[key] = Draft202012Validator(
                schema, registry=self.registry, format_checker=Draft202012Validator.FORMAT_CHECKER
            )
        return [f"{e.json_path}: {e.message[:200]}" for e in self._validators[key].iter_errors(body)]

    def header_errors(self, operation: Operation, status: int, headers: Any) -> list[str]:
        problems = []
        for name, reference in self.response(operation, status).get("headers", {}).items():
            header = self.document["components"]["headers"][reference["$ref"].rsplit("/", 1)[1]]
            value = headers.get(name)
            if value is None:
                problems += [f"missing header {name}"] if header["required"] else []
            elif not Draft202012Validator(header["schema"]).is_valid(value):
                problems.append(f"header {name}: {value!r} does not fit {header['schema']}")
        return problems

    async def check(self, response, operation: Operation) -> None:
        """A live answer: documented status, its body and headers fit the document."""
        body = await response.read()
        assert not self.header_errors(operation, response.status, response.headers)
        if response.status == 304:
            assert body == b""
        else:
            assert response.content_type == "application/json"
            payload = orjson.loads(body)
            assert not self.body_errors(operation, response.status, payload), body[:300]
            if response.status >= 400:  # the codes the description lists for this operation and status
                assert payload["error"]["code"] in error_codes(operation, response.status), body[:300]


@pytest.fixture(scope="module")
def document(release) -> dict[str, Any]:
    return openapi_document(release.data)


@pytest.fixture(scope="module")
def contract(document):
    """Validators of response bodies and headers, by (operation, status), over the document's components."""
    return Contract(document)


def operation_of(key: str) -> Operation:
    """The operation of a routes.json key: a GET's request target, or `POST <route> <parameters>`."""
    method, path = ("POST", key.split(" ")[1]) if key.startswith("POST ") else ("GET", key.split("?", 1)[0])
    return next(op for pattern, op in ROUTES if pattern.match(path) and op.method == method)


def example_target(operation: Operation) -> str:
    return operation.route.format(**{p.name: PARAM_EXAMPLES[p.name] for p in operation.params if p.location == "path"})


def test_the_document_is_a_valid_openapi_3_1_document(document):
    openapi_spec_validator.validate(document)
    assert document["openapi"] == "3.1.0" and document["info"]["version"] == "0.1.0"


def test_the_document_is_deterministic_and_is_what_the_release_serves(document, release):
    assert canonical_json(openapi_document(release.data)) == canonical_json(document)
    answer = release.answers["/api/v1/openapi.json"]
    assert answer.status == 200 and answer.body == canonical_json(document)


def test_every_operation_appears_once_with_its_tool_name(document):
    found = [
        (entry["operationId"], method.upper(), path, entry.get("x-tool-name"))
        for path, item in document["paths"].items()
        for method, entry in item.items()
    ]
    assert sorted(found) == sorted((op.id, op.method, op.route, op.tool) for op in OPERATIONS)
    assert len(found) == 11 and BY_ID["getOpenApiDocument"].tool is None
    assert sorted(tool for *_, tool in found if tool) == sorted(
        [
            "get_health",
            "list_packs",
            "get_latest_pack",
            "list_pack_versions",
            "compare_versions",
            "explain_position",
            "list_ethos",
            "compare_ethos",
            "validate_policy",
            "export_audit_trail",
        ]
    )


def test_every_operation_documents_503_and_gets_document_304_and_posts_413(document):
    for op in OPERATIONS:
        responses = document["paths"][op.route][op.method.lower()]["responses"]
        assert set(responses) == {str(s) for s in statuses(op)} and set(op.statuses) <= set(statuses(op))
        assert (
            "503" in responses
            and ("304" in responses) == (op.method == "GET")
            and ("413" in responses) == (op.method == "POST")
        )


def parameter(document: dict[str, Any], operation_id: str, name: str) -> dict[str, Any]:
    operation = BY_ID[operation_id]
    entries = document["paths"][operation.route][operation.method.lower()]["parameters"]
    return next(entry for entry in entries if entry["name"] == name)


def test_the_managers_parameter_is_documented_as_repeated_or_comma_separated(document):
    managers = parameter(document, "getLatestPack", "managers")
    assert (managers["in"], managers["style"], managers["explode"], managers["schema"]["type"]) == (
        "query",
        "form",
        True,
        "array",
    )
    assert "comma" in managers["description"]


def test_the_pack_artifact_schema_is_the_shipped_one_with_its_defs_as_components(document):
    schemas = document["components"]["schemas"]
    assert schemas["PackArtifact"]["title"] == "PackArtifact" and "$defs" not in schemas["PackArtifact"]
    assert "$id" not in schemas["PackArtifact"] and "ArtifactPosition" in schemas
    assert "#/$defs/" not in orjson.dumps(document).decode()


def test_error_codes_are_all_documented_with_a_status_and_in_docs(document):
    assert set(ERROR_CODES) == set(ErrorCode)
    assert document["components"]["schemas"]["Error"]["properties"]["code"]["examples"] == [str(c) for c in ErrorCode]
    text = API_PAGE.read_text().split("## Errors and codes", 1)[1].split("\n## ", 1)[0]
    for code, (status, _) in ERROR_CODES.items():
        assert re.search(rf"`{code}`\s*\|\s*{status}\b", text), code


def test_every_precomputed_answer_fits_the_schema_of_its_status(release, contract):
    covered = set()
    for key, answer in sorted(release.answers.items()):
        operation = operation_of(key)
        covered.add(operation.id)
        errors = contract.body_errors(operation, answer.status, orjson.loads(answer.body))
        assert not errors, (key, errors[:5])
    assert covered == {op.id for op in OPERATIONS if op.precompute}


POSTS = [
    ("compareEthos", {}, 200),
    ("compareEthos", {"mode": "overlap", "ethosIds": ["conviction", "breadth"], "tickers": ["aapl"]}, 200),
    ("compareEthos", {"managerIds": ["larch"], "mode": "disagreement"}, 200),
    ("compareEthos", {"ethosIds": ["astrology"]}, 400),
    ("compareEthos", {"tickers": ["ZZZZ"]}, 404),
    ("compareEthos", {"packId": "congress-trades"}, 422),
    ("validatePolicy", {}, 200),
    ("validatePolicy", {"managerIds": ["larch", "fennel"], "mode": "exclusive"}, 200),
    ("validatePolicy", {"mode": "overlap", "managerIds": ["nobody"]}, 400),
    ("validatePolicy", {"unknownField": 1}, 400),
    ("validatePolicy", b"{not json", 400),
    ("validatePolicy", b"[" * 70_000, 413),
    ("validatePolicy", {"packId": "jane-roe-tracker"}, 422),
]


async def test_live_post_answers_fit_the_document(aiohttp_client, published, contract):
    client = await aiohttp_client(create_app(published))  # one app for every case: each app loads the release
    for operation_id, body, status in POSTS:
        operation = BY_ID[operation_id]
        data = body if isinstance(body, bytes) else orjson.dumps(body)
        response = await client.post(operation.route, data=data, headers={"Content-Type": "application/json"})
        assert response.status == status, (operation_id, data[:100])
        await contract.check(response, operation)
    response = await client.post("/api/v1/policy/validate", data=b"{}", headers={"Content-Type": "text/plain"})
    assert response.status == 400
    await contract.check(response, BY_ID["validatePolicy"])


GETS = [
    ("/api/v1/health?verbose=1", 400),
    ("/api/v1/openapi.json", 200),
    ("/api/v1/packs/no-such-pack/latest", 404),
    ("/api/v1/packs/13d-activist-stakes/versions", 404),
    (f"{PACK}/latest?managers=larch,fennel&mode=overlap", 200),
    (f"{PACK}/latest?managers=larch&managers=nobody", 400),
    (f"{PACK}/latest?mode=sideways", 400),
    ("/api/v1/packs/wsb-social-momentum/latest?mode=overlap", 400),
    (f"{PACK}/versions/diff?from=multi-manager-2026-09-30-v2.0&to=multi-manager-2026-06-30-v2.0", 400),
    (f"{PACK}/versions/diff?from=multi-manager-2026-06-30-v2.0%0A&to=multi-manager-2026-09-30-v2.0", 400),
    (f"{PACK}/versions/diff?to=multi-manager-2026-09-30-v2.0", 400),
    (f"{PACK}/versions/diff?from=multi-manager-1999-12-31-v2.0&to=multi-manager-2026-09-30-v2.0", 404),
    (f"{PACK}/versions/diff?from=multi-manager-2026-06-30-v2.0&to=multi-manager-2026-09-30-v2.0&managers=larch", 200),
    ("/api/v1/packs/congress-trades/versions/diff?from=a&to=b", 422),
    (f"{PACK}/positions/NOT_A_TICKER!/explanation", 400),
    (f"{PACK}/positions/ZZZZ/explanation", 404),
    (f"{PACK}/positions/aapl/explanation?managers=larch,quillwort", 200),
    ("/api/v1/packs/jane-roe-tracker/positions/MSFT/explanation", 422),
    (f"{PACK}/audit?managers=larch&mode=exclusive", 200),
    ("/api/v1/packs/congress-trades/audit?managers=larch", 400),
]


async def test_live_get_answers_and_their_304s_fit_the_document(aiohttp_client, published, contract):
    client = await aiohttp_client(create_app(published))
    for target, status in GETS:
        operation = operation_of(target)
        response = await client.get(target)
        assert response.status == status, target
        await contract.check(response, operation)
        if status == 200:
            again = await client.get(target, headers={"If-None-Match": response.headers["ETag"]})
            assert again.status == 304, target
            await contract.check(again, operation)


async def test_every_operation_answers_a_documented_503_while_no_release_is_consumable(
    aiohttp_client, releases_copy, contract
):
    os.unlink(releases_copy / CURRENT)
    client = await aiohttp_client(create_app(releases_copy))
    for operation in OPERATIONS:
        target = example_target(operation)
        if operation.method == "GET":
            response = await client.get(target)
        else:
            response = await client.post(target, data=b"{}", headers={"Content-Type": "application/json"})
        assert response.status == 503, operation.id
        await contract.check(response, operation)
        assert (await response.json())["error"]["code"] == "release_unavailable"
