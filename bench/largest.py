"""The entry counts of the largest real 13F filers, for synthetic trees shaped like the real population.

Usage: `python -m bench.largest --from DIR` rewrites bench/largest_filers.csv from a Form 13F data set's tables in
DIR (SUBMISSION.tsv, COVERPAGE.tsv, SUMMARYPAGE.tsv; ../shared/realdata/sec-datasets/01mar2025-31may2025_form13f/
made the committed table). The table ranks every original 13F-HR holdings or combination report for one period by
its summary page's reported value (TABLEVALUETOTAL), ties by CIK, and keeps the LARGEST first with their entry
counts (TABLEENTRYTOTAL): `--shape largest:N` of bench.synthetic gives its N managers those counts, in order.
"""

from __future__ import annotations

import argparse
import csv
import sys
from functools import cache
from pathlib import Path

TABLE = Path(__file__).with_name("largest_filers.csv")
LARGEST = 500  # rows kept: the 500 largest filers are the population the service is sized for
PERIOD = "31-MAR-2025"  # the period the committed table was read for: the newest of the 01mar2025-31may2025 set
HOLDINGS = {"13F HOLDINGS REPORT", "13F COMBINATION REPORT"}  # the report types that carry an information table
COLUMNS = ("rank", "cik", "accession", "entries", "value")
PREFIX = "largest:"


@cache
def entry_counts() -> tuple[int, ...]:
    """The committed table's entry counts, largest filer by reported value first."""
    with TABLE.open(newline="") as handle:
        rows = csv.DictReader(line for line in handle if not line.startswith("#"))
        return tuple(int(row["entries"]) for row in rows)


def shape_size(shape: str) -> int:
    """N of a `largest:N` shape; ValueError for any other shape or an N the table does not hold."""
    count = shape.removeprefix(PREFIX)
    if not shape.startswith(PREFIX) or not count.isdigit() or not 1 <= int(count) <= len(entry_counts()):
        raise ValueError(f"--shape must be largest:N with N from 1 to {len(entry_counts())}, not {shape!r}")
    return int(count)


def _read(folder: Path, name: str) -> dict[str, dict[str, str]]:
    with (folder / name).open(newline="", encoding="utf-8") as handle:
        return {row["ACCESSION_NUMBER"]: row for row in csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)}


def _number(row: dict[str, str], column: str) -> int:
    return int(row[column] or 0)  # an empty total is none reported


def ranked(folder: Path, period: str = PERIOD) -> list[tuple[str, str, int, int]]:
    """(CIK, accession, entries, value) of every original holdings report for `period`, largest value first."""
    submissions, covers, summaries = (_read(folder, f"{n}.tsv") for n in ("SUBMISSION", "COVERPAGE", "SUMMARYPAGE"))
    found = [
        (
            s["CIK"],
            accession,
            _number(summaries[accession], "TABLEENTRYTOTAL"),
            _number(summaries[accession], "TABLEVALUETOTAL"),
        )
        for accession, s in submissions.items()
        if s["PERIODOFREPORT"] == period and s["SUBMISSIONTYPE"] == "13F-HR"
        if covers[accession]["REPORTTYPE"] in HOLDINGS and accession in summaries
    ]
    return sorted(found, key=lambda filer: (-filer[3], filer[0]))


def table_text(folder: Path) -> str:
    """bench/largest_filers.csv: a provenance comment, the header, the LARGEST filers."""
    rows = ranked(folder)
    lines = [
        f"# The {LARGEST} largest 13F filers by reported value for {PERIOD}, of {len(rows)} original holdings and "
        f"combination reports ({sum(r[2] for r in rows):,} entries),",
        f"# read by bench/largest.py from the SEC's Form 13F data set {folder.name} (SUBMISSION, COVERPAGE, "
        "SUMMARYPAGE); value in dollars as filed.",
        ",".join(COLUMNS),
        *(",".join(map(str, (rank, *row))) for rank, row in enumerate(rows[:LARGEST], start=1)),
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="folder", type=Path, required=True, help="a data set's extracted tables")
    args = parser.parse_args(argv)
    TABLE.write_text(table_text(args.folder), encoding="utf-8")
    print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
