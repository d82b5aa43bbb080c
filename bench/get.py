"""GET serving: the `ras export` nginx config against a minimal nginx, `ras serve` against a bare aiohttp app.

Usage: `python -m bench.get [--releases DIR] [--seconds 6] [--connections 32,256] [--work DIR]`.
Every server runs one worker; wrk runs one thread, so on a 2-core machine the load generator and the
server each have a core. Each pair serves the same bytes: the export's nginx.conf (`worker_processes 1`)
answers `latest` through its maps, the minimal nginx (one location, `sendfile on`, no access log, its own
ETag) the same object file; `ras serve` answers `latest`, bench.bare the same bytes from memory. Both
statuses: 200, and 304 to each server's own ETag. Then `ras serve --workers N` for N = 1 … cores.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
from pathlib import Path

from bench import report
from bench.bare import TRANSPORT
from bench.bare import command as reference_command
from bench.processes import HOST, cpu_seconds, free_port, get, measure, nginx_binary, ras, server, wrk

WORK = Path("/tmp/ras-bench")  # nginx's unprivileged workers must be able to read the export: not a private tmp dir
LATEST = "/api/v1/packs/13f-copycat/latest"
EXPORT_TARGET = 0.90  # issue 14: the export config ≥ 0.90 × a minimal nginx on 200s and on 304s
APP_TARGET = 0.90  # issue 14: `ras serve` ≥ 0.90 × a bare aiohttp handler returning the same bytes
PAIRS = (("export", "minimal", EXPORT_TARGET), ("app", "bare", APP_TARGET))  # (measured, reference, target)
MINIMAL_CONF = """worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log warn;
events {{ worker_connections 1024; }}
http {{
    sendfile on;
    access_log off;
    server {{
        listen {host}:{port};
        location / {{
            root {root};
        }}
    }}
}}
"""


def release_for(args: argparse.Namespace) -> Path:
    if args.releases is not None:
        return args.releases
    releases = args.work / "releases-get"
    shutil.rmtree(releases, ignore_errors=True)
    result = measure(ras("publish", "--releases", str(releases)))
    if result.returncode:
        raise SystemExit(f"publish failed: {result.stderr[-2000:]}")
    return releases


def export_tree(releases: Path, out: Path, nginx_port: int, app_port: int) -> None:
    """`ras export` into `out`, its nginx.conf copied to nginx-bench.conf with one worker."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    os.chmod(out, 0o755)
    result = measure(
        ras(
            "export",
            "--releases",
            str(releases),
            "--out",
            str(out),
            "--listen",
            str(nginx_port),
            "--upstream",
            f"http://{HOST}:{app_port}",
        )
    )
    if result.returncode:
        raise SystemExit(f"ras export failed: {result.stderr[-2000:]}")
    conf = (out / "nginx.conf").read_text().replace("worker_processes auto;", "worker_processes 1;")
    (out / "nginx-bench.conf").write_text(conf)


def minimal_tree(export: Path, out: Path, port: int) -> None:
    """A prefix directory for the minimal nginx, serving the export's objects/ by their plain paths."""
    shutil.rmtree(out, ignore_errors=True)
    (out / "logs").mkdir(parents=True)
    os.chmod(out, 0o755)
    root = (export / "site").resolve()
    (out / "nginx-bench.conf").write_text(MINIMAL_CONF.format(host=HOST, port=port, root=root))


def nginx_command(out: Path) -> list[str]:
    return [nginx_binary(), "-p", str(out), "-c", "nginx-bench.conf", "-e", "stderr", "-g", "daemon off;"]


def bare_command(
    work: Path, port: int, answer: tuple[int, dict[str, str], bytes], not_modified: dict[str, str] | None = None
) -> list[str]:
    """bench.bare answering the app's bytes with the app's headers and ETag; 304s with the headers of the app's
    304 (`not_modified`), when given."""
    _, headers, body = answer
    (work / "bare-body.json").write_bytes(body)
    keep = [name for name in not_modified or () if name not in TRANSPORT - {"etag"}]
    return reference_command(port, work / "bare-body.json", headers, keep)


def checked_targets(ports: dict[str, int], object_target: str) -> dict[str, tuple[str, str]]:
    """Per server: (request target, its own ETag), after checking all four answer the same bytes and 304."""
    targets = {name: (object_target if name == "minimal" else LATEST) for name in ports}
    answers = {name: get(port, targets[name]) for name, port in ports.items()}
    if len({answer[2] for answer in answers.values()}) != 1 or any(a[0] != 200 for a in answers.values()):
        raise SystemExit("the servers answer with different bytes; the comparison would be meaningless")
    found, kept = {}, {}
    for name, port in ports.items():
        etag = answers[name][1]["etag"]
        status, headers, _ = get(port, targets[name], {"If-None-Match": etag})
        if status != 304:
            raise SystemExit(f"{name} does not answer 304 to its own ETag")
        found[name], kept[name] = (targets[name], etag), set(headers) - {"date", "server"}
    if kept["app"] != kept["bare"]:
        raise SystemExit(f"the app's and bench.bare's 304s carry other headers: {sorted(kept['app'] ^ kept['bare'])}")
    return found


def compare(args: argparse.Namespace, releases: Path) -> list[dict]:
    """wrk on every server for every connection count and both statuses, --repeat times in alternating order."""
    ports = {name: free_port() for name in ("export", "minimal", "app", "bare")}
    runs = []
    with contextlib.ExitStack() as stack:
        serve = ras("serve", "--releases", str(releases), "--port", str(ports["app"]))
        processes = {"app": stack.enter_context(server(serve, ports["app"], args.work / "get-app.log"))}
        answer = get(ports["app"], LATEST)
        not_modified = get(ports["app"], LATEST, {"If-None-Match": answer[1]["etag"]})[1]
        processes["bare"] = stack.enter_context(
            server(
                bare_command(args.work, ports["bare"], answer, not_modified), ports["bare"], args.work / "get-bare.log"
            )
        )
        export, minimal = args.work / "export-get", args.work / "minimal-get"
        export_tree(releases, export, ports["export"], ports["app"])
        minimal_tree(export, minimal, ports["minimal"])
        for name, out in (("export", export), ("minimal", minimal)):
            processes[name] = stack.enter_context(
                server(nginx_command(out), ports[name], args.work / f"get-{name}.log")
            )
        targets = checked_targets(ports, f"/objects/{answer[1]['etag'].strip(chr(34))}.json")
        names = list(ports)
        for repeat in range(args.repeat):
            for connections in args.connections:
                for status in (200, 304):
                    for name in names if repeat % 2 == 0 else names[::-1]:
                        target, etag = targets[name]
                        headers = (f"If-None-Match: {etag}",) if status == 304 else ()
                        before = cpu_seconds(processes[name].pid)
                        load = wrk(f"http://{HOST}:{ports[name]}{target}", connections, args.seconds, headers)
                        cpu = (cpu_seconds(processes[name].pid) - before) / max(load.requests, 1)
                        runs.append(
                            {
                                "server": name,
                                "connections": connections,
                                "status": status,
                                "repeat": repeat,
                                "cpuUs": cpu * 1e6,
                                **load.as_dict(),
                            }
                        )
    return runs


def workers(args: argparse.Namespace, releases: Path) -> list[dict]:
    """`ras serve --workers N`, N = 1 … cores, on both statuses at the highest connection count."""
    runs = []
    connections = max(args.connections)
    for count in range(1, (os.cpu_count() or 1) + 1):
        port = free_port()
        command = ras("serve", "--releases", str(releases), "--port", str(port), "--workers", str(count))
        with server(command, port, args.work / f"get-workers-{count}.log"):
            etag = get(port, LATEST)[1]["etag"]
            for status, headers in ((200, ()), (304, (f"If-None-Match: {etag}",))):
                load = wrk(f"http://{HOST}:{port}{LATEST}", connections, args.seconds, headers)
                runs.append(
                    {
                        "server": f"workers-{count}",
                        "workers": count,
                        "connections": connections,
                        "status": status,
                        **load.as_dict(),
                    }
                )
    return runs


def medians(runs: list[dict]) -> dict[tuple[str, int, int], dict]:
    """Per (server, connections, status): median req/s and latencies over the repeats, errors summed."""
    grouped: dict[tuple[str, int, int], list[dict]] = {}
    for run in runs:
        grouped.setdefault((run["server"], run["connections"], run["status"]), []).append(run)
    middle = lambda group, field: statistics.median(r[field] for r in group)  # noqa: E731
    return {
        key: {
            "rps": middle(group, "rps"),
            "p50Ms": middle(group, "p50Ms"),
            "p99Ms": middle(group, "p99Ms"),
            "cpuUs": middle(group, "cpuUs") if all("cpuUs" in r for r in group) else None,
            "errors": sum(r["errors"] for r in group),
        }
        for key, group in grouped.items()
    }


def per_run_ratios(runs: list[dict], measured: str, reference: str, connections: int, status: int) -> str:
    """Each repeat's ratio: the two servers ran one after the other, so the load they met was alike."""

    def rps(server: str) -> dict[int, float]:
        return {
            r["repeat"]: r["rps"]
            for r in runs
            if (r["server"], r["connections"], r["status"]) == (server, connections, status)
        }

    mine, theirs = rps(measured), rps(reference)
    return " / ".join(f"{mine[repeat] / theirs[repeat]:.2f}" for repeat in sorted(mine))


def latency(run: dict) -> str:
    return f"{run['p50Ms']:.2f} / {run['p99Ms']:.2f}"


def summarise(runs: list[dict], scaling: list[dict]) -> tuple[list[list], list[dict]]:
    rows, targets = [], []
    found = medians(runs + scaling)
    for measured, reference, goal in PAIRS:
        for status in (200, 304):
            for connections in sorted({r["connections"] for r in runs}):
                mine, theirs = found[(measured, connections, status)], found[(reference, connections, status)]
                ratio = mine["rps"] / theirs["rps"]
                rows.append(
                    [
                        f"{measured} / {reference}",
                        status,
                        connections,
                        f"{mine['rps']:.0f}",
                        f"{theirs['rps']:.0f}",
                        f"{ratio:.2f}",
                        per_run_ratios(runs, measured, reference, connections, status),
                        f"{mine['cpuUs']:.0f} / {theirs['cpuUs']:.0f} ({theirs['cpuUs'] / mine['cpuUs']:.2f})",
                        latency(mine),
                        latency(theirs),
                        f"{mine['errors']} / {theirs['errors']}",
                    ]
                )
                targets.append(
                    report.target(
                        f"{measured} ≥ {goal} × {reference} requests/s on {status}s at {connections} connections",
                        ratio >= goal,
                        f"{ratio:.3f}×",
                    )
                )
    errors = sum(r["errors"] for r in runs + scaling)
    targets.append(report.target("zero errors", errors == 0, f"{errors} errors"))
    for run in scaling:
        one = found[("workers-1", run["connections"], run["status"])]
        rows.append(
            [
                f"app --workers {run['workers']} / 1",
                run["status"],
                run["connections"],
                f"{run['rps']:.0f}",
                f"{one['rps']:.0f}",
                f"{run['rps'] / one['rps']:.2f}",
                "—",
                latency(run),
                latency(one),
                f"{run['errors']} / {one['errors']}",
            ]
        )
    return rows, targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--releases", type=Path, default=None, help="a releases directory (default: publish the fixture)"
    )
    parser.add_argument("--seconds", type=int, default=6, help="duration of each wrk run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per server and case; the median counts")
    parser.add_argument("--connections", default="32,256")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--no-workers", action="store_true", help="skip the --workers scaling runs")
    args = parser.parse_args(argv)
    args.connections = [int(c) for c in args.connections.split(",") if c]
    args.work.mkdir(parents=True, exist_ok=True)
    os.chmod(args.work, 0o755)
    releases = release_for(args)
    runs = compare(args, releases)
    scaling = [] if args.no_workers else workers(args, releases)
    rows, targets = summarise(runs, scaling)
    headers = ["servers", "status", "connections", "req/s", "reference req/s", "ratio", "ratio per run",
               "server CPU µs per answer: this / reference (reference ÷ this)", "p50 / p99 ms", "reference p50 / p99 ms", "errors"]  # fmt: skip
    notes = [
        f"GET {LATEST} (the minimal nginx: the same object file by its path); wrk -t1 -d{args.seconds}s, median "
        f"of {args.repeat} runs in alternating order; every server one worker; each ratio is to the reference "
        "of its row, measured in the same run (ratio: of the medians, which the targets use; ratio per run: "
        "each repeat's pair, run back to back). 304s: If-None-Match with each server's own ETag.",
        "export: `ras export`'s nginx.conf (maps, buffered access log, 304s from its validator cache); minimal: one "
        "location, sendfile on, no access log; bare: bench/bare.py, the same bytes and headers from memory.",
        f"--workers rows: `ras serve --workers N` alone on {os.cpu_count()} cores shared with wrk; "
        "the reference is one worker in the same run.",
        "Server CPU per answer: user + system time of the server process (and nginx's worker) over each wrk run, "
        "divided by the answers wrk counted (median of the repeats); the time the hypervisor steals, or other "
        "jobs take, is not in it, so its ratio is steadier than that of req/s on a shared machine.",
        "The machine is shared with other work: its load average is in the heading; compare ratios, not req/s.",
    ]
    report.save(
        "get",
        "GET serving: export vs minimal nginx, ras serve vs bare aiohttp",
        headers,
        rows,
        targets,
        notes,
        raw={"runs": runs, "workers": scaling},
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
