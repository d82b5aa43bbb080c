"""Benchmark results: print a table, write bench/results/<name>.json, refresh the committed bench/RESULTS.md."""

from __future__ import annotations

import os
import platform
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"  # git-ignored: every run's raw figures
SUMMARY = BENCH / "RESULTS.md"  # committed: the latest figures of every benchmark
ORDER = ("publish", "read", "get", "post", "mcp", "live", "weights")  # the order of the sections in RESULTS.md
NOTEBOOK = ("Notes", "Earlier runs", "Changes behind")  # hand-written sections of RESULTS.md, kept after the tables
CALIBRATION_LOOPS = 2_000_000  # a fixed pure-Python workload of about 0.1–0.3 s: the run's speed yardstick


def machine() -> dict[str, Any]:
    """What the figures were measured on: cores, CPU model, memory, load when the run started."""
    cpu = next((line.split(":", 1)[1].strip() for line in _lines("/proc/cpuinfo") if line.startswith("model name")), "")
    total = next((int(line.split()[1]) for line in _lines("/proc/meminfo") if line.startswith("MemTotal")), 0)
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu or platform.processor(),
        "memoryGiB": round(total / 2**20, 1),
        "python": platform.python_version(),
        "load1": round(os.getloadavg()[0], 2),
    }


def _lines(path: str) -> list[str]:
    try:
        return Path(path).read_text().splitlines()
    except OSError:
        return []


def calibrate() -> float:
    """Seconds of a fixed CPU-bound loop now: how fast this shared machine is at this moment."""
    started = time.perf_counter()
    total = 0
    for value in range(CALIBRATION_LOOPS):
        total += value % 7
    return time.perf_counter() - started


def command(name: str) -> str:
    """The command line that produced benchmark `name` (`python -m bench` runs each with its defaults)."""
    arguments = sys.argv[1:] if Path(sys.argv[0]).stem == name else []
    return " ".join([f"python -m bench.{name}", *arguments])


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table (it prints readably in a terminal too)."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(str(h)), *(len(row[i]) for row in cells)) for i, h in enumerate(headers)]
    line = lambda values: "| " + " | ".join(v.ljust(w) for v, w in zip(values, widths, strict=True)) + " |"  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(row) for row in cells)])


def target(text: str, met: bool, detail: str) -> dict[str, Any]:
    return {"target": text, "met": met, "detail": detail}


def same_and_faster(same: str, digests: int, what: str, speedup: float, asked: float) -> list[dict[str, Any]]:
    """The targets of a this-checkout-against-a-baseline benchmark: `same` (one digest over every run of both), and
    `what`'s CPU speed-up over the baseline at least `asked`."""
    return [
        target(same, digests == 1, f"{digests} digest(s)"),
        target(f"{what} ≥ {asked:g}× over the baseline", speedup >= asked, f"{speedup:.2f}×"),
    ]


def save(
    name: str,
    title: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[Any]],
    targets: Sequence[dict],
    notes: Sequence[str] = (),
    raw: Any = None,
    extra: str = "",
) -> Path:
    """Print the result, write it as JSON under bench/results/ and rebuild bench/RESULTS.md from every result.

    `extra`: a second table (Markdown), printed below the first.
    """
    result = {
        "benchmark": name,
        "title": title,
        "command": command(name),
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d %H:%M", time.localtime()),
        "headers": list(headers),
        "rows": [list(row) for row in rows],
        "targets": list(targets),
        "notes": list(notes),
        "raw": raw,
        "extra": extra,
    }
    print(render(result))
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_bytes(orjson.dumps(result, option=orjson.OPT_INDENT_2))
    write_summary()
    print(f"\nwrote {path.relative_to(BENCH.parent)} and {SUMMARY.relative_to(BENCH.parent)}")
    return path


def render(result: dict[str, Any]) -> str:
    """One benchmark's section: command, machine, table, targets, notes."""
    box = result["machine"]
    lines = [
        f"## {result['title']}",
        "",
        f"`{result['command']}` — {result['date']}, {box['nproc']} cores ({box['cpu']}), {box['memoryGiB']} GiB, "
        f"Python {box['python']}, load {box['load1']} at start",
        "",
        table(result["headers"], result["rows"]),
        "",
        *([result["extra"], ""] if result.get("extra") else []),
    ]
    lines += [f"- {'MET' if t['met'] else 'MISSED'}: {t['target']} — {t['detail']}" for t in result["targets"]]
    lines += [f"- {note}" for note in result["notes"]]
    return "\n".join(lines) + "\n"


def write_summary() -> None:
    """bench/RESULTS.md: the latest result of every benchmark found in bench/results/ (which git ignores); a
    benchmark without a result there keeps its section of the RESULTS.md in the checkout."""
    found = {path.stem: orjson.loads(path.read_bytes()) for path in sorted(RESULTS.glob("*.json"))}
    rendered = {found[name]["title"]: render(found[name]) for name in found}
    kept = _sections(SUMMARY.read_text()) if SUMMARY.exists() else {}
    names = [name for name in ORDER if name in found] + sorted(set(found) - set(ORDER))
    # A section keeps its place and a new one goes after the others, but before the notebook (notes, earlier
    # runs, the changes behind the figures), which stays last.
    current = [title for title in kept if not title.startswith(NOTEBOOK)]
    order = [
        *current,
        *(found[name]["title"] for name in names),
        *(title for title in kept if title.startswith(NOTEBOOK)),
    ]
    header = (
        "# Benchmark results\n\nThe latest figures of `python -m bench.<name>` (generated: edit the benchmarks, "
        "not these sections), then the notebook: notes on those runs, earlier runs and the changes behind the "
        "figures, each with its command, machine and date. Every speed is also given as a ratio to a reference "
        "measured in the same run.\n\n"
    )
    SUMMARY.write_text(header + "\n".join(rendered.get(title) or kept[title] for title in dict.fromkeys(order)))


def _sections(text: str) -> dict[str, str]:
    """RESULTS.md's sections by title (each from its `## ` line to the next)."""
    parts = re.split(r"(?m)^(?=## )", text)[1:]
    return {part.splitlines()[0][3:]: part.rstrip("\n") + "\n" for part in parts}
