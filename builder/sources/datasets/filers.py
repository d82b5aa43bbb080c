"""SUBMISSION.tsv and COVERPAGE.tsv of one data set → one `SetFiling` per 13F holdings report in it.

A filing's quarter is its PERIODOFREPORT (a set mixes periods: late filings and amendments), its date the
FILING_DATE (which decides the unit of VALUE), its amendment kind COVERPAGE's ISAMENDMENT and AMENDMENTTYPE.
Notices (13F-NT) have no information table and are left out: a book is made of holdings reports only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import get_args

import pyarrow as pa
import pyarrow.csv as csv

from builder.records import Amendment, FormType
from builder.sources.datasets.infotable import accession_key, header
from builder.sources.datasets.members import Archive, DatasetError

HOLDINGS_REPORTS: frozenset[str] = frozenset(get_args(FormType))
SUBMISSION = ("ACCESSION_NUMBER", "FILING_DATE", "SUBMISSIONTYPE", "CIK", "PERIODOFREPORT")
COVERPAGE = ("ACCESSION_NUMBER", "ISAMENDMENT", "AMENDMENTNO", "AMENDMENTTYPE")
MONTHS = {
    m: i
    for i, m in enumerate(["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"], start=1)
}


@dataclass(frozen=True, slots=True)
class SetFiling:
    """One 13F holdings report of a data set: what its book needs besides the rows."""

    accession: str
    cik: str  # 10 digits
    period: date
    filed: date
    amendment: Amendment
    amendment_no: int

    @property
    def key(self) -> int:
        return accession_key(self.accession)


def columns(archive: Archive, name: str, wanted: Sequence[str]) -> None:
    """DatasetError naming the member and the columns it lacks."""
    with archive.open(name) as stream:
        found = set(header(stream))
    missing = [column for column in wanted if column not in found]
    if missing:
        raise DatasetError(f"{name} lacks the column{'s' * (len(missing) > 1)} {', '.join(missing)}")


def read_filings(archive: Archive) -> tuple[list[SetFiling], int]:
    """The holdings reports of the set and how many SUBMISSION rows were unreadable (a bad date, CIK, …)."""
    submissions = _table(archive, "SUBMISSION.tsv", SUBMISSION)
    covers = _table(archive, "COVERPAGE.tsv", COVERPAGE)
    cover = {row[0]: row[1:] for row in zip(*(covers[c].to_pylist() for c in COVERPAGE), strict=True)}
    filings, bad = [], 0
    for accession, filed, kind, cik, period in zip(*(submissions[c].to_pylist() for c in SUBMISSION), strict=True):
        if kind.strip().upper() not in HOLDINGS_REPORTS:
            continue
        filing = _filing(accession, filed, cik, period, cover.get(accession, ("N", "", "")))
        if filing is None:
            bad += 1
        else:
            filings.append(filing)
    return filings, bad


def _table(archive: Archive, name: str, wanted: Sequence[str]) -> pa.Table:
    columns(archive, name, wanted)
    options = csv.ConvertOptions(
        include_columns=list(wanted), column_types=dict.fromkeys(wanted, pa.string()), strings_can_be_null=False
    )
    with archive.open(name) as stream:
        try:
            return csv.read_csv(stream, parse_options=csv.ParseOptions(delimiter="\t"), convert_options=options)
        except (pa.ArrowException, UnicodeDecodeError) as exc:
            raise DatasetError(f"{name} cannot be read: {exc}") from exc


def _filing(accession: str, filed: str, cik: str, period: str, cover: tuple[str, str, str]) -> SetFiling | None:
    is_amendment, number, kind = (value.strip().upper() for value in cover)
    try:
        key_ok = accession_key(accession) >= 0 and len(accession) == 20
        filing_date, period_date, cik_number = day(filed), day(period), int(cik)
    except ValueError:
        return None
    if not key_ok:
        return None
    return SetFiling(
        accession=accession,
        cik=f"{cik_number:010d}",
        period=period_date,
        filed=filing_date,
        amendment=amendment(is_amendment, kind),
        amendment_no=int(number) if number.isdigit() else (0 if is_amendment != "Y" else 1),
    )


def amendment(is_amendment: str, kind: str) -> Amendment:
    """As our 13F reader: NEW HOLDINGS adds rows; any other amendment (RESTATEMENT, or no type) restates."""
    if is_amendment != "Y":
        return Amendment.ORIGINAL
    return Amendment.NEW_HOLDINGS if kind == "NEW HOLDINGS" else Amendment.RESTATEMENT


def day(text: str) -> date:
    """`31-MAR-2025` → date(2025, 3, 31); ValueError otherwise."""
    parts = text.strip().upper().split("-")
    if len(parts) != 3 or parts[1] not in MONTHS:
        raise ValueError(f"not a DD-MON-YYYY date: {text!r}")
    return date(int(parts[2]), MONTHS[parts[1]], int(parts[0]))
