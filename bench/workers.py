"""Publish on every core: a cold `ras publish` of one synthetic tree with 1 and with N workers (reading the 13F
files, building the quarters, rendering the answers), its phases, peak memory and release id (the same on any
number of workers).

Usage: `python -m bench.workers [--managers 500] [--quarters 10] [--positions 150] [--workers 1,2] [--repeat 1]
[--work DIR]`.
Each publish runs as its own process into an empty releases directory (no parse cache); peak RSS is wait4's
ru_maxrss, the largest of the publish and the workers it forked (each worker's own, not their sum); the summed PSS
is the peak of what the publish and its workers hold together, sampled from /proc (pages they share counted once).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bench import publish, report
from bench.processes import removed_set_aside, set_aside

PHASES = ("read", "build", "render", "write", "review", "promote")
# Gates that have the publish review the release, as an operator's does (corporate-actions, the default for real
# sources), without stopping a cold one: the synthetic trees' few undecided changes, and the warnings about them, would
# stop it on corporate-actions or new-warnings before the promote.
REVIEWED = ("--gate", "restatement,shrink")
TARGETS = {500: (40.0, None), 2000: (160.0, 2048.0)}  # managers → cold publish s, largest process MB (2 GiB)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--managers", type=int, default=500)
    publish.tree_options(parser)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--work", type=Path, default=publish.WORK)
    parser.add_argument("--repeat", type=int, default=1, help="publishes per number of workers; the median is shown")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    source, _ = publish.tree_for(args.managers, args)
    every: dict[int, list[dict]] = {int(part): [] for part in args.workers.split(",")}
    for run in range(args.repeat):  # taking turns: a slow stretch of the shared disk falls on every worker count
        for workers, done in every.items():
            releases = args.work / f"releases-workers-{source.name}-{workers}-{run}"
            set_aside(releases)
            done.append(publish.publish_once(releases, source, *REVIEWED, "--workers", str(workers)))
            set_aside(releases)
    removed_set_aside()  # only after the last run: deleting gigabytes of release sets the disk writing for minutes
    runs = {workers: median_run(done) for workers, done in every.items()}
    one = runs[min(runs)]
    rows = [
        [
            workers,
            f"{run['seconds']:.1f}",
            f"{run['seconds'] / one['seconds']:.2f}",
            *(f"{run['phases'].get(phase, 0):.1f}" for phase in PHASES),
            f"{run['maxRssMb']:.0f}",
            f"{run['treePssMb']:.0f}",
            publish.release_of(run),
        ]
        for workers, run in sorted(runs.items())
    ]
    ids = {publish.release_of(run) for run in runs.values()}
    best = min(runs.values(), key=lambda run: run["seconds"])
    limits = TARGETS.get(args.managers, (None, None))
    measured = (
        ("seconds", f"{args.managers} managers publish cold in ≤ {{:.0f}} s", "{:.1f} s"),
        ("maxRssMb", f"{args.managers} managers publish in ≤ {{:.0f}} MB, largest process", "{:.0f} MB"),
    )
    targets = [report.target("the same release id on every number of workers", len(ids) == 1, ", ".join(sorted(ids)))]
    for limit, (key, text, figure) in zip(limits, measured, strict=True):
        if limit is not None:
            targets.append(report.target(text.format(limit), best[key] <= limit, figure.format(best[key])))
    report.save(
        "workers",
        "Publish on every core: workers reading, building and rendering",
        [
            "workers",
            "cold publish s",
            "× 1 worker",
            *(f"{phase} s" for phase in PHASES),
            "peak RSS MB",
            "summed PSS MB",
            "release id",
        ],
        rows,
        targets,
        notes=[
            f"tree {source.name}; each publish its own process, into an empty releases directory (the runs' releases removed after the last), started after a "
            f"sync once the disk was quiet (bench.processes.settled_disk: I/O pressure at the starts "
            + ", ".join(f"{run['ioPressure']:.1f}" for done in every.values() for run in done)
            + " %)",
            *(
                f"{workers} workers, {len(done)} runs (the median shown): "
                + ", ".join(f"{run['seconds']:.1f}" for run in done)
                + " s"
                for workers, done in every.items()
                if len(done) > 1
            ),
            "each publish reviews the release (gates restatement and shrink), as an operator's does for its gates; "
            "corporate-actions and new-warnings would stop the synthetic trees' publish on their few undecided changes",
            "workers are forked in each phase: a manager's 13F folder, a quarter, a group of answers at a time",
        ],
        raw={
            str(workers): [
                {k: run[k] for k in ("seconds", "maxRssMb", "treePssMb", "phases", "ioPressure")} for run in done
            ]
            for workers, done in every.items()
        },
    )
    return 0


def median_run(done: list[dict]) -> dict:
    """The run of median time (the lower middle one of an even count): its phases and memory come with it."""
    return sorted(done, key=lambda run: run["seconds"])[(len(done) - 1) // 2]


if __name__ == "__main__":
    raise SystemExit(main())
