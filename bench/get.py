"""GET serving: `ras serve` against nginx serving the same export, in one run, with wrk on loopback.

Usage: `python -m bench.get [--releases DIR] [--seconds 10] [--connections 32,256] [--work DIR]`.
Both servers run one worker; wrk runs one thread, so on a 2-core machine the load generator and the
server each have a core. Targets: `latest` answered 200, and 304 with a matching If-None-Match. nginx
serves the tree of `ras export` (its own nginx.conf with `worker_processes 1`); if builder.export is not
importable, a minimal config serving the same object file with the same headers stands in (the result says
which). Then `ras serve --workers N` for N = 1 … cores on the 200 at the highest connection count.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import shutil
import statistics
from pathlib import Path

from bench import report
from bench.processes import HOST, free_port, get, measure, nginx_binary, ras, server, wrk

WORK = Path("/tmp/ras-bench")  # nginx's unprivileged workers must be able to read the export: not a private tmp dir
LATEST = "/api/v1/packs/13f-copycat/latest"
RPS_200_TARGET = 0.7  # issue 7: app ≥ 0.7 × nginx requests/s on 200s
RPS_304_TARGET = 0.8  # … and ≥ 0.8 × on 304s
FALLBACK_CONF = """worker_processes 1;
pid logs/nginx.pid;
error_log logs/error.log warn;
events {{ worker_connections 1024; }}
http {{
    server_tokens off;
    sendfile on;
    access_log off;
    server {{
        listen {host}:{port};
        location = {target} {{
            etag off;
            if_modified_since off;
            default_type application/json;
            add_header ETag '{etag}';
            add_header Cache-Control "public, no-cache";
            add_header X-Service-API-Version v1;
            if ($http_if_none_match = '{etag}') {{ return 304; }}
            alias {object};
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


def nginx_tree(releases: Path, out: Path, nginx_port: int, app_port: int, etag: str) -> tuple[str, str]:
    """The nginx prefix directory and the config to run (`ras export`'s, one worker), and which it is."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    os.chmod(out, 0o755)
    if importlib.util.find_spec("builder.export.tree") is not None:
        result = measure(ras("export", "--releases", str(releases), "--out", str(out), "--listen", str(nginx_port),
                             "--upstream", f"http://{HOST}:{app_port}"))
        if result.returncode:
            raise SystemExit(f"ras export failed: {result.stderr[-2000:]}")
        conf = (out / "nginx.conf").read_text().replace("worker_processes auto;", "worker_processes 1;")
        # wrk 4.1 waits for a body after a 304 that carries the 200's Content-Length (the export's 304 does,
        # as RFC 9110 §8.6 allows), so its 304 comes from `return 304`: the same map lookup, no file opened.
        (out / "nginx-bench.conf").write_text(conf.replace("return 418;", "return 304;"))
        return "nginx-bench.conf", ("`ras export` tree and its nginx.conf, worker_processes 1, 304s by `return 304` "
                                    "(wrk cannot read the export's 304 with Content-Length)")
    (out / "logs").mkdir()
    target = releases / "current" / "objects" / f"{etag.strip(chr(34))}.json"
    conf = FALLBACK_CONF.format(host=HOST, port=nginx_port, target=LATEST, etag=etag, object=target.resolve())
    (out / "nginx-bench.conf").write_text(conf)
    return "nginx-bench.conf", "minimal nginx config serving the release's object file (builder.export missing)"


def nginx_command(out: Path, conf: str) -> list[str]:
    return [nginx_binary(), "-p", str(out), "-c", conf, "-e", "stderr", "-g", "daemon off;"]


def check_same_answer(app_port: int, nginx_port: int) -> str:
    """Both servers give `latest` the same bytes and ETag, and a 304 to its ETag; returns the ETag."""
    app, proxy = get(app_port, LATEST), get(nginx_port, LATEST)
    if app[0] != 200 or proxy[0] != 200 or app[2] != proxy[2] or app[1].get("etag") != proxy[1].get("etag"):
        raise SystemExit("nginx and the app answer `latest` differently; the comparison would be meaningless")
    etag = app[1]["etag"]
    for port in (app_port, nginx_port):
        if get(port, LATEST, {"If-None-Match": etag})[0] != 304:
            raise SystemExit(f"port {port} does not answer 304 to the current ETag")
    return etag


def compare(args: argparse.Namespace, releases: Path) -> tuple[list[dict], str]:
    """wrk on every server for every connection count and both statuses, --repeat times in alternating order."""
    app_port, nginx_port, baseline_port = free_port(), free_port(), free_port()
    runs = []
    serve = lambda port: ras("serve", "--releases", str(releases), "--port", str(port))  # noqa: E731
    with contextlib.ExitStack() as stack:
        stack.enter_context(server(serve(app_port), app_port, args.work / "get-app.log"))
        servers = [("nginx", nginx_port), ("app", app_port)]
        if args.baseline is not None:
            log = args.work / "get-baseline.log"
            stack.enter_context(server(serve(baseline_port), baseline_port, log, args.baseline))
            servers.append(("baseline", baseline_port))
        out = args.work / "export-get"
        conf, which = nginx_tree(releases, out, nginx_port, app_port, get(app_port, LATEST)[1]["etag"])
        stack.enter_context(server(nginx_command(out, conf), nginx_port, args.work / "get-nginx.log"))
        etag = check_same_answer(app_port, nginx_port)
        for repeat in range(args.repeat):
            for connections in args.connections:
                for status, headers in ((200, ()), (304, (f"If-None-Match: {etag}",))):
                    for name, port in servers if repeat % 2 == 0 else servers[::-1]:
                        load = wrk(f"http://{HOST}:{port}{LATEST}", connections, args.seconds, headers)
                        runs.append({"server": name, "connections": connections, "status": status, **load.as_dict()})
    return runs, which


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
                runs.append({"server": f"workers-{count}", "workers": count, "connections": connections,
                             "status": status, **load.as_dict()})
    return runs


def medians(runs: list[dict]) -> dict[tuple[str, int, int], dict]:
    """Per (server, connections, status): median req/s and latencies over the repeats, errors summed."""
    grouped: dict[tuple[str, int, int], list[dict]] = {}
    for run in runs:
        grouped.setdefault((run["server"], run["connections"], run["status"]), []).append(run)
    middle = lambda group, field: statistics.median(r[field] for r in group)  # noqa: E731
    return {key: {"rps": middle(group, "rps"), "p50Ms": middle(group, "p50Ms"), "p99Ms": middle(group, "p99Ms"),
                  "errors": sum(r["errors"] for r in group)} for key, group in grouped.items()}


def latency(run: dict) -> str:
    return f"{run['p50Ms']:.2f} / {run['p99Ms']:.2f}"


def summarise(runs: list[dict], scaling: list[dict]) -> tuple[list[list], list[dict]]:
    rows, targets = [], []
    found = medians(runs + scaling)
    for status, goal in ((200, RPS_200_TARGET), (304, RPS_304_TARGET)):
        for connections in sorted({r["connections"] for r in runs}):
            nginx, app = found[("nginx", connections, status)], found[("app", connections, status)]
            ratio = app["rps"] / nginx["rps"]
            rows.append([status, connections, f"{nginx['rps']:.0f}", f"{app['rps']:.0f}", f"{ratio:.2f}",
                         latency(nginx), latency(app), f"{nginx['errors']} / {app['errors']}"])
            old = found.get(("baseline", connections, status))
            if old is not None:
                rows.append([f"{status}, before", connections, "—", f"{old['rps']:.0f}",
                             f"{old['rps'] / nginx['rps']:.2f}", "—", latency(old), f"— / {old['errors']}"])
            targets.append(report.target(f"app ≥ {goal} × nginx requests/s on {status}s at {connections} connections",
                                         ratio >= goal, f"{ratio:.3f}×"))
    errors = sum(r["errors"] for r in runs + scaling)
    targets.append(report.target("zero errors", errors == 0, f"{errors} errors"))
    for run in scaling:
        one = found[("workers-1", run["connections"], run["status"])]
        rows.append([f"{run['status']}, --workers {run['workers']}", run["connections"], "—", f"{run['rps']:.0f}",
                     f"{run['rps'] / one['rps']:.2f} × 1 worker", "—", latency(run), f"— / {run['errors']}"])
    return rows, targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=Path, default=None,
                        help="a releases directory (default: publish the fixture)")
    parser.add_argument("--seconds", type=int, default=6, help="duration of each wrk run")
    parser.add_argument("--repeat", type=int, default=3, help="runs per server and case; the median counts")
    parser.add_argument("--connections", default="32,256")
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--no-workers", action="store_true", help="skip the --workers scaling runs")
    parser.add_argument("--baseline", type=Path, default=None,
                        help="another checkout whose `ras serve` runs beside this one's (before/after comparisons)")
    args = parser.parse_args(argv)
    args.connections = [int(c) for c in args.connections.split(",") if c]
    args.work.mkdir(parents=True, exist_ok=True)
    os.chmod(args.work, 0o755)
    releases = release_for(args)
    runs, which = compare(args, releases)
    scaling = [] if args.no_workers else workers(args, releases)
    rows, targets = summarise(runs, scaling)
    headers = ["status", "connections", "nginx req/s", "app req/s", "app / nginx", "nginx p50 / p99 ms",
               "app p50 / p99 ms", "errors nginx / app"]
    notes = [f"GET {LATEST}; wrk -t1 -d{args.seconds}s, median of {args.repeat} runs in alternating order; "
             f"both servers one worker; reference: {which}.",
             *(["'before': `ras serve` of the checkout at --baseline (the GET path before this change), same run."]
               if args.baseline else []),
             f"--workers rows: `ras serve --workers N` alone on {os.cpu_count()} cores shared with wrk; "
             "the ratio is to one worker in the same run."]
    report.save("get", "GET serving: ras serve vs nginx", headers, rows, targets, notes,
                raw={"runs": runs, "workers": scaling, "reference": which})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
