"""Untrusted XML → an element tree, or a DocumentError naming the line; defusedxml only, nothing half-parsed."""

from __future__ import annotations

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
