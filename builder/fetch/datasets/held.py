"""Which 13F holdings reports the data-set zips of a source tree hold, so that `ras fetch` asks EDGAR only for the
filings no set holds (the newest, before the SEC posts their set; a late amendment in a set outside the window).

Read from each zip's SUBMISSION.tsv (ACCESSION_NUMBER, SUBMISSIONTYPE, CIK: the Form 13F data sets' readme §5.1),
streamed, by base name as everywhere else. A zip that cannot be read holds nothing here: its filings are then
fetched one by one, and the publish names the zip.
"""

from __future__ import annotations

import csv
import io
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from builder.fetch.edgar import HOLDINGS_FORMS
from builder.sources.files import hidden

COLUMNS = ("ACCESSION_NUMBER", "SUBMISSIONTYPE", "CIK")
_BROKEN = (zipfile.BadZipFile, zlib.error, EOFError, OSError, UnicodeDecodeError, csv.Error, ValueError)


def accessions_in_sets(folder: Path, ciks: Iterable[str]) -> frozenset[str]:
    """The accessions of the holdings reports of `ciks` (10 digits) that the zips in `folder` hold."""
    wanted = frozenset(ciks)
    found: set[str] = set()
    for path in sorted(folder.glob("*.zip")) if folder.is_dir() else []:
        if not hidden(path.name):
            found |= _held(path, wanted)
    return frozenset(found)


def _held(path: Path, ciks: frozenset[str]) -> set[str]:
    try:
        with zipfile.ZipFile(path) as archive:
            member = next(i for i in archive.infolist() if PurePosixPath(i.filename).name.upper() == "SUBMISSION.TSV")
            with archive.open(member) as raw:
                rows = csv.reader(io.TextIOWrapper(raw, encoding="utf-8", newline=""), delimiter="\t")
                header = next(rows)
                accession, kind, cik = (header.index(column) for column in COLUMNS)
                return {
                    row[accession]
                    for row in rows
                    if len(row) == len(header) and row[cik].zfill(10) in ciks and row[kind].strip() in HOLDINGS_FORMS
                }
    except (*_BROKEN, StopIteration):
        return set()
