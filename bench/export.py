"""Static export: `ras export` of a synthetic release against its cold publish, a next-quarter re-export against a
full export, and the survey of compression levels behind variants.GZIP_LEVEL and BROTLI_QUALITY.

Usage: `python -m bench.export [--managers 100] [--quarters 10] [--positions 150] [--work DIR] [--sample-mb 48]`.
Each publish and export runs as its own process (peak RSS from wait4). Full: a cold publish of the tree, then
its export into an empty directory. Next quarter: the tree without each manager's newest filing is published
and exported, then the whole tree is published into the same releases and exported into the same directory,
whose variant cache then holds every answer the new quarter left unchanged. Survey: a sample of the release's
answers (every k-th by size, the largest included) compressed on one core at each level, in this process.
"""

from __future__ import annotations

import argparse
import gzip
import time
from pathlib import Path

import brotli

from bench import publish, report
from bench.processes import measure, ras, removed_set_aside, set_aside, settled_disk
from builder.release.objects import object_path
from builder.release.store import current_release, load_release

EXPORT_TARGET = 0.5  # issue 37: an export ≤ 0.5 × the cold publish of its release …
REEXPORT_TARGET = 0.3  # … and a next-quarter re-export ≤ 0.3 × a full export
REFERENCE = (("br", 10), ("gzip", 9))  # the levels exports used before the survey
SURVEY = (
    ("br", 3),
    ("br", 4),
    ("br", 5),
    ("br", 6),
    ("br", 10),
    ("gzip", 1),
    ("gzip", 2),
    ("gzip", 4),
    ("gzip", 6),
    ("gzip", 9),
)


def export_once(releases: Path, out: Path) -> dict:
    settled_disk()  # as the publish it is compared with starts: not while the disk writes that release back
    result = measure(ras("export", "--releases", str(releases), "--out", str(out)))
    if result.returncode:
        raise SystemExit(f"export into {out} failed: {result.stderr[-3000:]}")
    return {
        "seconds": result.seconds,
        "maxRssMb": result.max_rss_mb,
        "writtenMb": result.written_mb,
        "stderr": result.stderr,
    }


def sample(releases: Path, megabytes: float) -> list[bytes]:
    """Every k-th answer by size, the largest first, until `megabytes`: the release's mix of sizes."""
    directory = current_release(releases)
    assert directory is not None
    release = load_release(directory)
    shas = sorted({route.sha256 for key in release.answers if (route := release.answers.route(key)) is not None})
    sizes = sorted(((directory / object_path(sha)).stat().st_size, sha) for sha in shas)
    total = sum(size for size, _ in sizes)
    step = max(1, round(total / (megabytes * 1e6)))
    picked = sizes[::-1][::step]
    return [(directory / object_path(sha)).read_bytes() for _, sha in picked]


def compress(coding: str, level: int, body: bytes) -> bytes:
    if coding == "gzip":
        return gzip.compress(body, compresslevel=level, mtime=0)
    return brotli.compress(body, quality=level)


def survey(bodies: list[bytes]) -> list[dict]:
    found = []
    raw = sum(map(len, bodies))
    for coding, level in SURVEY:
        started = time.perf_counter()
        size = sum(len(compress(coding, level, body)) for body in bodies)
        seconds = time.perf_counter() - started
        found.append({"coding": coding, "level": level, "bytes": size, "seconds": seconds, "raw": raw})
    return found


def survey_rows(found: list[dict]) -> list[list]:
    reference = {(row["coding"]): row for row in found if (row["coding"], row["level"]) in REFERENCE}
    rows = []
    for row in found:
        ref = reference[row["coding"]]
        rows.append(
            [
                f"{row['coding']} {row['level']}",
                f"{row['raw'] / 1e6 / row['seconds']:.1f}",
                f"{row['bytes'] / 1e6:.2f}",
                f"{row['raw'] / row['bytes']:.1f}",
                f"{row['bytes'] / ref['bytes']:.3f}",
                f"{row['seconds'] / ref['seconds']:.3f}",
            ]
        )
    return rows


def step_row(step: str, measured: dict, cold: dict | None = None, full: dict | None = None) -> list[str]:
    """One step's seconds and bytes written (/proc's write_bytes of its process and what it forked), each also as a
    ratio to the cold publish's and its time to the full export's, measured in the same run."""

    def ratio(key: str, reference: dict | None) -> str:
        return "—" if reference is None else f"{measured[key] / reference[key]:.2f}"

    return [
        step,
        f"{measured['seconds']:.1f}",
        ratio("seconds", cold),
        ratio("seconds", full),
        f"{measured['writtenMb']:.0f}",
        ratio("writtenMb", cold),
        f"{measured['maxRssMb']:.0f}",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--managers", type=int, default=100)
    publish.tree_options(parser)
    parser.add_argument("--work", type=Path, default=publish.WORK)
    parser.add_argument("--sample-mb", type=float, default=48.0)
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    source, _ = publish.tree_for(args.managers, args)
    name = source.name
    full, out = args.work / f"releases-export-{name}", args.work / f"export-{name}"
    step, step_out = args.work / f"releases-export-{name}-step", args.work / f"export-{name}-step"
    for path in (full, out, step, step_out):
        set_aside(path)
    cold = publish.publish_once(full, source, *publish.NO_GATES)
    whole = export_once(full, out)
    publish.publish_once(step, publish.without_newest_quarter(source, args.work / f"{name}-before"), *publish.NO_GATES)
    before = export_once(step, step_out)
    publish.publish_once(step, source, *publish.NO_GATES)
    again = export_once(step, step_out)
    levels = survey(sample(full, args.sample_mb))
    export_ratio, again_ratio = whole["seconds"] / cold["seconds"], again["seconds"] / whole["seconds"]
    rows = [
        step_row("cold publish", cold, cold),
        step_row("full export", whole, cold, whole),
        step_row("export of the quarter before", before),
        step_row("next-quarter re-export", again, cold, whole),
    ]
    compressed = [line for line in again["stderr"].splitlines() if line.startswith("compressed ")]
    extra = report.table(
        ["level", "MB/s (one core)", "MB", "ratio", "bytes vs br 10 / gzip 9", "time vs br 10 / gzip 9"],
        survey_rows(levels),
    )
    report.save(
        "export",
        "Static export: cost against the publish, re-export, compression levels",
        ["step", "seconds", "× cold publish", "× full export", "written MB", "written × cold publish", "peak RSS MB"],
        rows,
        [
            report.target(
                f"export ≤ {EXPORT_TARGET} × its cold publish", export_ratio <= EXPORT_TARGET, f"{export_ratio:.2f}"
            ),
            report.target(
                f"next-quarter re-export ≤ {REEXPORT_TARGET} × a full export",
                again_ratio <= REEXPORT_TARGET,
                f"{again_ratio:.2f}",
            ),
        ],
        notes=[
            f"tree {name}; survey on {levels[0]['raw'] / 1e6:.0f} MB of its answers, one core",
            *(f"re-export: {line}" for line in compressed),
        ],
        raw={
            "cold": cold["seconds"],
            "export": whole["seconds"],
            "again": again["seconds"],
            "written": {"cold": cold["writtenMb"], "export": whole["writtenMb"], "again": again["writtenMb"]},
            "survey": levels,
        },
        extra=extra,
    )
    removed_set_aside()  # the last run's releases and trees, deleted once nothing is timed
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
