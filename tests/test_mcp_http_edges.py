"""/mcp's transport rules, each met by a raw HTTP client on a real `ras serve`: versions, origins, methods, media
types, sizes, malformed and batched messages, notifications, and the 2026-07-28 routing headers."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from server.mcp_http.endpoint import MAX_REQUEST_BYTES
from server.mcp_http.exchange import SUPPORTED
from tests.servers import Reply, fetch, running_server

ALLOWED = "https://agent.example.com"
JSON_HEADERS = {"Content_Type": "application/json", "Accept": "application/json, text/event-stream"}
HANDSHAKE = {**JSON_HEADERS, "MCP_Protocol_Version": "2025-11-25"}
PING = b'{"jsonrpc":"2.0","id":7,"method":"ping"}'
ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}


@pytest.fixture(scope="module")
def port(published: Path) -> Iterator[int]:
    with running_server(published, "--mcp-allow-origin", ALLOWED, "--body-timeout", "1") as (base, _process):
        yield int(base.rsplit(":", 1)[1])


def post(port: int, body: bytes, **headers: str) -> Reply:
    return fetch(port, "/mcp", "POST", body, **{**HANDSHAKE, **headers})


def rpc(reply: Reply) -> dict[str, Any]:
    """The JSON-RPC message of an answer, after the headers every /mcp answer carries."""
    assert reply.headers["Cache-Control"] == "no-store" and reply.headers["Content-Type"] == "application/json"
    return orjson.loads(reply.body)


def test_a_ping_is_answered_with_its_id(port: int):
    reply = post(port, PING)
    assert reply.status == 200 and rpc(reply) == {"jsonrpc": "2.0", "id": 7, "result": {}}


@pytest.mark.parametrize("version", ["2025-03-26", "2024-11-05", "1999-01-01", "banana", ""])
def test_a_protocol_version_not_served_is_400_naming_the_served_ones(port: int, version: str):
    reply = post(port, PING, MCP_Protocol_Version=version)
    error = rpc(reply)["error"]
    assert reply.status == 400 and error["code"] == -32022
    assert error["data"] == {"supported": list(SUPPORTED), "requested": version}
    assert SUPPORTED == ("2025-06-18", "2025-11-25", "2026-07-28")


def test_without_a_version_header_a_request_is_served_at_the_oldest_revision_served(port: int):
    call = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_health","arguments":{}}}'
    reply = fetch(port, "/mcp", "POST", call, **JSON_HEADERS)
    assert reply.status == 200 and rpc(reply)["result"]["structuredContent"]["status"] == "degraded"


def test_an_initialize_asking_for_a_revision_not_served_is_offered_the_newest(port: int):
    for asked, offered in (("2025-03-26", "2025-11-25"), ("2025-06-18", "2025-06-18"), ("2099-01-01", "2025-11-25")):
        params = {"protocolVersion": asked, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}
        body = orjson.dumps({"jsonrpc": "2.0", "id": "i", "method": "initialize", "params": params})
        result = rpc(fetch(port, "/mcp", "POST", body, **JSON_HEADERS))["result"]
        assert result["protocolVersion"] == offered and result["capabilities"]["tools"] == {"listChanged": False}


@pytest.mark.parametrize(
    "origin", ["https://evil.example", "null", "http://127.0.0.1:1", "https://agent.example.com:8443"]
)
def test_a_foreign_origin_is_403(port: int, origin: str):
    reply = post(port, PING, Origin=origin)
    assert (
        reply.status == 403
        and rpc(reply)["error"]["code"] == -32600
        and "not allowed" in rpc(reply)["error"]["message"]
    )
    assert "Access-Control-Allow-Origin" not in reply.headers


def test_a_rebound_name_is_403_though_its_origin_matches_the_host(port: int):
    """DNS rebinding: evil.example made to resolve to 127.0.0.1 sends Origin and Host of its own name."""
    reply = post(port, PING, Origin=f"http://evil.example:{port}", Host=f"evil.example:{port}")
    assert reply.status == 403


@pytest.mark.parametrize("origin", [ALLOWED, "https://AGENT.example.com", "same-address", "same-localhost"])
def test_an_allowed_or_same_address_origin_is_served_with_cors(port: int, origin: str):
    host = {"same-localhost": f"localhost:{port}"}.get(origin, f"127.0.0.1:{port}")
    origin = {"same-address": f"http://127.0.0.1:{port}", "same-localhost": f"http://localhost:{port}"}.get(
        origin, origin
    )
    reply = post(port, PING, Origin=origin, Host=host)
    assert reply.status == 200 and rpc(reply)["result"] == {}
    assert reply.headers["Access-Control-Allow-Origin"] == origin and reply.headers["Vary"] == "Origin"
    assert "Mcp-Session-Id" in reply.headers["Access-Control-Expose-Headers"]


def test_a_request_without_origin_is_served_without_cors(port: int):
    reply = post(port, PING)
    assert reply.status == 200 and "Access-Control-Allow-Origin" not in reply.headers


def test_a_preflight_from_an_allowed_origin_allows_the_mcp_headers_and_a_foreign_one_is_403(port: int):
    asked = {
        "Origin": ALLOWED,
        "Access_Control_Request_Method": "POST",
        "Access_Control_Request_Headers": "mcp-protocol-version",
    }
    allowed = fetch(port, "/mcp", "OPTIONS", **asked)
    assert allowed.status == 204 and allowed.headers["Access-Control-Allow-Origin"] == ALLOWED
    for header in ("MCP-Protocol-Version", "Mcp-Session-Id", "Mcp-Method", "Mcp-Name", "Content-Type"):
        assert header in allowed.headers["Access-Control-Allow-Headers"]
    assert "POST" in allowed.headers["Access-Control-Allow-Methods"]
    assert "Access-Control-Allow-Credentials" not in allowed.headers
    assert fetch(port, "/mcp", "OPTIONS", **{**asked, "Origin": "https://evil.example"}).status == 403


@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT", "HEAD"])
def test_other_methods_are_405_with_allow_post(port: int, method: str):
    reply = fetch(port, "/mcp", method, Accept="text/event-stream", Mcp_Session_Id="abc")
    assert reply.status == 405 and reply.headers["Allow"] == "POST"
    if method != "HEAD":
        assert rpc(reply)["error"]["code"] == -32600


def test_a_session_id_is_not_required_to_match_anything(port: int):
    assert post(port, PING, Mcp_Session_Id="no-such-session").status == 200


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Content_Type": "text/plain"}, 415),
        ({"Accept": "text/event-stream"}, 406),
        ({"Accept": "application/json;q=0, text/event-stream"}, 406),
        ({"Accept": "*/*"}, 200),
        ({"Accept": "application/*"}, 200),
    ],
)
def test_content_type_and_accept_are_honoured(port: int, headers: dict[str, str], status: int):
    reply = post(port, PING, **headers)
    assert reply.status == status and reply.headers["Cache-Control"] == "no-store"


def test_a_body_over_the_limit_is_413(port: int):
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"a" * MAX_REQUEST_BYTES + b'"}}'
    reply = post(port, body)
    assert reply.status == 413 and "Payload Too Large" in rpc(reply)["error"]["message"]
    assert post(port, PING).status == 200  # the next request, on a new connection, is served


def test_a_chunked_body_over_the_limit_is_413(port: int):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        head = "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        client.sendall(head.encode())
        chunk = b"a" * 65536
        try:
            for _ in range(MAX_REQUEST_BYTES // len(chunk) + 2):
                client.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
        except OSError:
            pass  # the server answered and closed mid-body
        assert client.recv(65536).startswith(b"HTTP/1.1 413")


def test_a_body_that_stops_arriving_is_400_and_the_connection_closed(port: int):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        head = "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
        client.sendall(head.encode())
        started = time.monotonic()
        answer = b""
        while chunk := client.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 400") and b"did not arrive within 1 s" in answer
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    ("body", "request_id", "code"),
    [
        (b"not json", None, -32700),
        (b"", None, -32700),
        (b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"\\ud800"}}', 3, -32700),  # a lone surrogate
        (b'[{"jsonrpc":"2.0","id":4,"method":"ping"}]', None, -32600),  # a batch: none since 2025-06-18
        (b'{"jsonrpc":"2.0","id":5}', 5, -32600),
        (b'{"id":6,"method":"ping"}', 6, -32600),
        (b'{"jsonrpc":"2.0","id":7,"method":3}', 7, -32600),
    ],
)
def test_a_malformed_message_is_400_with_its_id_when_readable(port: int, body: bytes, request_id: Any, code: int):
    reply = post(port, body)
    answer = rpc(reply)
    assert reply.status == 400 and answer["id"] == request_id and answer["error"]["code"] == code


def test_an_unknown_method_is_minus_32601_with_its_id(port: int):
    reply = post(port, b'{"jsonrpc":"2.0","id":"m","method":"no/such/method"}')
    assert reply.status == 200 and rpc(reply)["id"] == "m" and rpc(reply)["error"]["code"] == -32601


@pytest.mark.parametrize(
    "body", [b'{"jsonrpc":"2.0","method":"notifications/initialized"}', b'{"jsonrpc":"2.0","id":9,"result":{}}']
)
def test_a_notification_or_a_response_is_202_with_no_body(port: int, body: bytes):
    reply = post(port, body)
    assert reply.status == 202 and reply.body == b"" and reply.headers["Cache-Control"] == "no-store"


def modern(port: int, method: str, params: dict[str, Any], **headers: str) -> Reply:
    body = orjson.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": ENVELOPE}})
    sent = {"MCP_Protocol_Version": "2026-07-28", "Mcp_Method": method, **headers}
    return post(port, body, **sent)


def test_the_2026_revision_checks_routing_headers_against_the_body(port: int):
    call = {"name": "get_health", "arguments": {}}
    served = modern(port, "tools/call", call, Mcp_Name="get_health")
    result = rpc(served)["result"]
    assert served.status == 200 and result["resultType"] == "complete" and result["structuredContent"]["status"]
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "research-artifact-service"
    wrong = modern(port, "tools/call", call, Mcp_Name="list_packs")
    assert wrong.status == 400 and rpc(wrong)["error"]["code"] == -32020
    unknown = modern(port, "no/such/method", {})
    assert unknown.status == 404 and rpc(unknown)["error"]["code"] == -32601
    body = orjson.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}})
    bare = post(port, body, MCP_Protocol_Version="2026-07-28", Mcp_Method="tools/list")
    assert bare.status == 400 and rpc(bare)["error"]["code"] == -32602 and rpc(bare)["id"] == 2


def test_a_body_sent_after_100_continue_is_answered(port: int):
    """curl sends `Expect: 100-continue` before a body over 1 KB: the body is asked for, then answered."""
    body = b'{"jsonrpc":"2.0","id":"c","method":"ping","params":{"_meta":{"x":"' + b"a" * 2000 + b'"}}}'
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Expect: 100-continue\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        client.sendall(head.encode())
        assert client.recv(65536).startswith(b"HTTP/1.1 100 Continue")
        client.sendall(body)
        answer = b""
        while b'"id":"c"' not in answer:
            answer += client.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200") and b'"result":{}' in answer
