"""Live subset views: first and cached response time of GETs for manager subsets no release precomputes.

Usage: `python -m bench.live [--releases DIR] [--medium DIR] [--subsets 5] [--work DIR]`.
For each release (the fixture; the 100-manager release bench.publish leaves under --work) `ras serve` runs
alone; one client asks, per subset, `latest`, an `explanation` of a ticker the subset holds and the `diff`
of the two newest versions: first (rendered live by the same handlers) and again (from the live cache).
The reference is the same route's precomputed answer (all managers) asked in the same run.
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import time
from pathlib import Path

from bench import report
from bench.processes import HOST, free_port, ras, server
from bench.workload import manager_subsets, published, release_data

WORK = Path("/tmp/ras-bench")
PACK = "/api/v1/packs/13f-copycat"
REPEATS = 5  # cached and precomputed answers are asked this many times; the median counts


def targets_of(data, subset: list[str]) -> dict[str, str]:
    """The three live GETs of one subset and, for reference, their precomputed all-manager twins."""
    managers = ",".join(subset)
    versions = data.versions
    held = next(p["ticker"] for m in data.latest["managers"] if m["id"] == subset[0] for p in m["positions"])
    diff = f"{PACK}/versions/diff?from={versions[-2]}&to={versions[-1]}"
    return {
        "latest": f"{PACK}/latest?managers={managers}",
        "explanation": f"{PACK}/positions/{held}/explanation?managers={managers}",
        "diff": f"{diff}&managers={managers}",
        "latest (precomputed)": f"{PACK}/latest",
        "explanation (precomputed)": f"{PACK}/positions/{held}/explanation",
        "diff (precomputed)": diff,
    }


def timed_get(connection: http.client.HTTPConnection, target: str) -> float:
    """Milliseconds from sending the request to the last byte of a 200."""
    started = time.perf_counter()
    connection.request("GET", target)
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        raise SystemExit(f"{target} answered {response.status}")
    return 1000 * (time.perf_counter() - started)


def measure_release(name: str, releases: Path, args: argparse.Namespace) -> list[dict]:
    data = release_data(releases)
    subsets = manager_subsets(data, args.subsets)
    port = free_port()
    samples: dict[str, dict[str, list[float]]] = {}
    with server(ras("serve", "--releases", str(releases), "--port", str(port)), port, args.work / f"live-{name}.log"):
        connection = http.client.HTTPConnection(HOST, port, timeout=300)
        try:
            for subset in subsets:
                for route, target in targets_of(data, subset).items():
                    entry = samples.setdefault(route, {"first": [], "cached": []})
                    entry["first"].append(timed_get(connection, target))
                    entry["cached"] += [timed_get(connection, target) for _ in range(REPEATS)]
        finally:
            connection.close()
    results = []
    for route in ("latest", "explanation", "diff"):
        live, reference = samples[route], samples[f"{route} (precomputed)"]["cached"]
        results.append(
            {
                "release": name,
                "route": route,
                "subsets": len(subsets),
                "firstMs": statistics.median(live["first"]),
                "firstMaxMs": max(live["first"]),
                "cachedMs": statistics.median(live["cached"]),
                "precomputedMs": statistics.median(reference),
            }
        )
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=Path, default=None, help="small releases directory (default: the fixture)")
    parser.add_argument(
        "--medium",
        type=Path,
        default=None,
        help="a larger releases directory (default: --work/releases-100x10x150 if present)",
    )
    parser.add_argument("--subsets", type=int, default=5)
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    results = measure_release("fixture", published(args.releases, args.work, "live"), args)
    medium = args.medium or args.work / "releases-100x10x150"
    if (medium / "current").exists():
        results += measure_release(medium.name.removeprefix("releases-"), medium, args)
    rows = [
        [
            r["release"],
            r["route"],
            r["subsets"],
            f"{r['firstMs']:.1f}",
            f"{r['firstMaxMs']:.1f}",
            f"{r['cachedMs']:.2f}",
            f"{r['precomputedMs']:.2f}",
            f"{r['firstMs'] / r['precomputedMs']:.0f}×",
            f"{r['cachedMs'] / r['precomputedMs']:.2f}×",
        ]
        for r in results
    ]
    headers = [
        "release",
        "route",
        "subsets",
        "first ms (median)",
        "first ms (max)",
        "cached ms",
        "precomputed ms",
        "first / precomputed",
        "cached / precomputed",
    ]
    notes = [
        "One client on a kept-alive connection; `ras serve` one worker. Subsets of 2–3 managers, seeded. "
        "'precomputed' is the same route for all managers, answered from the release's bytes in the same run.",
        *([] if len(results) > 3 else [f"no release at {medium}: run `python -m bench.publish` first"]),
    ]
    report.save("live", "Live subset views: first and cached", headers, rows, [], notes, raw=results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
