"""MCP over Streamable HTTP: `/mcp` of `ras serve` against the REST answers of the same server, in the same run.

Usage: `python -m bench.mcp [--releases DIR] [--seconds 6] [--repeat 3] [--idle 1000] [--work DIR]`.
One `ras serve` (one worker) over the fixture's release (or --releases); wrk runs one thread, so on a 2-core
machine the load generator and the server each have a core. GET-backed tool: wrk -c32 POSTing a tools/call of
get_latest_pack (13f-copycat, at 2025-11-25) to /mcp, against wrk -c32 GETting the same answer from
/api/v1/packs/13f-copycat/latest, --repeat times in alternating order: requests per second and the server's CPU
per answer. POST tools: compare_ethos and validate_policy over /mcp against their REST POSTs with the same body,
warm (wrk on one body, from one client and from 16: p50 latency) and cold (never-asked manager subsets, a new
connection each, one at a time, the two sides taking turns, each subset asked of one side only). Idle clients: --idle connections each
make one tools/call, then stay open and silent within the keep-alive timeout; the growth of the server's RSS,
on a server of their own (and, for reference, as many REST GETs of health on another).
"""

from __future__ import annotations

import argparse
import http.client
import random
import resource
import socket
import statistics
import time
from pathlib import Path
from typing import Any

import orjson

from bench import report
from bench.memory import status_kib
from bench.processes import HOST, cpu_seconds, free_port, ras, server, wrk
from bench.workload import manager_subsets, percentiles, published, release_data

WORK = Path("/tmp/ras-bench")
LATEST = "/api/v1/packs/13f-copycat/latest"
CONNECTIONS = 32  # the figure for the GET-backed tool
POST_CONNECTIONS = 16  # as bench.post's warm throughput
GET_TARGET = 0.80  # a GET-backed tool call ≥ 0.80 × the REST GET of the same answer, in requests per second
POST_TARGET = 1.20  # a POST tool's latency ≤ 1.20 × its REST POST's
IDLE_TARGET_MB = 50.0  # 1,000 idle kept-alive MCP clients cost under 50 MB
COLD_SUBSETS = 40  # never-asked bodies per operation and side
POSTS = {"compare_ethos": "/api/v1/ethos/compare", "validate_policy": "/api/v1/policy/validate"}
MODES = ("any", "overlap", "exclusive", "disagreement")
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json", "MCP-Protocol-Version": "2025-11-25"}
LATEST_CALL = {"name": "get_latest_pack", "arguments": {"packId": "13f-copycat"}}


def message(params: dict[str, Any], request_id: int = 1) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def post_once(port: int, path: str, body: bytes, headers: dict[str, str]) -> tuple[float, int, bytes]:
    """(milliseconds, status, body) of one POST on a new connection."""
    connection = http.client.HTTPConnection(HOST, port, timeout=120)
    try:
        started = time.perf_counter()
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        answer = response.read()
        return 1000 * (time.perf_counter() - started), response.status, answer
    finally:
        connection.close()


def lua_script(path: Path, body: bytes, headers: dict[str, str]) -> Path:
    """A wrk script POSTing `body` with `headers` (a long bracket the JSON cannot close)."""
    lines = ['wrk.method = "POST"', *(f'wrk.headers["{name}"] = "{value}"' for name, value in headers.items())]
    path.write_text("\n".join([*lines, f"wrk.body = [==[{body.decode()}]==]", ""]))
    return path


def checked(port: int, body: bytes, rest: bytes) -> None:
    """The tool's answer must link the very REST bytes it stands for: else the comparison means nothing."""
    _, status, answer = post_once(port, "/mcp", body, MCP_HEADERS)
    result = orjson.loads(answer)["result"]
    if (
        status != 200
        or result.get("isError")
        or not any(block.get("size") == len(rest) for block in result["content"][1:])
    ):
        raise SystemExit(f"/mcp answered {status} {answer[:300]!r}")


def loads(port: int, pid: int, args: argparse.Namespace) -> list[dict[str, Any]]:
    """wrk on the GET-backed tool and on its REST GET, then on each POST tool and its REST POST (warm)."""
    runs: list[dict[str, Any]] = []
    scripts = {"tool": lua_script(args.work / "mcp-latest.lua", message(LATEST_CALL), MCP_HEADERS)}
    urls = {"tool": f"http://{HOST}:{port}/mcp", "rest": f"http://{HOST}:{port}{LATEST}"}
    for tool, path in POSTS.items():
        body = orjson.dumps({"managerIds": [], "mode": "overlap"})
        scripts[tool] = lua_script(
            args.work / f"mcp-{tool}.lua", message({"name": tool, "arguments": orjson.loads(body)}), MCP_HEADERS
        )
        scripts[f"{tool}-rest"] = lua_script(args.work / f"rest-{tool}.lua", body, {"Content-Type": "application/json"})
        urls[tool], urls[f"{tool}-rest"] = urls["tool"], f"http://{HOST}:{port}{path}"
    pairs = [("tool", "rest", CONNECTIONS)]
    pairs += [(tool, f"{tool}-rest", connections) for tool in POSTS for connections in (1, POST_CONNECTIONS)]
    for repeat in range(args.repeat):
        for first, second, connections in pairs:
            for name in (first, second) if repeat % 2 == 0 else (second, first):
                before = cpu_seconds(pid)
                load = wrk(urls[name], connections, args.seconds, script=scripts.get(name))
                cpu = (cpu_seconds(pid) - before) / max(load.requests, 1)
                runs.append({"side": name, "connections": connections, "cpuUs": cpu * 1e6, **load.as_dict()})
    return runs


def cold(port: int, releases: Path) -> dict[str, dict[str, list[float]]]:
    """Never-asked questions (a small manager subset and a mode), one at a time on a new connection, MCP and REST
    taking turns; each operation asks its own subsets, so neither warms the other's views."""
    subsets = manager_subsets(release_data(releases), 4 * COLD_SUBSETS)
    found: dict[str, dict[str, list[float]]] = {}
    for offset, (tool, path) in enumerate(POSTS.items()):
        samples: dict[str, list[float]] = {"mcp": [], "rest": []}
        questions = [(subset, mode) for subset in subsets[offset::2] for mode in MODES]
        random.Random(offset).shuffle(questions)
        for n, (subset, mode) in enumerate(questions[: 2 * COLD_SUBSETS]):
            arguments = {"managerIds": subset, "mode": mode}
            if n % 2:
                elapsed, status, _ = post_once(
                    port, path, orjson.dumps(arguments), {"Content-Type": "application/json"}
                )
            else:
                call = message({"name": tool, "arguments": arguments})
                elapsed, status, _ = post_once(port, "/mcp", call, MCP_HEADERS)
            samples["rest" if n % 2 else "mcp"].append(elapsed)
            if status != 200:
                raise SystemExit(f"{tool} answered {status} to {arguments}")
        found[tool] = samples
    return found


def exchange(client: socket.socket, request: bytes) -> None:
    """One request on a kept-alive connection, its whole answer read."""
    client.sendall(request)
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += client.recv(65536)
    head, _, body = answer.partition(b"\r\n\r\n")
    length = int(
        next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length"))
    )
    while len(body) < length:
        body += client.recv(65536)


def idle_growth(releases: Path, count: int, request: bytes, args: argparse.Namespace, name: str) -> dict[str, float]:
    """The RSS growth of a fresh server while `count` connections that each made `request` stay open and silent."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 256)), hard))
    port = free_port()
    request = request.replace(b"{port}", str(port).encode())
    with server(
        ras("serve", "--releases", str(releases), "--port", str(port)), port, args.work / f"mcp-idle-{name}.log"
    ) as process:
        with socket.create_connection((HOST, port)) as warm:
            exchange(warm, request)  # the code paths, the answer and its memo are in place before the baseline
        time.sleep(0.5)
        before = status_kib(process.pid)["VmRSS"]
        clients: list[socket.socket] = []
        try:
            started = time.monotonic()
            for _ in range(count):
                client = socket.create_connection((HOST, port), timeout=30)
                clients.append(client)
                exchange(client, request)
            time.sleep(1.0)
            after = status_kib(process.pid)["VmRSS"]
            opened = time.monotonic() - started
            still_open = sum(1 for client in clients if not _closed(client))
        finally:
            for client in clients:
                client.close()
    return {
        "beforeMiB": before / 1024,
        "afterMiB": after / 1024,
        "growthMiB": (after - before) / 1024,
        "kibPerClient": (after - before) / count,
        "openSeconds": opened,
        "open": still_open,
    }


def _closed(client: socket.socket) -> bool:
    client.setblocking(False)
    try:
        return client.recv(1) == b""
    except BlockingIOError:
        return False
    finally:
        client.setblocking(True)


def raw_request(method: str, target: str, headers: dict[str, str], body: bytes = b"") -> bytes:
    lines = [f"{method} {target} HTTP/1.1", f"Host: {HOST}:{{port}}", *(f"{k}: {v}" for k, v in headers.items())]
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def median(runs: list[dict[str, Any]], side: str, field: str, connections: int = CONNECTIONS) -> float:
    return statistics.median(run[field] for run in runs if (run["side"], run["connections"]) == (side, connections))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=Path, default=None, help="releases directory (default: publish the fixture)")
    parser.add_argument("--seconds", type=int, default=6, help="duration of each wrk run")
    parser.add_argument("--repeat", type=int, default=3, help="wrk runs per side; the median counts")
    parser.add_argument("--idle", type=int, default=1000, help="idle kept-alive clients")
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    releases = published(args.releases, args.work, "mcp")
    port = free_port()
    with server(ras("serve", "--releases", str(releases), "--port", str(port)), port, args.work / "mcp-app.log") as app:
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        connection.request("GET", LATEST)
        checked(port, message(LATEST_CALL), connection.getresponse().read())
        connection.close()
        runs = loads(port, app.pid, args)
        latencies = cold(port, releases)
    idle = {
        "mcp": idle_growth(
            releases, args.idle, raw_request("POST", "/mcp", MCP_HEADERS, message(LATEST_CALL)), args, "mcp"
        ),
        "rest": idle_growth(releases, args.idle, raw_request("GET", "/api/v1/health", {}), args, "rest"),
    }
    rows, targets = figures(runs, latencies, idle, args)
    notes = [
        f"One `ras serve` worker; wrk -t1 for {args.seconds} s a run, median of {args.repeat} runs per side in "
        "alternating order. The tool call and the REST GET answer the same release answer: the tool its compact "
        "answer with a link to the REST bytes (about a tenth of their size), the GET those bytes.",
        "Warm POSTs: the same body each time (`managerIds: []`, `mode: overlap`), MCP wrapping it as the tool's "
        f"arguments, from one kept-alive client (wrk -c1: the latency an agent sees) and from {POST_CONNECTIONS} "
        "(the server saturated: latency follows its CPU per answer, and a warm REST POST is cached bytes with "
        f"headers built once); cold: {COLD_SUBSETS} never-asked small manager subsets × modes per side and "
        "operation, each on a new connection.",
        f"Idle: {args.idle} connections opened one after another, each making one request (a tools/call of "
        "get_latest_pack; for REST a GET of health), then silent within the 30 s keep-alive timeout; VmRSS of a "
        "fresh server before and 1 s after, the code paths warmed by one request first.",
        f"The machine has {report.machine()['nproc']} cores shared with wrk and with other work: compare ratios.",
    ]
    report.save(
        "mcp",
        "MCP over Streamable HTTP against REST",
        ["measure", "/mcp", "REST", "ratio", "target"],
        rows,
        targets,
        notes,
        raw={"runs": runs, "cold": latencies, "idle": idle},
    )
    return 0


def figures(
    runs: list[dict[str, Any]],
    latencies: dict[str, dict[str, list[float]]],
    idle: dict[str, dict[str, float]],
    args: argparse.Namespace,
) -> tuple[list[list[Any]], list[dict[str, Any]]]:
    tool, rest = median(runs, "tool", "rps"), median(runs, "rest", "rps")
    rows: list[list[Any]] = [
        [
            "get_latest_pack req/s, 32 connections",
            f"{tool:.0f}",
            f"{rest:.0f}",
            f"{tool / rest:.2f}",
            f"≥ {GET_TARGET}",
        ],
        [
            "  server CPU µs per answer",
            f"{median(runs, 'tool', 'cpuUs'):.0f}",
            f"{median(runs, 'rest', 'cpuUs'):.0f}",
            f"{median(runs, 'tool', 'cpuUs') / median(runs, 'rest', 'cpuUs'):.2f}",
            "—",
        ],
    ]
    targets = [
        report.target(
            f"a GET-backed tool call ≥ {GET_TARGET} × its REST GET (req/s, 32 connections)",
            tool / rest >= GET_TARGET,
            f"{tool / rest:.3f}×",
        )
    ]
    for name in POSTS:
        found_rows, found_targets = post_figures(name, runs, latencies[name])
        rows += found_rows
        targets += found_targets
    mcp_idle, rest_idle = idle["mcp"], idle["rest"]
    rows.append(
        [
            f"{args.idle} idle kept-alive clients: RSS growth MiB (KiB each)",
            f"{mcp_idle['growthMiB']:.1f} ({mcp_idle['kibPerClient']:.1f})",
            f"{rest_idle['growthMiB']:.1f} ({rest_idle['kibPerClient']:.1f})",
            f"{mcp_idle['growthMiB'] / max(rest_idle['growthMiB'], 0.1):.2f}",
            f"< {IDLE_TARGET_MB:.0f} MB",
        ]
    )
    targets.append(
        report.target(
            f"{args.idle} idle kept-alive MCP clients cost < {IDLE_TARGET_MB:.0f} MB",
            mcp_idle["growthMiB"] * 1.048576 < IDLE_TARGET_MB and mcp_idle["open"] == args.idle,
            f"{mcp_idle['growthMiB'] * 1.048576:.1f} MB, {mcp_idle['open']:.0f} of {args.idle} still open",
        )
    )
    targets.append(
        report.target("zero errors", not sum(run["errors"] for run in runs), f"{sum(run['errors'] for run in runs)}")
    )
    return rows, targets


def post_figures(
    name: str, runs: list[dict[str, Any]], cold: dict[str, list[float]]
) -> tuple[list[list[Any]], list[dict[str, Any]]]:
    """A POST tool against its REST POST: the latency one agent sees (warm and cold, one client; the targets), and
    under load (16 connections, the latency wrk sees when the server is the bottleneck: its CPU per answer)."""
    one, one_rest = median(runs, name, "p50Ms", 1), median(runs, f"{name}-rest", "p50Ms", 1)
    busy, busy_rest = (median(runs, side, "p50Ms", POST_CONNECTIONS) for side in (name, f"{name}-rest"))
    cpu, cpu_rest = (median(runs, side, "cpuUs", POST_CONNECTIONS) for side in (name, f"{name}-rest"))
    mcp_cold, rest_cold = percentiles(cold["mcp"]), percentiles(cold["rest"])
    rows = [
        [f"{name} warm p50 ms, 1 client", f"{one:.3f}", f"{one_rest:.3f}", f"{one / one_rest:.2f}", f"≤ {POST_TARGET}"],
        [
            f"{name} cold p50 / p99 ms, 1 client",
            f"{mcp_cold['p50']:.2f} / {mcp_cold['p99']:.2f}",
            f"{rest_cold['p50']:.2f} / {rest_cold['p99']:.2f}",
            f"{mcp_cold['p50'] / rest_cold['p50']:.2f}",
            f"≤ {POST_TARGET}",
        ],
        [
            f"{name} warm p50 ms, {POST_CONNECTIONS} connections (CPU µs per answer)",
            f"{busy:.2f} ({cpu:.0f})",
            f"{busy_rest:.2f} ({cpu_rest:.0f})",
            f"{busy / busy_rest:.2f}",
            "—",
        ],
    ]
    targets = [
        report.target(
            f"{name}: warm p50 ≤ {POST_TARGET} × its REST POST's, 1 client",
            one <= POST_TARGET * one_rest,
            f"{one / one_rest:.3f}×",
        ),
        report.target(
            f"{name}: cold p50 ≤ {POST_TARGET} × its REST POST's, 1 client",
            mcp_cold["p50"] <= POST_TARGET * rest_cold["p50"],
            f"{mcp_cold['p50'] / rest_cold['p50']:.3f}×",
        ),
    ]
    return rows, targets


if __name__ == "__main__":
    raise SystemExit(main())
