"""What a release keeps of each version for its life: holdings, book facts, a worker's memos, ras serve's prepare.

Usage: `python -m bench.memos --releases DIR --baseline CHECKOUT`. DIR holds a published release (`current`), e.g.
of a bench.synthetic 500 × 10 × 150 tree. In a fresh process per checkout, tracemalloc counts what stays allocated
(after a collection) once one version older than the latest is decoded without being kept
(Artifacts.read), its holdings (research.methods.ethos) or its book facts (research.methods.policy) computed
from it, and the artifact dropped: what the memo alone retains. Then the pickled sizes of those two and of the
Learned a publish worker sends back for one version (release.assemble.warm), and what `prepare` (ras serve's
start) keeps: the latest artifact, its facts and every older version's holdings. Memory, not time: the figures do
not depend on the load of the machine.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from bench import report
from bench.processes import REPO, measure

MB = 1e6
# Issue 37: 2,000 managers within 2 GiB. What is kept per version for the release's life should not grow
# with the books it was read from: at most 2 MB per version at 500 managers (8 MB at 2,000, 64 MB for 8 versions).
KEPT_TARGET_MB = 2.0
MEASURED = """
import gc, json, pickle, sys, tracemalloc
from pathlib import Path
from builder.release.assemble import warm
from builder.release.store import current_release, load_release, prepare
from builder.research.methods.ethos import holdings
from builder.research.methods.policy import book_facts
def retained(compute):
    gc.collect(); tracemalloc.start()
    value = compute(); gc.collect()
    held = tracemalloc.get_traced_memory()[0]; tracemalloc.stop()
    return value, held
def pickled(value):
    return len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
release = load_release(current_release(Path(sys.argv[1])))
data = release.data
version = data.versions[-2]
read = data.artifacts.read  # decoded, not kept
kept, held = retained(lambda: holdings(read(version)))
facts, facts_held = retained(lambda: book_facts(read(version)))
both = retained(lambda: (lambda artifact: (holdings(artifact), book_facts(artifact)))(read(version)))[1]
_, learned = data.learned(lambda: warm(data, [version]))
fresh = load_release(current_release(Path(sys.argv[1])))
prepared = retained(lambda: prepare(fresh))[1]
figures = {
    "managers": len(kept.held if hasattr(kept, "held") else kept["managers"]),
    "holdings": held, "facts": facts_held, "both": both,
    "holdingsPickled": pickled(kept), "factsPickled": pickled(facts), "learnedPickled": pickled(learned),
    "prepare": prepared,
}
print(json.dumps(figures), file=sys.stderr)
"""
FIGURES = (
    ("holdings", "holdings of one version, retained"),
    ("facts", "book facts of one version, retained"),
    ("both", "both, retained (strings shared)"),
    ("holdingsPickled", "holdings, pickled"),
    ("factsPickled", "book facts, pickled"),
    ("learnedPickled", "a worker's Learned for one version (warm), pickled"),
    ("prepare", "prepare (ras serve's start), retained"),
)


def figures_of(checkout: Path, releases: Path) -> dict[str, int]:
    """The figures of MEASURED, in bytes, measured by `checkout`'s code in a process of its own."""
    result = measure([sys.executable, "-c", MEASURED, str(releases.resolve())], cwd=checkout)
    if result.returncode:
        raise SystemExit(f"measuring in {checkout} failed: {result.stderr[-2000:]}")
    found: dict[str, int] = json.loads(result.stderr.strip().splitlines()[-1])
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--releases", type=Path, required=True, help="a releases directory with `current`")
    parser.add_argument("--baseline", type=Path, required=True, help="the checkout to compare with")
    args = parser.parse_args(argv)
    baseline, this = figures_of(args.baseline, args.releases), figures_of(REPO, args.releases)
    rows = [
        [what, f"{baseline[key] / MB:.2f}", f"{this[key] / MB:.2f}", f"{this[key] / baseline[key]:.3f}"]
        for key, what in FIGURES
    ]
    targets = [
        report.target(
            f"holdings and book facts of a version at 500 managers retain ≤ {KEPT_TARGET_MB:g} MB",
            this["both"] / MB <= KEPT_TARGET_MB,
            f"{this['both'] / MB:.2f} MB at {this['managers']} managers",
        )
    ]
    notes = [
        f"Release: {args.releases} ({this['managers']} managers); baseline: {args.baseline}. Retained: tracemalloc's "
        "current bytes after a collection, the artifact dropped (prepare keeps the latest artifact whole, ~125 MB at "
        "500 managers). Pickled: protocol 5, as a publish worker sends it to its parent."
    ]
    headers = ["what (one version older than the latest)", "baseline MB", "this MB", "× baseline"]
    report.save("memos", "Per-version memos: retained and pickled", headers, rows, targets, notes, raw=[baseline, this])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
