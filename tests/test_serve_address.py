"""One server per address, and no client can hold it: real `ras serve` processes on loopback.

Two `ras serve --workers 2` on one port: the second fails in one line and every answer comes from the first.
1,000 connections that send half a request line are all cut within the header timeout while health keeps
being answered; past the connection bound the oldest idle connection makes room. (Memory under such clients
is measured in bench/slow_clients.py, not asserted here.)
"""

from __future__ import annotations

import http.client
import resource
import selectors
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from builder.errors import EXIT_UNAVAILABLE
from builder.release.publish import publish
from builder.release.store import current_release
from tests.conftest import quiet
from tests.servers import REPO, Reply, child_env, free_port, running_server, start_ras_serve, stop, wait_until_listening
from tests.test_reliability import changed_fixture

HALF_OPEN = 1000
TEST_NET = "192.0.2.1"  # RFC 5737: documentation only, never an address of a real machine
HALF_A_REQUEST_LINE = b"GET /api/v1/hea"
HEADER_TIMEOUT = 2.0  # seconds, given to the server: short, so the test waits little
CUT_WITHIN = HEADER_TIMEOUT * 4  # every half-open connection closed by then (a bound on a timeout, not a speed)


def release_id(port: int) -> str:
    return orjson.loads(health(port).body)["data"]["releaseId"]


def serve_and_fail(releases: Path, *options: str) -> subprocess.CompletedProcess:
    """`ras serve` of `releases` with `options`, expected to stop at once (its exit code and one line of stderr)."""
    command = [sys.executable, "-m", "builder.cli", "serve", "--releases", str(releases), *options]
    return subprocess.run(command, env=child_env(), cwd=REPO, capture_output=True, text=True, timeout=30)


def listening_sockets(port: int) -> int:
    """How many sockets listen on the port (state 0A in /proc/net/tcp): one per address, however many workers."""
    rows = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return sum(1 for row in rows if row.split()[1].endswith(f":{port:04X}") and row.split()[3] == "0A")


@pytest.fixture
def other_releases(fixture_tree: Path, tmp_path: Path) -> Path:
    """A releases directory whose promoted release differs from the session's."""
    releases = tmp_path / "other"
    publish(changed_fixture(fixture_tree, tmp_path), releases, None, quiet)
    return releases


def test_a_second_server_on_a_busy_port_fails_in_one_line_and_every_answer_comes_from_the_first(
    published: Path, other_releases: Path, tmp_path: Path
):
    port = free_port()
    first = start_ras_serve(published, port, tmp_path / "first.log", "--workers", "2")
    try:
        wait_until_listening(first, port, tmp_path / "first.log")
        expected = release_id(port)
        second = serve_and_fail(other_releases, "--port", str(port), "--workers", "2")
        assert second.returncode == EXIT_UNAVAILABLE
        assert second.stderr.splitlines() == [
            f"Error: 127.0.0.1:{port} is in use — another server listens there (`ss -ltnp 'sport = :{port}'` names it): "
            "stop it, or give --port"
        ]
        answers = [orjson.loads(health(port).body)["data"]["releaseId"] for _ in range(12)]  # a new connection each
        assert answers == [expected] * 12 and current_release(other_releases).name != expected
        assert listening_sockets(port) == 1  # both workers accept from one socket
    finally:
        stop(first)


def test_a_port_held_by_any_other_program_is_the_same_one_line(published: Path):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = serve_and_fail(published, "--port", str(port))
    assert result.returncode == EXIT_UNAVAILABLE and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith(f"Error: 127.0.0.1:{port} is in use")


def test_an_address_this_machine_does_not_have_is_one_line_too(published: Path):
    result = serve_and_fail(published, "--host", TEST_NET, "--port", "8080")
    assert result.returncode == EXIT_UNAVAILABLE
    assert result.stderr.splitlines() == [
        f"Error: {TEST_NET}:8080 is not an address of this machine — give a --host it has (127.0.0.1, or 0.0.0.0 for "
        "every interface)"
    ]


@pytest.fixture
def many_files() -> Iterator[None]:
    """Room for this process's half of a thousand connections (the server raises its own limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = HALF_OPEN + 256
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def half_open(port: int, count: int) -> list[socket.socket]:
    """`count` connections that each sent half a request line and nothing more."""
    connections = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", port))
        connection.sendall(HALF_A_REQUEST_LINE)
        connections.append(connection)
    return connections


def closed_by_server(port: int, connections: list[socket.socket], seconds: float) -> int:
    """How many of the connections the server closes (EOF or reset) within `seconds`, answering health meanwhile."""
    selector = selectors.DefaultSelector()
    for connection in connections:
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ)
    closed, deadline, statuses = 0, time.monotonic() + seconds, []
    while closed < len(connections) and time.monotonic() < deadline:
        for key, _events in selector.select(0.2):
            try:
                data = key.fileobj.recv(4096)
            except ConnectionResetError:
                data = b""
            assert not data, data  # an answer to half a request line would be a bug of its own
            selector.unregister(key.fileobj)
            closed += 1
        statuses.append(health(port).status)
    selector.close()
    assert statuses and set(statuses) == {200}, statuses  # answered all along
    return closed


def health(port: int) -> Reply:
    """GET health on a connection of its own."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/api/v1/health")
        response = connection.getresponse()
        return Reply(response.status, response.msg, response.read())
    finally:
        connection.close()


def is_open(connection: socket.socket) -> bool:
    connection.setblocking(False)
    try:
        return connection.recv(1) != b""
    except BlockingIOError:
        return True
    except ConnectionResetError:
        return False


def test_a_thousand_half_open_connections_are_cut_within_the_header_timeout_while_health_is_answered(
    published: Path, many_files
):
    with running_server(published, "--header-timeout", str(HEADER_TIMEOUT)) as (url, _process):
        port = int(url.rsplit(":", 1)[1])
        connections = half_open(port, HALF_OPEN)
        try:
            assert closed_by_server(port, connections, CUT_WITHIN) == HALF_OPEN
        finally:
            for connection in connections:
                connection.close()


def test_a_connection_that_sends_whole_requests_outlives_the_header_timeout_until_it_idles_too_long(published: Path):
    with running_server(published, "--header-timeout", "0.5", "--keepalive-timeout", "1.5") as (url, _process):
        port = int(url.rsplit(":", 1)[1])
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        for _ in range(4):  # 4 requests over 1.2 s on one connection: each head comes whole, so none is cut
            connection.request("GET", "/api/v1/health")
            response = connection.getresponse()
            assert response.status == 200 and not response.will_close
            response.read()
            time.sleep(0.4)
        peer = connection.sock
        peer.settimeout(5)
        assert peer.recv(1) == b""  # then idle past the keep-alive timeout: closed by the server
        connection.close()


def test_past_the_connection_bound_the_oldest_idle_connections_make_room(published: Path):
    with running_server(published, "--max-connections", "50") as (url, _process):
        port = int(url.rsplit(":", 1)[1])
        connections = half_open(port, 100)
        try:
            assert health(port).status == 200
            time.sleep(0.2)  # let the closes reach this side
            open_now = [is_open(connection) for connection in connections]
            assert sum(open_now) <= 50 and not open_now[0] and open_now[-1]  # the oldest made room for the newest
        finally:
            for connection in connections:
                connection.close()


def test_a_post_body_that_trickles_in_gets_one_error_and_the_connection_is_closed(published: Path):
    with running_server(published, "--body-timeout", "1", "--keepalive-timeout", "30") as (url, _process):
        port = int(url.rsplit(":", 1)[1])
        body = b'{"packId": "13f-copycat", "mode": "any"}'
        whole = http.client.HTTPConnection("127.0.0.1", port, timeout=5)  # a body sent at once is answered
        whole.request("POST", "/api/v1/policy/validate", body, {"Content-Type": "application/json"})
        answered = whole.getresponse()
        assert answered.status == 200 and not answered.will_close
        answered.read()
        whole.close()
        head = (
            f"POST /api/v1/policy/validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        slow = socket.create_connection(("127.0.0.1", port), timeout=10)
        slow.sendall(head + body[:5])  # the head whole, then a few bytes of the body and nothing more
        received = b""
        while chunk := slow.recv(65536):  # until the server hangs up
            received += chunk
        slow.close()
        status_line, _, rest = received.partition(b"\r\n")
        assert status_line == b"HTTP/1.1 400 Bad Request"
        error = orjson.loads(rest.partition(b"\r\n\r\n")[2])["error"]
        assert error["code"] == "malformed_request"
        assert error["details"] == {"bodyTimeoutSeconds": 1.0}
        assert "did not arrive within 1 s" in error["message"]
