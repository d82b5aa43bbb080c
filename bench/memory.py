"""`ras serve` at scale: resident memory and time to the first 200 by release size; GET throughput vs bare aiohttp.

Usage: `python -m bench.memory [--managers 100,500] [--work DIR] [--seconds 6] [--repeat 3] [--baseline DIR]`.
Releases: the fixture (published fresh under --work) and synthetic M × 10 × 150 releases, built once under
--work by bench.synthetic and `ras publish` (500 managers: ~10 minutes and ~2.2 GB) and reused while present.
Per release `ras serve` (one worker) is started cold: seconds from spawn to its first 200 on health and on
`latest`; then SAMPLE distinct precomputed answers spread over routes.json (every one of the fixture's) are
fetched, `latest` again HOT_REPEATS times, and the process's VmRSS and VmHWM are read from /proc. Ratios are
to the fixture's figures in the same run. Throughput: wrk on one answer of each release, `ras serve` against
bench.bare (one aiohttp handler returning the same bytes from memory), alternating, same run.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import statistics
import subprocess
import time
from pathlib import Path

import orjson

from bench import report, synthetic
from bench.get import bare_command
from bench.processes import HOST, REPO, free_port, get, measure, ras, server, stop, wrk
from bench.workload import published
from builder.release.store import ROUTES, current_release

WORK = Path("/tmp/ras-bench")  # synthetic trees and releases: large, never inside the checkout
LATEST = "/api/v1/packs/13f-copycat/latest"
SAMPLE = 400  # distinct answers fetched before RSS is read: more than an agent session asks, all of the fixture's
HOT_REPEATS = 20
POLL_SECONDS = 0.01  # how often the start-up probe asks for health
START_LIMIT = 300.0  # seconds a server may take to answer at all (the baseline at 500 managers reads 2.2 GB)
RSS_RATIO_TARGET = 2.0  # issue 14: RSS at 500 managers ≤ 2 × the fixture's
FIRST_200_TARGET = 3.0  # issue 14: first 200 within 3 s of start at 500 managers
THROUGHPUT_TARGET = 0.90  # issue 14: GET throughput ≥ 0.90 × a bare aiohttp handler, same run


def synthetic_release(managers: int, work: Path) -> Path:
    """The releases directory of the synthetic managers × 10 × 150 release under `work`, built if absent."""
    releases = work / f"releases-{managers}x10x150"
    if (releases / "current").exists():
        return releases
    tree = work / f"syn-{managers}x10x150"
    steps = [
        synthetic.Params(managers, 10, 150).command(tree),
        ras("publish", "--source", str(tree), "--releases", str(releases)),
    ]
    for step in steps:
        result = measure(step, timeout=3600)
        if result.returncode:
            raise SystemExit(f"{' '.join(step[:4])} failed: {result.stderr[-2000:]}")
    return releases


def status_kib(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields


def first_200(port: int, target: str, started: float, process: subprocess.Popen) -> float:
    """Seconds from `started` until `target` answers 200."""
    while time.perf_counter() - started < START_LIMIT:
        if process.poll() is not None:
            raise SystemExit(f"ras serve exited with {process.returncode}")
        with contextlib.suppress(OSError, http.client.HTTPException):
            if get(port, target)[0] == 200:
                return time.perf_counter() - started
        time.sleep(POLL_SECONDS)
    raise SystemExit(f"no 200 on {target} after {START_LIMIT} s")


def sample_targets(releases: Path) -> list[str]:
    keys = sorted(orjson.loads((current_release(releases) / ROUTES).read_bytes()))
    step = max(1, len(keys) // SAMPLE)
    return keys[::step][:SAMPLE]


def fetch_all(port: int, targets: list[str]) -> int:
    """GET each target on one kept-alive connection; the number of bytes received."""
    connection = http.client.HTTPConnection(HOST, port, timeout=120)
    received = 0
    try:
        for target in targets:
            connection.request("GET", target)
            received += len(connection.getresponse().read())
    finally:
        connection.close()
    return received


def measure_serving(name: str, releases: Path, work: Path, checkout: Path) -> dict:
    """Start `ras serve` cold on `releases`, time its first 200s, warm it with the sample and read its memory."""
    port = free_port()
    with open(work / f"memory-{name}.log", "wb") as log:
        started = time.perf_counter()
        process = subprocess.Popen(
            ras("serve", "--releases", str(releases), "--port", str(port)),
            cwd=checkout,
            stdout=log,
            stderr=log,
            start_new_session=True,
        )
    try:
        health = first_200(port, "/api/v1/health", started, process)
        latest = first_200(port, LATEST, started, process)
        at_start = status_kib(process.pid)
        targets = sample_targets(releases)
        received = fetch_all(port, targets + [LATEST] * HOT_REPEATS)
        after = status_kib(process.pid)
    finally:
        stop(process)
    return {
        "release": name,
        "health200S": health,
        "latest200S": latest,
        "rssStartMiB": at_start["VmRSS"] / 1024,
        "rssMiB": after["VmRSS"] / 1024,
        "peakMiB": after["VmHWM"] / 1024,
        "answers": len(targets),
        "receivedMB": received / 1e6,
    }


def throughput(name: str, releases: Path, args: argparse.Namespace) -> list[dict]:
    """wrk on one precomputed answer: `ras serve`, bench.bare with the same bytes (and the --baseline checkout's
    `ras serve`), in a rotating order, --repeat times."""
    target = LATEST if name == "fixture" else next(t for t in sample_targets(releases) if "/explanation" in t)
    serve = lambda port: ras("serve", "--releases", str(releases), "--port", str(port))  # noqa: E731
    ports = {"app": free_port(), "bare": free_port(), "before": free_port()}
    runs = []
    with contextlib.ExitStack() as stack:
        stack.enter_context(server(serve(ports["app"]), ports["app"], args.work / f"memory-wrk-{name}.log"))
        _, headers, body = get(ports["app"], target)
        bare = bare_command(args.work, ports["bare"], (200, headers, body))
        stack.enter_context(server(bare, ports["bare"], args.work / f"memory-bare-{name}.log"))
        if args.baseline is None:
            del ports["before"]
        else:
            stack.enter_context(
                server(serve(ports["before"]), ports["before"], args.work / f"memory-before-{name}.log", args.baseline)
            )
        order = list(ports)
        for repeat in range(args.repeat):
            for who in order[repeat % len(order) :] + order[: repeat % len(order)]:
                load = wrk(f"http://{HOST}:{ports[who]}{target}", args.connections, args.seconds)
                runs.append({"release": name, "server": who, "target": target, "bytes": len(body), **load.as_dict()})
    return runs


def summarise(serving: list[dict], runs: list[dict], baseline: list[dict]) -> tuple[list[list], list[dict]]:
    fixture = next(s for s in serving if s["release"] == "fixture")
    rows, targets = [], []
    for entry in serving + baseline:
        rows.append(
            [
                entry["release"],
                f"{entry['health200S']:.2f}",
                f"{entry['latest200S']:.2f}",
                f"{entry['rssStartMiB']:.0f}",
                f"{entry['rssMiB']:.0f}",
                f"{entry['peakMiB']:.0f}",
                f"{entry['rssMiB'] / fixture['rssMiB']:.2f}",
                entry["answers"],
                f"{entry['receivedMB']:.0f}",
            ]
        )
    largest = serving[-1]
    if largest is not fixture:
        ratio = largest["rssMiB"] / fixture["rssMiB"]
        targets.append(
            report.target(
                f"RSS at {largest['release']} ≤ {RSS_RATIO_TARGET} × the fixture's",
                ratio <= RSS_RATIO_TARGET,
                f"{ratio:.2f}×",
            )
        )
        targets.append(
            report.target(
                f"first 200 within {FIRST_200_TARGET} s of start at {largest['release']}",
                largest["latest200S"] <= FIRST_200_TARGET,
                f"{largest['latest200S']:.2f} s",
            )
        )
    for name in dict.fromkeys(run["release"] for run in runs):
        rps = {
            who: statistics.median(r["rps"] for r in runs if r["release"] == name and r["server"] == who)
            for who in dict.fromkeys(r["server"] for r in runs if r["release"] == name)
        }
        ratio = rps["app"] / rps["bare"]
        before = f"; before {rps['before']:.0f} req/s, {rps['before'] / rps['bare']:.2f}×" if "before" in rps else ""
        targets.append(
            report.target(
                f"{name}: GET req/s ≥ {THROUGHPUT_TARGET} × bare aiohttp (same bytes)",
                ratio >= THROUGHPUT_TARGET,
                f"{rps['app']:.0f} vs {rps['bare']:.0f} req/s, {ratio:.2f}×{before}",
            )
        )
    return rows, targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--managers", default="100,500", help="synthetic release sizes besides the fixture")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--seconds", type=int, default=4, help="duration of each wrk run")
    parser.add_argument("--repeat", type=int, default=7, help="wrk runs per server; the median counts")
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument(
        "--baseline",
        type=Path,
        default=None,
        help="another checkout whose `ras serve` is measured too, same run ('before' rows)",
    )
    parser.add_argument("--no-wrk", action="store_true", help="memory and start-up only")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    releases = {"fixture": published(None, args.work, "memory")}
    for managers in [int(m) for m in args.managers.split(",") if m]:
        releases[f"{managers}x10x150"] = synthetic_release(managers, args.work)
    serving = [measure_serving(name, path, args.work, REPO) for name, path in releases.items()]
    baseline = (
        []
        if args.baseline is None
        else [
            {**measure_serving(f"{name}-before", path, args.work, args.baseline), "release": f"{name}, before"}
            for name, path in releases.items()
        ]
    )
    runs = [] if args.no_wrk else [run for name, path in releases.items() for run in throughput(name, path, args)]
    rows, targets = summarise(serving, runs, baseline)
    headers = [
        "release",
        "first 200 health s",
        "first 200 latest s",
        "RSS at start MiB",
        "RSS after sample MiB",
        "peak RSS MiB",
        "RSS × fixture",
        "answers fetched",
        "MB received",
    ]
    notes = [
        f"`ras serve`, one worker, started cold per release; {SAMPLE} distinct precomputed answers spread over "
        f"routes.json (all of the fixture's) then latest ×{HOT_REPEATS}, one kept-alive client; RSS = VmRSS.",
        f"Throughput: wrk -t1 -c{args.connections} -d{args.seconds}s, median of {args.repeat} runs in rotating order; "
        "the fixture on latest, synthetic releases on their first sampled explanation; reference bench.bare.",
        *(
            ["'before': the checkout at --baseline, same run (it loads and hashes every answer at start)."]
            if baseline
            else []
        ),
    ]
    report.save(
        "memory",
        "ras serve memory and start-up by release size",
        headers,
        rows,
        targets,
        notes,
        raw={"serving": serving, "baseline": baseline, "wrk": runs},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
