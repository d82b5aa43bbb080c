"""Every real 13F file in ../shared/realdata/sec13f read as the builder reads it, with the figures as filed."""

from __future__ import annotations

import shutil
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from builder.records import Amendment, Filing, ManagerConfig, ValueUnit
from builder.sources.sec13f.document import InformationTable, PrimaryDocument, Summary, parse_document
from builder.sources.sec13f.filings import FilingsRead, read_copycat_filings, read_filing_tree
from builder.sources.sec13f.rules import build_filing, summary_warnings
from tests.conftest import REALDATA, realdata

BEFORE, SINCE, CHECKED = "filed-before-2023-01-03", "filed-on-or-after-2023-01-03", "implied-price-check"

# quarter → (rows, tableValueTotal in thousands): the summary page of each of the 30 submissions
BERKSHIRE = {
    "2013-06-30": (127, 89031205),
    "2013-09-30": (130, 92035233),
    "2013-12-31": (137, 104836593),
    "2014-03-31": (138, 105772705),
    "2014-06-30": (141, 107580386),
    "2014-09-30": (146, 107785377),
    "2014-12-31": (148, 109365274),
    "2015-03-31": (149, 107133479),
    "2015-06-30": (147, 107182425),
    "2015-09-30": (154, 127407562),
    "2015-12-31": (154, 131855536),
    "2016-03-31": (148, 128569639),
    "2016-06-30": (158, 129704731),
    "2016-09-30": (144, 128787110),
    "2016-12-31": (148, 147985198),
    "2017-03-31": (142, 161873831),
    "2017-06-30": (140, 162143689),
    "2017-09-30": (149, 177678767),
    "2017-12-31": (152, 191242697),
    "2018-03-31": (150, 188943876),
    "2018-06-30": (150, 195615793),
    "2018-09-30": (168, 221020177),
    "2018-12-31": (164, 183066067),
    "2019-03-31": (163, 199483708),
    "2019-06-30": (161, 208101077),
    "2019-09-30": (166, 214673311),
    "2019-12-31": (171, 242050717),
    "2020-03-31": (168, 175526846),
    "2020-06-30": (138, 202411166),
    "2020-09-30": (145, 228890673),
}
CONFIDENTIAL_QUARTERS = {"2013-06-30", "2014-09-30", "2015-06-30", "2020-09-30"}

# file-name start → (rows, sum of values as filed, tableValueTotal, unit, unit rule, warning codes)
# A headerless pair with no filing_dates.csv beside it is dated by its signatureDate, with filing-date-estimated.
SINGLES = {
    "acorn_creek_capital": (77, 194611845, 194611845, ValueUnit.DOLLARS, SINCE, []),
    "actiam": (5, 732158, 732158, ValueUnit.THOUSANDS, BEFORE, []),
    "bard_financial_services": (278, 1129298, 1129298, ValueUnit.THOUSANDS, BEFORE, ["filing-date-estimated"]),
    "baupost_group": (22, 5115380, 5115380, ValueUnit.THOUSANDS, CHECKED, ["filing-date-estimated", "unit-doubtful"]),
    "bull_street_advisors": (90, 192767, 192767, ValueUnit.THOUSANDS, CHECKED, ["unit-doubtful"]),
    "duquesne_family_office": (
        61,
        3369244,
        3369240,
        ValueUnit.THOUSANDS,
        BEFORE,
        ["filing-date-estimated", "summary-mismatch"],
    ),
    "lts_one_management": (14, 454926000, 454926000, ValueUnit.DOLLARS, SINCE, []),
    "metlife": (6, 11019796, 11019796, ValueUnit.DOLLARS, SINCE, []),
    "scion_asset_management": (8, 1381198076, 1381198076, ValueUnit.DOLLARS, SINCE, ["filing-date-estimated"]),
    "situational_awareness": (
        29,
        5516758345,
        5516758344,
        ValueUnit.DOLLARS,
        SINCE,
        ["filing-date-estimated", "summary-mismatch"],
    ),
}


def sec13f(folder: str) -> Path:
    return realdata("sec13f", folder)


@pytest.fixture(scope="module")
def berkshire() -> FilingsRead:
    return read_filing_tree(sec13f("berkshire_hathaway_0001067983"), REALDATA)


@pytest.fixture(scope="module")
def singles() -> FilingsRead:
    return read_filing_tree(sec13f("filings"), REALDATA)


@pytest.fixture(scope="module")
def official() -> FilingsRead:
    return read_filing_tree(sec13f("official"), REALDATA)


def single(read: FilingsRead, start: str) -> Filing:
    (found,) = [f for f in read.filings if f.source.startswith(f"sec13f/filings/{start}_")]
    return found


def name(source: str) -> str:
    return Path(source.split(" + ")[0]).name


@pytest.mark.parametrize("quarter", sorted(BERKSHIRE))
def test_every_berkshire_quarter_matches_its_summary_page_in_thousands(berkshire: FilingsRead, quarter: str) -> None:
    (filing,) = [f for f in berkshire.filings if f.period == date.fromisoformat(quarter)]
    rows, total = BERKSHIRE[quarter]
    assert (len(filing.rows), filing.table_entry_total) == (rows, rows)
    assert (sum(r.value for r in filing.rows), filing.table_value_total) == (total, total)
    assert (filing.unit, filing.unit_rule, filing.form_type) == (ValueUnit.THOUSANDS, BEFORE, "13F-HR")
    expected = ["confidential-omitted"] if quarter in CONFIDENTIAL_QUARTERS else []
    assert [w.code for w in filing.warnings] == expected
    assert filing.accession in filing.source and filing.cik == "0001067983"


def test_berkshire_reads_as_thirty_filings_of_one_manager_with_no_problem(berkshire: FilingsRead) -> None:
    assert (len(berkshire.filings), berkshire.problems, berkshire.skipped) == (30, (), ())
    assert [f.period.isoformat() for f in berkshire.filings] == sorted(BERKSHIRE)
    assert len(berkshire.files) == 30 and all(len(f.sha256) == 64 and f.size > 70_000 for f in berkshire.files)
    assert berkshire.filings[0].filed == date(2013, 8, 15)  # FILED AS OF DATE, not the 2013-08-14 acceptance
    assert {f.report_type for f in berkshire.filings} == {"13F COMBINATION REPORT"}


def test_a_berkshire_holding_split_by_other_manager_stays_as_filed_row_by_row(berkshire: FilingsRead) -> None:
    last = berkshire.filings[-1]
    bank = [r for r in last.rows if r.cusip == "060505104"]
    assert len(bank) == 12 and len({r.other_managers for r in bank}) == 12
    assert [r.row for r in last.rows] == list(range(1, 146))
    assert max(max(Counter(r.cusip for r in f.rows).values()) for f in berkshire.filings) == 14  # WFC, 2013


@pytest.mark.parametrize("start", sorted(SINGLES))
def test_each_single_real_filing_gives_its_rows_totals_unit_and_warnings(singles: FilingsRead, start: str) -> None:
    filing = single(singles, start)
    rows, value_sum, cover_total, unit, rule, codes = SINGLES[start]
    assert (len(filing.rows), filing.table_entry_total) == (rows, rows)
    assert (sum(r.value for r in filing.rows), filing.table_value_total) == (value_sum, cover_total)
    assert (filing.unit, filing.unit_rule) == (unit, rule)
    assert [w.code for w in filing.warnings] == codes


def test_exactly_the_two_real_filings_the_readme_names_are_off_their_summary_page(
    berkshire: FilingsRead, singles: FilingsRead
) -> None:
    mismatched = {
        name(w.source): w.message for w in (*berkshire.warnings, *singles.warnings) if w.code == "summary-mismatch"
    }
    assert sorted(mismatched) == [
        "duquesne_family_office_2019-06-30_primary_doc.xml",
        "situational_awareness_2025-12-31_primary_doc.xml",
    ]
    assert (
        "values sum to 3369244, tableValueTotal 3369240 (off by +4)"
        in mismatched["duquesne_family_office_2019-06-30_primary_doc.xml"]
    )
    assert (
        "values sum to 5516758345, tableValueTotal 5516758344 (off by +1)"
        in mismatched["situational_awareness_2025-12-31_primary_doc.xml"]
    )


def test_units_that_break_the_date_rule_are_caught_by_price_and_warned(singles: FilingsRead) -> None:
    doubtful = sorted(name(w.source) for w in singles.warnings if w.code == "unit-doubtful")
    assert doubtful == [
        "baupost_group_2026-03-31_primary_doc.xml",
        "bull_street_advisors_2022-12-31_0001790837-23-000002_from_cassette.txt",
    ]
    baupost, bull, metlife = (single(singles, s) for s in ("baupost_group", "bull_street_advisors", "metlife"))
    assert sum(baupost.dollars(r.value) for r in baupost.rows) == 5_115_380_000
    assert (bull.filed, bull.unit) == (date(2023, 2, 28), ValueUnit.THOUSANDS)  # header date, not signed 2022-12-31
    assert (metlife.period, metlife.filed, metlife.unit) == (date(2021, 12, 31), date(2023, 3, 23), ValueUnit.DOLLARS)


def test_option_rows_and_split_share_classes_are_kept_as_filed(singles: FilingsRead) -> None:
    scion, situational, duquesne = (
        single(singles, s) for s in ("scion_asset_management", "situational_awareness", "duquesne_family_office")
    )
    assert [(r.cusip, r.put_call) for r in scion.rows if r.put_call] == [
        ("406216101", "Call"),
        ("67066G104", "Put"),
        ("69608A108", "Put"),
        ("717081103", "Call"),
    ]
    assert Counter(r.put_call for r in situational.rows) == {None: 24, "Call": 4, "Put": 1}
    with_calls = {r.cusip for r in situational.rows if r.put_call == "Call"}
    assert with_calls == {"093712107", "21873S108", "26884L109", "458140100"}  # BE, CRWV, EQT, INTC
    assert with_calls <= {r.cusip for r in situational.rows if r.put_call is None}  # each also held as shares
    assert [(r.issuer, r.put_call, r.value) for r in duquesne.rows if r.put_call] == [("Jd Com Inc", "Put", 6058)]
    assert sum(1 for r in single(singles, "bard_financial_services").rows if r.value == 0) == 3


def test_envelopes_give_their_accession_numbers_and_dates(singles: FilingsRead) -> None:
    acorn, lts = single(singles, "acorn_creek_capital"), single(singles, "lts_one_management")
    assert (acorn.accession, acorn.filed, acorn.cik) == ("0001951757-25-000093", date(2025, 1, 22), "0001994827")
    assert (lts.accession, lts.filed, lts.period) == ("0001894188-23-000007", date(2023, 11, 14), date(2023, 9, 30))
    assert (
        single(singles, "bard_financial_services").accession
        == "local:sec13f/filings/bard_financial_services_2021-09-30_primary_doc.xml"
    )


def test_the_filings_folder_refuses_html_and_every_document_it_cannot_pair(singles: FilingsRead) -> None:
    problems = {name(p.source): p.message for p in singles.problems}
    html = "unknown_manager_edgartools_form.13FHR.xml_is_actually_html.xml"
    assert problems.pop(html) == f"{html} is SEC's rendered HTML, not a 13F XML document"
    unpaired_tables = [
        "tiger_global_management_2025-12-31_0000919574-26-001143_infotable.xml",
        "unknown_manager_edgartools_13F-HR.infotable.xml",
    ]
    unpaired_primaries = [
        "abacus_wealth_partners_2020-12-31_primary_doc.xml",
        "berkshire_hathaway_2022-09-30_primary_doc.xml",
        "berkshire_hathaway_2025-03-31_13F-HR-A_new_holdings_primary_doc.xml",
        "metlife_2021-12-31_primary_doc.xml",
    ]
    assert sorted(problems) == sorted(unpaired_tables + unpaired_primaries)
    assert all("is an information table with no primary document" in problems[n] for n in unpaired_tables)
    assert all("is a primary document whose information table was not found" in problems[n] for n in unpaired_primaries)
    read = {f.path for f in singles.files} | {p.source for p in singles.problems}
    assert read == {f"sec13f/filings/{p.name}" for p in sec13f("filings").iterdir()}


@pytest.mark.parametrize(
    ("file", "rows", "total", "prn"),
    [
        ("filings/tiger_global_management_2025-12-31_0000919574-26-001143_infotable.xml", 54, 29714313270, 0),
        ("filings/unknown_manager_edgartools_13F-HR.infotable.xml", 255, 350153407, 3),
        ("official/information_table.xml", 169, 7454702899, 0),
    ],
)
def test_a_table_without_its_primary_document_parses_but_has_no_summary(
    file: str, rows: int, total: int, prn: int
) -> None:
    table = parse_document(sec13f(file).read_bytes())
    assert isinstance(table, InformationTable)
    assert (len(table.rows), sum(r.value for r in table.rows), sum(r.share_type == "PRN" for r in table.rows)) == (
        rows,
        total,
        prn,
    )
    assert [w.code for w in summary_warnings(table.rows, None, file)] == ["no-summary"]


def test_the_new_holdings_amendment_primary_document_is_read_as_one(singles: FilingsRead) -> None:
    document = parse_document(
        sec13f("filings/berkshire_hathaway_2025-03-31_13F-HR-A_new_holdings_primary_doc.xml").read_bytes()
    )
    assert isinstance(document, PrimaryDocument)
    assert (document.submission_type, document.amendment_no, document.summary) == (
        "13F-HR/A",
        1,
        Summary(4, 1106550356, False),
    )
    filing = build_filing(document, (), source="p.xml", accession="x", filed=None)
    assert (filing.amendment, filing.filed, filing.unit) == (
        Amendment.NEW_HOLDINGS,
        date(2025, 8, 14),
        ValueUnit.DOLLARS,
    )


def test_the_sec_samples_are_read_notices_and_requests_skipped_and_schemas_refused(official: FilingsRead) -> None:
    read = {
        name(f.source): (f.form_type, f.amendment, f.amendment_no, len(f.rows), f.table_entry_total)
        for f in official.filings
    }
    assert read == {
        "Sample_13F-HR.xml": ("13F-HR", Amendment.ORIGINAL, 0, 169, 111),
        "Sample_13F-HRA.xml": ("13F-HR/A", Amendment.RESTATEMENT, 45, 169, 1222),
    }
    # the SEC's samples carry placeholder cover totals (111, 1222) for their 169-row table
    assert [w.code for w in official.warnings] == ["filing-date-estimated", "summary-mismatch"] * 2
    assert [(name(w.source), w.code) for w in official.skipped] == [
        ("Sample_13F-CTR.xml", "skipped-confidential-request"),
        ("Sample_13F-CTRA.xml", "skipped-confidential-request"),
        ("Sample_13F-NT.xml", "skipped-notice"),
        ("Sample_13F-NTA.xml", "skipped-notice"),
    ]
    assert [(name(p.source), p.message.split(" ", 1)[1]) for p in official.problems] == [
        ("eis_13FDocument.xsd", "is XML but not a 13F document (root element <schema>)"),
        ("eis_13F_Filer.xsd", "is XML but not a 13F document (root element <schema>)"),
        ("eis_Common.xsd", "is XML but not a 13F document (root element <schema>)"),
        ("eis_stateCodes.xsd", "is XML but not a 13F document (root element <schema>)"),
        (
            "information_table.xml",
            "is an information table with no primary document: its manager, quarter and filing date are unknown "
            "(paired by accession number in the path, alone together in a folder, or a common file-name prefix)",
        ),
    ]
    standalone = parse_document(sec13f("official/information_table.xml").read_bytes())
    assert isinstance(standalone, InformationTable) and official.filings[0].rows == standalone.rows


def test_a_copycat_tree_of_real_filings_reads_configured_managers_only(tmp_path: Path) -> None:
    shutil.copytree(sec13f("berkshire_hathaway_0001067983"), tmp_path / "sec13f" / "1067983")
    (tmp_path / "sec13f" / "1061768").mkdir()
    for part in ("primary_doc", "infotable"):
        shutil.copy(sec13f(f"filings/baupost_group_2026-03-31_{part}.xml"), tmp_path / "sec13f" / "1061768")
    shutil.copy(sec13f("filings/scion_asset_management_2025-09-30_primary_doc.xml"), tmp_path / "sec13f")
    (tmp_path / "sec13f" / "1649339").mkdir()
    managers = [ManagerConfig("berkshire", "Berkshire Hathaway Inc", "0001067983")]
    read = read_copycat_filings(tmp_path, managers)
    assert len(read.filings) == 30 and {f.cik for f in read.filings} == {"0001067983"}
    assert [(w.code, w.source) for w in read.skipped] == [
        ("skipped-unconfigured-manager", "sec13f/1061768"),
        ("skipped-unconfigured-manager", "sec13f/1649339"),
    ]
    assert [str(p) for p in read.problems] == [
        "sec13f/scion_asset_management_2025-09-30_primary_doc.xml: scion_asset_management_2025-09-30_primary_doc.xml "
        "is not in a manager's folder sec13f/<cik>/"
    ]
