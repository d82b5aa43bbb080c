"""Slow clients against `ras serve`: what a thousand connections that never finish a request cost, and how long
they last, against the same server idle (the reference, same run).

Usage: `python -m bench.slow_clients [--connections 1000] [--work DIR]`.
`ras serve` (one worker, default --header-timeout 10 s) on the fixture's release. Each round opens
--connections connections, sampling the server's VmRSS every 50 ms and asking health on a fresh connection
every 100 ms until the server has closed every one of them: "half-open" connections send half a request line
and wait; "trickle" ones send one more byte of it every second (a timer reset by each byte would never fire);
"bounded" repeats half-open under --max-connections 256. Figures: RSS growth over the idle server, per
connection; seconds until the last connection is cut (the header timeout is the bound); health answered, and
its median latency against the idle server's.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import resource
import selectors
import socket
import statistics
import time
from pathlib import Path

from bench import report
from bench.memory import status_kib
from bench.processes import HOST, free_port, ras, server
from bench.workload import published

WORK = Path("/tmp/ras-bench")
HALF_A_REQUEST_LINE = b"GET /api/v1/hea"
HEADER_TIMEOUT = 10.0  # `ras serve`'s default, which the rounds run under
CUT_LIMIT = HEADER_TIMEOUT * 3  # a round stops waiting here: the connections left are reported, not waited for
BOUND = 256
HEALTH_EVERY = 0.1  # seconds between health requests while the slow clients are connected
SAMPLE_EVERY = 0.05


def health_ms(port: int) -> float | None:
    """Milliseconds for health on a fresh connection; None when it is not answered 200."""
    started = time.perf_counter()
    connection = http.client.HTTPConnection(HOST, port, timeout=5)
    try:
        connection.request("GET", "/api/v1/health")
        response = connection.getresponse()
        response.read()
        return (time.perf_counter() - started) * 1000 if response.status == 200 else None
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def open_slow(port: int, count: int) -> list[socket.socket]:
    connections = []
    for _ in range(count):
        connection = socket.create_connection((HOST, port))
        connection.sendall(HALF_A_REQUEST_LINE)
        connection.setblocking(False)
        connections.append(connection)
    return connections


def round_of(kind: str, port: int, pid: int, count: int) -> dict:
    """Open `count` slow connections, then watch until the server closed them all (or CUT_LIMIT)."""
    idle_kib = status_kib(pid)["VmRSS"]
    started = time.monotonic()
    connections = open_slow(port, count)
    selector = selectors.DefaultSelector()
    for connection in connections:
        selector.register(connection, selectors.EVENT_READ)
    peak_kib, answered, asked, latencies, last_cut = idle_kib, 0, 0, [], 0.0
    next_health = next_byte = time.monotonic()
    while selector.get_map() and time.monotonic() - started < CUT_LIMIT:
        for key, _events in selector.select(SAMPLE_EVERY):
            selector.unregister(key.fileobj)
            key.fileobj.close()
            last_cut = time.monotonic() - started
        peak_kib = max(peak_kib, status_kib(pid)["VmRSS"])
        now = time.monotonic()
        if now >= next_health:
            asked += 1
            latency = health_ms(port)
            answered += latency is not None
            latencies += [latency] if latency is not None else []
            next_health = now + HEALTH_EVERY
        if kind == "trickle" and now >= next_byte:
            for key in list(selector.get_map().values()):
                with contextlib.suppress(OSError):  # closed by the server meanwhile: counted when selected
                    key.fileobj.send(b"l")
            next_byte = now + 1.0
    left = len(selector.get_map())
    for key in list(selector.get_map().values()):
        key.fileobj.close()
    selector.close()
    time.sleep(0.5)
    return {
        "kind": kind,
        "connections": count,
        "idleMiB": idle_kib / 1024,
        "peakMiB": peak_kib / 1024,
        "afterMiB": status_kib(pid)["VmRSS"] / 1024,
        "lastCutS": last_cut,
        "left": left,
        "healthAnswered": answered,
        "healthAsked": asked,
        "healthP50Ms": statistics.median(latencies or [0]),
    }


def idle_health(port: int, samples: int = 50) -> float:
    return statistics.median(value for value in (health_ms(port) for _ in range(samples)) if value is not None)


def run(releases: Path, work: Path, count: int) -> tuple[list[dict], float]:
    rounds, reference = [], 0.0
    for kind, extra in (("half-open", ()), ("trickle", ()), ("bounded", ("--max-connections", str(BOUND)))):
        port = free_port()
        command = ras("serve", "--releases", str(releases), "--port", str(port), *extra)
        with server(command, port, work / f"slow-clients-{kind}.log") as process:
            reference = reference or idle_health(port)
            rounds.append(round_of(kind, port, process.pid, count))
    return rounds, reference


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument(
        "--releases", type=Path, default=None, help="a releases directory (default: publish the fixture)"
    )
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.connections + 256)), hard))
    rounds, reference = run(published(args.releases, args.work, "slow-clients"), args.work, args.connections)
    rows = [
        [
            r["kind"],
            r["connections"],
            f"{r['idleMiB']:.1f}",
            f"{r['peakMiB']:.1f}",
            f"{(r['peakMiB'] - r['idleMiB']) * 1024 / r['connections']:.0f}",
            f"{r['afterMiB']:.1f}",
            f"{r['lastCutS']:.1f}",
            r["left"],
            f"{r['healthAnswered']}/{r['healthAsked']}",
            f"{r['healthP50Ms']:.1f} ({r['healthP50Ms'] / reference:.1f}×)",
        ]
        for r in rounds
    ]
    headers = ["round", "connections", "RSS idle MiB", "RSS peak MiB", "KiB per connection", "RSS after MiB",
               "last cut s", "left open", "health 200", "health p50 ms (× idle)"]  # fmt: skip
    targets = [
        report.target(
            f"every slow connection cut within {CUT_LIMIT:.0f} s (header timeout {HEADER_TIMEOUT:.0f} s)",
            all(r["left"] == 0 for r in rounds),
            ", ".join(f"{r['kind']} {r['lastCutS']:.1f} s" for r in rounds),
        ),
        report.target(
            "health answered 200 throughout",
            all(r["healthAnswered"] == r["healthAsked"] for r in rounds),
            ", ".join(f"{r['kind']} {r['healthAnswered']}/{r['healthAsked']}" for r in rounds),
        ),
    ]
    notes = [
        f"`ras serve`, one worker, default --header-timeout {HEADER_TIMEOUT:.0f} s and --keepalive-timeout; the "
        f"fixture's release. Idle health p50 (the reference, same run): {reference:.1f} ms.",
        "half-open: half a request line, then nothing; trickle: one more byte a second; bounded: half-open under "
        f"--max-connections {BOUND} (the oldest waiting connection is closed for each new one).",
        "RSS = VmRSS sampled every 50 ms while the connections are open; health asked on a fresh connection every "
        "100 ms.",
    ]
    report.save(
        "slow_clients",
        "Slow clients: half-open connections against ras serve",
        headers,
        rows,
        targets,
        notes,
        raw={"rounds": rounds, "idleHealthP50Ms": reference},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
