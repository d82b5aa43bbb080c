"""The operator's CSV files (securities.csv, corporate_actions.csv): read bounded, decoded strictly, and iterated by
header name with the line of every record, so that every problem can name its file and line."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator, Sequence
from pathlib import Path

from builder.records import SourceProblem
from builder.sources.files import Limit, read_bounded

MAX_PROBLEMS_LISTED = 50  # past this many, one more problem counts the rest: the file is wrong as a whole


def read_csv_text(path: Path, source: str, limit: Limit) -> tuple[str | None, tuple[SourceProblem, ...]]:
    """The text of the CSV file at `path` (read up to `limit`, UTF-8 with an optional byte-order mark)."""
    data = read_bounded(path, source, limit)
    if isinstance(data, SourceProblem):
        return None, (data,)
    try:
        return data.decode("utf-8-sig"), ()  # spreadsheet exports often start with a byte-order mark
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, (SourceProblem(source, f"{path.name} is not UTF-8 (byte 0x{data[exc.start]:02x})", line),)


def csv_records(
    text: str, source: str, required: Sequence[str], optional: Sequence[str] = ()
) -> Iterator[tuple[int, dict[str, str] | SourceProblem]]:
    """(line, {column: stripped value}) for every non-blank record, by header name (more columns are allowed and
    ignored); a missing required column or bad quoting is a SourceProblem instead."""
    name = Path(source).name
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)  # bad quoting is an error, not a guess
    try:
        header = [column.strip().lower() for column in next(reader, [])]
        missing = [column for column in required if column not in header]
        if missing:
            yield (
                1,
                SourceProblem(source, f"{name} header lacks {', '.join(missing)} (it needs {','.join(required)})", 1),
            )
            return
        index = {column: header.index(column) for column in (*required, *optional) if column in header}
        last_required = max(header.index(column) for column in required)
        for record in reader:
            if not any(field.strip() for field in record):
                continue
            if len(record) <= last_required:
                yield (
                    reader.line_num,
                    SourceProblem(source, f"{name} has {len(record)} fields, fewer than its header", reader.line_num),
                )
                continue  # an optional column left off the end of a record is empty
            yield reader.line_num, {column: record[i].strip() if i < len(record) else "" for column, i in index.items()}
    except csv.Error as exc:
        yield reader.line_num, SourceProblem(source, f"{name} is not valid CSV ({exc})", reader.line_num)


def capped(problems: list[SourceProblem], source: str) -> tuple[SourceProblem, ...]:
    """At most MAX_PROBLEMS_LISTED problems, and one line counting the rest."""
    if len(problems) <= MAX_PROBLEMS_LISTED:
        return tuple(problems)
    more = len(problems) - MAX_PROBLEMS_LISTED
    return (*problems[:MAX_PROBLEMS_LISTED], SourceProblem(source, f"and {more} more problems"))
