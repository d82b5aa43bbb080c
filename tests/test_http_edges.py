"""The edges of HTTP as agents meet them: CORS preflights of POST routes, query strings on POSTs, oversize requests."""

from __future__ import annotations

import http.client
import socket
from pathlib import Path

import orjson
import pytest

from builder.api.wire import MAX_LINE_BYTES
from server.app import create_app
from tests.servers import running_server

PREFLIGHT = {
    "Origin": "https://agent.example",
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "content-type",
}


@pytest.fixture(scope="module")
def base(published: Path):
    with running_server(published) as (url, _process):
        yield url.removeprefix("http://")


def exchange(base: str, target: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection(base, timeout=10)
    try:
        connection.putrequest("GET", target, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


async def test_a_post_route_preflight_allows_post_with_a_json_content_type(aiohttp_client, published):
    client = await aiohttp_client(create_app(published))
    for route in ("/api/v1/ethos/compare", "/api/v1/policy/validate"):
        response = await client.options(route, headers=PREFLIGHT)
        assert response.status == 204
        assert response.headers["Access-Control-Allow-Methods"] == "POST"
        assert response.headers["Access-Control-Allow-Headers"] == "Content-Type"
        assert response.headers["Access-Control-Allow-Origin"] == "*"
    get = await client.options("/api/v1/packs", headers={**PREFLIGHT, "Access-Control-Request-Method": "GET"})
    assert get.headers["Access-Control-Allow-Methods"] == "GET, HEAD"
    assert get.headers["Access-Control-Allow-Headers"] == "If-None-Match"


async def test_a_query_parameter_on_a_post_is_refused_as_on_a_get(aiohttp_client, published):
    client = await aiohttp_client(create_app(published))
    for route in ("/api/v1/ethos/compare?x=1", "/api/v1/policy/validate?mode=overlap"):
        response = await client.post(route, data=b"{}", headers={"Content-Type": "application/json"})
        assert response.status == 400
        body = await response.json()
        assert body["error"]["code"] == "unknown_parameter" and body["error"]["details"]["parameter"] in ("x", "mode")


@pytest.mark.parametrize("where", ["request line", "header"])
def test_a_request_over_the_line_limit_is_an_envelope_that_echoes_nothing(base, where):
    filler = "zq" * (MAX_LINE_BYTES // 2 + 10)
    if where == "request line":
        status, headers, body = exchange(base, f"/api/v1/packs?{filler}", {})
    else:
        status, headers, body = exchange(base, "/api/v1/packs", {"X-Filler": filler})
    assert status == 400 and headers["Content-Type"].startswith("application/json")
    envelope = orjson.loads(body)
    assert envelope["error"]["code"] == "malformed_request" and envelope["meta"]["capability"] == "router"
    assert b"zqzq" not in body and len(body) < 1000
    assert headers["Access-Control-Allow-Origin"] == "*" and headers["X-Content-Type-Options"] == "nosniff"
    again, _, _ = exchange(base, "/api/v1/health", {})  # the server goes on answering
    assert again == 200


def test_bytes_that_are_not_http_get_the_envelope(base):
    host, port = base.split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"HELLO THERE\r\n\r\n")
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0].split()[1] == b"400" and b"application/json" in head
    assert orjson.loads(body)["error"]["code"] == "malformed_request"


def test_workers_serve_envelopes_and_stop_cleanly_on_sigterm(published: Path):
    with running_server(published, "--workers", "2") as (url, process):
        target = url.removeprefix("http://")
        for _ in range(4):  # the kernel spreads connections over the workers
            status, _, body = exchange(target, f"/api/v1/packs?{'q' * (MAX_LINE_BYTES + 10)}", {})
            assert status == 400 and orjson.loads(body)["error"]["code"] == "malformed_request"
    assert process.returncode == 0
