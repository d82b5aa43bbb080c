"""Form 13F XML documents (primary document, information table) → plain records; pure, parsed by defusedxml."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import get_args
from xml.etree.ElementTree import Element

from builder.records import HoldingRow, PutCall, ShareType, holding_row
from builder.sources.sec13f.safexml import DocumentError, check_utf8, parse_xml, plain_rows, strip_start

# SEC's rendered view of a filing (the xslForm13F page beside each document on EDGAR) is HTML; saved under a
# `.xml` name it looks like a filing, so it is recognised before parsing and refused by name.
_HTML_START = re.compile(rb"(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*<(?:!DOCTYPE\s+html|html[\s>])", re.I | re.S)
# Before the XML information table became mandatory (2013), 13F reports were plain-text tables.
_LEGACY_TEXT = re.compile(rb"FORM\s+13F|13F-HR|INFORMATION\s+TABLE", re.I)
_SNIFF_BYTES = 65_536  # a legacy table names itself in its first lines
_WHOLE = re.compile(r"[0-9]{1,16}")  # eis_13FDocument.xsd: nonNegativeInteger, totalDigits 16 (also caps int())
_CUSIP = re.compile(r"[A-Z0-9]{9}")  # eis_13FDocument.xsd CUSIP_TYPE: nine letters or digits
_CIK = re.compile(r"[0-9]{1,10}")  # eis_Common.xsd CIK_TYPE: up to ten digits
_DATE = re.compile(r"([0-9]{2})-([0-9]{2})-([0-9]{4})")  # eis_Common.xsd DATE_TYPE: MM-DD-YYYY
_FLAGS = {"true": True, "1": True, "y": True, "false": False, "0": False, "n": False}
_PUT_CALL: dict[str, PutCall] = {value.lower(): value for value in get_args(PutCall)}  # as filed, any case
_SHARE_TYPES: dict[str, ShareType] = {value: value for value in get_args(ShareType)}
MAX_ROW_ERRORS_LISTED = 10  # one problem per file stays readable; the rest are counted, not listed


@dataclass(frozen=True, slots=True)
class Summary:
    """The summary page: tableEntryTotal, tableValueTotal (in the filing's unit), isConfidentialOmitted."""

    entry_total: int | None
    value_total: int | None
    confidential_omitted: bool


@dataclass(frozen=True, slots=True)
class PrimaryDocument:
    """An `edgarSubmission`: header, cover page, signature date and summary page."""

    submission_type: str  # "13F-HR", "13F-HR/A", "13F-NT", "13F-NT/A", "13F-CTR", "13F-CTR/A"
    cik: str  # 10 digits
    period: date
    signature_date: date | None
    manager_name: str
    report_type: str
    is_amendment: bool
    amendment_no: int | None
    amendment_type: str | None  # as filed, upper-case: "RESTATEMENT", "NEW HOLDINGS"
    summary: Summary | None
    table: tuple[HoldingRow, ...] | None = None  # an information table embedded as base64 (EDGARLink XML)


@dataclass(frozen=True, slots=True)
class InformationTable:
    """An `informationTable`: every `infoTable` row as filed, in order."""

    rows: tuple[HoldingRow, ...]


def parse_document(data: bytes) -> PrimaryDocument | InformationTable:
    """The 13F document in `data`; raises DocumentError for anything else (HTML, text, other or hostile XML)."""
    check_utf8(data)
    sniff = strip_start(data[:_SNIFF_BYTES])
    if not sniff:
        raise DocumentError("is empty: not a 13F document")
    if _HTML_START.match(sniff):
        raise DocumentError("is SEC's rendered HTML, not a 13F XML document")
    if not sniff.startswith(b"<"):
        if _LEGACY_TEXT.search(sniff):
            raise DocumentError("is a legacy text 13F table (before 2013, when the table became XML): not read")
        raise DocumentError("is neither XML nor an EDGAR submission: not a 13F document")
    plain = plain_rows(data)
    if plain is not None:
        return InformationTable(_checked(plain))
    root = parse_xml(data)
    kind = _local(root.tag)
    if kind == "edgarSubmission":
        return _primary(root)
    if kind == "informationTable":
        return InformationTable(_rows(root))
    raise DocumentError(f"is XML but not a 13F document (root element <{kind}>)")


def cik10(text: str) -> str:
    """A CIK zero-padded to 10 digits; raises DocumentError when `text` is not one."""
    if not _CIK.fullmatch(text.strip()):
        raise DocumentError(f"has CIK {text!r}, which is not up to ten digits")
    return text.strip().zfill(10)


def _local(tag: object) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _at(node: Element | None, path: str) -> Element | None:
    for name in path.split("/"):
        if node is None:
            return None
        node = next((child for child in node if _local(child.tag) == name), None)
    return node


def _text(node: Element | None, path: str) -> str | None:
    return _content(_at(node, path))


def _required(node: Element, path: str) -> str:
    text = _text(node, path)
    if not text:
        raise DocumentError(f"has no {path.rpartition('/')[2]} ({path})")
    return text


def _date(text: str, name: str) -> date:
    match = _DATE.fullmatch(text)
    try:
        if match:
            return date(int(match[3]), int(match[1]), int(match[2]))
    except ValueError:
        pass
    raise DocumentError(f"has {name} {text!r}, which is not a date MM-DD-YYYY")


def _flag(text: str | None, name: str) -> bool:
    if not text:
        return False
    if text.lower() not in _FLAGS:
        raise DocumentError(f"has {name} {text!r}, which is neither true nor false")
    return _FLAGS[text.lower()]


def _optional_int(text: str | None, name: str) -> int | None:
    if not text:
        return None
    if not _WHOLE.fullmatch(text):
        raise DocumentError(f"has {name} {text!r}, which is not a whole number")
    return int(text)


def _primary(root: Element) -> PrimaryDocument:
    cover = _at(root, "formData/coverPage")
    period = _text(root, "headerData/filerInfo/periodOfReport") or _text(cover, "reportCalendarOrQuarter")
    if not period:
        raise DocumentError("has no periodOfReport (headerData/filerInfo/periodOfReport)")
    signed = _text(root, "formData/signatureBlock/signatureDate")
    page = _at(root, "formData/summaryPage")
    summary = (
        None
        if page is None
        else (_text(page, "tableEntryTotal"), _text(page, "tableValueTotal"), _text(page, "isConfidentialOmitted"))
    )
    return primary_document(
        submission_type=_required(root, "headerData/submissionType"),
        cik=_required(root, "headerData/filerInfo/filer/credentials/cik"),
        period=_date(period, "periodOfReport"),
        signature_date=_date(signed, "signatureDate") if signed else None,
        cover=(
            _text(cover, "filingManager/name"),
            _text(cover, "reportType"),
            _text(cover, "isAmendment"),
            _text(cover, "amendmentNo"),
            _text(cover, "amendmentInfo/amendmentType"),
        ),
        summary=summary,
        table=_embedded_table(root),
    )


def primary_document(
    *,
    submission_type: str,
    cik: str,
    period: date,
    signature_date: date | None,
    cover: tuple[str | None, str | None, str | None, str | None, str | None],
    summary: tuple[str | None, str | None, str | None] | None,
    table: tuple[HoldingRow, ...] | None = None,
) -> PrimaryDocument:
    """A PrimaryDocument from its texts as filed, by the rules of an `edgarSubmission`: `cover` the filing manager's
    name, reportType, isAmendment, amendmentNo and amendmentType, `summary` tableEntryTotal, tableValueTotal and
    isConfidentialOmitted (None: no summary page). The Form 13F data sets give the same texts of a filing."""
    name, report_type, is_amendment, amendment_no, amendment_type = cover
    submission_type = submission_type.upper()
    return PrimaryDocument(
        submission_type=submission_type,
        cik=cik10(cik),
        period=period,
        signature_date=signature_date,
        manager_name=name or "",
        report_type=(report_type or "").upper(),
        is_amendment=_flag(is_amendment, "isAmendment") or submission_type.endswith("/A"),
        amendment_no=_optional_int(amendment_no, "amendmentNo"),
        amendment_type=" ".join(amendment_type.upper().split()) if amendment_type else None,
        summary=None if summary is None else _summary(*summary),
        table=table,
    )


def _summary(entry_total: str | None, value_total: str | None, omitted: str | None) -> Summary:
    return Summary(
        entry_total=_optional_int(entry_total, "tableEntryTotal"),
        value_total=_optional_int(value_total, "tableValueTotal"),
        confidential_omitted=_flag(omitted, "isConfidentialOmitted"),
    )


def _embedded_table(root: Element) -> tuple[HoldingRow, ...] | None:
    documents = _at(root, "documents")
    for document in documents if documents is not None else ():
        if (_text(document, "conformedDocumentType") or "").upper() != "INFORMATION TABLE":
            continue
        name = _text(document, "conformedName") or "information table"
        try:
            raw = base64.b64decode("".join((_text(document, "contents") or "").split()), validate=True)
            table = parse_document(raw)
        except binascii.Error as exc:
            raise DocumentError(f"embeds {name}, which is not valid base64") from exc
        except DocumentError as exc:
            raise DocumentError(f"embeds {name}, which {exc.message}") from exc
        if not isinstance(table, InformationTable):
            raise DocumentError(f"embeds {name}, which is not an information table")
        return table.rows
    return None


def _rows(root: Element) -> tuple[HoldingRow, ...]:
    entries = (child for child in root if _local(child.tag) == "infoTable")
    return _checked(_row(entry) for entry in entries)


def _checked(rows: Iterable[Sequence[str]]) -> tuple[HoldingRow, ...]:
    """The table's rows from each row's texts (`_row`); raises DocumentError listing the malformed ones."""
    found: list[HoldingRow] = []
    errors: list[str] = []
    for index, texts in enumerate(rows, start=1):
        try:
            found.append(table_row(index, texts))
        except DocumentError as exc:
            errors.append(f"row {index}: {exc.message}")
    if errors:
        listed = "; ".join(errors[:MAX_ROW_ERRORS_LISTED])
        more = len(errors) - MAX_ROW_ERRORS_LISTED
        raise DocumentError(f"has malformed rows: {listed}" + (f"; and {more} more" if more > 0 else ""))
    return tuple(found)


def _row(entry: Element) -> tuple[str, ...]:
    """A row's texts, "" for an absent or empty field: issuer, title, cusip, value, sshPrnamt, sshPrnamtType,
    putCall, investmentDiscretion, the otherManagers joined by commas, Sole, Shared, None. One pass over the
    row's children and one over each group's (at 750,000 rows, a scan per field was most of the read)."""
    fields, others = _children(entry)
    amount, voting = _children(fields.get("shrsOrPrnAmt"))[0], _children(fields.get("votingAuthority"))[0]
    return (
        _content(fields.get("nameOfIssuer")) or "",
        _content(fields.get("titleOfClass")) or "",
        _content(fields.get("cusip")) or "",
        _content(fields.get("value")) or "",
        _content(amount.get("sshPrnamt")) or "",
        _content(amount.get("sshPrnamtType")) or "",
        _content(fields.get("putCall")) or "",
        _content(fields.get("investmentDiscretion")) or "",
        ",".join(filter(None, map(_content, others))),
        _content(voting.get("Sole")) or "",
        _content(voting.get("Shared")) or "",
        _content(voting.get("None")) or "",
    )


def table_row(index: int, texts: Sequence[str]) -> HoldingRow:
    """Row `index` of an information table from its texts (`_row`'s: issuer, title, cusip, value, sshPrnamt,
    sshPrnamtType, putCall, investmentDiscretion, otherManager, Sole, Shared, None), checked in this order: the
    first problem is the row's. The Form 13F data sets give the same texts of a row."""
    issuer, title, cusip, value, shares, share_type, put_call, discretion, others, sole, shared, none = texts
    cusip = cusip.upper()
    if not _CUSIP.fullmatch(cusip):
        raise DocumentError(f"cusip {cusip!r} is not nine letters or digits" if cusip else "missing cusip")
    kind = _SHARE_TYPES.get(share_type.upper())
    if kind is None:
        raise DocumentError(f"sshPrnamtType {share_type.upper()!r} is neither SH nor PRN")
    if put_call and put_call.lower() not in _PUT_CALL:
        raise DocumentError(f"putCall {put_call!r} is neither Put nor Call")
    return holding_row(
        index,
        issuer,
        title,
        cusip,
        _whole(value, "value"),
        _whole(shares, "sshPrnamt"),
        kind,
        _PUT_CALL[put_call.lower()] if put_call else None,
        discretion,
        others,
        _whole(sole, "Sole", False),
        _whole(shared, "Shared", False),
        _whole(none, "None", False),
    )


def _children(node: Element | None) -> tuple[dict[str, Element], list[Element]]:
    """The first child of each local name, and every `otherManager` child, in one pass."""
    first: dict[str, Element] = {}
    others: list[Element] = []
    for child in node if node is not None else ():
        tag = child.tag  # _local inlined: this loop runs for every field of every row
        name = tag.rpartition("}")[2] if isinstance(tag, str) else ""
        first.setdefault(name, child)
        if name == "otherManager":
            others.append(child)
    return first, others


def _content(node: Element | None) -> str | None:
    if node is None:
        return None
    if len(node):  # mixed content is rare; a leaf's text is all of it, without a generator per field
        return "".join(node.itertext()).strip()
    return node.text.strip() if node.text else ""


def _whole(text: str, name: str, required: bool = True) -> int:
    # _WHOLE without a regex, five times a row: a string of ASCII digits is [0-9]+ (isdigit alone takes "²", "٣")
    if text.isdigit() and text.isascii() and len(text) <= 16:
        return int(text)
    if text:
        raise DocumentError(f"{name} {text!r} is not a whole number of at most 16 digits")
    if required:
        raise DocumentError(f"missing {name}")
    return 0
