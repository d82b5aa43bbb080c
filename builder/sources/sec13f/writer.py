"""Render `Filing` records as SEC Form 13F documents: primary document, information table, full submission.

The inverse of the 13F reader, used to generate the embedded fixture and synthetic benchmark sources.
Element order follows the SEC's schemas (`eis_13F_Filer.xsd`, `eis_13FDocument.xsd`, schema X0202);
the full submission follows EDGAR's `.txt` dissemination layout (SGML header, `<DOCUMENT>` sections).
Pure: no clock, no I/O; the same records always give the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from xml.sax.saxutils import escape

from builder.records import Amendment, Filing, HoldingRow

FILER_NS = "http://www.sec.gov/edgar/thirteenffiler"  # Form 13F primary document namespace
COMMON_NS = "http://www.sec.gov/edgar/common"  # address elements
TABLE_NS = "http://www.sec.gov/edgar/document/thirteenf/informationtable"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
SCHEMA_VERSION = "X0202"  # the 13F schema version EDGAR disseminates since 2023
AMENDMENT_TYPES = {Amendment.RESTATEMENT: "RESTATEMENT", Amendment.NEW_HOLDINGS: "NEW HOLDINGS"}
ACCEPTANCE_TIME = "160000"  # a Filing carries only the date; EDGAR's header also wants a time of day


@dataclass(frozen=True, slots=True)
class FilerDetails:
    """Cover-page and signature details a `Filing` record does not carry."""

    street: str = "1 Example Plaza"
    city: str = "Springfield"
    state: str = "IL"
    zip_code: str = "62701"
    signer: str = "A. Example"
    title: str = "Chief Compliance Officer"
    phone: str = "555-010-0100"
    file_number: str = ""  # form13FFileNumber, e.g. "028-12345"; omitted when empty


DEFAULT_FILER = FilerDetails()  # invented placeholder details for renderers given only a Filing


def edgar_date(day: date) -> str:
    """MM-DD-YYYY, the date format of 13F XML documents."""
    return f"{day.month:02d}-{day.day:02d}-{day.year:04d}"


def primary_document(filing: Filing, filer: FilerDetails = DEFAULT_FILER) -> bytes:
    """The `edgarSubmission` primary document (cover page, signature block, summary page)."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<edgarSubmission xsi:schemaLocation="{FILER_NS} eis_13F_Filer.xsd" xmlns="{FILER_NS}" '
        f'xmlns:ns1="{COMMON_NS}" xmlns:xsi="{XSI_NS}">',
        f"  <schemaVersion>{SCHEMA_VERSION}</schemaVersion>",
        *_header_data(filing),
        "  <formData>",
        *_cover_page(filing, filer),
        *_signature_block(filing, filer),
        *_summary_page(filing),
        "  </formData>",
        "</edgarSubmission>",
    ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def _header_data(filing: Filing) -> list[str]:
    return [
        "  <headerData>",
        f"    <submissionType>{_text(filing.form_type)}</submissionType>",
        "    <filerInfo>",
        "      <liveTestFlag>LIVE</liveTestFlag>",
        "      <flags>",
        "        <confirmingCopyFlag>false</confirmingCopyFlag>",
        "        <returnCopyFlag>false</returnCopyFlag>",
        "        <overrideInternetFlag>false</overrideInternetFlag>",
        "      </flags>",
        "      <filer>",
        "        <credentials>",
        f"          <cik>{_text(filing.cik)}</cik>",
        "          <ccc>XXXXXXXX</ccc>",
        "        </credentials>",
        "      </filer>",
        f"      <periodOfReport>{edgar_date(filing.period)}</periodOfReport>",
        "    </filerInfo>",
        "  </headerData>",
    ]  # fmt: skip


def _cover_page(filing: Filing, filer: FilerDetails) -> list[str]:
    lines = ["    <coverPage>", f"      <reportCalendarOrQuarter>{edgar_date(filing.period)}</reportCalendarOrQuarter>"]
    if filing.amendment is Amendment.ORIGINAL:
        lines.append("      <isAmendment>false</isAmendment>")
    else:
        lines += [
            "      <isAmendment>true</isAmendment>",
            f"      <amendmentNo>{filing.amendment_no}</amendmentNo>",
            "      <amendmentInfo>",
            f"        <amendmentType>{AMENDMENT_TYPES[filing.amendment]}</amendmentType>",
            "      </amendmentInfo>",
        ]
    lines += [
        "      <filingManager>",
        f"        <name>{_text(filing.manager_name)}</name>",
        "        <address>",
        f"          <ns1:street1>{_text(filer.street)}</ns1:street1>",
        f"          <ns1:city>{_text(filer.city)}</ns1:city>",
        f"          <ns1:stateOrCountry>{_text(filer.state)}</ns1:stateOrCountry>",
        f"          <ns1:zipCode>{_text(filer.zip_code)}</ns1:zipCode>",
        "        </address>",
        "      </filingManager>",
        f"      <reportType>{_text(filing.report_type)}</reportType>",
    ]
    if filer.file_number:
        lines.append(f"      <form13FFileNumber>{_text(filer.file_number)}</form13FFileNumber>")
    lines += ["      <provideInfoForInstruction5>N</provideInfoForInstruction5>", "    </coverPage>"]
    return lines


def _signature_block(filing: Filing, filer: FilerDetails) -> list[str]:
    return [
        "    <signatureBlock>",
        f"      <name>{_text(filer.signer)}</name>",
        f"      <title>{_text(filer.title)}</title>",
        f"      <phone>{_text(filer.phone)}</phone>",
        f"      <signature>/s/ {_text(filer.signer)}</signature>",
        f"      <city>{_text(filer.city)}</city>",
        f"      <stateOrCountry>{_text(filer.state)}</stateOrCountry>",
        f"      <signatureDate>{edgar_date(filing.filed)}</signatureDate>",
        "    </signatureBlock>",
    ]


def _summary_page(filing: Filing) -> list[str]:
    entries = len(filing.rows) if filing.table_entry_total is None else filing.table_entry_total
    total = sum(row.value for row in filing.rows) if filing.table_value_total is None else filing.table_value_total
    confidential = "true" if filing.confidential_omitted else "false"
    return [
        "    <summaryPage>",
        f"      <otherIncludedManagersCount>{_other_manager_count(filing.rows)}</otherIncludedManagersCount>",
        f"      <tableEntryTotal>{entries}</tableEntryTotal>",
        f"      <tableValueTotal>{total}</tableValueTotal>",
        f"      <isConfidentialOmitted>{confidential}</isConfidentialOmitted>",
        "    </summaryPage>",
    ]


def _other_manager_count(rows: Sequence[HoldingRow]) -> int:
    """How many other included managers the rows cite (their `otherManager` sequence numbers)."""
    numbers = {part.strip() for row in rows for part in row.other_managers.split(",") if part.strip()}
    return len(numbers)


def information_table(rows: Sequence[HoldingRow], prefix: str | None = None) -> bytes:
    """The `informationTable` document; with `prefix` (e.g. "ns1") every element carries it, as many filers do."""
    tag = f"{prefix}:" if prefix else ""
    if prefix:
        root = f'<{tag}informationTable xmlns:{prefix}="{TABLE_NS}">'
    else:
        root = (
            f'<informationTable xsi:schemaLocation="{TABLE_NS} eis_13FDocument.xsd" '
            f'xmlns="{TABLE_NS}" xmlns:xsi="{XSI_NS}">'
        )
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', root]
    for row in rows:
        lines += _info_table_row(row, tag)
    lines.append(f"</{tag}informationTable>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def _info_table_row(row: HoldingRow, tag: str) -> list[str]:
    def element(name: str, value: object, indent: int = 4) -> str:
        return f"{' ' * indent}<{tag}{name}>{_text(str(value))}</{tag}{name}>"

    lines = [
        f"  <{tag}infoTable>",
        element("nameOfIssuer", row.issuer),
        element("titleOfClass", row.title_of_class),
        element("cusip", row.cusip),
        element("value", row.value),
        f"    <{tag}shrsOrPrnAmt>",
        element("sshPrnamt", row.shares, 6),
        element("sshPrnamtType", row.share_type, 6),
        f"    </{tag}shrsOrPrnAmt>",
    ]
    if row.put_call:
        lines.append(element("putCall", row.put_call))
    lines.append(element("investmentDiscretion", row.discretion))
    if row.other_managers:
        lines.append(element("otherManager", row.other_managers))
    lines += [
        f"    <{tag}votingAuthority>",
        element("Sole", row.voting_sole, 6),
        element("Shared", row.voting_shared, 6),
        element("None", row.voting_none, 6),
        f"    </{tag}votingAuthority>",
        f"  </{tag}infoTable>",
    ]
    return lines


def full_submission(
    filing: Filing, filer: FilerDetails = DEFAULT_FILER, prefix: str | None = None, table_name: str = "infotable.xml"
) -> bytes:
    """The EDGAR full submission text file (`<accession>.txt`): SGML header, then both XML documents."""
    documents = (
        (filing.form_type, "primary_doc.xml", primary_document(filing, filer)),
        ("INFORMATION TABLE", table_name, information_table(filing.rows, prefix)),
    )
    parts = [_sgml_header(filing, filer, len(documents))]
    for sequence, (doc_type, name, body) in enumerate(documents, start=1):
        parts.append(
            f"<DOCUMENT>\n<TYPE>{doc_type}\n<SEQUENCE>{sequence}\n<FILENAME>{name}\n<TEXT>\n<XML>\n"
            f"{body.decode('utf-8')}</XML>\n</TEXT>\n</DOCUMENT>\n"
        )
    parts.append("</SEC-DOCUMENT>\n")
    return "".join(parts).encode("utf-8")


def _sgml_header(filing: Filing, filer: FilerDetails, document_count: int) -> str:
    filed = filing.filed.strftime("%Y%m%d")
    lines = [
        f"<SEC-DOCUMENT>{filing.accession}.txt : {filed}",
        f"<SEC-HEADER>{filing.accession}.hdr.sgml : {filed}",
        f"<ACCEPTANCE-DATETIME>{filed}{ACCEPTANCE_TIME}",
        f"ACCESSION NUMBER:\t\t{filing.accession}",
        f"CONFORMED SUBMISSION TYPE:\t{filing.form_type}",
        f"PUBLIC DOCUMENT COUNT:\t\t{document_count}",
        f"CONFORMED PERIOD OF REPORT:\t{filing.period.strftime('%Y%m%d')}",
        f"FILED AS OF DATE:\t\t{filed}",
        f"DATE AS OF CHANGE:\t\t{filed}",
        f"EFFECTIVENESS DATE:\t\t{filed}",
        "",
        "FILER:",
        "",
        "\tCOMPANY DATA:\t",
        f"\t\tCOMPANY CONFORMED NAME:\t\t\t{_sgml(filing.manager_name)}",
        f"\t\tCENTRAL INDEX KEY:\t\t\t{filing.cik}",
        "",
        "\tFILING VALUES:",
        f"\t\tFORM TYPE:\t\t{filing.form_type}",
        "\t\tSEC ACT:\t\t1934 Act",
        *([f"\t\tSEC FILE NUMBER:\t{filer.file_number}"] if filer.file_number else []),
        "",
        "\tBUSINESS ADDRESS:\t",
        f"\t\tSTREET 1:\t\t{_sgml(filer.street.upper())}",
        f"\t\tCITY:\t\t\t{_sgml(filer.city.upper())}",
        f"\t\tSTATE:\t\t\t{_sgml(filer.state)}",
        f"\t\tZIP:\t\t\t{_sgml(filer.zip_code)}",
        f"\t\tBUSINESS PHONE:\t\t{_sgml(filer.phone)}",
        "</SEC-HEADER>",
    ]  # fmt: skip
    return "\n".join(lines) + "\n"


def _text(value: str) -> str:
    """XML character data: &, < and > escaped (quotes are safe outside attributes)."""
    return escape(value)


def _sgml(value: str) -> str:
    """One header value on one line: EDGAR's SGML header has no escaping, so line breaks become spaces."""
    return " ".join(value.split())
