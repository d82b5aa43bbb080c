"""`python -m bench`: every benchmark with its defaults, in order (publish first: the others use its releases)."""

from __future__ import annotations

import time

from bench import agent, get, live, mcp, post, publish, weights


def main() -> int:
    started = time.perf_counter()
    for benchmark in (publish, get, post, mcp, live, agent, weights):
        print(f"\n=== {benchmark.__name__} ===", flush=True)
        benchmark.main([])
    print(f"\nall benchmarks in {(time.perf_counter() - started) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
