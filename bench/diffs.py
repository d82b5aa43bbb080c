"""compareVersions' rendering: every version pair's changes and its diff in each mode, by this checkout and a baseline.

Usage: `python -m bench.diffs --release DIR --baseline CHECKOUT [--repeat 3]`. DIR is a published release (one
folder of a releases directory, promoted or not), e.g. of a bench.synthetic 500 × 10 × 150 tree; it is only read. Each run, in a fresh process of its
checkout, decodes every artifact and each version's census (not timed), then for each pair of versions (older,
newer) times research.diff.versions_changes once (the versions between as api.methods.diff_of passes them) and
diff_versions in each of the four modes on it: CPU seconds (time.process_time) with the collector paused, as a
publish renders. Each diff's canonical JSON is hashed: the two checkouts must give the same bytes. Runs take turns.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from bench import report
from bench.processes import REPO, measure

SPEEDUP_TARGET = 1.5  # the default: the baseline spends 1.5× the CPU of this checkout
TIMED = """
import gc, hashlib, json, sys, time
from pathlib import Path
from builder.api.methods import carried_through
from builder.canonical import canonical_json
from builder.release.store import load_release
from builder.research.diff import diff_versions, versions_changes
from builder.research.views import census
data = load_release(Path(sys.argv[1])).data
versions = data.versions
artifacts = {version: data.artifacts[version] for version in versions}
censuses = {version: census(artifacts[version], []) for version in versions}
gc.collect()
gc.disable()
changes = diffs = 0.0
digest = hashlib.sha256()
for first, older in enumerate(versions):
    for last in range(first + 1, len(versions)):
        newer = versions[last]
        between = [*(carried_through(data, v) for v in versions[first + 1 : last]), artifacts[newer]]
        used = time.process_time()
        book = versions_changes(artifacts[older], artifacts[newer], [], between)
        changes += time.process_time() - used
        for mode in ("any", "overlap", "exclusive", "disagreement"):
            sides = (censuses[older], censuses[newer])
            used = time.process_time()
            diff = diff_versions(artifacts[older], artifacts[newer], [], mode, book=book, censuses=sides)
            diffs += time.process_time() - used
            digest.update(hashlib.sha256(canonical_json(diff)).digest())
        del book, diff
        gc.collect()
pairs = len(versions) * (len(versions) - 1) // 2
managers = len(artifacts[versions[-1]]["managers"])
figures = {"changes": changes, "diffs": diffs, "pairs": pairs, "managers": managers, "digest": digest.hexdigest()}
print(json.dumps(figures), file=sys.stderr)
"""


def run_once(checkout: Path, release: Path) -> dict:
    """The CPU seconds of `checkout`'s versions_changes and diff_versions over the release, and their digest."""
    result = measure([sys.executable, "-c", TIMED, str(release.resolve())], cwd=checkout)
    if result.returncode:
        raise SystemExit(f"rendering the diffs in {checkout} failed: {result.stderr[-2000:]}")
    found: dict = json.loads(result.stderr.strip().splitlines()[-1])
    return found


def _ratio(median: dict[str, dict[str, float]], part: str) -> str:
    return f"{median['baseline'][part] / median['this'][part]:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", type=Path, required=True, help="a published release's directory")
    parser.add_argument("--baseline", type=Path, required=True, help="the checkout to compare with")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--target", type=float, default=SPEEDUP_TARGET, help="the CPU ratio asked for")
    args = parser.parse_args(argv)
    checkouts = {"baseline": args.baseline.resolve(), "this": REPO}
    runs: dict[str, list[dict]] = {"baseline": [], "this": []}
    for repeat in range(args.repeat):
        order = list(checkouts.items())
        for name, checkout in order if repeat % 2 == 0 else order[::-1]:
            runs[name].append(run_once(checkout, args.release))
            print(name, runs[name][-1], flush=True)
    median = {
        name: {part: statistics.median(run[part] for run in found) for part in ("changes", "diffs")}
        for name, found in runs.items()
    }
    total = {name: parts["changes"] + parts["diffs"] for name, parts in median.items()}
    digests = {run["digest"] for found in runs.values() for run in found}
    this = runs["this"][0]
    rows = [
        [what, f"{median['baseline'][part]:.2f}", f"{median['this'][part]:.2f}", _ratio(median, part)]
        for part, what in (("changes", "versions_changes (once a pair)"), ("diffs", "diff_versions (four modes)"))
    ]
    speedup = total["baseline"] / total["this"]
    rows.append(["both", f"{total['baseline']:.2f}", f"{total['this']:.2f}", f"{speedup:.2f}"])
    same = "the same diffs as the baseline, byte for byte"
    notes = [
        f"Release: {args.release} ({this['managers']} managers, {this['pairs']} pairs × 4 modes); baseline: "
        f"{args.baseline}. {args.repeat} runs per checkout, taking turns, each in a fresh process; CPU s are medians "
        "(the machine is shared: compare the ratios). Same bytes: the sha256 of every diff's canonical JSON, in order."
    ]
    headers = ["what", "baseline CPU s", "this CPU s", "× faster"]
    targets = report.same_and_faster(same, len(digests), "CPU speed-up", speedup, args.target)
    report.save("diffs", "compareVersions rendering: this checkout vs a baseline", headers, rows, targets, notes, runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
