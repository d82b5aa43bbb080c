"""POSTs as agents meet them: the first answer of a fresh worker, cold subsets, warm throughput, two workers.

Usage: `python -m bench.post [--releases DIR] [--large DIR] [--starts 3] [--seconds 6] [--work DIR]`.
For each release (the fixture, and --large, by default the 500-manager release bench.publish leaves under
--work): `ras serve` is started --starts times and the first compareEthos and validatePolicy of the
default view (every manager) are timed, over HTTP, on the fresh worker; then never-asked small manager
subsets, one request at a time. Warm throughput: wrk POSTing the same body with 16 connections to
`ras serve` and to bench.bare answering the same bytes, one worker each, in alternating order; then
`ras serve --workers 2` against one worker on the same body.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from pathlib import Path

from bench import report
from bench.bare import command as reference_command
from bench.processes import HOST, cpu_seconds, free_port, ras, server, wrk
from bench.workload import manager_subsets, percentiles, published, release_data

WORK = Path("/tmp/ras-bench")
OPERATIONS = {"compareEthos": "/api/v1/ethos/compare", "validatePolicy": "/api/v1/policy/validate"}
COLD_SUBSETS = 40  # never-asked (managers, mode) bodies per operation, one request at a time
FRESH_LIMIT_MS = 50.0  # issue 14: default view on a freshly started worker, p50, at 500 managers
COLD_LIMIT_MS = 20.0  # issue 14: cold random subsets, p50, at 500 managers
WARM_TARGET = 0.80  # issue 14: warm POST throughput ≥ 0.80 × a bare aiohttp handler returning the same bytes
WORKERS_TARGET = 1.6  # issue 14: `--workers 2` ≥ 1.6 × one worker on POSTs
CONNECTIONS = 16
MODES = ("any", "overlap", "exclusive", "disagreement")


def post_once(port: int, path: str, body: bytes) -> tuple[float, int, dict[str, str], bytes]:
    """(milliseconds, status, headers, body) of one POST on a new connection."""
    import http.client

    connection = http.client.HTTPConnection(HOST, port, timeout=120)
    try:
        started = time.perf_counter()
        connection.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        elapsed = 1000 * (time.perf_counter() - started)
        return elapsed, response.status, {k.lower(): v for k, v in response.getheaders()}, answer
    finally:
        connection.close()


def serve(releases: Path, port: int, workers: int = 1) -> list[str]:
    return ras("serve", "--releases", str(releases), "--port", str(port), "--workers", str(workers))


def fresh_and_cold(releases: Path, args: argparse.Namespace, name: str) -> dict:
    """First default-view answer per operation on --starts fresh workers; cold subsets on the last one."""
    firsts: dict[str, list[float]] = {operation: [] for operation in OPERATIONS}
    cold: dict[str, list[float]] = {}
    data = release_data(releases)
    subsets = manager_subsets(data, 2 * COLD_SUBSETS)
    bodies = [
        f'{{"managerIds": {subset!r}, "mode": "{MODES[n % 4]}"}}'.replace("'", '"').encode()
        for n, subset in enumerate(subsets)
    ]
    for start in range(args.starts):
        port = free_port()
        with server(serve(releases, port), port, args.work / f"post-{name}-{start}.log"):
            for operation, path in OPERATIONS.items():
                elapsed, status, _, _ = post_once(port, path, b"{}")
                if status != 200:
                    raise SystemExit(f"{path} answered {status} to the default view")
                firsts[operation].append(elapsed)
            if start == args.starts - 1:
                for n, (operation, path) in enumerate(OPERATIONS.items()):
                    cold[operation] = [post_once(port, path, body)[0] for body in bodies[n::2]]
    return {
        "first": {op: percentiles(samples) for op, samples in firsts.items()},
        "cold": {op: percentiles(samples) for op, samples in cold.items()},
    }


def lua_script(work: Path, body: bytes) -> Path:
    """A wrk script POSTing `body` as JSON (a long bracket the JSON cannot close)."""
    script = work / "post.lua"
    script.write_text(
        f'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = [==[{body.decode()}]==]\n'
    )
    return script


def bare_command(work: Path, port: int, headers: dict[str, str], answer: bytes) -> list[str]:
    (work / "post-bare-body.json").write_bytes(answer)
    return reference_command(port, work / "post-bare-body.json", headers)


def throughput(releases: Path, args: argparse.Namespace) -> list[dict]:
    """wrk on the same warm POST: ras serve, bench.bare, then --workers 2; --repeat rounds, alternating. Each run
    also records the server's CPU per answer (all its workers)."""
    path, body = OPERATIONS["validatePolicy"], b"{}"
    script = lua_script(args.work, body)
    ports = {"app": free_port(), "bare": free_port(), "workers-2": free_port()}
    runs = []

    def run(name: str, process: subprocess.Popen) -> None:
        before = cpu_seconds(process.pid)
        load = wrk(f"http://{HOST}:{ports[name]}{path}", CONNECTIONS, args.seconds, script=script)
        cpu = (cpu_seconds(process.pid) - before) / max(load.requests, 1)
        runs.append({"server": name, "cpuUs": cpu * 1e6, **load.as_dict()})

    with server(serve(releases, ports["app"]), ports["app"], args.work / "post-app.log") as app:
        _, status, headers, answer = post_once(ports["app"], path, body)
        if status != 200:
            raise SystemExit(f"{path} answered {status}")
        bare_command_line = bare_command(args.work, ports["bare"], headers, answer)
        with server(bare_command_line, ports["bare"], args.work / "post-bare.log") as bare:
            if post_once(ports["bare"], path, body)[3] != answer:
                raise SystemExit("bench.bare answers other bytes; the comparison would be meaningless")
            for repeat in range(args.repeat):
                for name in ("app", "bare") if repeat % 2 == 0 else ("bare", "app"):
                    run(name, app if name == "app" else bare)
        with server(
            serve(releases, ports["workers-2"], 2), ports["workers-2"], args.work / "post-workers-2.log"
        ) as two:
            post_once(ports["workers-2"], path, body)
            for _ in range(args.repeat):
                run("workers-2", two)
    return runs


def median_of(runs: list[dict], name: str, field: str = "rps") -> float:
    return statistics.median(run[field] for run in runs if run["server"] == name)


def latency_rows(name: str, found: dict, limits: bool) -> tuple[list[list], list[dict]]:
    rows, targets = [], []
    for kind, label, limit in (
        ("first", "first answer, default view, fresh worker", FRESH_LIMIT_MS),
        ("cold", "never-asked subset, 1 client", COLD_LIMIT_MS),
    ):
        for operation, figures in found[kind].items():
            rows.append(
                [
                    name,
                    operation,
                    label,
                    f"{figures['p50']:.1f} / {figures['p99']:.1f}",
                    figures["n"],
                    f"{limit:.0f}",
                    f"{figures['p50'] / limit:.2f}",
                ]
            )
            if limits:
                targets.append(
                    report.target(
                        f"{name} {operation} {label}: p50 ≤ {limit:.0f} ms",
                        figures["p50"] <= limit,
                        f"p50 {figures['p50']:.1f} ms",
                    )
                )
    return rows, targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=Path, default=None, help="releases directory (default: publish the fixture)")
    parser.add_argument(
        "--large", type=Path, default=None, help="a large releases directory (default: --work/releases-500x10x150)"
    )
    parser.add_argument("--starts", type=int, default=3, help="fresh workers started per release")
    parser.add_argument("--seconds", type=int, default=6, help="duration of each wrk run")
    parser.add_argument("--repeat", type=int, default=3, help="wrk runs per server; the median counts")
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    fixture = published(args.releases, args.work, "post")
    large_dir = args.large or args.work / "releases-500x10x150"
    releases = {
        "fixture": fixture,
        **({large_dir.name.removeprefix("releases-"): large_dir} if (large_dir / "current").exists() else {}),
    }
    rows, targets, raw = [], [], {}
    for name, directory in releases.items():
        raw[name] = fresh_and_cold(directory, args, name)
        found_rows, found_targets = latency_rows(name, raw[name], limits=name != "fixture")
        rows += found_rows
        targets += found_targets
    runs = throughput(releases[list(releases)[-1]], args)
    app, bare, two = median_of(runs, "app"), median_of(runs, "bare"), median_of(runs, "workers-2")
    cpu = {name: median_of(runs, name, "cpuUs") for name in ("app", "bare", "workers-2")}
    capacity = 2 * cpu["app"] / cpu["workers-2"]  # two workers, each on a core of its own, against one
    throughput_rows = [
        [
            "app / bare (warm validatePolicy {})",
            f"{app:.0f}",
            f"{bare:.0f}",
            f"{app / bare:.2f}",
            f"{cpu['app']:.0f} / {cpu['bare']:.0f}",
        ],
        [
            "app --workers 2 / 1 (wrk on the same cores)",
            f"{two:.0f}",
            f"{app:.0f}",
            f"{two / app:.2f}",
            f"{cpu['workers-2']:.0f} / {cpu['app']:.0f}",
        ],
        [
            "app --workers 2 / 1 on cores of their own (from CPU per answer)",
            f"{2e6 / cpu['workers-2']:.0f}",
            f"{1e6 / cpu['app']:.0f}",
            f"{capacity:.2f}",
            "—",
        ],
    ]
    targets += [
        report.target(
            f"warm POSTs ≥ {WARM_TARGET} × a bare aiohttp handler", app / bare >= WARM_TARGET, f"{app / bare:.3f}×"
        ),
        report.target(
            f"--workers 2 ≥ {WORKERS_TARGET} × one worker on POSTs", two / app >= WORKERS_TARGET, f"{two / app:.3f}×"
        ),
        report.target(
            f"--workers 2 ≥ {WORKERS_TARGET} × one worker on POSTs, each worker on a core of its own "
            "(derived: 2 × one worker's CPU per answer ÷ two workers')",
            capacity >= WORKERS_TARGET,
            f"{capacity:.3f}×",
        ),
        report.target("zero errors", not sum(r["errors"] for r in runs), f"{sum(r['errors'] for r in runs)}"),
    ]
    notes = [
        f"Latency rows: over HTTP on loopback, a new connection per request; 'first': the first POST of each "
        f"operation after `ras serve` starts, {args.starts} starts; 'never-asked subset': {COLD_SUBSETS} small "
        "manager subsets × modes per operation on the last of those workers. Limits apply to the large release.",
        f"Throughput (second table): wrk -t1 -c{CONNECTIONS} -d{args.seconds}s POSTing `{{}}` to validatePolicy on "
        f"the {list(releases)[-1]} release, median of {args.repeat}; bare: bench/bare.py answering the same bytes "
        "and headers from memory. Same run, alternating order.",
        f"The machine has {report.machine()['nproc']} cores shared with wrk and with other work: compare ratios.",
        "CPU µs per answer: user + system time of the server (every worker) over each wrk run ÷ its answers, "
        "median. With wrk on the same cores two workers cannot each have one; 'on cores of their own' is the "
        "rate their CPU per answer allows when each has a core (2 × 10⁶ ÷ µs), against one worker's: a derived "
        "figure, which shows whether two workers cost more per answer than one (contention), not a measurement.",
        *([] if len(releases) > 1 else [f"no large release at {large_dir}: run `python -m bench.publish` first"]),
    ]
    headers = ["release", "operation", "scenario", "p50 / p99 ms", "n", "limit ms", "p50 / limit"]
    report.save(
        "post",
        "POST latency and throughput",
        headers,
        rows,
        targets,
        notes,
        raw={"latency": raw, "throughput": runs, "throughputTable": throughput_rows},
        extra=report.table(
            ["servers", "req/s", "reference req/s", "ratio", "server CPU µs per answer: this / reference"],
            throughput_rows,
        ),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
