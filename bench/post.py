"""POST latency: compareEthos and validatePolicy over HTTP (16 concurrent clients) against the same call in-process.

Usage: `python -m bench.post [--releases DIR] [--large DIR] [--clients 16] [--work DIR]`.
Warm: the same body again, answered from the release's memo (ReleaseData.memo) after the first request.
Cold: manager subsets never asked before, so the view, scores and policy are computed for each request;
in-process the same subsets run on a fresh ReleaseData. Each HTTP row is compared with the in-process row
of the same temperature. --large (default: the 500-manager release bench.publish leaves under --work) is
measured in-process only.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import time
from pathlib import Path

import aiohttp
import orjson

from bench import report
from bench.processes import HOST, free_port, ras, server
from bench.workload import fresh, manager_subsets, percentiles, published, release_data, timed
from builder.api.contract import BY_ID
from builder.api.data import ReleaseData
from builder.api.params import resolve_body

WORK = Path("/tmp/ras-bench")
OPERATIONS = {"compareEthos": "/api/v1/ethos/compare", "validatePolicy": "/api/v1/policy/validate"}
WARM_REQUESTS = 600  # per operation over HTTP: a few seconds at 16 clients
SEQUENTIAL_REQUESTS = 200  # one client, one request at a time: HTTP overhead without queueing
COLD_SUBSETS = 100  # distinct manager subsets per operation (the fixture has fewer small subsets × modes)
IN_PROCESS_WARM = 300
IN_PROCESS_COLD_ALL = 10  # full-selection cold computations (fresh memo each)
LIMIT_FACTOR, LIMIT_MS = 1.5, 1.0  # issue 7: HTTP p50 within 1.5 × in-process + 1 ms on the fixture
LARGE_LIMIT_MS = 20.0  # issue 7: in-process < 20 ms at 500 managers
MODES = ("any", "overlap", "exclusive", "disagreement")


def cold_bodies(data: ReleaseData) -> dict[str, list[dict]]:
    """Disjoint lists of never-asked (managers, mode) bodies per operation, so one warms nothing for the other."""
    combos = [{"managerIds": s, "mode": mode} for s in manager_subsets(data, 2 * COLD_SUBSETS) for mode in MODES]
    combos = combos[: 2 * COLD_SUBSETS]
    return {"compareEthos": combos[0::2], "validatePolicy": combos[1::2]}


def in_process(data: ReleaseData, operation: str, bodies: list[dict], warm: bool) -> dict:
    """Milliseconds of the operation's handler (methods.compare_ethos / validate_policy) per body."""
    op = BY_ID[operation]
    if warm:
        params = resolve_body(op, data, bodies[0])
        op.handler(data, params)
        samples = [timed(lambda: op.handler(data, params)) for _ in range(IN_PROCESS_WARM)]
    elif len(bodies) == 1:
        params = resolve_body(op, data, bodies[0])
        samples = [timed(lambda: op.handler(fresh(data), params)) for _ in range(IN_PROCESS_COLD_ALL)]
    else:
        cold = fresh(data)
        answer = lambda body: op.handler(cold, resolve_body(op, cold, body))  # noqa: E731
        samples = [timed(functools.partial(answer, body)) for body in bodies]
    return percentiles(samples)


async def over_http(port: int, path: str, bodies: list[dict], clients: int) -> dict:
    """Latency of each POST with `clients` in flight at once; every answer must be a 200."""
    url, pending, samples = f"http://{HOST}:{port}{path}", iter(bodies), []
    headers = {"Content-Type": "application/json"}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=clients)) as session:
        async def client() -> None:
            for body in pending:
                started = time.perf_counter()
                async with session.post(url, data=orjson.dumps(body), headers=headers) as response:
                    await response.read()
                    if response.status != 200:
                        raise SystemExit(f"{path} answered {response.status} to {body}")
                samples.append(1000 * (time.perf_counter() - started))

        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        seconds = time.perf_counter() - started
    return {**percentiles(samples), "rps": len(samples) / seconds}


def measure_fixture(releases: Path, args: argparse.Namespace) -> list[dict]:
    data, port = release_data(releases), free_port()
    cold = cold_bodies(data)
    results = []
    with server(ras("serve", "--releases", str(releases), "--port", str(port)), port, args.work / "post-app.log"):
        for operation, path in OPERATIONS.items():
            asyncio.run(over_http(port, path, [{}], 1))  # prime: the full-selection answer is now in the memo
            runs = {
                "warm": (asyncio.run(over_http(port, path, [{}] * WARM_REQUESTS, args.clients)),
                         in_process(data, operation, [{}], warm=True), args.clients),
                "warm, 1 client": (asyncio.run(over_http(port, path, [{}] * SEQUENTIAL_REQUESTS, 1)),
                                   in_process(data, operation, [{}], warm=True), 1),
                "cold subsets": (asyncio.run(over_http(port, path, cold[operation], args.clients)),
                                 in_process(data, operation, cold[operation], warm=False), args.clients),
            }
            for scenario, (http, local, clients) in runs.items():
                results.append({"operation": operation, "scenario": scenario, "clients": clients, "http": http,
                                "inProcess": local, "limitMs": LIMIT_FACTOR * local["p50"] + LIMIT_MS})
    return results


def measure_large(releases: Path) -> list[dict]:
    """In-process only: cold full selection, cold small subsets, warm."""
    data = release_data(releases)
    subsets = [{"managerIds": s} for s in manager_subsets(data, 20)]
    results = []
    for operation in OPERATIONS:
        for scenario, bodies, warm in (("cold, all managers", [{}], False), ("cold subsets", subsets, False),
                                       ("warm", [{}], True)):
            results.append({"operation": operation, "scenario": scenario, "clients": 0,
                            "inProcess": in_process(data, operation, bodies, warm)})
    return results


def summarise(fixture: list[dict], large: list[dict], large_name: str) -> tuple[list[list], list[dict]]:
    rows, targets = [], []
    for r in fixture:
        http, local = r["http"], r["inProcess"]
        met = http["p50"] <= r["limitMs"]
        rows.append(["fixture", r["operation"], r["scenario"], r["clients"], f"{local['p50']:.2f} / {local['p99']:.2f}",
                     f"{http['p50']:.2f} / {http['p99']:.2f}", f"{http['rps']:.0f}", f"{1000 / http['rps']:.2f}",
                     f"{r['limitMs']:.2f}", f"{http['p50'] / r['limitMs']:.2f}"])
        targets.append(report.target(
            f"fixture {r['operation']} {r['scenario']}: HTTP p50 ≤ 1.5 × in-process + 1 ms ({r['clients']} clients)",
            met, f"{http['p50']:.2f} ms vs limit {r['limitMs']:.2f} ms ({http['p50'] / r['limitMs']:.2f}×)"))
    for r in large:
        local = r["inProcess"]
        rows.append([large_name, r["operation"], r["scenario"], "in-process",
                     f"{local['p50']:.2f} / {local['p99']:.2f}", "—", "—", "—", f"{LARGE_LIMIT_MS:.0f}",
                     f"{local['p50'] / LARGE_LIMIT_MS:.2f}"])
        targets.append(report.target(
            f"{large_name} {r['operation']} {r['scenario']}: in-process < {LARGE_LIMIT_MS:.0f} ms",
            local["p50"] < LARGE_LIMIT_MS, f"p50 {local['p50']:.1f} ms"))
    return rows, targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=Path, default=None, help="releases directory (default: publish the fixture)")
    parser.add_argument("--large", type=Path, default=None,
                        help="a large releases directory, in-process only (default: --work/releases-500x10x150)")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    fixture = measure_fixture(published(args.releases, args.work, "post"), args)
    large_dir = args.large or args.work / "releases-500x10x150"
    large = measure_large(large_dir) if (large_dir / "current").exists() else []
    rows, targets = summarise(fixture, large, large_dir.name.removeprefix("releases-"))
    headers = ["release", "operation", "scenario", "clients", "in-process p50 / p99 ms", "HTTP p50 / p99 ms",
               "HTTP req/s", "HTTP ms per request (1 / req/s)", "limit ms", "p50 / limit"]
    notes = [
        "Warm: the same body again; the server answers from ReleaseData.memo (what a repeated agent question costs). "
        "Cold subsets: each request a manager subset × mode never asked before; in-process the same subsets on a "
        "fresh ReleaseData. The HTTP figure of each row is compared with the in-process figure of the same row.",
        "Limit for fixture rows: 1.5 × in-process p50 + 1 ms; for the large release: 20 ms in-process. With 16 "
        "clients on one single-threaded server, p50 includes queueing (about clients ÷ req/s).",
        *([] if large else [f"no large release at {large_dir}: run `python -m bench.publish` first"]),
    ]
    report.save("post", "POST latency: HTTP vs in-process", headers, rows, targets, notes,
                raw={"fixture": fixture, "large": large})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
