"""Untrusted XML → an element tree, or a DocumentError naming the line; defusedxml only, nothing half-parsed. And an
information table in its plain form, read with a regex once expat has found it well-formed (`plain_rows`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from xml.etree.ElementTree import Element, ParseError
from xml.etree.ElementTree import fromstring as native_fromstring
from xml.parsers.expat import ExpatError, ParserCreate

from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden
from defusedxml.ElementTree import fromstring

# expat's messages for input that ends before its root element closes
_TRUNCATED = ("no element found", "unclosed token", "unclosed CDATA section")


class DocumentError(ValueError):
    """A file that is not a readable 13F document: `message` is a predicate of the file, `line` 1-based."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def parse_xml(data: bytes) -> Element:
    """The root element of `data`, parsed with DTDs, entities and external references forbidden."""
    check_utf8(data)
    body = strip_start(data)
    offset = line_at(data, len(data) - len(body)) - 1
    try:
        return native_fromstring(body) if _without_dtd(body) else fromstring(body, forbid_dtd=True)
    except ParseError as exc:
        reason = str(exc).split(": line ")[0]
        what = "is truncated XML" if reason in _TRUNCATED else "is not well-formed XML"
        raise DocumentError(f"{what} ({reason})", offset + exc.position[0]) from exc
    except DefusedXmlException as exc:
        found = data.find(b"<!DOCTYPE")
        raise DocumentError(_refusal(exc), line_at(data, found) if found >= 0 else None) from exc


def is_well_formed(body: bytes) -> bool:
    """Whether expat, with namespaces on as the C tree builder runs it, reads `body` to its end; builds nothing.

    False for text that may hold a DTD (`_without_dtd`), unread: no entity is expanded, nothing fetched. A False
    decides nothing: `parse_xml` then reads the text, and refuses it with the reason and the line.
    """
    if not _without_dtd(body):
        return False
    try:
        ParserCreate(namespace_separator="}").Parse(body, True)
    except ExpatError:
        return False
    return True


def _without_dtd(body: bytes) -> bool:
    """Whether `body` can hold no DTD in any encoding expat reads, so the C tree builder may parse it.

    Entities, entity bombs and external references all need a DTD (`<!DOCTYPE`, upper-case: XML is
    case-sensitive). Without a NUL byte the text is not UTF-16 or UTF-32, the only encodings expat reads
    in which `<!DOCTYPE` would not appear byte for byte. defusedxml's pure-Python builder, 4× slower on an
    information table, then only parses what it would refuse or that might hide a DTD.
    """
    return b"<!DOCTYPE" not in body and b"\x00" not in body


def strip_start(data: bytes) -> bytes:
    """`data` without a UTF-8 byte-order mark and leading whitespace (EDGAR's `<XML>` blocks start with a newline)."""
    return data.removeprefix(b"\xef\xbb\xbf").lstrip()


def check_utf8(data: bytes) -> None:
    """Raises DocumentError naming the line of the first byte that is not UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"is not UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        raise DocumentError(message, line_at(data, exc.start)) from exc


def line_at(data: bytes, offset: int) -> int:
    """The 1-based line of `offset`, counting LF, CRLF and bare CR (EDGAR's .nc files) as line ends."""
    head = data[:offset]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def _refusal(exc: DefusedXmlException) -> str:
    if isinstance(exc, DTDForbidden):
        return "declares a DTD (<!DOCTYPE>), which no 13F document has: refused (DTDs carry XML bombs and entities)"
    if isinstance(exc, EntitiesForbidden):
        return "declares an XML entity, which no 13F document has: refused (entity expansion bombs)"
    return f"refers to an external resource, which no 13F document does: refused ({type(exc).__name__})"


# An information table in its plain form, as EDGAR's tools write it: a UTF-8 XML declaration, the root's start tag,
# then only `infoTable` rows, their elements in eis_13FDocument.xsd's order, one namespace prefix throughout, text
# without markup (no comment, CDATA, PI or DTD). Such a table is read with a regex over the text, once expat has
# found it well-formed: no element tree is built (two thirds of the read's time). Anything else takes the tree.
_XML_SPACE = r"[ \t\r\n]*"  # XML 1.0 §2.3 S
_PLAIN_START = re.compile(
    r"""(?:<\?xml[ \t\r\n]+version=(["'])1\.0\1(?:[ \t\r\n]+encoding=(["'])(?i:utf-8)\2)?"""
    r"""(?:[ \t\r\n]+standalone=(["'])(?:yes|no)\3)?[ \t\r\n]*\?>)?[ \t\r\n]*"""
    r"<((?:[A-Za-z_][A-Za-z0-9_.-]*:)?)informationTable(?:[ \t\r\n][^<>]*)?(?<!/)>"
)
_REFERENCE = re.compile(r"&(#[0-9]+|#x[0-9a-fA-F]+|amp|lt|gt|quot|apos);")  # XML 1.0 §4.1, §4.6: no DTD, no others
_PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def plain_rows(data: bytes) -> list[list[str]] | None:
    """The texts of each row of a plain-form information table (`_PLAIN_START`), as `_row` gives them from its
    tree; None when `data` is not one, or not well-formed: the tree then reads it, or says what is wrong."""
    body = strip_start(data)
    text = body.decode("utf-8")  # check_utf8 has passed
    start = _PLAIN_START.match(text)
    if start is None:
        return None
    row, end, other = _plain_patterns(start[4])
    clean: Callable[[str], str] = str.strip if "&" not in text and "\r" not in text else _xml_text
    rows: list[list[str]] = []
    position = start.end()
    while match := row.match(text, position):
        groups = match.groups("")
        texts = list(map(clean, groups))
        if groups[8]:
            texts[8] = ",".join(filter(None, map(clean, other.findall(groups[8]))))
        rows.append(texts)
        position = match.end()
    if not end.match(text, position) or not is_well_formed(body):
        return None
    return rows


@lru_cache(maxsize=8)
def _plain_patterns(prefix: str) -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """A plain-form row with this namespace prefix (12 groups, `_row`'s texts, the 9th the otherManager elements
    whole), the table's end, and one otherManager's text."""
    name = re.escape(prefix)

    def leaf(tag: str, group: str = "([^<]*)") -> str:
        return f"(?:(?:<{name}{tag}>{group}</{name}{tag}>|<{name}{tag}/>){_XML_SPACE})?"

    def parent(tag: str, *leaves: str) -> str:
        return f"(?:<{name}{tag}>{_XML_SPACE}{''.join(map(leaf, leaves))}</{name}{tag}>{_XML_SPACE})?"

    other = f"(?:<{name}otherManager>[^<]*</{name}otherManager>|<{name}otherManager/>){_XML_SPACE}"
    row = (
        f"{_XML_SPACE}<{name}infoTable>{_XML_SPACE}{leaf('nameOfIssuer')}{leaf('titleOfClass')}{leaf('cusip')}"
        f"{leaf('figi', '[^<]*')}{leaf('value')}{parent('shrsOrPrnAmt', 'sshPrnamt', 'sshPrnamtType')}"
        f"{leaf('putCall')}{leaf('investmentDiscretion')}((?:{other})*)"
        f"{parent('votingAuthority', 'Sole', 'Shared', 'None')}</{name}infoTable>"
    )
    end = f"{_XML_SPACE}</{name}informationTable>{_XML_SPACE}\\Z"
    return re.compile(row), re.compile(end), re.compile(f"<{name}otherManager>([^<]*)</|<{name}otherManager/>")


def _xml_text(raw: str) -> str:
    """What expat gives for `raw` (text of a well-formed document without a DTD), stripped."""
    if "\r" in raw:  # XML 1.0 §2.11: line ends are read as LF
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
    if "&" in raw:
        raw = _REFERENCE.sub(_referenced, raw)
    return raw.strip()


def _referenced(reference: re.Match[str]) -> str:
    name = reference[1]
    if name[0] != "#":
        return _PREDEFINED[name]
    return chr(int(name[2:], 16) if name[1] == "x" else int(name[1:]))
