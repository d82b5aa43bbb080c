"""A parse cache for 13F source files: what each file holds, by the sha256 of its bytes, verified on read.

Entries live in `<root>/<parser digest>/<sha[:2]>/<sha>`: the digest covers the parser's own source, so a
changed parser starts a new directory and never reads an old one. Each entry is the sha256 of its payload,
a newline, then the payload (JSON); an entry that is unreadable, altered or of another shape is a miss and
the file is parsed again. Deleting the whole directory is always safe: it only costs the parsing.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import os
import tempfile
from collections.abc import Sequence
from datetime import date
from operator import attrgetter
from pathlib import Path
from typing import Any, Literal, TypedDict

import orjson

from builder import records
from builder.records import HoldingRow, holding_row
from builder.sources.sec13f import document, parsed, safexml, submission
from builder.sources.sec13f.document import InformationTable, PrimaryDocument, Summary
from builder.sources.sec13f.parsed import Envelope, Parsed, parse_file

# What an entry's meaning depends on: the parser, the records it makes, and this file's encoding of them.
_PARSER_FILES = (*(Path(inspect.getfile(m)) for m in (records, document, submission, safexml, parsed)), Path(__file__))
_ROW_FIELDS = attrgetter(*HoldingRow.__dataclass_fields__)
TEMPORARY_PREFIX = ".entry-"  # an entry being written, renamed into place when whole


def parser_digest() -> str:
    """The first 16 hex digits of the sha256 of the parser's source files."""
    digest = hashlib.sha256()
    for path in _PARSER_FILES:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class ParseCache:
    """Parses through a directory of earlier results; counts what came from it and what was parsed."""

    def __init__(self, root: Path) -> None:
        self.directory = root / parser_digest()
        self.hits = 0
        self.parsed = 0

    def parse(self, data: bytes, sha256: str) -> Parsed:
        """What `data` (whose sha256 is given) holds: from the cache when an intact entry exists."""
        path = self.directory / sha256[:2] / sha256
        found = _read_entry(path)
        if found is not None:
            self.hits += 1
            return found
        result = parse_file(data)  # a DocumentError propagates: failures are never cached
        self.parsed += 1
        _write_entry(path, orjson.dumps(_encoded(result)))
        return result

    def counting(self) -> ParseCache:
        """The same cache with counts of its own (a process reading a share of the files counts them apart)."""
        counted = copy.copy(self)
        counted.hits = counted.parsed = 0
        return counted

    def report(self) -> str:
        return f"parse cache: {self.hits} files from it, {self.parsed} parsed"


def _read_entry(path: Path) -> Parsed | None:
    try:
        stored = path.read_bytes()
    except OSError:
        return None
    checksum, _, payload = stored.partition(b"\n")
    if checksum.decode("ascii", "replace") != hashlib.sha256(payload).hexdigest():
        return None
    try:
        return _decoded(orjson.loads(payload))
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None


def remove_temporaries(root: Path) -> int:
    """Remove the entries a killed run left half-written under the cache `root` (one writer holds the releases
    lock); how many."""
    found = list(root.glob(f"*/*/{TEMPORARY_PREFIX}*")) if root.is_dir() else []
    for path in found:
        path.unlink(missing_ok=True)
    return len(found)


def _write_entry(path: Path, payload: bytes) -> None:
    """Write atomically (a reader sees a whole entry or none); a cache that cannot be written is only slower,
    and its temporary file never stays."""
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=TEMPORARY_PREFIX)
        with os.fdopen(handle, "wb") as sink:
            sink.write(hashlib.sha256(payload).hexdigest().encode() + b"\n" + payload)
        os.replace(temporary, path)
    except OSError:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


Row = Sequence[Any]  # a HoldingRow's fields, as holding_row takes them (a tuple written, a list read)


class EncodedPrimary(TypedDict):
    kind: Literal["primary"]
    type: str
    cik: str
    period: str
    signed: str | None
    manager: str
    report: str
    isAmendment: bool
    amendmentNo: int | None
    amendmentType: str | None
    summary: tuple[int | None, int | None, bool] | None  # entry and value totals, omitted (a JSON array)
    table: list[Row] | None


class EncodedEnvelope(TypedDict):
    kind: Literal["envelope"]
    type: str
    accession: str
    filed: str
    primary: EncodedPrimary | None
    rows: list[Row]


class EncodedTable(TypedDict):
    kind: Literal["table"]
    rows: list[Row]


Encoded = EncodedEnvelope | EncodedTable | EncodedPrimary  # a cache entry's JSON, told apart by `kind`


def _encoded(result: Parsed) -> Encoded:
    if isinstance(result, Envelope):
        primary = None if result.primary is None else _encoded_primary(result.primary)
        return {
            "kind": "envelope",
            "type": result.submission_type,
            "accession": result.accession,
            "filed": result.filed.isoformat(),
            "primary": primary,
            "rows": _rows_out(result.rows),
        }
    if isinstance(result, InformationTable):
        return {"kind": "table", "rows": _rows_out(result.rows)}
    return _encoded_primary(result)


def _encoded_primary(result: PrimaryDocument) -> EncodedPrimary:
    summary = result.summary
    return {
        "kind": "primary",
        "type": result.submission_type,
        "cik": result.cik,
        "period": result.period.isoformat(),
        "signed": result.signature_date.isoformat() if result.signature_date else None,
        "manager": result.manager_name,
        "report": result.report_type,
        "isAmendment": result.is_amendment,
        "amendmentNo": result.amendment_no,
        "amendmentType": result.amendment_type,
        "summary": (summary.entry_total, summary.value_total, summary.confidential_omitted) if summary else None,
        "table": None if result.table is None else _rows_out(result.table),
    }


def _decoded(entry: Encoded) -> Parsed:
    if entry["kind"] == "envelope":
        primary = None if entry["primary"] is None else _decoded_primary(entry["primary"])
        return Envelope(
            entry["type"], entry["accession"], date.fromisoformat(entry["filed"]), primary, _rows_in(entry["rows"])
        )
    if entry["kind"] == "table":
        return InformationTable(_rows_in(entry["rows"]))
    if entry["kind"] != "primary":
        raise ValueError(f"unknown entry kind {entry['kind']!r}")
    return _decoded_primary(entry)


def _decoded_primary(entry: EncodedPrimary) -> PrimaryDocument:
    if entry["kind"] != "primary":  # an envelope's primary document is one
        raise ValueError(f"unknown entry kind {entry['kind']!r}")
    return PrimaryDocument(
        submission_type=entry["type"],
        cik=entry["cik"],
        period=date.fromisoformat(entry["period"]),
        signature_date=date.fromisoformat(entry["signed"]) if entry["signed"] else None,
        manager_name=entry["manager"],
        report_type=entry["report"],
        is_amendment=entry["isAmendment"],
        amendment_no=entry["amendmentNo"],
        amendment_type=entry["amendmentType"],
        summary=Summary(*entry["summary"]) if entry["summary"] else None,
        table=None if entry["table"] is None else _rows_in(entry["table"]),
    )


def _rows_out(rows: tuple[HoldingRow, ...]) -> list[Row]:
    return [_ROW_FIELDS(row) for row in rows]


def _rows_in(rows: list[Row]) -> tuple[HoldingRow, ...]:
    return tuple(holding_row(*values) for values in rows)
