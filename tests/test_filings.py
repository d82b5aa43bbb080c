"""Reading trees of 13F files: pairing documents, refusing and skipping by rule, the copycat layout."""

from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path

import pytest

from builder.records import ManagerConfig, ValueUnit
from builder.sources.files import Limit, Limits
from builder.sources.sec13f.document import InformationTable, PrimaryDocument
from builder.sources.sec13f.filings import read_copycat_filings, read_filing_tree
from builder.sources.sec13f.pairing import LooseDocument, common_prefix, pair_documents

NS = 'xmlns="http://www.sec.gov/edgar/thirteenffiler"'


def primary(
    cik: str = "1067983", period: str = "09-30-2022", signed: str = "11-14-2022", form: str = "13F-HR"
) -> bytes:
    return (
        f"<edgarSubmission {NS}><headerData><submissionType>{form}</submissionType><filerInfo><filer><credentials>"
        f"<cik>{cik}</cik></credentials></filer><periodOfReport>{period}</periodOfReport></filerInfo></headerData>"
        "<formData><coverPage><filingManager><name>Example Capital</name></filingManager>"
        "<reportType>13F HOLDINGS REPORT</reportType></coverPage>"
        f"<signatureBlock><signatureDate>{signed}</signatureDate></signatureBlock><summaryPage>"
        "<tableEntryTotal>1</tableEntryTotal><tableValueTotal>1500</tableValueTotal></summaryPage></formData>"
        "</edgarSubmission>"
    ).encode()


def table(value: int = 1500) -> bytes:
    return (
        "<informationTable><infoTable><nameOfIssuer>APPLE INC</nameOfIssuer><cusip>037833100</cusip>"
        f"<value>{value}</value><shrsOrPrnAmt><sshPrnamt>10000</sshPrnamt><sshPrnamtType>SH</sshPrnamtType>"
        "</shrsOrPrnAmt></infoTable></informationTable>"
    ).encode()


def write(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)


def loose(source: str, is_primary: bool, accession: str | None = None) -> LooseDocument:
    document = PrimaryDocument("13F-HR", "0000000001", date(2022, 9, 30), None, "", "", False, None, None, None)
    return LooseDocument(source, accession, document if is_primary else InformationTable(()))


@pytest.mark.parametrize(
    ("primary_name", "table_name", "length"),
    [
        ("bard_2021-09-30_primary_doc.xml", "bard_2021-09-30_infotable.xml", 16),
        ("2025-03-31_primary_doc.xml", "2025-06-30_infotable.xml", 0),
        ("q1_primary.xml", "q2_infotable.xml", 0),
        ("fund2025primary.xml", "FUND2025info.xml", 8),
        ("ab_primary.xml", "ab_info.xml", 3),
        ("a_primary.xml", "a_info.xml", 0),
    ],
)
def test_a_common_file_name_prefix_pairs_only_when_long_enough_and_not_splitting_a_number(
    primary_name: str, table_name: str, length: int
) -> None:
    assert common_prefix(primary_name, table_name) == length


def test_documents_pair_by_accession_then_alone_in_a_folder_then_by_common_prefix() -> None:
    documents = [
        loose("m/0000950123-22-000001/primary_doc.xml", True, "0000950123-22-000001"),
        loose("m/0000950123-22-000001/infotable.xml", False, "0000950123-22-000001"),
        loose("m/q3/cover.xml", True),
        loose("m/q3/holdings.xml", False),
        loose("m/flat/2022-09-30_primary_doc.xml", True),
        loose("m/flat/2022-09-30_infotable.xml", False),
        loose("m/flat/2022-12-31_primary_doc.xml", True),
        loose("m/flat/2022-12-31_infotable.xml", False),
        loose("m/flat/2023-03-31_primary_doc.xml", True),
    ]
    pairs, alone = pair_documents(documents)
    assert sorted((p.source, t.source) for p, t in pairs) == [
        ("m/0000950123-22-000001/primary_doc.xml", "m/0000950123-22-000001/infotable.xml"),
        ("m/flat/2022-09-30_primary_doc.xml", "m/flat/2022-09-30_infotable.xml"),
        ("m/flat/2022-12-31_primary_doc.xml", "m/flat/2022-12-31_infotable.xml"),
        ("m/q3/cover.xml", "m/q3/holdings.xml"),
    ]
    assert [d.source for d in alone] == ["m/flat/2023-03-31_primary_doc.xml"]


def test_documents_that_tie_or_carry_different_accession_numbers_stay_unpaired() -> None:
    tie = [loose("m/abc_primary.xml", True), loose("m/abc_info_a.xml", False), loose("m/abc_info_b.xml", False)]
    assert pair_documents(tie)[0] == []
    clash = [loose("m/p.xml", True, "0000950123-22-000001"), loose("m/t.xml", False, "0000950123-22-000002")]
    assert pair_documents(clash)[0] == []


def test_a_tree_is_read_nested_with_paths_relative_to_base_and_every_file_hashed(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "sec13f/x/2022/2022-09-30_primary_doc.xml": primary(),
            "sec13f/x/2022/2022-09-30_infotable.xml": table(),
            "sec13f/x/2021/a/primary.xml": primary(period="12-31-2021", signed="02-10-2022"),
            "sec13f/x/2021/a/table.xml": table(2000),
        },
    )
    read = read_filing_tree(tmp_path / "sec13f" / "x", tmp_path)
    assert read.problems == () and read.skipped == ()
    assert [(f.source, f.period, f.unit, f.rows[0].value) for f in read.filings] == [
        ("sec13f/x/2021/a/primary.xml + sec13f/x/2021/a/table.xml", date(2021, 12, 31), ValueUnit.THOUSANDS, 2000),
        (
            "sec13f/x/2022/2022-09-30_primary_doc.xml + sec13f/x/2022/2022-09-30_infotable.xml",
            date(2022, 9, 30),
            ValueUnit.THOUSANDS,
            1500,
        ),
    ]
    assert read.filings[0].accession == "local:sec13f/x/2021/a/primary.xml"
    # 2000 against a cover total of 1500; neither pair has a header or a recorded date, so each is dated by its signature
    assert [w.code for w in read.warnings] == ["filing-date-estimated", "summary-mismatch", "filing-date-estimated"]
    assert next((f.path, f.size) for f in read.files) == (
        "sec13f/x/2021/a/primary.xml",
        len(primary(period="12-31-2021", signed="02-10-2022")),
    )
    hashes = {f.path: f.sha256 for f in read.files}
    assert hashes["sec13f/x/2022/2022-09-30_infotable.xml"] == hashlib.sha256(table()).hexdigest()


@pytest.mark.parametrize(
    ("data", "message", "line"),
    [
        (b'<?xml version="1.0"?>\n<!DOCTYPE a [<!ENTITY a "aaaaaaaa">]>\n<a>&a;</a>', "bomb.xml declares a DTD", 2),
        (table()[:-20], "bomb.xml is truncated XML", 1),
        (b"<informationTable>\n\xff</informationTable>", "bomb.xml is not UTF-8", 2),
        (
            b"<!DOCTYPE html>\n<html><body>13F</body></html>",
            "bomb.xml is SEC's rendered HTML, not a 13F XML document",
            None,
        ),
    ],
)
def test_a_hostile_file_in_a_tree_becomes_a_problem_naming_it_never_an_exception(
    tmp_path: Path, data: bytes, message: str, line: int | None
) -> None:
    write(tmp_path, {"m/bomb.xml": data, "m/p.xml": primary(), "m/t.xml": table()})
    read = read_filing_tree(tmp_path / "m", tmp_path)
    assert [(p.source, p.line) for p in read.problems] == [("m/bomb.xml", line)]
    assert read.problems[0].message.startswith(message)
    assert len(read.filings) == 1  # the other files are still read, so every problem is reported at once


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    write(tmp_path, {"m/big.xml": table() * 2})
    read = read_filing_tree(tmp_path / "m", tmp_path, limits=Limits(sec13f=Limit(100, "sec13f_file_mib")))
    size = len(table() * 2)
    assert [str(p) for p in read.problems] == [
        f"m/big.xml: {size:,} bytes, over the 100-byte limit for this source file — remove it, or raise "
        "[limits] sec13f_file_mib in packs.toml"
    ]
    assert read.files == ()


def test_notices_are_skipped_and_unpaired_documents_are_problems(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "m/notice.xml": primary(form="13F-NT"),
            "m/a/primary_doc.xml": primary(),
            "m/b/infotable.xml": table(),
            "m/c/report.txt": b"This is not a filing.\n",
        },
    )
    read = read_filing_tree(tmp_path / "m", tmp_path)
    assert [(w.code, w.source) for w in read.skipped] == [("skipped-notice", "m/notice.xml")]
    assert [p.message for p in read.problems] == [
        "primary_doc.xml is a primary document whose information table was not found (paired by accession number "
        "in the path, alone together in a folder, or a common file-name prefix)",
        "infotable.xml is an information table with no primary document: its manager, quarter and filing date are "
        "unknown (paired by accession number in the path, alone together in a folder, or a common file-name prefix)",
        "report.txt is neither XML nor an EDGAR submission: not a 13F document",
    ]
    assert read.filings == ()


def test_a_link_to_a_folder_is_reported_not_followed_or_silently_dropped(tmp_path: Path) -> None:
    write(tmp_path, {"elsewhere/p.xml": primary(), "elsewhere/t.xml": table()})
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "q3").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    read = read_filing_tree(tmp_path / "m", tmp_path)
    assert [str(p) for p in read.problems] == [
        "m/q3: q3 is a link to a folder, not followed: copy its files in instead"
    ]


def test_a_missing_directory_is_one_problem(tmp_path: Path) -> None:
    assert [str(p) for p in read_filing_tree(tmp_path / "none", tmp_path).problems] == [
        "none: none is not a directory of filings"
    ]


def test_the_same_filing_twice_is_a_problem_not_a_double_count(tmp_path: Path) -> None:
    write(tmp_path, {"m/a/p.xml": primary(), "m/a/t.xml": table(), "m/b/p.xml": primary(), "m/b/t.xml": table()})
    read = read_filing_tree(tmp_path / "m", tmp_path)
    assert [(p.source, p.message) for p in read.problems] == [
        ("m/b/p.xml", "p.xml + t.xml is the same filing as m/a/p.xml + m/a/t.xml: remove one of them")
    ]


MANAGERS = (
    ManagerConfig("berkshire", "Berkshire Hathaway Inc", "0001067983"),
    ManagerConfig("scion", "Scion", "0001649339"),
)


def test_copycat_reads_configured_managers_and_skips_other_folders(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "sec13f/1067983/q3/p.xml": primary(),
            "sec13f/1067983/q3/t.xml": table(),
            "sec13f/0001649339/p.xml": primary(cik="0001649339"),
            "sec13f/0001649339/t.xml": table(),
            "sec13f/9999999/p.xml": primary(cik="9999999"),
        },
    )
    read = read_copycat_filings(tmp_path, MANAGERS)
    assert read.problems == ()
    assert [(f.cik, f.source) for f in read.filings] == [
        ("0001067983", "sec13f/1067983/q3/p.xml + sec13f/1067983/q3/t.xml"),
        ("0001649339", "sec13f/0001649339/p.xml + sec13f/0001649339/t.xml"),
    ]
    assert [(w.code, w.source) for w in read.skipped] == [("skipped-unconfigured-manager", "sec13f/9999999")]
    assert [f.path for f in read.files] == [
        "sec13f/0001649339/p.xml",
        "sec13f/0001649339/t.xml",
        "sec13f/1067983/q3/p.xml",
        "sec13f/1067983/q3/t.xml",
    ]


def test_copycat_refuses_a_filing_in_another_managers_folder_and_a_manager_without_filings(tmp_path: Path) -> None:
    write(
        tmp_path,
        {"sec13f/1067983/p.xml": primary(cik="1649339"), "sec13f/1067983/t.xml": table(), "sec13f/notes.txt": b"x"},
    )
    read = read_copycat_filings(tmp_path, MANAGERS)
    assert [str(p) for p in read.problems] == [
        "sec13f/0001649339: Scion (CIK 0001649339) has no folder sec13f/0001649339/ (leading zeros optional)",
        "sec13f/1067983: Berkshire Hathaway Inc (CIK 0001067983) has no 13F-HR filing in it",
        "sec13f/1067983/p.xml: p.xml + t.xml is a filing of CIK 0001649339, not of its folder's CIK 0001067983",
        "sec13f/notes.txt: notes.txt is not in a manager's folder sec13f/<cik>/",
    ]
    assert read.filings == ()


def test_copycat_without_a_sec13f_folder_is_one_problem(tmp_path: Path) -> None:
    assert [str(p) for p in read_copycat_filings(tmp_path, MANAGERS).problems] == [
        "sec13f: sec13f/ is missing: it holds sec13f/<cik>/ per manager"
    ]
