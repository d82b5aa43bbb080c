"""Every INFOTABLE row of one data set as filed, kept beside the set's aggregate, and the rows of given filings read
back from it: a pack manager's own filing read from the data sets is made of these rows, checked by the same rules
as the rows of its XML information table.

The rows are written while INFOTABLE streams through `infotable.aggregate_infotable`, block by block, into a Parquet
file (never whole in memory): the accession as its 18-digit key, INFOTABLE_SK, and the row's twelve fields as text,
as the set gives them. A filing's rows are its INFOTABLE rows in INFOTABLE_SK order: the order the set numbers them
in, which is the order a citation's row number counts (the SEC's data-set readme: INFOTABLE_SK is the row's key).
A row the CSV reader cannot split into the table's columns is kept aside with its accession, so that a pack's filing
missing a row says so instead of publishing a book short of it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

FIELDS = (  # INFOTABLE's columns of one row, in the order our 13F reader reads a row's texts
    "NAMEOFISSUER",
    "TITLEOFCLASS",
    "CUSIP",
    "VALUE",
    "SSHPRNAMT",
    "SSHPRNAMTTYPE",
    "PUTCALL",
    "INVESTMENTDISCRETION",
    "OTHERMANAGER",
    "VOTING_AUTH_SOLE",
    "VOTING_AUTH_SHARED",
    "VOTING_AUTH_NONE",
)
COLUMNS = ("ACCESSION_NUMBER", "INFOTABLE_SK", *FIELDS)
ROWS = pa.schema([("accession", pa.int64()), ("sk", pa.int64()), *((name.lower(), pa.string()) for name in FIELDS)])
ROW_GROUP = 128 * 1024  # rows a row group: a filing's rows lie in one or two, which its accession's statistics find
BROKEN_TEXT = 160  # characters kept of a row that could not be split, to quote in the message


@dataclass(frozen=True, slots=True)
class Broken:
    """An INFOTABLE line the CSV reader could not split into the table's columns (a field too many or too few)."""

    accession: str  # its first field, where it looks like an accession number ("" otherwise)
    text: str  # its start, as filed


class RowsWriter:
    """Writes a set's INFOTABLE rows, block by block, into one Parquet file."""

    def __init__(self, path: Path) -> None:
        self._writer = pq.ParquetWriter(path, ROWS, compression="zstd", write_page_checksum=True)

    def write(self, block: pa.Table, accession: pa.ChunkedArray, valid: pa.ChunkedArray) -> None:
        """The rows of `block` whose accession number is well-formed (`valid`), keyed by `accession` (its digits)."""
        block, keys = block.filter(valid), accession.filter(valid)
        sk = block["INFOTABLE_SK"]
        sk = pc.if_else(pc.ascii_is_decimal(sk), sk, None)  # a key that is no number: the row keeps its place unkeyed
        columns = [pc.cast(keys, pa.int64()), pc.cast(sk, pa.int64()), *(block[name] for name in FIELDS)]
        self._writer.write_table(pa.table(columns, schema=ROWS), row_group_size=ROW_GROUP)

    def close(self) -> None:
        self._writer.close()


def broken_row(text: str) -> Broken:
    """What is kept of a line that could not be split."""
    first = text.split("\t", 1)[0].strip()
    accession = first if len(first) == 20 and first.replace("-", "").isdigit() else ""
    return Broken(accession, text[:BROKEN_TEXT])


SetRow = tuple[int | None, tuple[str, ...]]  # a row's INFOTABLE_SK (None when it is no number) and its texts


def filing_rows(path: Path, keys: Iterable[int]) -> dict[int, list[SetRow]]:
    """Accession key → its rows (their texts in FIELDS' order, stripped), in INFOTABLE_SK order, for each of `keys`
    with rows; OSError or ArrowException when the file is missing or damaged (its pages carry checksums)."""
    wanted = sorted(set(keys))
    if not wanted:
        return {}
    table = pq.read_table(
        path, filters=[("accession", "in", wanted)], use_threads=False, page_checksum_verification=True
    )
    table = table.sort_by([("accession", "ascending"), ("sk", "ascending")])
    found: dict[int, list[SetRow]] = {}
    columns = [table[name.lower()].to_pylist() for name in FIELDS]
    for key, sk, *texts in zip(table["accession"].to_pylist(), table["sk"].to_pylist(), *columns, strict=True):
        found.setdefault(key, []).append((sk, tuple(text.strip() for text in texts)))
    return found
