"""Reads securities.csv (header `cusip,ticker,name`, optional `figi`, more columns allowed) into Security records."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from pathlib import Path

from builder.records import Security, SourceProblem
from builder.sources.files import DEFAULT_LIMITS, Limit, read_bounded

MAX_PROBLEMS_LISTED = 50  # past this many, one more problem counts the rest: the file is wrong as a whole
_COLUMNS = ("cusip", "ticker", "name")
_CUSIP = re.compile(r"[A-Z0-9]{9}")  # the nine characters of a CUSIP, as in the 13F information table


def read_securities(
    path: Path, base: Path, limit: Limit = DEFAULT_LIMITS.file
) -> tuple[dict[str, Security], tuple[SourceProblem, ...]]:
    """The CUSIP → Security map of `path` (read up to `limit`), and every problem found, each naming the file and line."""
    source = Path(_relative(path, base)).as_posix()
    data = read_bounded(path, source, limit)
    if isinstance(data, SourceProblem):
        return {}, (data,)
    try:
        text = data.decode("utf-8-sig")  # spreadsheet exports often start with a byte-order mark
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return {}, (SourceProblem(source, f"{path.name} is not UTF-8 (byte 0x{data[exc.start]:02x})", line),)
    return parse_securities(text, source)


def parse_securities(text: str, source: str) -> tuple[dict[str, Security], tuple[SourceProblem, ...]]:
    """The CUSIP → Security map of CSV `text`, and its problems (then the map is empty); pure."""
    securities: dict[str, Security] = {}
    first_line: dict[str, int] = {}
    problems: list[SourceProblem] = []
    for line, found in _records(text, source):
        if isinstance(found, SourceProblem):
            problems.append(found)
        elif found.cusip not in securities:
            securities[found.cusip], first_line[found.cusip] = found, line
        elif securities[found.cusip] != found:
            message = f"{Path(source).name} maps cusip {found.cusip} again, unlike line {first_line[found.cusip]}"
            problems.append(SourceProblem(source, message, line))
    if not securities and not problems:  # an empty map publishes every holding keyed by CUSIP: a wrong file
        message = f"{Path(source).name} has no data rows: add cusip,ticker,name rows or run `ras securities`"
        problems.append(SourceProblem(source, message, 1))
    if len(problems) > MAX_PROBLEMS_LISTED:
        more = len(problems) - MAX_PROBLEMS_LISTED
        problems = [*problems[:MAX_PROBLEMS_LISTED], SourceProblem(source, f"and {more} more problems")]
    return (securities, ()) if not problems else ({}, tuple(problems))


def _records(text: str, source: str) -> Iterator[tuple[int, Security | SourceProblem]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)  # bad quoting is an error, not a guess
    try:
        header = [name.strip().lower() for name in next(reader, [])]
        missing = [column for column in _COLUMNS if column not in header]
        if missing:
            message = f"{Path(source).name} header lacks {', '.join(missing)} (it needs cusip,ticker,name)"
            yield 1, SourceProblem(source, message, 1)
            return
        columns = [header.index(column) for column in _COLUMNS]
        columns += [header.index("figi")] if "figi" in header else []  # optional: links CUSIPs of one security
        for record in reader:
            if any(field.strip() for field in record):
                yield reader.line_num, _security(record, columns, source, reader.line_num)
    except csv.Error as exc:
        yield reader.line_num, SourceProblem(source, f"{Path(source).name} is not valid CSV ({exc})", reader.line_num)


def _security(record: list[str], columns: list[int], source: str, line: int) -> Security | SourceProblem:
    name = Path(source).name
    if len(record) <= max(columns):
        return SourceProblem(source, f"{name} has {len(record)} fields, fewer than its header", line)
    cusip, ticker, issuer, *figi = (record[index].strip() for index in columns)
    if not _CUSIP.fullmatch(cusip.upper()):
        return SourceProblem(source, f"{name} has cusip {cusip!r}, not nine letters or digits", line)
    if not ticker:
        return SourceProblem(source, f"{name} has no ticker for cusip {cusip}", line)
    return Security(cusip.upper(), ticker, issuer, figi[0].upper() if figi else "")


def _relative(path: Path, base: Path) -> str:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return path.as_posix()
