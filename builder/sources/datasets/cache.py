"""What one data-set zip yields, kept by the zip's sha256 so that a re-publish opens no zip again.

An entry is a Parquet file `<root>/<reader digest>/<sha[:2]>/<sha256>.parquet`: the summed long-equity rows of every
accession (sorted by CUSIP, so a read of a few CUSIPs skips most row groups) and, in its key-value metadata,
the set's filings, their median prices and its row counts. The digest covers the reader's source files, so a
changed reader never reads an old entry. Pages carry CRC checksums, verified on read; an entry that is
unreadable or altered is a miss, and the zip is read again. Written beside its place, renamed when whole; the
layout and the temporary prefix are the parse cache's, so one clean-up (`remove_temporaries`) serves both.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from builder import records
from builder.records import Amendment
from builder.sources.datasets import filers, infotable, members
from builder.sources.datasets.filers import SetFiling
from builder.sources.sec13f import rules
from builder.sources.sec13f.cache import TEMPORARY_PREFIX

_READER_MODULES = (records, rules, filers, infotable, members)
_READER_FILES = (*(Path(inspect.getfile(m)) for m in _READER_MODULES), Path(__file__))
META_KEY = b"ras-dataset"
BATCH_ROWS = 128 * 1024  # rows read from an entry at a time


@dataclass(frozen=True, slots=True)
class SetExtract:
    """What one data-set zip yields: its holdings reports, their summed long-equity rows (values as filed),
    each accession's median value per share, and the INFOTABLE rows read and skipped as bad."""

    filings: tuple[SetFiling, ...]
    holdings: pa.Table  # infotable.HOLDINGS
    medians: dict[int, float]
    rows: int
    bad: int


def reader_digest() -> str:
    """The first 16 hex digits of the sha256 of the reader's source files."""
    digest = hashlib.sha256()
    for path in _READER_FILES:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def entry_path(root: Path, sha256: str) -> Path:
    return root / reader_digest() / sha256[:2] / f"{sha256}.parquet"


def read_entry(path: Path, cusips: frozenset[str]) -> SetExtract | None:
    """The entry at `path` with only the rows of `cusips`; None when it is missing or not intact."""
    try:
        entry = pq.ParquetFile(path, page_checksum_verification=True)
        meta = orjson.loads(entry.schema_arrow.metadata[META_KEY])
        asked = pa.array(sorted(cusips), pa.string())
        # Batch by batch, so only the asked rows are ever whole: the asked CUSIPs lie in every row group.
        batches = (b.filter(pc.is_in(b["cusip"], value_set=asked)) for b in entry.iter_batches(BATCH_ROWS))
        table = pa.Table.from_batches(list(batches), schema=entry.schema_arrow)
        filings = tuple(
            SetFiling(a, cik, date.fromisoformat(p), date.fromisoformat(f), Amendment(kind), number)
            for a, cik, p, f, kind, number in meta["filings"]
        )
        medians = {int(key): float(value) for key, value in meta["medians"]}
        return SetExtract(filings, table.cast(infotable.HOLDINGS), medians, int(meta["rows"]), int(meta["bad"]))
    except (OSError, pa.ArrowException, orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        return None


def write_entry(path: Path, extract: SetExtract) -> None:
    """Write atomically (a reader sees a whole entry or none); a cache that cannot be written is only slower."""
    meta = {
        "filings": [
            [f.accession, f.cik, f.period.isoformat(), f.filed.isoformat(), f.amendment.value, f.amendment_no]
            for f in extract.filings
        ],
        "medians": sorted(extract.medians.items()),
        "rows": extract.rows,
        "bad": extract.bad,
    }
    table = extract.holdings.replace_schema_metadata({META_KEY: orjson.dumps(meta)})
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=TEMPORARY_PREFIX)
        os.close(handle)
        pq.write_table(table, temporary, row_group_size=256 * 1024, write_page_checksum=True, compression="zstd")
        os.replace(temporary, path)
    except (OSError, pa.ArrowException):
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
