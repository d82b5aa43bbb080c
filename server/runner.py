"""`ras serve`: one listening socket per address, shared by the workers, and no client can hold a worker.

The address is bound once, by the process `ras serve` starts, before any worker exists; the workers are forked
with that socket and accept from it. No socket option lets another process join it (SO_REUSEPORT would: two
`ras serve` on one port then split the traffic between two releases), so a second `ras serve` on the same
address fails at once, in one line.

Each connection must send a whole request head within the header timeout of opening (or of starting its next
request) and may idle between requests for the keep-alive timeout; past the bound on open connections the
oldest idle one is closed to make room. Connections that send half a request line are so cut within the header
timeout, and every other client is answered meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import errno
import gc
import logging
import multiprocessing
import multiprocessing.connection
import os
import resource
import signal
import socket
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from aiohttp.web_server import Server

from builder.errors import EXIT_NO_PERMISSION, EXIT_UNAVAILABLE, PublishError
from server.app import DEFAULT_BODY_TIMEOUT, create_app, precomputed_first
from server.mcp_http.origins import Origins
from server.protocol import EnvelopeRequestHandler, EnvelopeRunner, EnvelopeServer
from server.watch import Pace

# A request head is one packet: 10 s is ample on any link and cuts a half-open connection 6× sooner than
# nginx's client_header_timeout (60 s).
HEADER_TIMEOUT = 10.0
KEEPALIVE_TIMEOUT = 30.0  # an idle kept-alive connection: long enough for an agent's next call, short for a pool
MAX_CONNECTIONS = 1024  # per worker; 1,000 idle connections cost ~90 MB: a bound, not a capacity goal
BACKLOG = 1024  # connections the kernel queues before a worker accepts them
# Connections a worker accepts each time the socket is ready. asyncio accepts up to its `backlog` argument in
# one go, so 32 connections opened at once (wrk -c32) all landed in one worker; one at a time, each idle
# worker takes its turn (measured: 32 of 32 in one worker in 3 bursts of 10; then 13-19 splits).
ACCEPT_BATCH = 1
SWEEP_SHARE = 0.1  # late request heads are swept every tenth of the header timeout: cut within 1.1 times it
FILES_PER_CONNECTION = 1
FILES_SPARE = 256  # the release's files, logs and the loop's own descriptors beside the connections
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameter numbers (malloc.h)
MMAP_THRESHOLD = 1024 * 1024  # bytes: a larger block (a large answer's body, its send buffer) gets its own mapping
TRIM_THRESHOLD = 2 * MMAP_THRESHOLD  # free heap kept for reuse: smaller answers' buffers cycle without page faults


class AddressUnavailable(PublishError):
    """The address cannot be listened on (another process has it, it is not this machine's): nothing started."""

    exit_code = EXIT_UNAVAILABLE


class AddressRefused(AddressUnavailable):
    """A port this user may not listen on."""

    exit_code = EXIT_NO_PERMISSION


# Why bind() failed → the exception and what to say after "host:port"
_BIND_FAILURES = {
    errno.EADDRINUSE: (
        AddressUnavailable,
        "is in use — another server listens there (`ss -ltnp 'sport = :{port}'` names it): stop it, or give --port",
    ),
    errno.EADDRNOTAVAIL: (
        AddressUnavailable,
        "is not an address of this machine — give a --host it has (127.0.0.1, or 0.0.0.0 for every interface)",
    ),
    errno.EACCES: (
        AddressRefused,
        "may not be listened on by this user — ports below 1024 need root or "
        "CAP_NET_BIND_SERVICE: give a --port of 1024 or more",
    ),
}


@dataclass(frozen=True, slots=True)
class Guard:
    """How long a connection may take to send a request head and a POST body, and idle between requests; how many
    may be open."""

    header_timeout: float = HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    keepalive_timeout: float = KEEPALIVE_TIMEOUT
    max_connections: int = MAX_CONNECTIONS


def bind(host: str, port: int) -> socket.socket:
    """The listening socket for host:port, bound once for every worker; AddressUnavailable in one line if taken."""
    family, kind, proto, _name, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a restart need not wait out TIME_WAIT
    try:
        listener.bind(address)
    except OSError as exc:
        listener.close()
        if exc.errno not in _BIND_FAILURES:
            exc.filename = f"{host}:{port}"  # the CLI's one line names the address
            raise
        failure, why = _BIND_FAILURES[exc.errno]
        raise failure(f"{host}:{port} {why.format(port=port)}") from exc
    listener.listen(BACKLOG)
    listener.setblocking(False)
    return listener


class GuardedHandler(EnvelopeRequestHandler):
    """A connection that must send each request head within the header timeout, and that the server may close
    while it idles to make room for a new one. The head's start is stamped here; the server's sweep cuts the late
    ones (one timer per worker, not one per request)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        self.head_since: float | None = self._loop.time()
        self._manager.make_room(self)  # type: ignore[union-attr]

    def data_received(self, data: bytes) -> None:
        heads = self._request_count
        super().data_received(data)
        if self._request_count > heads:  # a whole head arrived (nearly always the whole of it in these bytes)
            self.head_since = None
        elif self.head_since is None and self.waiting():  # the first bytes of the next request: its head is timed
            self.head_since = self._loop.time()

    def waiting(self) -> bool:
        """Open, and no request being answered or queued: idle, just opened, or its request head not yet whole."""
        return not self._force_close and not self._request_in_progress and not self._messages

    def late(self, deadline: float) -> bool:
        """A request head begun at or before `deadline` and still not whole."""
        return self.head_since is not None and self.head_since <= deadline and self.waiting()


class GuardedServer(EnvelopeServer):
    """The connections of one worker, bounded: past the bound the oldest idle connection is closed; a sweep every
    SWEEP_SHARE of the header timeout closes those whose request head is late."""

    handler_class = GuardedHandler
    guard = Guard()
    _sweep: asyncio.TimerHandle | None = None

    def make_room(self, newcomer: GuardedHandler) -> None:
        if self._sweep is None:
            self._sweep_late_heads()
        if len(self._connections) <= self.guard.max_connections:
            return
        oldest = next(
            (c for c in self._connections if c is not newcomer and isinstance(c, GuardedHandler) and c.waiting()),
            newcomer,
        )  # every other one is being answered: the newcomer is the one turned away
        oldest.force_close()

    def _sweep_late_heads(self) -> None:
        timeout = self.guard.header_timeout
        late = self._loop.time() - timeout
        for connection in list(self._connections):
            if isinstance(connection, GuardedHandler) and connection.late(late):
                connection.force_close()
        self._sweep = self._loop.call_later(timeout * SWEEP_SHARE, self._sweep_late_heads)

    async def shutdown(self, timeout: float | None = None) -> None:
        if self._sweep is not None:
            self._sweep.cancel()
        await super().shutdown(timeout)


class GuardedRunner(EnvelopeRunner):
    server_class = GuardedServer

    def __init__(self, app: web.Application, guard: Guard) -> None:
        super().__init__(app, access_log=None, keepalive_timeout=guard.keepalive_timeout)
        self.guard = guard

    async def _make_server(self) -> Server:
        server = await super()._make_server()
        assert isinstance(server, GuardedServer)
        server.guard = self.guard
        server.request_handler = precomputed_first(self.app, server.request_handler)
        return server


def run(
    releases: Path,
    host: str,
    port: int,
    workers: int = 1,
    verify_interval: float | None = None,
    guard: Guard = Guard(),
    origins: Origins = Origins(),
) -> None:
    """Serve until SIGTERM/SIGINT; with workers > 1, that many processes accept from the one socket. `origins`: the
    browser origins /mcp serves besides the server's own."""
    listener = bind(host, port)  # before anything else: a busy address changes nothing and says so
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if workers <= 1:
        _worker(releases, listener, verify_interval, guard, origins)
        return
    context = multiprocessing.get_context("fork")  # no event loop exists yet: each worker starts its own
    processes = [
        context.Process(
            target=_worker, args=(releases, listener, verify_interval, guard, origins), name=f"ras-worker-{n}"
        )
        for n in range(workers)
    ]
    for process in processes:
        process.start()
    listener.close()  # the workers hold it; the address stays taken as long as one of them runs

    def stop(signum: int, _frame: object) -> None:
        for process in processes:  # SIGTERM either way: a worker that also got the terminal's SIGINT just exits
            if process.is_alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    multiprocessing.connection.wait([process.sentinel for process in processes])  # one ends: all end
    stop(signal.SIGTERM, None)
    for process in processes:
        process.join()
    failed = [process for process in processes if process.exitcode not in (0, -signal.SIGTERM)]
    if failed:
        raise SystemExit(f"worker {failed[0].name} exited with {failed[0].exitcode}")


def _worker(
    releases: Path, listener: socket.socket, verify_interval: float | None, guard: Guard, origins: Origins
) -> None:
    _unmap_large_blocks()
    _raise_file_limit(guard.max_connections * FILES_PER_CONNECTION + FILES_SPARE)
    pace = Pace() if verify_interval is None else Pace(verify=verify_interval)
    app = create_app(releases, pace=pace, body_timeout=guard.body_timeout, mcp_origins=origins)
    # The loaded release is read-only: keep its millions of objects out of the collector's passes, which at
    # 500 managers cost more than the research they interrupt (a policy check's 30 ms became 550 ms).
    gc.freeze()
    asyncio.run(_serve(app, listener, guard))


async def _serve(app: web.Application, listener: socket.socket, guard: Guard) -> None:
    """Serve `app` from the socket until SIGTERM or SIGINT, then clean up (what web.run_app does, guarded)."""
    runner = GuardedRunner(app, guard)
    await runner.setup()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        await web.SockSite(runner, listener, backlog=ACCEPT_BATCH).start()
        listener.listen(BACKLOG)  # create_server set the kernel's queue to the batch too: give it its depth back
        await stop.wait()
    finally:
        await runner.cleanup()


def _raise_file_limit(wanted: int) -> None:
    """Let the worker open as many descriptors as its connection bound needs, up to the hard limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(
                resource.RLIMIT_NOFILE, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard)
            )


def _unmap_large_blocks() -> None:
    """Pin glibc's mmap threshold, which otherwise rises to the largest block freed (up to 32 MB): the body of an
    answer too large for the cache is read per request, and must go back to the OS once sent, not stay in the
    heap. The trim threshold is pinned beside it (as glibc's own adjustment does), so the heap is not shrunk
    and faulted in again on every request. Not glibc: nothing to do."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
        libc.mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD)
