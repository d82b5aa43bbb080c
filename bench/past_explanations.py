"""What precomputing the default view's explanations of every past version adds to a release, and what the position
histories weigh in the explanations: the figures explainPosition's `version` decision rests on.

Usage: `python -m bench.past_explanations [--managers 100,500] [--quarters 8] [--positions 150] [--work DIR]`.
For the embedded fixture and each bench.synthetic tree of M managers: publish the release twice into releases of
their own, without and with the past versions' explanations of the default view (all managers, mode any) among the
precomputed answers (builder.api.contract.PRECOMPUTE_PAST), and report each release's bytes and files, the
publish's seconds, the explanations' bytes, and the share of them that the position histories take. Bytes are
deterministic; seconds depend on the machine's load (reported).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from bench import report, synthetic
from builder.api import contract
from builder.release.publish import publish
from builder.release.store import current_release, load_release
from builder.sources.tree import fixture_source

EXPLANATION = "/explanation"


def release_bytes(directory: Path) -> tuple[int, int]:
    """A release directory's bytes and files (the artifacts, answers, route index and manifest)."""
    files = [path for path in directory.rglob("*") if path.is_file()]
    return sum(path.stat().st_size for path in files), len(files)


def explanations(directory: Path) -> dict[str, int]:
    """The explanation answers' count and bytes, latest and past, and the bytes of their histories."""
    routes = orjson.loads((directory / "routes.json").read_bytes())
    found = {"latest": 0, "latestBytes": 0, "past": 0, "pastBytes": 0, "historyBytes": 0}
    for key, route in routes.items():
        if EXPLANATION not in key.split("?")[0]:
            continue
        body = (directory / "objects" / f"{route['sha256']}.json").read_bytes()
        which = "past" if "version=" in key else "latest"
        found[which] += 1
        found[f"{which}Bytes"] += len(body)
        data = orjson.loads(body).get("data", {})
        found["historyBytes"] += len(orjson.dumps(data["history"], option=orjson.OPT_SORT_KEYS)) if data else 0
    return found


def measure(tree: Path, work: Path, past: bool) -> dict[str, Any]:
    releases = work / f"{tree.name}-{'past' if past else 'latest'}"
    contract.PRECOMPUTE_PAST = past
    started = time.perf_counter()
    publish(tree, releases, None, lambda _line: None)
    seconds = time.perf_counter() - started
    directory = current_release(releases)
    assert directory is not None
    load_release(directory)  # verifies the manifest
    total, files = release_bytes(directory)
    return {"seconds": round(seconds, 1), "bytes": total, "files": files, **explanations(directory)}


def synthetic_tree(work: Path, managers: int, quarters: int, positions: int) -> Path:
    tree = work / f"past-{managers}x{quarters}x{positions}"
    if not tree.exists():
        synthetic.write_tree(tree, synthetic.Params(managers, quarters, positions))
        packs = tree / "packs.toml"  # as many versions as the tree has quarters
        packs.write_text(packs.read_text().replace("[copycat]\n", f"[copycat]\nversions = {quarters}\n", 1))
    return tree


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.past_explanations", description=__doc__.splitlines()[0])
    parser.add_argument("--managers", default="100,500", help="comma-separated manager counts")
    parser.add_argument("--quarters", type=int, default=8)
    parser.add_argument("--positions", type=int, default=150)
    parser.add_argument("--work", type=Path, default=None, help="where trees and releases go (default: a temp dir)")
    args = parser.parse_args(argv)
    rows, cases = [], {}
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        trees = {"fixture": fixture_source()}
        for managers in (int(m) for m in args.managers.split(",") if m):
            name = f"{managers}x{args.quarters}x{args.positions}"
            trees[name] = synthetic_tree(work, managers, args.quarters, args.positions)
        for case, tree in trees.items():
            latest, past = measure(tree, work, False), measure(tree, work, True)
            cases[case] = {"latest": latest, "past": past}
            added = past["bytes"] - latest["bytes"]
            rows.append(
                [
                    case,
                    latest["bytes"],
                    past["bytes"],
                    f"{added} ({added / latest['bytes']:.0%})",
                    f"{latest['files']} → {past['files']}",
                    f"{latest['seconds']} → {past['seconds']}",
                    f"{latest['latest']}: {latest['latestBytes']}",
                    f"{past['past']}: {past['pastBytes']}",
                    f"{latest['historyBytes'] / max(latest['latestBytes'], 1):.0%}",
                ]
            )
    headers = [
        "release",
        "bytes (latest only)",
        "bytes (past too)",
        "added",
        "files",
        "publish s",
        "latest explanations: bytes",
        "past explanations: bytes",
        "history share",
    ]
    notes = [
        "Each release published twice from the same tree: precomputing the explanations of the latest version's views "
        "(every mode), then also the default view's (all managers, mode any) of every earlier version.",
        "history share: the position histories' part of the latest explanations' bytes.",
    ]
    title = "Past explanations: what precomputing the default view's explanations of every version adds"
    report.save("past_explanations", title, headers, rows, [], notes, raw=cases)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
