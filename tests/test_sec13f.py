"""Form 13F documents and submission envelopes: small inline inputs, every form and every hostile input."""

from __future__ import annotations

import base64
import pickle
import re
import statistics
from dataclasses import replace
from datetime import date
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from builder.records import Amendment, HoldingRow, ValueUnit
from builder.sources.sec13f.document import InformationTable, PrimaryDocument, Summary, parse_document
from builder.sources.sec13f.rules import build_filing, decide_unit, median_price, summary_warnings
from builder.sources.sec13f.safexml import DocumentError
from builder.sources.sec13f.submission import accession_in, carried_documents, parse_submission

TABLE_NS = "http://www.sec.gov/edgar/document/thirteenf/informationtable"


def row_xml(
    cusip: str = "037833100", value: str = "1200", shares: str = "10", kind: str = "SH", extra: str = ""
) -> str:
    return (
        f"<infoTable><nameOfIssuer>APPLE INC</nameOfIssuer><titleOfClass>COM</titleOfClass><cusip>{cusip}</cusip>"
        f"<value>{value}</value><shrsOrPrnAmt><sshPrnamt>{shares}</sshPrnamt><sshPrnamtType>{kind}</sshPrnamtType>"
        f"</shrsOrPrnAmt>{extra}<investmentDiscretion>SOLE</investmentDiscretion><otherManager>1,2</otherManager>"
        f"<votingAuthority><Sole>{shares}</Sole><Shared>0</Shared><None>0</None></votingAuthority></infoTable>"
    )


def table_xml(*rows: str, prefix: str = "") -> bytes:
    body = f'<informationTable xmlns="{TABLE_NS}">\n' + "\n".join(rows) + "\n</informationTable>"
    if prefix:
        body = re.sub(r"<(/?)(\w+)", rf"<\1{prefix}:\2", body).replace("xmlns=", f"xmlns:{prefix}=")
    return b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' + body.encode()


def primary_xml(
    form: str = "13F-HR", cover: str = "", summary: str = "", signed: str = "11-14-2022", tail: str = ""
) -> bytes:
    summary = summary or "<tableEntryTotal>1</tableEntryTotal><tableValueTotal>1200</tableValueTotal>"
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<edgarSubmission xmlns="http://www.sec.gov/edgar/thirteenffiler" xmlns:com="http://www.sec.gov/edgar/common">
  <headerData><submissionType>{form}</submissionType><filerInfo>
    <filer><credentials><cik>1067983</cik><ccc>XXXXXXXX</ccc></credentials></filer>
    <periodOfReport>09-30-2022</periodOfReport></filerInfo></headerData>
  <formData><coverPage><reportCalendarOrQuarter>09-30-2022</reportCalendarOrQuarter>{cover}
    <filingManager><name>Example Capital</name></filingManager><reportType>13F HOLDINGS REPORT</reportType></coverPage>
    <signatureBlock><signatureDate>{signed}</signatureDate></signatureBlock>
    <summaryPage>{summary}</summaryPage></formData>{tail}
</edgarSubmission>
""".encode()


def holding(value: int, shares: int, kind: str = "SH", put_call: str | None = None) -> HoldingRow:
    return HoldingRow(1, "X", "COM", "037833100", value, shares, kind, put_call, "SOLE", "", 0, 0, 0)


@pytest.mark.parametrize("prefix", ["", "ns1", "n1"])
def test_an_information_table_reads_the_same_with_a_default_namespace_or_any_prefix(prefix: str) -> None:
    table = parse_document(table_xml(row_xml(), row_xml(cusip="594918104", value="3400", shares="20"), prefix=prefix))
    assert isinstance(table, InformationTable)
    assert [(r.row, r.cusip, r.value, r.shares, r.share_type) for r in table.rows] == [
        (1, "037833100", 1200, 10, "SH"),
        (2, "594918104", 3400, 20, "SH"),
    ]
    assert (table.rows[0].issuer, table.rows[0].other_managers, table.rows[0].voting_sole) == ("APPLE INC", "1,2", 10)


def test_rows_hold_one_copy_of_each_string_and_number_also_after_a_trip_through_pickle() -> None:
    xml = table_xml(*(row_xml(cusip=f"{number % 3:09d}", shares=str(100_000 + number % 2)) for number in range(300)))
    parsed = [parse_document(xml) for _ in range(2)]
    assert isinstance(parsed[0], InformationTable) and isinstance(parsed[1], InformationTable)
    first = parsed[0].rows
    # a forked read's rows come back pickled, one message per process: each message again shares the strings
    for rows in (parsed[1].rows, pickle.loads(pickle.dumps(first)), pickle.loads(pickle.dumps(first))):
        assert rows == first
        for field in ("issuer", "title_of_class", "cusip", "share_type", "discretion", "other_managers"):
            assert [getattr(row, field) for row in rows] == [getattr(row, field) for row in first]
            assert all(getattr(row, field) is getattr(earlier, field) for row, earlier in zip(rows, first, strict=True))
        # row numbers too, above the 256 that CPython shares itself
        assert all(row.row is earlier.row for row, earlier in zip(rows, first, strict=True))
        assert all(row.voting_sole is row.shares and row.voting_shared == 0 for row in rows)
    assert first[299].row == 300 and first[299].cusip == "000000002" and first[299].shares == 100_001


def test_a_filing_comes_back_from_pickle_equal_with_its_rows_held_once() -> None:
    rows = (
        HoldingRow(3, "APPLE INC", "COM", "037833100", 1200, 10, "SH", None, "SOLE", "", 10, 0, 0),
        HoldingRow(7, "APPLE INC", "COM", "037833100", 90, 1, "SH", "Call", "DFND", "1,2", 0, 1, 0),
        HoldingRow(900, "NOTE CO", "NOTE 1% 2030", "00206R102", 5000, 5000, "PRN", None, "OTR", "3", 4000, 0, 1000),
    )
    filing = build_filing(parse_document(primary_xml()), rows, source="a.xml", accession="a", filed=date(2022, 11, 14))
    empty = build_filing(parse_document(primary_xml()), (), source="b.xml", accession="b", filed=date(2022, 11, 14))
    assert isinstance(filing.rows[0], HoldingRow)
    # two messages, as two forked readers send them: each message's strings become the receiver's one copy
    back, again = pickle.loads(pickle.dumps([filing, empty])), pickle.loads(pickle.dumps(filing))
    assert back == [filing, empty] and again == filing and back[1].rows == ()
    assert [row.row for row in again.rows] == [3, 7, 900] and again.rows[2].voting_none == 1000
    assert all(a.issuer is b.issuer and a.row is b.row for a, b in zip(back[0].rows, again.rows, strict=True))
    assert again.rows[0].voting_sole is again.rows[0].shares and again.rows[2].voting_sole == 4000
    numbered = replace(filing, rows=tuple(replace(row, row=number) for number, row in enumerate(rows, start=1)))
    assert pickle.loads(pickle.dumps(numbered)) == numbered


def test_a_table_without_any_namespace_is_read() -> None:
    table = parse_document(table_xml(row_xml()).replace(f' xmlns="{TABLE_NS}"'.encode(), b""))
    assert isinstance(table, InformationTable) and table.rows[0].value == 1200


def test_cdata_and_stray_whitespace_around_values_are_read_as_the_plain_value() -> None:
    row = row_xml().replace("<cusip>037833100</cusip>", "<cusip>\n  <![CDATA[ 037833100 ]]>\n</cusip>")
    row = row.replace("<value>1200</value>", "<value>\t 1200 \n</value>").replace("APPLE INC", "  APPLE INC  ")
    table = parse_document(b"\n\n" + table_xml(row))  # EDGAR tools save tables with leading blank lines
    assert isinstance(table, InformationTable)
    assert (table.rows[0].cusip, table.rows[0].value, table.rows[0].issuer) == ("037833100", 1200, "APPLE INC")


@pytest.mark.parametrize(
    ("extra", "kind", "put_call"),
    [("<putCall>Put</putCall>", "SH", "Put"), ("<putCall>CALL</putCall>", "SH", "Call"), ("", "PRN", None)],
)
def test_option_and_principal_amount_rows_keep_their_put_call_and_share_type(
    extra: str, kind: str, put_call: str | None
) -> None:
    table = parse_document(table_xml(row_xml(kind=kind, extra=extra)))
    assert isinstance(table, InformationTable)
    assert (table.rows[0].share_type, table.rows[0].put_call) == (kind, put_call)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (row_xml(cusip=""), "row 2: missing cusip"),
        (row_xml(cusip="03783310"), "row 2: cusip '03783310' is not nine letters or digits"),
        (row_xml(value="12.5"), "row 2: value '12.5' is not a whole number"),
        (row_xml(value=""), "row 2: missing value"),
        (row_xml(shares="1,000"), "row 2: sshPrnamt '1,000' is not a whole number"),
        (row_xml(value="1" * 17), "row 2: value '11111111111111111' is not a whole number of at most 16 digits"),
        (row_xml(kind="SHS"), "row 2: sshPrnamtType 'SHS' is neither SH nor PRN"),
        (row_xml(extra="<putCall>Straddle</putCall>"), "row 2: putCall 'Straddle' is neither Put nor Call"),
    ],
)
def test_a_malformed_row_refuses_the_whole_table_naming_the_row(row: str, expected: str) -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document(table_xml(row_xml(), row))
    assert caught.value.message.startswith("has malformed rows: ")
    assert expected in caught.value.message


def test_many_malformed_rows_are_listed_up_to_ten_and_the_rest_counted() -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document(table_xml(*[row_xml(cusip="")] * 13))
    assert "row 10: missing cusip" in caught.value.message and "row 11" not in caught.value.message
    assert caught.value.message.endswith("; and 3 more")


BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<informationTable>&lol3;</informationTable>"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE informationTable [<!ENTITY x SYSTEM "file:///etc/passwd">]>
<informationTable><infoTable><nameOfIssuer>&x;</nameOfIssuer></infoTable></informationTable>"""
EXTERNAL_DTD = (
    b'<?xml version="1.0"?>\n\n<!DOCTYPE informationTable SYSTEM "http://example.com/evil.dtd">\n<informationTable/>'
)
HTML = b'<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">\n<html><head><title>SEC FORM 13-F</title>'


@pytest.mark.parametrize(
    ("data", "message", "line"),
    [
        (BILLION_LAUGHS, "declares a DTD (<!DOCTYPE>), which no 13F document has", 2),
        (EXTERNAL_ENTITY, "declares a DTD (<!DOCTYPE>), which no 13F document has", 2),
        (EXTERNAL_DTD, "declares a DTD (<!DOCTYPE>), which no 13F document has", 3),
        (table_xml(row_xml())[:-40], "is truncated XML (unclosed token)", 3),
        (table_xml(row_xml()).rpartition(b"</informationTable>")[0], "is truncated XML (no element found)", 4),
        (table_xml(row_xml()).replace(b"</cusip>", b"</cusp>"), "is not well-formed XML (mismatched tag)", 3),
        (table_xml(row_xml()).replace(b"APPLE", b"APPL\xc9"), "is not UTF-8 (byte 0xc9 at offset", 3),
        (
            table_xml(row_xml(), prefix="ns1").replace(b"xmlns:ns1=", b"xmlns:ns2="),
            "is not well-formed XML (unbound prefix)",
            2,
        ),
        (HTML, "is SEC's rendered HTML, not a 13F XML document", None),
        (b"  FORM 13F INFORMATION TABLE\nAPPLE INC   COM  037833100   1,200", "is a legacy text 13F table", None),
        (b"cusip,ticker,name\n", "is neither XML nor an EDGAR submission", None),
        (b"", "is empty", None),
        (
            b'<?xml version="1.0"?><xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>',
            "root element <schema>",
            None,
        ),
    ],
)
def test_hostile_or_foreign_input_is_refused_whole_with_the_reason_and_line(
    data: bytes, message: str, line: int | None
) -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document(data)
    assert message in caught.value.message
    assert caught.value.line == line


def test_a_primary_document_gives_its_cover_summary_and_a_zero_padded_cik() -> None:
    summary = (
        "<tableEntryTotal>2</tableEntryTotal><tableValueTotal>4600</tableValueTotal>"
        "<isConfidentialOmitted>true</isConfidentialOmitted>"
    )
    document = parse_document(primary_xml(summary=summary))
    assert isinstance(document, PrimaryDocument)
    assert (document.cik, document.period, document.signature_date) == (
        "0001067983",
        date(2022, 9, 30),
        date(2022, 11, 14),
    )
    assert (document.submission_type, document.manager_name, document.report_type) == (
        "13F-HR",
        "Example Capital",
        "13F HOLDINGS REPORT",
    )
    assert document.summary == Summary(2, 4600, True)
    assert (document.is_amendment, document.table) == (False, None)


def test_a_primary_document_embedding_its_table_as_base64_carries_the_rows() -> None:
    contents = base64.encodebytes(table_xml(row_xml(), prefix="ns1")).decode()
    tail = (
        "<documents><document><conformedName>information_table.xml</conformedName>"
        "<conformedDocumentType>INFORMATION TABLE</conformedDocumentType>"
        f"<contents>{contents}</contents></document></documents>"
    )
    document = parse_document(primary_xml(tail=tail))
    assert isinstance(document, PrimaryDocument) and document.table is not None
    assert [(r.cusip, r.value) for r in document.table] == [("037833100", 1200)]


def test_an_embedded_table_that_is_not_base64_is_refused() -> None:
    tail = (
        "<documents><document><conformedDocumentType>INFORMATION TABLE</conformedDocumentType>"
        "<contents>@@@</contents></document></documents>"
    )
    with pytest.raises(DocumentError, match="embeds information table, which is not valid base64"):
        parse_document(primary_xml(tail=tail))


@pytest.mark.parametrize(
    ("form", "cover", "amendment", "number", "codes"),
    [
        ("13F-HR", "<isAmendment>false</isAmendment>", Amendment.ORIGINAL, 0, []),
        (
            "13F-HR/A",
            "<isAmendment>true</isAmendment><amendmentNo>2</amendmentNo><amendmentInfo><amendmentType>RESTATEMENT</amendmentType></amendmentInfo>",
            Amendment.RESTATEMENT,
            2,
            [],
        ),
        (
            "13F-HR/A",
            "<isAmendment>true</isAmendment><amendmentNo>1</amendmentNo>"
            "<amendmentInfo><amendmentType>NEW HOLDINGS</amendmentType></amendmentInfo>",
            Amendment.NEW_HOLDINGS,
            1,
            [],
        ),
        (
            "13F-HR/A",
            "<isAmendment>true</isAmendment><amendmentNo>3</amendmentNo>",
            Amendment.RESTATEMENT,
            3,
            ["amendment-type-missing"],
        ),
        ("13F-HR/A", "", Amendment.RESTATEMENT, 1, ["amendment-type-missing"]),
    ],
)
def test_the_amendment_kind_comes_from_amendment_type_and_a_missing_type_reads_as_a_restatement_with_a_warning(
    form: str, cover: str, amendment: Amendment, number: int, codes: list[str]
) -> None:
    document = parse_document(primary_xml(form=form, cover=cover))
    assert isinstance(document, PrimaryDocument)
    filing = build_filing(
        document, (holding(1_200, 10_000),), source="a/p.xml + a/t.xml", accession="x", filed=date(2022, 11, 14)
    )
    assert (filing.form_type, filing.amendment, filing.amendment_no) == (form, amendment, number)
    assert [w.code for w in filing.warnings] == codes


def test_an_unknown_amendment_type_is_refused() -> None:
    cover = "<isAmendment>true</isAmendment><amendmentInfo><amendmentType>CORRECTION</amendmentType></amendmentInfo>"
    document = parse_document(primary_xml(form="13F-HR/A", cover=cover))
    assert isinstance(document, PrimaryDocument)
    with pytest.raises(DocumentError, match="amendmentType 'CORRECTION', neither RESTATEMENT nor NEW HOLDINGS"):
        build_filing(document, (), source="p.xml", accession="x", filed=None)


def test_the_filing_date_is_the_header_date_when_known_else_the_signature_date() -> None:
    document = parse_document(primary_xml(signed="12-31-2022"))
    assert isinstance(document, PrimaryDocument)
    rows = (holding(1_200, 10_000),)
    assert build_filing(document, rows, source="p", accession="x", filed=None).filed == date(2022, 12, 31)
    assert build_filing(document, rows, source="p", accession="x", filed=date(2023, 2, 28)).filed == date(2023, 2, 28)


THOUSANDS, DOLLARS = ValueUnit.THOUSANDS, ValueUnit.DOLLARS
BEFORE, SINCE = "filed-before-2023-01-03", "filed-on-or-after-2023-01-03"


@pytest.mark.parametrize(
    ("filed", "rows", "unit", "rule", "warned"),
    [
        (date(2022, 11, 14), [holding(1_500, 10_000), holding(9_000, 50_000)], THOUSANDS, BEFORE, False),
        (date(2023, 1, 2), [holding(1_500, 10_000)], THOUSANDS, BEFORE, False),
        (date(2023, 1, 3), [holding(1_500_000, 10_000)], DOLLARS, SINCE, False),
        (date(2023, 2, 28), [holding(1_500, 10_000), holding(9_000, 50_000)], THOUSANDS, "implied-price-check", True),
        (
            date(2021, 2, 12),
            [holding(1_500_000, 10_000), holding(9_000_000, 50_000)],
            DOLLARS,
            "implied-price-check",
            True,
        ),
        (date(2024, 5, 1), [holding(1_500, 10_000, put_call="Call"), holding(9, 50, "PRN")], DOLLARS, SINCE, False),
        (date(2024, 5, 1), [holding(1, 100_000)], DOLLARS, SINCE, True),
        (
            date(2021, 2, 12),
            [holding(2_000, 1_000), holding(1_800, 1_000), holding(90, 1_000)],
            THOUSANDS,
            BEFORE,
            False,
        ),
    ],
)
def test_the_unit_is_decided_by_filing_date_then_checked_by_the_median_price_per_share(
    filed: date, rows: list[HoldingRow], unit: ValueUnit, rule: str, warned: bool
) -> None:
    decision = decide_unit(rows, filed, "f.xml")
    assert (decision.unit, decision.rule) == (unit, rule)
    assert (decision.warning is not None and decision.warning.code == "unit-doubtful") is warned


def test_the_median_price_counts_only_plain_share_rows_with_shares() -> None:
    rows = [
        holding(100, 1),
        holding(300, 1),
        holding(5, 0),
        holding(9_999, 1, put_call="Put"),
        holding(9_999, 1, "PRN"),
    ]
    assert median_price(rows, ValueUnit.DOLLARS) == 200
    assert median_price(rows, ValueUnit.THOUSANDS) == 200_000
    assert median_price([holding(1, 1, put_call="Call")], ValueUnit.DOLLARS) is None


# Near 2**53 distinct ratios round to one float: the case where float order alone would pick a wrong median.
_NEAR_BIG = st.integers(2**53 - 8, 2**53 + 8)
_pair = st.one_of(st.tuples(st.integers(0, 10**16 - 1), st.integers(1, 10**6)), st.tuples(_NEAR_BIG, _NEAR_BIG))


@given(st.one_of(st.lists(_pair, min_size=1, max_size=40), st.lists(st.tuples(_NEAR_BIG, _NEAR_BIG), min_size=2)))
def test_the_median_price_is_the_exact_median_of_the_ratios(pairs: list[tuple[int, int]]) -> None:
    rows = [holding(value, shares) for value, shares in pairs]
    expected = statistics.median(Fraction(value, shares) for value, shares in pairs)
    assert median_price(rows, ValueUnit.DOLLARS) == expected
    assert median_price(rows, ValueUnit.THOUSANDS) == expected * 1000


@pytest.mark.parametrize(
    ("summary", "codes", "detail"),
    [
        (Summary(2, 4600, False), [], ""),
        (Summary(3, 4600, False), ["summary-mismatch"], "2 rows, tableEntryTotal 3 (off by -1)"),
        (Summary(2, 4599, False), ["summary-mismatch"], "values sum to 4600, tableValueTotal 4599 (off by +1)"),
        (Summary(2, 4600, True), ["confidential-omitted"], "isConfidentialOmitted"),
        (None, ["no-summary"], "has no summary page"),
        (Summary(None, None, False), ["no-summary"], "has no summary page"),
    ],
)
def test_the_table_is_checked_against_its_summary_page(summary: Summary | None, codes: list[str], detail: str) -> None:
    warnings = summary_warnings([holding(1200, 10), holding(3400, 20)], summary, "a/p.xml + a/t.xml")
    assert [w.code for w in warnings] == codes
    assert all(w.message.startswith("p.xml + t.xml ") and detail in w.message for w in warnings)


SUBMISSION = (
    "<SEC-DOCUMENT>0000950123-22-012345.txt : 20221114\n<SEC-HEADER>0000950123-22-012345.hdr.sgml : 20221114\n"
    "ACCESSION NUMBER:\t\t0000950123-22-012345\nCONFORMED SUBMISSION TYPE:\t{form}\n"
    "CONFORMED PERIOD OF REPORT:\t20220930\nFILED AS OF DATE:\t\t20221115\n\nFILER:\n\tCOMPANY DATA:\t\n"
    "\t\tCOMPANY CONFORMED NAME:\t\t\tEXAMPLE CAPITAL\n\t\tCENTRAL INDEX KEY:\t\t\t0001067983\n</SEC-HEADER>\n"
    "<DOCUMENT>\n<TYPE>{form}\n<SEQUENCE>1\n<FILENAME>primary_doc.xml\n<TEXT>\n<XML>\n{primary}</XML>\n</TEXT>\n</DOCUMENT>\n"
    "<DOCUMENT>\n<TYPE>INFORMATION TABLE\n<SEQUENCE>2\n<FILENAME>infotable.xml\n<TEXT>\n<XML>\n{table}\n</XML>\n"
    "</TEXT>\n</DOCUMENT>\n</SEC-DOCUMENT>\n"
)


def submission(form: str = "13F-HR", table: bytes | None = None) -> bytes:
    table = table if table is not None else table_xml(row_xml())
    return SUBMISSION.format(form=form, primary=primary_xml(form=form).decode(), table=table.decode()).encode()


def test_a_full_submission_text_file_gives_its_header_and_documents() -> None:
    parsed = parse_submission(submission())
    assert (parsed.accession, parsed.submission_type, parsed.cik) == ("0000950123-22-012345", "13F-HR", "0001067983")
    assert (parsed.period, parsed.filed, parsed.company_name) == (
        date(2022, 9, 30),
        date(2022, 11, 15),
        "EXAMPLE CAPITAL",
    )
    primary, rows = carried_documents(parsed)
    assert primary.manager_name == "Example Capital" and rows is not None and rows[0].value == 1200


def test_a_feed_nc_file_with_bare_cr_line_endings_is_read() -> None:
    feed = (
        "<SUBMISSION>\n<ACCESSION-NUMBER>0001951757-25-000093\r<TYPE>13F-HR\r<PERIOD>20241231\r<FILING-DATE>20250122\r"
        "<FILER>\r<COMPANY-DATA>\r<CONFORMED-NAME>ACORN\r<CIK>1994827\r</COMPANY-DATA>\r</FILER>\r"
        f"<DOCUMENT>\r<TYPE>13F-HR\r<XML>\r{primary_xml().decode()}</XML>\r</DOCUMENT>\r"
        f"<DOCUMENT>\r<TYPE>INFORMATION TABLE\r<XML>\r{table_xml(row_xml(), prefix='ns1').decode()}\r</XML>\r"
        "</DOCUMENT>\r"
    ).replace("\n", "\r")
    parsed = parse_submission(feed.encode())
    assert (parsed.accession, parsed.filed, parsed.cik) == ("0001951757-25-000093", date(2025, 1, 22), "0001994827")
    assert carried_documents(parsed)[1] is not None


def test_an_error_inside_an_embedded_document_names_the_line_of_the_submission_file() -> None:
    data = submission(table=table_xml(row_xml()).replace(b"</value>", b"</valu>"))
    bad_line = next(n for n, text in enumerate(data.splitlines(), start=1) if b"</valu>" in text)
    with pytest.raises(DocumentError) as caught:
        carried_documents(parse_submission(data))
    assert caught.value.message.startswith("carries infotable.xml, which is not well-formed XML (mismatched tag)")
    assert caught.value.line == bad_line


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (submission()[:-40], "is truncated: a <DOCUMENT> has no </DOCUMENT>"),
        (submission().replace(b"FILED AS OF DATE", b"FILED"), "header has no FILED AS OF DATE"),
        (submission().replace(b"</XML>", b""), "is truncated: an <XML> block has no </XML>"),
    ],
)
def test_a_broken_submission_envelope_is_refused(data: bytes, message: str) -> None:
    with pytest.raises(DocumentError, match=re.escape(message)):
        parse_submission(data)


def test_a_legacy_pre_2013_text_submission_is_refused_not_half_parsed() -> None:
    legacy = re.sub(
        rb"<XML>.*?</XML>", b"FORM 13F INFORMATION TABLE\nAPPLE INC  COM  037833100  1,200", submission(), flags=re.S
    )
    with pytest.raises(DocumentError, match="is a legacy text 13F filing"):
        carried_documents(parse_submission(legacy))


@pytest.mark.parametrize(
    ("path", "accession"),
    [
        ("sec13f/1067983/0000950123-22-012345/primary_doc.xml", "0000950123-22-012345"),
        ("sec13f/1067983/000095012322012345/infotable.xml", "0000950123-22-012345"),
        ("sec13f/0001067983/2022-09-30_primary_doc.xml", None),
    ],
)
def test_an_accession_number_is_found_in_a_path_dashed_or_as_the_archive_folder_digits(
    path: str, accession: str | None
) -> None:
    assert accession_in(path) == accession
