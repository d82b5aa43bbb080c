"""Write `Filing` records as the SEC's Form 13F data sets: one zip per filing window, seven tab-separated tables.

The inverse of the data-set reader, for test and benchmark universes. Layout as the SEC publishes it (Form 13F
data sets readme and FORM13F_metadata.json; the real tables in ../shared/realdata/sec-datasets/): members
SUBMISSION, COVERPAGE, OTHERMANAGER, OTHERMANAGER2, SIGNATURE, SUMMARYPAGE and INFOTABLE `.tsv`, each with the
SEC's header line; tab-separated, LF line ends, a field holding `"` quoted with doubled quotes; dates DD-MON-YYYY;
VALUE as filed (thousands of dollars before 2023-01-03, dollars after: `filed_value` applies that rule to a
dollar amount). A filing goes into the set of the window its filing date falls in (`window_name`). Deterministic:
members in a fixed order with a fixed timestamp, so the same filings always give the same bytes.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path

from builder.records import Amendment, Filing
from builder.sources.datasets.rows import COLUMNS as ROW_COLUMNS
from builder.sources.sec13f.rules import DOLLARS_FROM  # SEC: values in dollars from filings of 2023-01-03 on
from builder.sources.sec13f.writer import DEFAULT_FILER, FilerDetails

# The header of each table, copied from the SEC's files (01mar2025-31may2025 set; FORM13F_metadata.json).
COLUMNS: dict[str, tuple[str, ...]] = {
    "SUBMISSION.tsv": ("ACCESSION_NUMBER", "FILING_DATE", "SUBMISSIONTYPE", "CIK", "PERIODOFREPORT"),
    "COVERPAGE.tsv": (
        "ACCESSION_NUMBER",
        "REPORTCALENDARORQUARTER",
        "ISAMENDMENT",
        "AMENDMENTNO",
        "AMENDMENTTYPE",
        "CONFDENIEDEXPIRED",
        "DATEDENIEDEXPIRED",
        "DATEREPORTED",
        "REASONFORNONCONFIDENTIALITY",
        "FILINGMANAGER_NAME",
        "FILINGMANAGER_STREET1",
        "FILINGMANAGER_STREET2",
        "FILINGMANAGER_CITY",
        "FILINGMANAGER_STATEORCOUNTRY",
        "FILINGMANAGER_ZIPCODE",
        "REPORTTYPE",
        "FORM13FFILENUMBER",
        "CRDNUMBER",
        "SECFILENUMBER",
        "PROVIDEINFOFORINSTRUCTION5",
        "ADDITIONALINFORMATION",
    ),
    "OTHERMANAGER.tsv": (
        "ACCESSION_NUMBER",
        "OTHERMANAGER_SK",
        "CIK",
        "FORM13FFILENUMBER",
        "CRDNUMBER",
        "SECFILENUMBER",
        "NAME",
    ),
    "OTHERMANAGER2.tsv": (
        "ACCESSION_NUMBER",
        "SEQUENCENUMBER",
        "CIK",
        "FORM13FFILENUMBER",
        "CRDNUMBER",
        "SECFILENUMBER",
        "NAME",
    ),
    "SIGNATURE.tsv": (
        "ACCESSION_NUMBER",
        "NAME",
        "TITLE",
        "PHONE",
        "SIGNATURE",
        "CITY",
        "STATEORCOUNTRY",
        "SIGNATUREDATE",
    ),
    "SUMMARYPAGE.tsv": (
        "ACCESSION_NUMBER",
        "OTHERINCLUDEDMANAGERSCOUNT",
        "TABLEENTRYTOTAL",
        "TABLEVALUETOTAL",
        "ISCONFIDENTIALOMITTED",
    ),
    "INFOTABLE.tsv": (*ROW_COLUMNS[:5], "FIGI", *ROW_COLUMNS[5:]),  # the columns a row is read by, and FIGI
}
WINDOWS_FROM = date(2024, 3, 1)  # three-month filing windows since March 2024; calendar quarters up to 2023q4
ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest zip timestamp: no clock in the bytes
MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
AMENDMENT_TYPES = {Amendment.RESTATEMENT: "RESTATEMENT", Amendment.NEW_HOLDINGS: "NEW HOLDINGS"}


def sec_date(day: date) -> str:
    """DD-MON-YYYY with an upper-case month, as the data sets write dates."""
    return f"{day.day:02d}-{MONTHS[day.month - 1]}-{day.year:04d}"


def filed_value(dollars: int, filed: date) -> int:
    """A dollar amount in the unit the SEC's rule asks of a filing made on `filed` (thousands before 2023-01-03)."""
    return dollars if filed >= DOLLARS_FROM else (dollars + 500) // 1000


def window(filed: date) -> tuple[date, date]:
    """First and last day of the data set that holds filings made on `filed`."""
    if filed < date(2024, 1, 1):
        first = date(filed.year, 3 * ((filed.month - 1) // 3) + 1, 1)
        return first, _month_end(first, 3)
    if filed < WINDOWS_FROM:
        return date(2024, 1, 1), date(2024, 2, 29)
    months = (filed.year * 12 + filed.month - 1 - 2) // 3 * 3 + 2  # windows open in March, June, September, December
    first = date(months // 12, months % 12 + 1, 1)
    return first, _month_end(first, 3)


def _month_end(first: date, months: int) -> date:
    index = first.year * 12 + first.month - 1 + months
    return date(index // 12, index % 12 + 1, 1) - timedelta(days=1)


def window_name(filed: date) -> str:
    """The SEC's zip name of the set holding filings made on `filed`: `2019q1_form13f.zip` up to 2023q4, then
    `01jan2024-29feb2024_form13f.zip`, then three-month windows such as `01mar2024-31may2024_form13f.zip`."""
    first, last = window(filed)
    if first < date(2024, 1, 1):
        return f"{first.year}q{(first.month - 1) // 3 + 1}_form13f.zip"
    return f"{sec_date(first).lower().replace('-', '')}-{sec_date(last).lower().replace('-', '')}_form13f.zip"


def named_window(name: str) -> tuple[date, date]:
    """First and last day of the filing window a set's zip name gives (window_name's, from 2024 on:
    `01mar2024-31may2024_form13f.zip`)."""
    first, last = name.split("_")[0].split("-")
    return datetime.strptime(first, "%d%b%Y").date(), datetime.strptime(last, "%d%b%Y").date()


def table_rows(filing: Filing, filer: FilerDetails = DEFAULT_FILER) -> dict[str, list[tuple[object, ...]]]:
    """The rows one filing adds to each table (INFOTABLE_SK left for the set to number)."""
    accession, amended = filing.accession, filing.amendment is not Amendment.ORIGINAL
    confidential = "Y" if filing.confidential_omitted else "N"
    return {
        "SUBMISSION.tsv": [(accession, sec_date(filing.filed), filing.form_type, filing.cik, sec_date(filing.period))],
        "COVERPAGE.tsv": [
            (
                accession,
                sec_date(filing.period),
                "Y" if amended else "N",
                filing.amendment_no or "",
                AMENDMENT_TYPES.get(filing.amendment, ""),
                *("", "", "", ""),
                filing.manager_name,
                filer.street,
                "",
                filer.city,
                filer.state,
                filer.zip_code,
                filing.report_type,
                filer.file_number,
                *("", "", "N", ""),
            )
        ],
        "OTHERMANAGER.tsv": [],
        "OTHERMANAGER2.tsv": [],
        "SIGNATURE.tsv": [
            (
                accession,
                filer.signer,
                filer.title,
                filer.phone,
                filer.signer,
                filer.city,
                filer.state,
                sec_date(filing.filed),
            )
        ],
        "SUMMARYPAGE.tsv": [
            (accession, 0, filing.table_entry_total or len(filing.rows), _value_total(filing), confidential)
        ],
        "INFOTABLE.tsv": [
            (
                accession,
                row.issuer,
                row.title_of_class,
                row.cusip,
                "",
                row.value,
                row.shares,
                row.share_type,
                row.put_call or "",
                row.discretion,
                row.other_managers,
                row.voting_sole,
                row.voting_shared,
                row.voting_none,
            )
            for row in filing.rows
        ],
    }


def _value_total(filing: Filing) -> int:
    return filing.table_value_total if filing.table_value_total is not None else sum(row.value for row in filing.rows)


def tables(filings: Iterable[Filing], filer: FilerDetails = DEFAULT_FILER) -> dict[str, bytes]:
    """Member name → the TSV bytes of one data set holding `filings` (in accession order)."""
    rows: dict[str, list[tuple[object, ...]]] = {member: [] for member in COLUMNS}
    for filing in sorted(filings, key=lambda f: f.accession):
        for member, found in table_rows(filing, filer).items():
            rows[member] += found
    info = rows["INFOTABLE.tsv"]
    rows["INFOTABLE.tsv"] = [(row[0], key, *row[1:]) for key, row in enumerate(info, start=1)]
    return {member: tsv(COLUMNS[member], rows[member]) for member in COLUMNS}


def tsv(header: Sequence[str], rows: Iterable[Sequence[object]]) -> bytes:
    """Tab-separated, LF line ends, `"` doubled inside a quoted field; a tab or line break in text becomes a space."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL, quotechar='"')
    writer.writerow(header)
    for row in rows:
        writer.writerow([_one_line(field) if isinstance(field, str) else field for field in row])
    return out.getvalue().encode("utf-8")


def _one_line(text: str) -> str:
    return text.replace("\r\n", " ").translate(_BREAKS)


_BREAKS = str.maketrans("\t\r\n", "   ")


def zip_bytes(members: dict[str, bytes]) -> bytes:
    """A zip of `members` in the given order, deflated, every entry dated ZIP_TIME."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, body in members.items():
            info = zipfile.ZipInfo(name, ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, body)
    return out.getvalue()


def write_datasets(folder: Path, filings: Iterable[Filing], filer: FilerDetails = DEFAULT_FILER) -> list[Path]:
    """One data-set zip per filing window into `folder` (created); the paths written, oldest window first."""
    by_window: dict[str, list[Filing]] = {}
    for filing in filings:
        by_window.setdefault(window_name(filing.filed), []).append(filing)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, found in sorted(by_window.items(), key=lambda item: window(item[1][0].filed)):
        path = folder / name
        path.write_bytes(zip_bytes(tables(found, filer)))
        written.append(path)
    return written
