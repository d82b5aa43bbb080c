"""The agent payload's size against its budget as managers grow, beside the full `latest` answer it summarises.

Usage: `python -m bench.agent [--managers 7,50,500] [--quarters 2] [--positions 60] [--work DIR]`.
For each manager count: a synthetic tree (bench.synthetic), assembled in memory as `ras publish` does, then
getLatestPack's answer for every mode rendered by the same handler the release step uses. It prints the
agent payload's canonical bytes, the whole answer's bytes (the reference, measured in the same run) and
their ratio; it exits 1 if any payload is over the budget. Sizes are deterministic (no clock, seeded
trees), so the machine's load changes the seconds printed, never the bytes.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import orjson

from bench import synthetic
from builder.api.contract import BY_ID
from builder.api.render import render
from builder.canonical import canonical_json
from builder.release.assemble import assemble
from builder.research.agent import BUDGET_BYTES
from builder.research.versions import PACK_ID
from builder.research.views import MODES
from builder.sources.tree import read_sources


def measure(managers: int, quarters: int, positions: int, work: Path) -> list[tuple[str, int, int]]:
    """(mode, payload bytes, answer bytes) of the latest version of a synthetic tree of `managers` managers."""
    tree = work / f"agent-{managers}x{quarters}x{positions}"
    if not tree.exists():
        synthetic.write_tree(tree, synthetic.Params(managers, quarters, positions))
    sources, _ = read_sources(tree)
    data, _ = assemble(sources, [])
    rows = []
    for mode in MODES:
        params = {"packId": PACK_ID, **({} if mode == "any" else {"mode": mode})}
        answer = render(BY_ID["getLatestPack"], data, params)
        payload = canonical_json(_payload(answer.body))
        rows.append((mode, len(payload), len(answer.body)))
    return rows


def _payload(body: bytes) -> dict:
    return orjson.loads(body)["data"]["agentPayload"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.agent", description=__doc__.splitlines()[0])
    parser.add_argument("--managers", default="7,50,500", help="comma-separated manager counts")
    parser.add_argument("--quarters", type=int, default=2, help="quarters per tree: 2 gives a previous version")
    parser.add_argument("--positions", type=int, default=60, help="long-equity positions per book")
    parser.add_argument("--work", type=Path, default=None, help="where the trees go (default: a temporary dir)")
    args = parser.parse_args(argv)
    print(
        f"load average {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; "
        f"{os.cpu_count()} CPUs (shared machine: seconds are noisy, bytes are exact)"
    )
    print(f"{'managers':>8} {'mode':<12} {'payload B':>10} {'answer B':>12} {'payload/answer':>15} {'seconds':>8}")
    over = False
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        for managers in (int(count) for count in args.managers.split(",")):
            started = time.perf_counter()
            rows = measure(managers, args.quarters, args.positions, work)
            seconds = time.perf_counter() - started
            for mode, payload, answer in rows:
                over |= payload > BUDGET_BYTES
                print(f"{managers:>8} {mode:<12} {payload:>10} {answer:>12} {payload / answer:>15.4f} {seconds:>8.1f}")
    print(f"budget {BUDGET_BYTES} B: {'EXCEEDED' if over else 'every payload within it'}")
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
