"""What one data-set zip yields, kept by the zip's sha256 so that a re-publish opens no zip again.

An entry is two Parquet files under `<root>/<reader digest>/<sha[:2]>/`: `<sha256>.parquet`, the summed long-equity
rows of every accession (sorted by CUSIP, so a read of a few CUSIPs skips most row groups) and, in its key-value
metadata, the set's filings, their median prices, its row counts and the rows it could not read; and
`<sha256>.rows.parquet`, every INFOTABLE row as filed (`rows`), from which a pack manager's own filings are read. The digest covers the reader's source files, so a
changed reader never reads an old entry. Pages carry CRC checksums, verified on read; an entry that is
unreadable or altered is a miss, and the zip is read again. Written beside its place, renamed when whole; the
layout and the temporary prefix are the parse cache's, so one clean-up (`remove_temporaries`) serves both.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from builder import records
from builder.records import Amendment
from builder.sources.datasets import filers, infotable, members, rows
from builder.sources.datasets.filers import SetCover, SetFiling, Unreadable
from builder.sources.datasets.rows import Broken
from builder.sources.sec13f import rules
from builder.sources.sec13f.cache import TEMPORARY_PREFIX

_READER_MODULES = (records, rules, filers, infotable, members, rows)
_READER_FILES = (*(Path(inspect.getfile(m)) for m in _READER_MODULES), Path(__file__))
META_KEY = b"ras-dataset"
BATCH_ROWS = 128 * 1024  # rows read from an entry at a time


@dataclass(frozen=True, slots=True)
class SetExtract:
    """What one data-set zip yields: its holdings reports, their summed long-equity rows (values as filed; those of
    the CUSIPs asked, or all), each accession's median value per share, the INFOTABLE rows read and skipped as bad,
    the SUBMISSION rows of holdings reports that could not be read, and the INFOTABLE lines that could not be split."""

    filings: tuple[SetFiling, ...]
    holdings: pa.Table  # infotable.HOLDINGS
    medians: dict[int, float]
    rows: int
    bad: int
    unreadable: tuple[Unreadable, ...] = ()
    broken: tuple[Broken, ...] = ()


def reader_digest() -> str:
    """The first 16 hex digits of the sha256 of the reader's source files."""
    digest = hashlib.sha256()
    for path in _READER_FILES:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def entry_path(root: Path, sha256: str) -> Path:
    return root / reader_digest() / sha256[:2] / f"{sha256}.parquet"


def rows_path(entry: Path) -> Path:
    """Where the entry's every-row file lies, beside it."""
    return entry.with_name(entry.name.removesuffix(".parquet") + ".rows.parquet")


def read_entry(path: Path, cusips: frozenset[str] | None) -> SetExtract | None:
    """The entry at `path` with only the rows of `cusips` (none when None: what the metadata holds); None when it or
    its every-row file is missing, or it is not intact."""
    try:
        if not rows_path(path).is_file():
            return None
        entry = pq.ParquetFile(path, page_checksum_verification=True)
        meta = orjson.loads(entry.schema_arrow.metadata[META_KEY])
        table = infotable.HOLDINGS.empty_table() if cusips is None else _holdings(entry, cusips)
        return SetExtract(
            tuple(_filing(row) for row in meta["filings"]),
            table,
            {int(key): float(value) for key, value in meta["medians"]},
            int(meta["rows"]),
            int(meta["bad"]),
            tuple(Unreadable(*row) for row in meta["unreadable"]),
            tuple(Broken(*row) for row in meta["broken"]),
        )
    except (OSError, pa.ArrowException, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None


def _holdings(entry: pq.ParquetFile, cusips: frozenset[str]) -> pa.Table:
    asked = pa.array(sorted(cusips), pa.string())
    # Batch by batch, so only the asked rows are ever whole: the asked CUSIPs lie in every row group.
    batches = (b.filter(pc.is_in(b["cusip"], value_set=asked)) for b in entry.iter_batches(BATCH_ROWS))
    return pa.Table.from_batches(list(batches), schema=entry.schema_arrow).cast(infotable.HOLDINGS)


def write_entry(path: Path, extract: SetExtract, every_row: Path) -> None:
    """Write atomically (a reader sees a whole entry or none), the every-row file `every_row` moved in first; a cache
    that cannot be written is only slower."""
    meta = {
        "filings": [_filing_fields(f) for f in extract.filings],
        "medians": sorted(extract.medians.items()),
        "rows": extract.rows,
        "bad": extract.bad,
        "unreadable": [[u.line, u.cik, u.message] for u in extract.unreadable],
        "broken": [[b.accession, b.text] for b in extract.broken],
    }
    table = extract.holdings.replace_schema_metadata({META_KEY: orjson.dumps(meta)})
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.replace(every_row, rows_path(path))
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=TEMPORARY_PREFIX)
        os.close(handle)
        pq.write_table(table, temporary, row_group_size=256 * 1024, write_page_checksum=True, compression="zstd")
        os.replace(temporary, path)
    except (OSError, pa.ArrowException):
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)


def _filing_fields(filing: SetFiling) -> list[object]:
    cover = filing.cover
    return [
        filing.accession,
        filing.cik,
        filing.period.isoformat(),
        filing.filed.isoformat(),
        filing.amendment.value,
        filing.amendment_no,
        filing.form_type,
        None if cover is None else [getattr(cover, name) for name in SetCover.__slots__],
        filing.line,
    ]


def _filing(row: Sequence[object]) -> SetFiling:
    """A SetFiling from its `_filing_fields` as read back from JSON (TypeError or ValueError when they are not)."""
    accession, cik, period, filed, kind, number, form, cover, line = row
    if cover is not None and not isinstance(cover, list):
        raise TypeError("a filing's cover is a list")
    return SetFiling(
        str(accession),
        str(cik),
        date.fromisoformat(str(period)),
        date.fromisoformat(str(filed)),
        Amendment(str(kind)),
        int(str(number)),
        str(form),
        None if cover is None else _cover(cover),
        int(str(line)),
    )


def _cover(fields: list[object]) -> SetCover:
    texts = [None if value is None else str(value) for value in fields]
    cover = [text or "" for text in texts[:5]]
    return SetCover(cover[0], cover[1], cover[2], cover[3], cover[4], texts[5], texts[6], texts[7])
