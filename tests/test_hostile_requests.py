"""Hostile requests against a real `ras serve`: always a 4xx envelope, never a 5xx, a path or a trace."""

from __future__ import annotations

import http.client
import json
import socket
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.servers import running_server

LEAKS = ("Traceback", "/tmp", "/work", "/root", "site-packages", '.py"', "releases/")
TRAVERSALS = [
    "../",
    "..%2f",
    "%2e%2e%2f",
    "%252e%252e%252f",
    "..\\",
    "%2e%2e/",
    "....//",
    "%c0%ae%c0%ae/",
    "%00",
    "%ff%fe",
]
PATH_TEMPLATES = [
    "/api/v1/packs/{}/latest",
    "/api/v1/packs/{}/versions",
    "/api/v1/packs/13f-copycat/positions/{}/explanation",
    "/api/v1/packs/{}/positions/AAPL/explanation",
    "/api/v1/packs/{}/audit",
    "/api/v1/packs/{}/versions/diff?from=a&to=b",
]


@pytest.fixture(scope="module")
def server(tmp_path_factory, published: Path):
    with running_server(published) as (base, process):
        host, port = base.removeprefix("http://").split(":")
        yield host, int(port), process


def request(server, method: str, target: str, body: bytes | None = None, headers: dict | None = None):
    host, port, _ = server
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.putrequest(method, target, skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def assert_clean_4xx(status: int, headers: dict, body: bytes, envelope: bool = True) -> None:
    assert 400 <= status < 500, (status, body[:300])
    text = body.decode("utf-8", errors="replace")
    assert not any(leak in text for leak in LEAKS), text[:300]
    if envelope:
        payload = json.loads(body)
        assert set(payload) == {"error", "meta"} and payload["error"]["code"], payload
        assert headers["Content-Type"].startswith("application/json")


def assert_still_up(server) -> None:
    status, _, body = request(server, "GET", "/api/v1/health")
    assert status == 200, body[:200]
    assert server[2].poll() is None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    template=st.sampled_from(PATH_TEMPLATES),
    prefix=st.sampled_from(TRAVERSALS),
    tail=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=20),
    repeat=st.integers(1, 6),
)
def test_traversal_in_any_path_parameter_is_a_4xx_envelope(server, template, prefix, tail, repeat):
    parameter = prefix * repeat + quote(tail, safe="") + "etc%2fpasswd"
    status, headers, body = request(server, "GET", template.format(parameter))
    assert_clean_4xx(status, headers, body)
    assert b"root:" not in body


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=200))
def test_any_query_string_is_answered_without_a_5xx(server, query):
    status, headers, body = request(server, "GET", "/api/v1/packs/13f-copycat/latest?" + quote(query, safe="=&,"))
    assert status < 500, body[:300]
    if status != 200:
        assert_clean_4xx(status, headers, body)


@pytest.mark.parametrize(
    "target",
    [
        "/api/v1/packs/13f-copycat/latest?managers=%ff%fe",
        "/api/v1/packs/%ff%fe/latest",
        "/api/v1/packs/13f-copycat/positions/%ff/explanation",
        "/api/v1/packs/13f-copycat/latest?mode=%c0%af",
        "/api/v1/no%0Awhere",  # a decoded newline must still reach the catch-all route
        "/api/v1/packs/%0A/latest",
        "/api/v1/packs/13f-copycat/latest?" + "managers=larch&" * 4000,
        "/api/v1/packs/13f-copycat/latest?managers=" + "a," * 10000,
        "/api/v1/packs/13f-copycat/latest?" + "x" * 30000 + "=1",
    ],
)
def test_invalid_utf8_and_oversized_queries_are_4xx_envelopes(server, target):
    assert_clean_4xx(*request(server, "GET", target))
    assert_still_up(server)


def test_a_header_beyond_the_parser_limit_is_refused_and_the_server_stays_up(server):
    status, headers, body = request(server, "GET", "/api/v1/health", headers={"X-Filler": "y" * 200_000})
    assert_clean_4xx(status, headers, body)  # the parser refuses before any route, with the envelope all the same
    assert json.loads(body)["error"]["code"] == "malformed_request"
    assert_still_up(server)


def test_a_large_but_legal_header_is_ignored(server):
    status, _, _ = request(server, "GET", "/api/v1/health", headers={"X-Filler": "y" * 30_000})
    assert status == 200


@pytest.mark.parametrize(
    ("body", "content_type", "code"),
    [
        (b"[" * 50_000 + b"]" * 50_000, "application/json", "payload_too_large"),
        (b"[" * 20_000 + b"]" * 20_000, "application/json", "malformed_json"),
        (b'{"managerIds": ' + b"[" * 900 + b"]" * 900 + b"}", "application/json", "nesting_too_deep"),
        (json.dumps({"managerIds": ["larch"] * 9000}).encode(), "application/json", "payload_too_large"),
        (b"\xff\xfe{}", "application/json", "malformed_json"),
        (b"{}", "application/x-www-form-urlencoded", "unsupported_media_type"),
        (b"{}", "text/plain; charset=utf-8", "unsupported_media_type"),
    ],
)
def test_hostile_post_bodies_are_4xx_envelopes(server, body, content_type, code):
    status, headers, payload = request(server, "POST", "/api/v1/ethos/compare", body, {"Content-Type": content_type})
    assert_clean_4xx(status, headers, payload)
    assert json.loads(payload)["error"]["code"] == code
    assert_still_up(server)


def test_slow_clients_do_not_stop_others_from_being_answered(server):
    host, port, _ = server
    stalled = []
    for index in range(20):
        sock = socket.create_connection((host, port), timeout=5)
        sock.sendall(
            b"GET /api/v1/health HTTP/1.1\r\nHost: x\r\n"
            if index % 2
            else b"POST /api/v1/ethos/compare HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        )
        stalled.append(sock)
    try:
        started = time.monotonic()
        for _ in range(10):
            assert_still_up(server)
        assert time.monotonic() - started < 10
    finally:
        for sock in stalled:
            sock.close()
    assert_still_up(server)


@pytest.mark.parametrize(
    ("method", "target", "headers", "status"),
    [
        ("GET", "/api/v1/health", {}, 200),
        ("GET", "/api/v1/packs", {"If-None-Match": "*"}, 304),
        ("GET", "/api/v1/packs/none/latest", {}, 404),
        ("DELETE", "/api/v1/packs", {}, 405),
        ("POST", "/api/v1/policy/validate", {"Content-Type": "application/json"}, 200),
        ("OPTIONS", "/api/v1/packs", {"Origin": "https://agent.example", "Access-Control-Request-Method": "GET"}, 204),
    ],
)
def test_every_answer_has_nosniff_cors_and_no_server_version(server, method, target, headers, status):
    body = b"{}" if method == "POST" else None
    got, response_headers, _ = request(server, method, target, body, {"Origin": "https://agent.example", **headers})
    assert got == status
    assert response_headers["X-Content-Type-Options"] == "nosniff"
    assert response_headers["Server"] == "ras"
    assert response_headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response_headers
    if method == "OPTIONS":
        assert response_headers["Access-Control-Allow-Methods"] == "GET, HEAD"
