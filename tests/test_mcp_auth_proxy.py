"""The authenticating proxy of docs/deployment.md, as printed there, run by a real nginx (TLS with a certificate
made for the test) in front of a real `ras serve`: no token, no answer; the agent's token, the MCP tools."""

from __future__ import annotations

import http.client
import re
import shutil
import ssl
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.servers import REPO, free_port, nginx_binary, running_server

PAGE = REPO / "docs" / "deployment.md"
STARTUP_SECONDS = 20.0
SECONDS = 120


def documented_config() -> str:
    """The nginx block of the deployment page that is the authenticating proxy."""
    blocks = re.findall(r"^```nginx\n(.*?)^```", PAGE.read_text(encoding="utf-8"), flags=re.S | re.M)
    found = [block for block in blocks if block.startswith("# auth-proxy.conf")]
    assert len(found) == 1
    return found[0]


def token_of(config: str) -> str:
    return re.search(r'"Bearer ([0-9a-f]{64})"', config)[1]


@pytest.fixture(scope="module")
def proxy(published: Path) -> Iterator[int]:
    """The documented proxy on a free loopback port, in front of `ras serve` over the session's release."""
    nginx = nginx_binary()
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("openssl is not installed; .ci/run installs it")
    with running_server(published) as (base, _app), tempfile.TemporaryDirectory(prefix="ras-proxy-") as folder:
        prefix, port = Path(folder), free_port()
        (prefix / "logs").mkdir()
        (prefix / "tls").mkdir()
        key, certificate = prefix / "tls" / "privkey.pem", prefix / "tls" / "fullchain.pem"
        request_args = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"]
        subprocess.run(
            [openssl, *request_args, "-keyout", str(key), "-out", str(certificate)], check=True, capture_output=True
        )
        config = documented_config()
        assert "listen 443 ssl;" in config and "http://127.0.0.1:8080;" in config
        config = config.replace("listen 443 ssl;", f"listen 127.0.0.1:{port} ssl;")
        (prefix / "auth-proxy.conf").write_text(config.replace("http://127.0.0.1:8080;", f"{base};"))
        log = prefix / "logs" / "stderr.log"
        with log.open("wb") as sink:
            process = subprocess.Popen(
                [nginx, "-p", str(prefix), "-c", "auth-proxy.conf", "-e", "stderr", "-g", "daemon off;"],
                stdout=sink,
                stderr=sink,
            )
        try:
            wait_for_tls(port, process, log)
            yield port
        finally:
            process.terminate()
            process.wait(timeout=10)


def wait_for_tls(port: int, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"nginx exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            request(port, "GET", "/api/v1/health", {})
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"nothing listens on port {port}")


def request(port: int, method: str, target: str, headers: dict[str, str], body: bytes | None = None):
    connection = http.client.HTTPSConnection("127.0.0.1", port, timeout=10, context=ssl._create_unverified_context())
    try:
        connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.headers, response.read()
    finally:
        connection.close()


PING = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
MCP_HEADERS = {"Content-Type": "application/json", "MCP-Protocol-Version": "2025-11-25"}


@pytest.mark.parametrize("authorization", [None, "Bearer nope", "Basic cmVzZWFyY2g6YWdlbnQ=", "Bearer {token}x"])
def test_without_the_token_nothing_reaches_the_server(proxy: int, authorization: str | None):
    headers = dict(MCP_HEADERS)
    if authorization is not None:
        headers["Authorization"] = authorization.format(token=token_of(documented_config()))
    for method, target, body in (("POST", "/mcp", PING), ("GET", "/api/v1/health", None)):
        status, answer_headers, _ = request(proxy, method, target, headers, body)
        assert status == 401 and answer_headers["WWW-Authenticate"].startswith("Bearer"), (method, target)


def test_with_the_token_rest_and_mcp_answer(proxy: int):
    headers = {**MCP_HEADERS, "Authorization": f"Bearer {token_of(documented_config())}"}
    assert request(proxy, "POST", "/mcp", headers, PING)[0] == 200
    assert request(proxy, "GET", "/api/v1/health", headers)[0] == 200


async def test_an_agent_with_the_token_uses_the_tools_through_the_proxy(proxy: int):
    headers = {"Authorization": f"Bearer {token_of(documented_config())}"}
    with anyio.fail_after(SECONDS):
        async with httpx2.AsyncClient(verify=False, headers=headers) as http:
            transport = streamable_http_client(f"https://127.0.0.1:{proxy}/mcp", http_client=http)
            async with Client(transport, mode="legacy") as client:
                names = [tool.name for tool in (await client.list_tools()).tools]
                health = await client.call_tool("get_health", {})
    assert len(names) == 10 and health.structured_content is not None and not health.is_error
