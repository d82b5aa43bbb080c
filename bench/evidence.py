"""Corporate actions decided by evidence at operator scale: what is left undecided, what is decided, what it costs.

Usage: `python -m bench.evidence [--managers 500] [--quarters 10] [--positions 150] [--witnesses 1500]
[--baseline CHECKOUT] [--work DIR]`. Each publish runs as its own process (bench.processes). Cases:
- quiet: a bench.universe tree with no corporate action (the pack's filings, and every filer's in the Form 13F
  data sets): the share of changes published as undecided, and any event decided (each one false);
- events: the same universe with one event of every kind injected (bench.universe --actions all): each decided
  with its kind and ratio, against the generator's events.csv;
- cost: the bench.synthetic tree of the same size published cold by this checkout (its evidence from the pack's
  own filings) and by --baseline (the checkout before evidence), and the quiet universe's second cold publish
  (the data sets from their cache): the ratios against the baseline.
"""

from __future__ import annotations

import argparse
import csv
import shutil
from fractions import Fraction
from pathlib import Path

from bench import report, universe
from bench.processes import measure
from bench.publish import NO_GATES, WORK, no_gates, publish_once, release_of, released_artifacts, tree_for, tree_options
from builder.release.build import DATASETS_CACHE

UNDECIDED_TARGET = 0.0005  # at most 0.05 % of changes undecided with no corporate action
COST_TARGET = 1.2  # a cold publish with evidence at most 1.2 × the one before it


def universe_tree(params: universe.Params, work: Path) -> Path:
    """The universe of `params` under `work` (generated unless one with the same stamp is there)."""
    out = work / f"universe-{params.managers}x{params.quarters}x{params.positions}-{params.witnesses}-{params.actions}"
    packs = out / "packs.toml"
    if not (packs.exists() and params.stamp() in packs.read_text().splitlines()):
        result = measure(params.command(out))
        if result.returncode:
            raise SystemExit(f"bench.universe failed: {result.stderr[-2000:]}")
    return out


def changes(found: list[dict]) -> tuple[int, int]:
    """(undecided, all) changes of the versions."""
    kinds = [e["change"]["kind"] for a in found for m in a["managers"] for e in (*m["positions"], *m["ended"])]
    return kinds.count("undecided"), len(kinds)


def decided(found: list[dict], tree: Path) -> tuple[int, int, int]:
    """(events decided with their kind and ratio, events injected in the published quarters, derived records that
    are no event)."""
    records = {(r["cusip"], r["newCusip"] or "", a["quarter"]): r for a in found for r in a["corporateActions"]}
    published = {a["quarter"] for a in found}
    with (tree / "events.csv").open(newline="") as file:  # an event before the oldest version is in none of them
        events = [event for event in csv.DictReader(file) if event["period_after"] in published]
    hits = 0
    for event in events:
        record = records.pop((event["cusip"], event["new_cusip"], event["period_after"]), None)
        ratio_ok = not event["ratio"] or (record and _ratio(record["ratio"]) == _ratio(event["ratio"]))
        hits += bool(record and record["kind"] == event["kind"] and ratio_ok)
    return hits, len(events), len(records)


def _ratio(text: str | None) -> Fraction | None:
    new, _, old = (text or "1:1").partition(":")
    return Fraction(new) / Fraction(old)


def run_case(name: str, tree: Path, work: Path, *, again: bool = False) -> dict:
    releases = work / f"releases-evidence-{name}"
    shutil.rmtree(releases, ignore_errors=True)
    first = publish_once(releases, tree, *NO_GATES)
    found = released_artifacts(releases / release_of(first))
    case = {"case": name, "seconds": first["seconds"], "maxRssMb": first["maxRssMb"], "phases": first["phases"]}
    case["undecided"], case["changes"] = changes(found)
    if (tree / "events.csv").exists():
        case["decided"], case["events"], case["false"] = decided(found, tree)
    if again:  # a second cold publish into an empty directory but for the data sets' cache the first one left
        other = work / f"releases-evidence-{name}-again"
        shutil.rmtree(other, ignore_errors=True)
        shutil.copytree(releases / DATASETS_CACHE, other / DATASETS_CACHE)
        case["cachedSeconds"] = publish_once(other, tree, *NO_GATES)["seconds"]
        shutil.rmtree(other, ignore_errors=True)
    return case


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--managers", type=int, default=500)
    tree_options(parser)
    parser.add_argument("--witnesses", type=int, default=1500)
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument("--baseline", type=Path, default=None, help="the checkout before evidence, for the cost")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    sizes = (args.managers, args.quarters, args.positions, args.witnesses)
    quiet = universe_tree(universe.Params(*sizes, "none"), args.work)
    events = universe_tree(universe.Params(*sizes, "all"), args.work)
    synthetic_tree, _ = tree_for(args.managers, args)
    cases = [
        run_case("quiet universe (data sets)", quiet, args.work, again=True),
        run_case("events universe (data sets)", events, args.work),
        run_case("synthetic tree (pack filings)", synthetic_tree, args.work),
    ]
    if args.baseline is not None:
        other = args.work / "releases-evidence-baseline"
        shutil.rmtree(other, ignore_errors=True)
        baseline = publish_once(other, synthetic_tree, *no_gates(args.baseline), cwd=args.baseline)
        cases.append(
            {"case": "synthetic tree, baseline", "seconds": baseline["seconds"], "maxRssMb": baseline["maxRssMb"]}
        )
        cases[-1]["undecided"], cases[-1]["changes"] = changes(released_artifacts(other / release_of(baseline)))
    reference = cases[-1]["seconds"] if args.baseline else None
    headers = ["case", "cold publish s", "× baseline", "peak MB", "undecided / changes", "events decided", "false events", "cached-sets publish s"]  # fmt: skip
    rows = [
        [
            c["case"],
            f"{c['seconds']:.1f}",
            f"{c['seconds'] / reference:.2f}" if reference else "—",
            f"{c['maxRssMb']:.0f}",
            f"{c['undecided']:,} / {c['changes']:,} ({c['undecided'] / max(c['changes'], 1):.3%})",
            f"{c['decided']} of {c['events']}" if "events" in c else "—",
            str(c.get("false", "—")),
            f"{c['cachedSeconds']:.1f}" if "cachedSeconds" in c else "—",
        ]
        for c in cases
    ]
    quiet_case, event_case = cases[0], cases[1]
    targets = [
        report.target(
            "no corporate action: at most 0.05 % undecided",
            quiet_case["undecided"] <= UNDECIDED_TARGET * quiet_case["changes"],
            f"{quiet_case['undecided']:,} of {quiet_case['changes']:,}",
        ),
        report.target(
            "every injected event decided with its ratio, none invented",
            0 < event_case["decided"] == event_case["events"]
            and not event_case["false"]
            and not quiet_case.get("false"),
            f"{event_case['decided']} of {event_case['events']}, {event_case['false']} invented",
        ),
    ]
    if reference:
        cost = cases[2]["seconds"] / reference
        targets.append(report.target("cold publish with evidence ≤ 1.2 × before", cost <= COST_TARGET, f"{cost:.2f}×"))
    notes = [
        f"{args.managers} managers × {args.quarters} quarters × {args.positions} positions; the universes add "
        f"{args.witnesses} other filers (witnesses) to the data sets.",
        "Undecided and events are read from the published artifacts; events.csv is the generator's ground truth.",
        *([f"Baseline: the checkout at {args.baseline}, same tree, same run."] if args.baseline else []),
    ]
    report.save("evidence", "Corporate actions decided by evidence", headers, rows, targets, notes, raw=cases)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
