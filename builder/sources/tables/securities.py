"""Reads securities.csv (header `cusip,ticker`; optional `name`, `figi`, `valid_from`, `valid_to`; more columns
allowed) into Security records: one per CUSIP, with the CUSIP's dated tickers beside it."""

from __future__ import annotations

import dataclasses
import re
from datetime import date
from itertools import pairwise
from pathlib import Path

from builder.records import Security, SourceProblem
from builder.sources.files import DEFAULT_LIMITS, Limit
from builder.sources.tables.csvfile import capped, csv_records, read_csv_text

COLUMNS = ("cusip", "ticker")
OPTIONAL = ("name", "figi", "valid_from", "valid_to")
_CUSIP = re.compile(r"[A-Z0-9]{9}")  # the nine characters of a CUSIP, as in the 13F information table


def read_securities(
    path: Path, base: Path, limit: Limit = DEFAULT_LIMITS.file
) -> tuple[dict[str, Security], tuple[SourceProblem, ...]]:
    """The CUSIP → Security map of `path` (read up to `limit`), and every problem found, each naming the file and line."""
    source = _relative(path, base)
    if not path.exists():
        message = f"{path.name} is missing: run `ras securities` to map the filings' CUSIPs, or write cusip,ticker rows"
        return {}, (SourceProblem(source, message),)
    text, problems = read_csv_text(path, source, limit)
    return ({}, problems) if text is None else parse_securities(text, source)


def parse_securities(text: str, source: str) -> tuple[dict[str, Security], tuple[SourceProblem, ...]]:
    """The CUSIP → Security map of CSV `text`, and its problems (then the map is empty); pure."""
    rows: dict[str, list[tuple[int, Security]]] = {}
    problems: list[SourceProblem] = []
    for line, found in csv_records(text, source, COLUMNS, OPTIONAL):
        if isinstance(found, SourceProblem):
            problems.append(found)
            continue
        security = _security(found, source, line, problems)
        if security is not None:
            rows.setdefault(security.cusip, []).append((line, security))
    securities = {cusip: _merged(entries, source, problems) for cusip, entries in rows.items()}
    if not securities and not problems:  # an empty map publishes every holding keyed by CUSIP: a wrong file
        message = f"{Path(source).name} has no data rows: add cusip,ticker rows or run `ras securities`"
        problems.append(SourceProblem(source, message, 1))
    return (securities, ()) if not problems else ({}, capped(problems, source))


def _security(row: dict[str, str], source: str, line: int, problems: list[SourceProblem]) -> Security | None:
    name, cusip, ticker = Path(source).name, row["cusip"].upper(), row["ticker"]
    found = len(problems)
    if not _CUSIP.fullmatch(cusip):
        problems.append(SourceProblem(source, f"{name} has cusip {row['cusip']!r}, not nine letters or digits", line))
    if not ticker:
        problems.append(SourceProblem(source, f"{name} has no ticker for cusip {cusip}", line))
    valid_from, valid_to = (
        _date(row.get(column, ""), column, source, line, problems) for column in ("valid_from", "valid_to")
    )
    if valid_from and valid_to and valid_to < valid_from:
        problems.append(SourceProblem(source, f"{name} has valid_to {valid_to} before valid_from {valid_from}", line))
    if len(problems) > found:
        return None
    return Security(cusip, ticker, row.get("name", ""), row.get("figi", "").upper(), valid_from, valid_to)


def _date(value: str, column: str, source: str, line: int, problems: list[SourceProblem]) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        problems.append(
            SourceProblem(source, f"{Path(source).name} has {column} {value!r}, not a date YYYY-MM-DD", line)
        )
        return None


def _merged(entries: list[tuple[int, Security]], source: str, problems: list[SourceProblem]) -> Security:
    """One CUSIP's rows as one Security: the undated row (or the latest dated one) with the others as `dated`.
    At most one undated row, and dated rows whose dates do not overlap."""
    name = Path(source).name
    undated = [(line, s) for line, s in entries if not (s.valid_from or s.valid_to)]
    for line, security in undated[1:]:
        if security != undated[0][1]:
            problems.append(
                SourceProblem(source, f"{name} maps cusip {security.cusip} again, unlike line {undated[0][0]}", line)
            )
    dated = sorted(
        ((line, s) for line, s in entries if s.valid_from or s.valid_to),
        key=lambda e: (e[1].valid_from or date.min, e[0]),
    )
    for (first, a), (line, b) in pairwise(dated):
        if (b.valid_from or date.min) <= (a.valid_to or date.max):
            problems.append(SourceProblem(source, f"{name} gives cusip {b.cusip} dates overlapping line {first}", line))
    main = undated[0][1] if undated else dated[-1][1]
    others = tuple(s for _, s in dated if s is not main)
    return dataclasses.replace(main, dated=others)


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()
