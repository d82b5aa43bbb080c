"""Real processes for tests: `ras serve` and nginx on free loopback ports, a kept-alive client, the `ras` CLI.

There is one way to start `ras serve`: `start_ras_serve` spawns it (so a test can do other work while it
loads), `wait_until_listening` waits for its first answer, `stop` ends it; `running_server` does all three.
"""

from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
STARTUP_SECONDS = 20.0  # a cold `ras serve` loads and verifies the release before it listens; the fixture takes < 2
CONNECTIONS: dict[int, http.client.HTTPConnection] = {}  # port → kept-alive connection, closed with the servers


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


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


def start_ras_serve(releases: Path, port: int, log: Path, *extra: str) -> subprocess.Popen:
    """Spawn `ras serve` over `releases` on `port`, its output into `log`; it is not yet listening."""
    command = [sys.executable, "-m", "builder.cli", "serve", "--releases", str(releases), "--port", str(port), *extra]
    with open(log, "wb") as sink:
        return subprocess.Popen(command, cwd=REPO, env=child_env(), stdout=sink, stderr=sink)


def wait_until_listening(process: subprocess.Popen, port: int, log: Path, seconds: float = STARTUP_SECONDS) -> None:
    """Until the process answers health (any status: a damaged release answers 503, which is an answer)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"exited with {process.returncode}: {log.read_text(errors='replace')[-2000:]}")
        try:
            if fetch(port, "/api/v1/health").status:
                return
        except (OSError, http.client.HTTPException):
            time.sleep(0.05)
    pytest.fail(f"nothing listens on port {port} after {seconds}s: {log.read_text(errors='replace')[-2000:]}")


def stop(*processes: subprocess.Popen) -> None:
    while CONNECTIONS:
        CONNECTIONS.popitem()[1].close()
    for process in processes:
        process.send_signal(signal.SIGTERM)  # nginx: fast shutdown; aiohttp: graceful, connections closed above
    for process in processes:
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def running_server(
    releases: Path, *extra: str, startup: float = STARTUP_SECONDS
) -> Iterator[tuple[str, subprocess.Popen]]:
    """`ras serve` over `releases` on a free port, listening within `startup` seconds; yields its base URL and
    process, and stops it."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="ras-serve-") as logs:
        log = Path(logs) / "serve.log"
        process = start_ras_serve(releases, port, log, *extra)
        try:
            wait_until_listening(process, port, log, startup)
            yield f"http://127.0.0.1:{port}", process
        finally:
            stop(process)


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nginx is not installed; CI installs it with `apt-get install -y nginx-light`")
        pytest.skip("nginx is not installed (apt-get install -y nginx-light)")
    return found


def start_nginx(out: Path, port: int) -> subprocess.Popen:
    """nginx on the export tree `out` (its nginx.conf listens on `port`), listening when this returns."""
    log = out / "logs" / "stderr.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            [nginx_binary(), "-p", str(out), "-c", "nginx.conf", "-e", "stderr", "-g", "daemon off;"],
            stdout=sink,
            stderr=sink,
        )
    wait_until_listening(process, port, log)
    return process


# VmHWM is this process image's own peak RSS; ru_maxrss would also count the forked pytest before exec.
PEAK_MEMORY_WRAPPER = (
    "import sys\n"
    "from builder.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "finally:\n"
    "    peak = next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
    "    print(f'peak-rss-kib={peak}', file=sys.stderr)\n"
)


def run_cli(*args: str, timeout: float = 120) -> tuple[int, str, str, int]:
    """Run `ras ARGS` in a child; returns exit code, stdout, stderr (without the memory line) and peak RSS in KiB."""
    result = subprocess.run(
        [sys.executable, "-c", PEAK_MEMORY_WRAPPER, *args],
        env=child_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = result.stderr.splitlines()
    peak = next(int(line.split("=")[1]) for line in reversed(lines) if line.startswith("peak-rss-kib="))
    stderr = "\n".join(line for line in lines if not line.startswith("peak-rss-kib="))
    return result.returncode, result.stdout, stderr, peak
