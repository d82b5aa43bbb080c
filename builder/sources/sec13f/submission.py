"""EDGAR submission envelopes (full submission `.txt`, feed `.nc`) → header fields and their documents; pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from builder.records import HoldingRow
from builder.sources.sec13f.document import InformationTable, PrimaryDocument, cik10, parse_document
from builder.sources.sec13f.safexml import DocumentError, check_utf8

# How each envelope starts: the full submission text file (`<SEC-DOCUMENT>`, its `<SEC-HEADER>`) and the
# dissemination feed's `.nc` file (`<SUBMISSION>`), as EDGAR serves them.
_STARTS = (b"<SEC-DOCUMENT>", b"<SEC-HEADER>", b"<SUBMISSION>")
# Header fields as (full-submission label, .nc tag); the filer's block comes first in both.
_FIELDS = {
    "accession": ("ACCESSION NUMBER", "ACCESSION-NUMBER"),
    "type": ("CONFORMED SUBMISSION TYPE", "TYPE"),
    "period": ("CONFORMED PERIOD OF REPORT", "PERIOD"),
    "filed": ("FILED AS OF DATE", "FILING-DATE"),
    "cik": ("CENTRAL INDEX KEY", "CIK"),
    "name": ("COMPANY CONFORMED NAME", "CONFORMED-NAME"),
}
_ACCESSION = re.compile(r"[0-9]{10}-[0-9]{2}-[0-9]{6}")  # EDGAR accession number: filer id, year, sequence
_DATE = re.compile(r"([0-9]{4})([0-9]{2})([0-9]{2})")  # header dates are YYYYMMDD
_DOCUMENT = re.compile(r"<DOCUMENT>(.*?)</DOCUMENT>", re.S)
_XML = re.compile(r"<XML>(.*?)</XML>", re.S)


@dataclass(frozen=True, slots=True)
class EnvelopeDocument:
    """One `<DOCUMENT>` of a submission: its type, file name and XML body (None for a text document)."""

    type: str  # "13F-HR", "INFORMATION TABLE", …
    filename: str
    xml: bytes | None
    line: int  # line of the envelope where `xml` (or the document) starts


@dataclass(frozen=True, slots=True)
class Submission:
    """A submission envelope: the SGML header's fields and the documents it carries."""

    accession: str
    submission_type: str
    period: date | None
    filed: date
    cik: str  # 10 digits
    company_name: str
    documents: tuple[EnvelopeDocument, ...]


def is_submission(data: bytes) -> bool:
    """Whether `data` is an EDGAR submission envelope (full submission text or .nc feed file)."""
    return data.lstrip().startswith(_STARTS)


def parse_submission(data: bytes) -> Submission:
    """The header and documents of an envelope; raises DocumentError when a field or a closing tag is missing."""
    check_utf8(data)
    text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")  # .nc files end lines with bare CR
    head = text.split("<DOCUMENT>", 1)[0]
    fields = {key: _field(head, *labels) for key, labels in _FIELDS.items()}
    for key in ("accession", "type", "filed", "cik"):
        if not fields[key]:
            raise DocumentError(f"is a submission whose header has no {_FIELDS[key][0]}")
    if not _ACCESSION.fullmatch(fields["accession"]):
        raise DocumentError(f"has accession number {fields['accession']!r}, which is not ##########-##-######")
    return Submission(
        accession=fields["accession"],
        submission_type=fields["type"].upper(),
        period=_date(fields["period"], "CONFORMED PERIOD OF REPORT") if fields["period"] else None,
        filed=_date(fields["filed"], "FILED AS OF DATE"),
        cik=cik10(fields["cik"]),
        company_name=fields["name"],
        documents=_documents(text),
    )


def accession_in(text: str) -> str | None:
    """The last accession number in `text` (dashed, or the 18 digits of EDGAR's archive folders), dashed."""
    found = re.findall(r"(?<![0-9])([0-9]{10})-?([0-9]{2})-?([0-9]{6})(?![0-9])", text)
    return "-".join(found[-1]) if found else None


def _field(head: str, label: str, tag: str) -> str:
    match = re.search(rf"^[ \t]*{re.escape(label)}:[ \t]*(\S.*?)[ \t]*$", head, re.M)
    match = match or re.search(rf"^<{re.escape(tag)}>[ \t]*(\S.*?)[ \t]*$", head, re.M)
    return match[1] if match else ""


def _date(text: str, name: str) -> date:
    match = _DATE.fullmatch(text)
    try:
        if match:
            return date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        pass
    raise DocumentError(f"has {name} {text!r}, which is not a date YYYYMMDD")


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _documents(text: str) -> tuple[EnvelopeDocument, ...]:
    matches = list(_DOCUMENT.finditer(text))
    if text.count("<DOCUMENT>") != len(matches):
        opened = text.rfind("<DOCUMENT>")
        raise DocumentError("is truncated: a <DOCUMENT> has no </DOCUMENT>", _line(text, opened))
    return tuple(_document(text, match) for match in matches)


def _document(text: str, match: re.Match[str]) -> EnvelopeDocument:
    body = match[1]
    kind = re.search(r"^<TYPE>[ \t]*(.*?)[ \t]*$", body, re.M)
    name = re.search(r"^<FILENAME>[ \t]*(.*?)[ \t]*$", body, re.M)
    xml = _XML.search(body)
    if xml is None and "<XML>" in body:
        raise DocumentError("is truncated: an <XML> block has no </XML>", _line(text, match.start(1)))
    start = match.start(1) + (xml.start(1) if xml else 0)
    return EnvelopeDocument(
        type=kind[1].upper() if kind else "",
        filename=name[1] if name else "",
        xml=xml[1].encode("utf-8") if xml else None,
        line=_line(text, start),
    )


def carried_documents(submission: Submission) -> tuple[PrimaryDocument, tuple[HoldingRow, ...] | None]:
    """The primary document and the information table's rows (None: no table) that a submission carries."""
    # exhibits and cover letters ride along under other types; only the 13F documents are read
    documents = [d for d in submission.documents if d.type.startswith("13F") or d.type == "INFORMATION TABLE"]
    if documents and not any(document.xml for document in documents):
        raise DocumentError("is a legacy text 13F filing (before 2013, when the table became XML): not read")
    primaries: list[PrimaryDocument] = []
    tables: list[InformationTable] = []
    for document in documents:
        parsed = _parsed(document) if document.xml else None
        if isinstance(parsed, PrimaryDocument):
            primaries.append(parsed)
        elif isinstance(parsed, InformationTable):
            tables.append(parsed)
    if len(primaries) != 1 or len(tables) > 1:
        found = f"{len(primaries)} primary documents and {len(tables)} information tables"
        raise DocumentError(f"carries {found}; a 13F submission has one primary document and at most one table")
    return primaries[0], tables[0].rows if tables else primaries[0].table


def _parsed(document: EnvelopeDocument) -> PrimaryDocument | InformationTable:
    try:
        return parse_document(document.xml or b"")
    except DocumentError as exc:
        line = document.line + exc.line - 1 if exc.line else None
        raise DocumentError(f"carries {document.filename or document.type}, which {exc.message}", line) from exc
