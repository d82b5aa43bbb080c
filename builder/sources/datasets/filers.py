"""SUBMISSION, COVERPAGE and SUMMARYPAGE of one data set → one `SetFiling` per 13F holdings report in it.

A filing's quarter is its PERIODOFREPORT (a set mixes periods: late filings and amendments), its date the
FILING_DATE (which decides the unit of VALUE), its amendment kind COVERPAGE's ISAMENDMENT and AMENDMENTTYPE; its
cover (FILINGMANAGER_NAME, REPORTTYPE) and summary page (TABLEENTRYTOTAL, TABLEVALUETOTAL, ISCONFIDENTIALOMITTED)
are what a pack's own filing read from the set needs besides its rows. Notices (13F-NT) have no information table
and are left out: a book is made of holdings reports only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from typing import get_args

import pyarrow as pa
import pyarrow.csv as csv

from builder.records import Amendment, FormType
from builder.sources.datasets.infotable import accession_key, header
from builder.sources.datasets.members import Archive, DatasetError

HOLDINGS_REPORTS: frozenset[str] = frozenset(get_args(FormType))
SUBMISSION = ("ACCESSION_NUMBER", "FILING_DATE", "SUBMISSIONTYPE", "CIK", "PERIODOFREPORT")
COVERPAGE = ("ACCESSION_NUMBER", "ISAMENDMENT", "AMENDMENTNO", "AMENDMENTTYPE", "FILINGMANAGER_NAME", "REPORTTYPE")
SUMMARYPAGE = ("ACCESSION_NUMBER", "TABLEENTRYTOTAL", "TABLEVALUETOTAL", "ISCONFIDENTIALOMITTED")
_NO_COVER = ("N", "", "", "", "")  # a filing COVERPAGE does not list: an original, nameless
MONTHS = {
    m: i
    for i, m in enumerate(["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"], start=1)
}


@dataclass(frozen=True, slots=True)
class SetCover:
    """A filing's COVERPAGE and SUMMARYPAGE fields as the set gives them (texts, stripped): what our 13F reader
    takes from a primary document's cover and summary page, read by the same rules when the filing is a pack's."""

    is_amendment: str  # ISAMENDMENT: "Y" or "N"
    amendment_no: str
    amendment_type: str
    manager_name: str
    report_type: str
    entry_total: str | None  # SUMMARYPAGE's; None (all three) when the set has no SUMMARYPAGE row for it
    value_total: str | None
    confidential_omitted: str | None


@dataclass(frozen=True, slots=True)
class SetFiling:
    """One 13F holdings report of a data set: what its book needs besides the rows."""

    accession: str
    cik: str  # 10 digits
    period: date
    filed: date
    amendment: Amendment
    amendment_no: int
    form_type: str = "13F-HR"  # SUBMISSIONTYPE: "13F-HR" or "13F-HR/A"
    cover: SetCover | None = None
    line: int = 0  # its line in SUBMISSION.tsv (the header is line 1)

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


def read_filings(archive: Archive) -> tuple[list[SetFiling], list[Unreadable]]:
    """The holdings reports of the set, and the SUBMISSION rows of holdings reports that cannot be read (a bad date,
    CIK or accession number), each with its line and what is wrong."""
    submissions = _table(archive, "SUBMISSION.tsv", SUBMISSION)
    cover = _rows_by_accession(_table(archive, "COVERPAGE.tsv", COVERPAGE), COVERPAGE)
    summary = _rows_by_accession(_table(archive, "SUMMARYPAGE.tsv", SUMMARYPAGE), SUMMARYPAGE)
    filings, bad = [], []
    rows = zip(*(submissions[c].to_pylist() for c in SUBMISSION), strict=True)
    for line, (accession, filed, kind, cik, period) in enumerate(rows, start=2):
        form = kind.strip().upper()
        if form not in HOLDINGS_REPORTS:
            continue
        found = tuple(text.strip() for text in cover.get(accession, _NO_COVER))
        filing = _filing(accession, filed, cik, period, found[:3])
        if isinstance(filing, str):
            bad.append(Unreadable(line, cik.strip(), f"{accession.strip() or 'a row'}: {filing}"))
            continue
        totals = summary.get(accession)
        entries, value, omitted = (t.strip() for t in totals) if totals else (None, None, None)
        made = SetCover(found[0], found[1], found[2], found[3], found[4], entries, value, omitted)
        filings.append(replace(filing, form_type=form, cover=made, line=line))
    return filings, bad


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A SUBMISSION row of a holdings report that cannot be read: fatal only when it is a pack manager's."""

    line: int
    cik: str  # as given (it may be what is wrong)
    message: str


def _rows_by_accession(table: pa.Table, names: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each row's fields after the first, by the first (ACCESSION_NUMBER)."""
    return {row[0]: row[1:] for row in zip(*(table[c].to_pylist() for c in names), strict=True)}


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


def _filing(accession: str, filed: str, cik: str, period: str, cover: tuple[str, ...]) -> SetFiling | str:
    """The filing of a SUBMISSION row and its cover's amendment fields; what is wrong with it when it cannot be read."""
    is_amendment, number, kind = (value.upper() for value in cover)
    try:
        if len(accession) != 20 or accession_key(accession) < 0:
            raise ValueError(f"ACCESSION_NUMBER {accession!r} is not ##########-##-######")
        filing_date, period_date = day(filed, "FILING_DATE"), day(period, "PERIODOFREPORT")
        if not cik.strip().isdigit() or len(cik.strip()) > 10:
            raise ValueError(f"CIK {cik!r} is not up to ten digits")
    except ValueError as exc:
        return str(exc)
    return SetFiling(
        accession=accession,
        cik=cik.strip().zfill(10),
        period=period_date,
        filed=filing_date,
        amendment=amendment(is_amendment, " ".join(kind.split())),
        amendment_no=int(number) if number.isdigit() else (0 if is_amendment != "Y" else 1),
    )


def amendment(is_amendment: str, kind: str) -> Amendment:
    """As our 13F reader: NEW HOLDINGS adds rows; any other amendment (RESTATEMENT, or no type) restates."""
    if is_amendment != "Y":
        return Amendment.ORIGINAL
    return Amendment.NEW_HOLDINGS if kind == "NEW HOLDINGS" else Amendment.RESTATEMENT


def day(text: str, name: str = "date") -> date:
    """`31-MAR-2025` → date(2025, 3, 31); ValueError naming the column otherwise."""
    parts = text.strip().upper().split("-")
    try:
        if len(parts) == 3 and parts[1] in MONTHS and parts[0].isdigit() and parts[2].isdigit():
            return date(int(parts[2]), MONTHS[parts[1]], int(parts[0]))
    except ValueError:
        pass
    raise ValueError(f"{name} {text!r} is not a DD-MON-YYYY date")
