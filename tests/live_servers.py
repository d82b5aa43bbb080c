"""Live servers for tests: a kept-alive HTTP client, free ports, and nginx / `ras serve` processes."""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.servers import REPO

STARTUP_SECONDS = 15.0  # a cold `ras serve` loads and verifies the release before it listens
CONNECTIONS: dict[int, http.client.HTTPConnection] = {}  # port → kept-alive connection, closed with the servers


@dataclass(frozen=True)
class Reply:
    status: int
    headers: http.client.HTTPMessage
    body: bytes


def fetch(port: int, target: str, method: str = "GET", body: bytes | None = None, **headers: str) -> Reply:
    """One request on the port's kept-alive connection; http.client sends Accept-Encoding: identity unless told."""
    sent = {name.replace("_", "-"): value for name, value in headers.items()}
    for attempt in range(2):
        connection = CONNECTIONS.setdefault(port, http.client.HTTPConnection("127.0.0.1", port, timeout=10))
        try:
            connection.request(method, target, body=body, headers=sent)
            response = connection.getresponse()
            reply = Reply(response.status, response.msg, response.read())
        except (ConnectionError, http.client.HTTPException):
            CONNECTIONS.pop(port).close()
            if attempt:
                raise
            continue
        if response.will_close:
            CONNECTIONS.pop(port).close()
        return reply
    raise AssertionError("unreachable")


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nginx is not installed; CI installs it with `apt-get install -y nginx-light`")
        pytest.skip("nginx is not installed (apt-get install -y nginx-light)")
    return found


def wait_until_listening(process: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"exited with {process.returncode}: {log.read_text()[-2000:]}")
        try:
            if fetch(port, "/api/v1/health").status:
                return
        except (OSError, http.client.HTTPException):
            time.sleep(0.05)
    pytest.fail(f"nothing listens on port {port} after {STARTUP_SECONDS}s: {log.read_text()[-2000:]}")


def stop(*processes: subprocess.Popen) -> None:
    while CONNECTIONS:
        CONNECTIONS.popitem()[1].close()
    for process in processes:
        process.send_signal(signal.SIGTERM)  # nginx: fast shutdown; aiohttp: graceful, connections closed above
    for process in processes:
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def start_nginx(out: Path, port: int) -> subprocess.Popen:
    log = out / "logs" / "stderr.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            [nginx_binary(), "-p", str(out), "-c", "nginx.conf", "-e", "stderr", "-g", "daemon off;"],
            stdout=sink, stderr=sink,
        )
    wait_until_listening(process, port, log)
    return process


def start_ras_serve(releases: Path, port: int, log: Path) -> subprocess.Popen:
    with open(log, "wb") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "builder.cli", "serve", "--releases", str(releases), "--port", str(port)],
            cwd=REPO, stdout=sink, stderr=sink,
        )
