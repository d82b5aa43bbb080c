"""EDGAR's filing date of each accession, kept beside a manager's filings: sec13f/<cik>/filing_dates.csv.

`ras fetch` writes it from EDGAR's submissions listing (its `filingDate` column), so a filing that comes without
an SGML header (a primary document and an information table saved as two files) is dated as EDGAR dates it,
not by the day it was signed. Header `accession,form,period,filed`; more columns are allowed. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from pathlib import PurePosixPath

from builder.records import SourceProblem
from builder.sources.tables.csvfile import capped, csv_records

FILE_NAME = "filing_dates.csv"
COLUMNS = ("accession", "form", "period", "filed")
_ACCESSION = re.compile(r"[0-9]{10}-[0-9]{2}-[0-9]{6}")
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")  # as EDGAR's listing writes filingDate


@dataclass(frozen=True, slots=True)
class RecordedDate:
    """EDGAR's filing date of one accession and the record line that says so."""

    filed: date
    record: str  # "sec13f/<cik>/filing_dates.csv:<line>"


def parse_filing_dates(data: bytes, source: str) -> tuple[dict[str, RecordedDate], tuple[SourceProblem, ...]]:
    """accession → RecordedDate of the record's bytes, and its problems (then the map is empty)."""
    name = PurePosixPath(source).name
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return {}, (SourceProblem(source, f"{name} is not UTF-8", data[: exc.start].count(b"\n") + 1),)
    found: dict[str, RecordedDate] = {}
    problems: list[SourceProblem] = []
    for line, row in csv_records(text, source, COLUMNS):
        if isinstance(row, SourceProblem):
            problems.append(row)
            continue
        accession, filed = row["accession"], _date(row["filed"])
        if not _ACCESSION.fullmatch(accession) or filed is None:
            problems.append(
                SourceProblem(
                    source,
                    f"{name} needs an accession ##########-##-###### and a filed date "
                    f"YYYY-MM-DD, not {accession!r} and {row['filed']!r}",
                    line,
                )
            )
        elif accession in found and found[accession].filed != filed:
            problems.append(
                SourceProblem(source, f"{name} dates {accession} twice ({found[accession].filed} and {filed})", line)
            )
        else:
            found.setdefault(accession, RecordedDate(filed, f"{source}:{line}"))
    return ({}, capped(problems, source)) if problems else (found, ())


def filing_dates_text(rows: list[tuple[str, str, str, str]]) -> str:
    """The record's text: the header, then one (accession, form, period, filed) row each, sorted by filing date."""
    lines = [",".join(COLUMNS), *(",".join(row) for row in sorted(rows, key=lambda row: (row[3], row[0])))]
    return "\n".join(lines) + "\n"


def _date(text: str) -> date | None:
    if not _DAY.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None
