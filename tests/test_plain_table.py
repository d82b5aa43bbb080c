"""The plain-form reading of an information table (a regex over text expat found well-formed) against the element
tree's: the same rows, the same refusals, for every variation of the form below, each alone and combined."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from builder.sources.sec13f import document
from builder.sources.sec13f.document import parse_document
from builder.sources.sec13f.safexml import DocumentError
from builder.sources.sec13f.submission import is_submission, parse_submission
from builder.sources.tree import fixture_source
from tests.conftest import realdata

TABLE_NS = "http://www.sec.gov/edgar/document/thirteenf/informationtable"
DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


def row(
    issuer: str = "APPLE INC",
    cusip: str = "037833100",
    value: str = "1200",
    shares: str = "10",
    kind: str = "SH",
    put_call: str = "",
    others: str = "<otherManager>1,2</otherManager>",
    voting: str = "<Sole>10</Sole><Shared>0</Shared><None>0</None>",
) -> str:
    return (
        f"  <infoTable>\n    <nameOfIssuer>{issuer}</nameOfIssuer>\n    <titleOfClass>COM</titleOfClass>\n"
        f"    <cusip>{cusip}</cusip>\n    <value>{value}</value>\n    <shrsOrPrnAmt>\n"
        f"      <sshPrnamt>{shares}</sshPrnamt>\n      <sshPrnamtType>{kind}</sshPrnamtType>\n    </shrsOrPrnAmt>\n"
        f"    {put_call}<investmentDiscretion>SOLE</investmentDiscretion>\n    {others}\n"
        f"    <votingAuthority>\n      {voting}\n    </votingAuthority>\n  </infoTable>\n"
    )


# fictional rows in EDGAR's shapes: shares, a put, principal amounts, a figi, no otherManager, names with markup
ROWS = (
    row(),
    row("AT&amp;T INC", "00206R102", "5000", "40", put_call="<putCall>Put</putCall>", others=""),
    row("NOTE CO 1% 2030", "00206r103", "7000", "7000", kind="PRN", voting="<Sole>0</Sole><Shared>7000</Shared>"),
    row("SOCIÉTÉ GÉNÉRALE &lt;ADR&gt;", "83364L109", "0", "0").replace("<value>", "<figi>BBG000BC5Q77</figi><value>"),
)


def table(rows: tuple[str, ...] = ROWS, prefix: str = "", namespace: str = f' xmlns="{TABLE_NS}"') -> str:
    body = f"<informationTable{namespace}>\n{''.join(rows)}</informationTable>\n"
    if prefix:
        body = re.sub(r"<(/?)(\w+)", rf"<\1{prefix}:\2", body).replace("xmlns=", f"xmlns:{prefix}=")
    return DECLARATION + body


def tag(name: str, text: str) -> Callable[[str], str]:
    """A variation that gives every `name` element this text ("{}" is the text it had)."""
    pattern = re.compile(rf"<((?:\w+:)?){name}>([^<]*)</(?:\w+:)?{name}>")
    return lambda xml: pattern.sub(lambda m: f"<{m[1]}{name}>{text.format(m[2])}</{m[1]}{name}>", xml)


def first(old: str, new: str) -> Callable[[str], str]:
    return lambda xml: xml.replace(old, new, 1)


def every(old: str, new: str) -> Callable[[str], str]:
    return lambda xml: xml.replace(old, new)


VARIATIONS: dict[str, Callable[[str], str]] = {
    "as-is": lambda xml: xml,
    "crlf": every("\n", "\r\n"),
    "bare-cr": every("\n", "\r"),
    "one-line": lambda xml: re.sub(r">\s+<", "><", xml),
    "entities": tag("nameOfIssuer", "{}&amp;&#38;&#x26;&quot;&apos;&gt;"),
    "char-refs-of-space": tag("nameOfIssuer", "&#32;{}&#10;&#13;"),
    "char-ref-cr-inside": tag("nameOfIssuer", "A&#13;&#10;B{}"),
    "line-ends-inside": tag("nameOfIssuer", "A\r\nB\rC{}"),
    "unicode-spaces": tag("value", "\u00a0{}\u2003"),
    "tabs": tag("cusip", "\t{}\t"),
    "emoji": tag("titleOfClass", "{}\U0001f600"),
    "gt-quotes": tag("titleOfClass", "A > B \"'{}"),
    "cdata": tag("cusip", "<![CDATA[ {} ]]>"),
    "comment-in-row": first("<titleOfClass>", "<!-- c --><titleOfClass>"),
    "comment-after-root": lambda xml: xml + "<!-- end -->",
    "comment-before-root": first("\n<", "\n<!-- start -->\n<"),
    "pi-in-row": first("<cusip>", "<?pi x?><cusip>"),
    "self-closing-put-call": first("<investmentDiscretion>", "<putCall/><investmentDiscretion>"),
    "empty-put-call": first("<investmentDiscretion>", "<putCall></putCall><investmentDiscretion>"),
    "self-closing-other": every("<otherManager>1,2</otherManager>", "<otherManager/>"),
    "two-others": every(
        "<otherManager>1,2</otherManager>", "<otherManager>1</otherManager> <otherManager>3</otherManager>"
    ),
    "empty-others": every(
        "<otherManager>1,2</otherManager>", "<otherManager> </otherManager><otherManager>4</otherManager>"
    ),
    "self-closing-value": first("<value>1200</value>", "<value/>"),
    "self-closing-sole": every("<Sole>10</Sole>", "<Sole/>"),
    "no-voting": lambda xml: re.sub(r"<((?:\w+:)?)votingAuthority>.*?</\1votingAuthority>", "", xml, flags=re.S),
    "self-closing-voting": lambda xml: re.sub(
        r"<((?:\w+:)?)votingAuthority>.*?</\1votingAuthority>", r"<\1votingAuthority/>", xml, count=1, flags=re.S
    ),
    "no-shares-group": lambda xml: re.sub(r"<((?:\w+:)?)shrsOrPrnAmt>.*?</\1shrsOrPrnAmt>", "", xml, flags=re.S),
    "no-none": every("<None>0</None>", ""),
    "duplicate-cusip": lambda xml: re.sub(r"(<((?:\w+:)?)cusip>[^<]*</\2cusip>)", r"\1\1", xml, count=1),
    "second-cusip-later": lambda xml: re.sub(r"(<(?:\w+:)?)(investmentDiscretion>)", r"\1cusip>X</\1cusip>\1\2", xml),
    "value-before-cusip": lambda xml: re.sub(
        r"(<((?:\w+:)?)cusip>[^<]*</\2cusip>)(\s*)(<\2value>[^<]*</\2value>)", r"\4\3\1", xml
    ),
    "row-attribute": first("infoTable>", 'infoTable id="1">'),
    "row-namespace": first("infoTable>", f'infoTable xmlns="{TABLE_NS}">'),
    "space-in-tag": lambda xml: re.sub(r"</((?:\w+:)?cusip)>", r"</\1 >", xml, count=1),
    "text-between": first("<titleOfClass>", "junk<titleOfClass>"),
    "nbsp-between": first("<titleOfClass>", "\u00a0<titleOfClass>"),
    "mixed-content": lambda xml: re.sub(r"(<((?:\w+:)?)nameOfIssuer>)([^<]*)", r"\1A<\2b>B</\2b>C \3", xml, count=1),
    "unknown-element": first("<titleOfClass>", "<x>1</x><titleOfClass>"),
    "unknown-in-group": first("<sshPrnamtType>", "<x>1</x><sshPrnamtType>"),
    "nested-row": first("<titleOfClass>", "<infoTable></infoTable><titleOfClass>"),
    "other-root-child": first("<infoTable>", "<summary>1</summary><infoTable>"),
    "capital-tag": lambda xml: re.sub(r"<(/?(?:\w+:)?)cusip>", r"<\1Cusip>", xml),
    "lower-cusip": tag("cusip", "{}".lower()),
    "dotless-i-cusip": first("037833100", "ı37833100"),
    "long-s-cusip": first("037833100", "ſ37833100"),
    "eight-char-cusip": first("037833100", "03783310"),
    "arabic-digits": first("<value>1200<", "<value>١٢٠٠<"),
    "superscript": first("<value>1200<", "<value>12²<"),
    "signed": first("<sshPrnamt>10<", "<sshPrnamt>+10<"),
    "negative": first("<Sole>10<", "<Sole>-1<"),
    "leading-zeros": first("<value>1200<", "<value>0001200<"),
    "sixteen-digits": first("<value>1200<", "<value>1234567890123456<"),
    "seventeen-digits": first("<value>1200<", "<value>00000000000001200<"),
    "underscore": first("<value>1200<", "<value>1_200<"),
    "inner-space": first("<value>1200<", "<value>12 00<"),
    "decimal": first("<value>1200<", "<value>12.5<"),
    "put-call-casing": every("<putCall>Put<", "<putCall>pUT<"),
    "put-call-other": every("<putCall>Put<", "<putCall>Straddle<"),
    "share-type-lower": every("<sshPrnamtType>PRN<", "<sshPrnamtType>prn<"),
    "share-type-other": first("<sshPrnamtType>SH<", "<sshPrnamtType>SHS<"),
    "empty-cusip": first("<cusip>037833100<", "<cusip> <"),
    "no-declaration": lambda xml: xml.removeprefix(DECLARATION),
    "single-quotes": first('version="1.0" encoding="UTF-8"', "version='1.0' encoding='UTF-8'"),
    "lower-utf-8": first('encoding="UTF-8"', 'encoding="utf-8"'),
    "standalone": first('encoding="UTF-8"', 'encoding="UTF-8" standalone="yes"'),
    "no-encoding-spaced": first(' encoding="UTF-8"?>', " ?>"),
    "latin-1-declared": first('encoding="UTF-8"', 'encoding="ISO-8859-1"'),
    "ascii-declared": first('encoding="UTF-8"', 'encoding="US-ASCII"'),
    "version-1-1": first('version="1.0"', 'version="1.1"'),
    "bom": lambda xml: "\ufeff" + xml,
    "leading-lines": lambda xml: "\n\n  " + xml,
    "blank-after-declaration": first("?>\n", "?>\n\n \t\n"),
    "undefined-entity": tag("nameOfIssuer", "{}&nbsp;"),
    "nul-ref": tag("nameOfIssuer", "{}&#0;"),
    "fffe-ref": tag("nameOfIssuer", "{}&#xFFFE;"),
    "upper-x-ref": tag("nameOfIssuer", "{}&#X41;"),
    "bare-ampersand": tag("nameOfIssuer", "{} & CO"),
    "control-char": tag("nameOfIssuer", "{}\x01"),
    "vertical-tab": tag("nameOfIssuer", "{}\x0b"),
    "cdata-end-in-text": tag("nameOfIssuer", "{}]]>"),
    "truncated": lambda xml: xml[: len(xml) * 2 // 3],
    "no-root-end": lambda xml: xml.rpartition("</")[0],
    "junk-after-root": lambda xml: xml + "x",
    "second-root": lambda xml: xml + "<informationTable/>",
    "empty-table": lambda xml: re.sub(r"<((?:\w+:)?)infoTable>.*</\1infoTable>\n", "", xml, flags=re.S),
    "self-closing-root": lambda xml: re.sub(r"(<(?:\w+:)?informationTable[^>]*)>.*", r"\1/>", xml, flags=re.S),
    "root-tag-longer": every("informationTable", "informationTableX"),
    "root-attribute-gt": first(f' xmlns="{TABLE_NS}"', f' xmlns="{TABLE_NS}" note="a > b"'),
    "root-attribute-undeclared-prefix": first(f' xmlns="{TABLE_NS}"', f' xmlns="{TABLE_NS}" xsi:x="1"'),
    "root-duplicate-attribute": first(f' xmlns="{TABLE_NS}"', f' xmlns="{TABLE_NS}" a="1" a="2"'),
    "root-prefix-undeclared": lambda xml: re.sub(r'xmlns(:\w+)?="[^"]*"', "", xml, count=1),
    "doctype": first("?>\n", '?>\n<!DOCTYPE informationTable [<!ENTITY x "y">]>\n'),
}


def outcome(data: bytes) -> tuple[object, ...]:
    """What parse_document gives for `data`: its rows, or its refusal and line."""
    try:
        parsed = parse_document(data)
    except DocumentError as exc:
        return ("refused", exc.message, exc.line)
    return ("read", parsed)


def through_tree(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[object, ...]:
    with monkeypatch.context() as patch:
        patch.setattr(document, "plain_rows", lambda _data: None)
        return outcome(data)


def tables() -> dict[str, str]:
    return {
        "default-namespace": table(),
        "ns1-prefix": table(prefix="ns1"),
        "no-namespace": table(namespace=""),
        "row-prefix-differs": table(prefix="ns1")
        .replace("<ns1:infoTable>", "<ns2:infoTable>")
        .replace("</ns1:infoTable>", "</ns2:infoTable>")
        .replace("xmlns:ns1=", f'xmlns:ns2="{TABLE_NS}" xmlns:ns1='),
    }


@pytest.mark.parametrize("variation", sorted(VARIATIONS))
@pytest.mark.parametrize("base", sorted(tables()))
def test_each_variation_reads_as_the_element_tree_reads_it(
    base: str, variation: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = VARIATIONS[variation](tables()[base]).encode()
    assert outcome(data) == through_tree(data, monkeypatch)


def test_combined_variations_read_as_the_element_tree_reads_them(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = random.Random(13)  # fixed: the same 400 combinations on every run
    names, plain = sorted(VARIATIONS), 0
    for _ in range(400):
        base = chosen.choice(sorted(tables().values()))
        data = base
        for name in chosen.sample(names, chosen.randint(2, 4)):
            data = VARIATIONS[name](data)
        encoded = data.encode()
        assert outcome(encoded) == through_tree(encoded, monkeypatch), data
        plain += document.plain_rows(encoded) is not None
    assert plain >= 40  # the combinations exercise the plain reading, not only the fallback


@pytest.mark.parametrize(
    "variation",
    [
        "as-is",
        "crlf",
        "bare-cr",
        "one-line",
        "entities",
        "char-refs-of-space",
        "line-ends-inside",
        "unicode-spaces",
        "emoji",
        "two-others",
        "self-closing-put-call",
        "empty-others",
        "no-voting",
        "lower-cusip",
        "dotless-i-cusip",
        "seventeen-digits",
        "superscript",
        "no-declaration",
        "single-quotes",
        "standalone",
        "bom",
        "empty-table",
    ],
)
def test_the_plain_form_is_read_without_a_tree_and_its_look_alikes_are_not(variation: str) -> None:
    for base in ("default-namespace", "ns1-prefix", "no-namespace"):
        data = VARIATIONS[variation](tables()[base]).encode()
        assert document.plain_rows(data) is not None, (base, variation)
    look_alikes = [
        "cdata",
        "comment-in-row",
        "mixed-content",
        "undefined-entity",
        "latin-1-declared",
        "doctype",
        "row-attribute",
        "text-between",
        "truncated",
        "control-char",
        "cdata-end-in-text",
    ]
    for other in look_alikes:
        assert document.plain_rows(VARIATIONS[other](table()).encode()) is None, other
    unbound = VARIATIONS["root-prefix-undeclared"](table(prefix="ns1")).encode()  # `ns1:` bound nowhere
    assert document.plain_rows(unbound) is None


def xml_sources() -> list[bytes]:
    """Every real and fixture 13F XML document, those inside submission envelopes included."""
    paths = sorted(realdata("sec13f").rglob("*")) + sorted((fixture_source() / "sec13f").rglob("*"))
    found = []
    for path in (path for path in paths if path.suffix in (".xml", ".txt", ".nc")):
        data = path.read_bytes()
        if not is_submission(data):
            found.append(data)
            continue
        try:
            found += [doc.xml for doc in parse_submission(data).documents if doc.xml is not None]
        except DocumentError:
            continue
    return found


def test_every_real_and_fixture_document_reads_as_the_element_tree_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    plain = 0
    for data in xml_sources():
        assert outcome(data) == through_tree(data, monkeypatch)
        plain += document.plain_rows(data) is not None
    assert plain >= 40  # the real tables (with and without `ns1:`, embedded or alone) take the plain reading
