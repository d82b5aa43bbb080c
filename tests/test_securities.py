"""securities.csv: CUSIP → ticker and name; every problem names the file and line."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from builder.records import Security
from builder.sources.files import Limit
from builder.sources.sec13f.document import InformationTable, parse_document
from builder.sources.sec13f.filings import read_filing_tree
from builder.sources.tables import csvfile
from builder.sources.tables.securities import parse_securities, read_securities
from tests.conftest import REALDATA, realdata

TABLE_ONLY = (
    "tiger_global_management_2025-12-31_0000919574-26-001143_infotable.xml",
    "unknown_manager_edgartools_13F-HR.infotable.xml",
)


@pytest.mark.parametrize(
    "text",
    [
        "cusip,ticker,name\n037833100,AAPL,APPLE INC\n",
        "name,exchange,ticker,cusip\nAPPLE INC,NASDAQ,AAPL,037833100\n",
        "\ufeffCUSIP , Ticker ,Name\r\n037833100 , AAPL , APPLE INC \r\n\r\n",
        'cusip,ticker,name\n037833100,AAPL,"APPLE INC"\n037833100,AAPL,"APPLE INC"\n',
        "cusip,ticker,name\n037833100,AAPL,APPLE INC\n,,\n",
    ],
)
def test_the_header_names_the_columns_in_any_order_with_more_columns_allowed(text: str) -> None:
    assert parse_securities(text.removeprefix("\ufeff"), "securities.csv") == (
        {"037833100": Security("037833100", "AAPL", "APPLE INC")},
        (),
    )


def test_a_map_of_cusip_and_ticker_alone_is_read_with_empty_names() -> None:
    assert parse_securities("cusip,ticker\n037833100,AAPL\n", "securities.csv") == (
        {"037833100": Security("037833100", "AAPL", "")},
        (),
    )


def test_a_ticker_belongs_to_a_date_and_an_undated_row_is_todays_ticker() -> None:
    text = (
        "cusip,ticker,name,valid_from,valid_to\n"
        "03073E105,ABC,AMERISOURCEBERGEN CORP,2001-08-29,2023-08-29\n"
        "03073E105,COR,CENCORA INC,2023-08-30,\n"
        "30303M102,META,META PLATFORMS INC,,\n"
    )
    securities, problems = parse_securities(text, "securities.csv")
    assert problems == ()
    cencora = securities["03073E105"]
    assert (cencora.ticker, cencora.at(date(2016, 3, 31))[0].ticker, cencora.at(date(2016, 3, 31))[1]) == (
        "COR",
        "ABC",
        True,
    )
    assert (cencora.at(date(2024, 3, 31))[0].ticker, cencora.at(date(2024, 3, 31))[1]) == ("COR", True)
    assert cencora.at(date(1999, 12, 31)) == (cencora, False)  # no row covers it: today's ticker, said to be current
    meta = securities["30303M102"]
    assert meta.at(date(2016, 3, 31)) == (meta, False)


def test_a_lower_case_cusip_is_read_upper_case_as_in_the_filings() -> None:
    securities, problems = parse_securities("cusip,ticker,name\ng96629103,WTW,WILLIS TOWERS WATSON\n", "s.csv")
    assert (list(securities), problems) == (["G96629103"], ())


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("ticker,name\nAAPL,APPLE\n", "securities.csv:1: securities.csv header lacks cusip (it needs cusip,ticker)"),
        ("", "securities.csv:1: securities.csv header lacks cusip, ticker (it needs cusip,ticker)"),
        (
            "cusip,ticker,name\n037833100,AAPL,APPLE\n03783310,X,Y\n",
            "securities.csv:3: securities.csv has cusip '03783310', not nine letters or digits",
        ),
        (
            "cusip,ticker,name\n\n037833100,,APPLE\n",
            "securities.csv:3: securities.csv has no ticker for cusip 037833100",
        ),
        ("cusip,ticker,name\n037833100\n", "securities.csv:2: securities.csv has 1 fields, fewer than its header"),
        (
            "cusip,ticker,name\n037833100,AAPL,APPLE\n037833100,APLE,APPLE\n",
            "securities.csv:3: securities.csv maps cusip 037833100 again, unlike line 2",
        ),
        (
            'cusip,ticker,name\n037833100,AAPL,"APPLE\n',
            "securities.csv:2: securities.csv is not valid CSV (unexpected end of data)",
        ),
        (
            "cusip,ticker,valid_from,valid_to\n037833100,AAPL,2020-01-01,2019-01-01\n",
            "securities.csv:2: securities.csv has valid_to 2019-01-01 before valid_from 2020-01-01",
        ),
        (
            "cusip,ticker,valid_from\n037833100,AAPL,31/12/2020\n",
            "securities.csv:2: securities.csv has valid_from '31/12/2020', not a date YYYY-MM-DD",
        ),
        (
            "cusip,ticker,valid_from,valid_to\n03073E105,ABC,2001-08-29,2023-08-29\n03073E105,COR,2023-08-01,\n",
            "securities.csv:3: securities.csv gives cusip 03073E105 dates overlapping line 2",
        ),
    ],
)
def test_a_bad_line_is_a_problem_naming_file_and_line_and_nothing_is_returned(text: str, problem: str) -> None:
    securities, problems = parse_securities(text, "securities.csv")
    assert securities == {}
    assert [str(p) for p in problems] == [problem]


def test_every_bad_line_is_reported_at_once_up_to_a_limit() -> None:
    text = "cusip,ticker,name\n" + "bad,X,Y\n" * (csvfile.MAX_PROBLEMS_LISTED + 5)
    problems = parse_securities(text, "securities.csv")[1]
    assert len(problems) == csvfile.MAX_PROBLEMS_LISTED + 1
    assert [p.line for p in problems[:3]] == [2, 3, 4]
    assert str(problems[-1]) == "securities.csv: and 5 more problems"


def test_reading_names_the_file_relative_to_the_source_root(tmp_path: Path) -> None:
    (tmp_path / "securities.csv").write_bytes(b"cusip,ticker,name\n037833100,AAPL,APPLE\n\xff\xfe,X,Y\n")
    assert [str(p) for p in read_securities(tmp_path / "securities.csv", tmp_path)[1]] == [
        "securities.csv:3: securities.csv is not UTF-8 (byte 0xff)"
    ]
    assert [str(p) for p in read_securities(tmp_path / "missing.csv", tmp_path)[1]] == [
        "missing.csv: missing.csv is missing: run `ras securities` to map the filings' CUSIPs, or write cusip,ticker rows"
    ]


def test_an_oversized_map_is_refused_unread(tmp_path: Path) -> None:
    (tmp_path / "securities.csv").write_text("cusip,ticker,name\n")
    assert [p.message for p in read_securities(tmp_path / "securities.csv", tmp_path, Limit(10, "file_mib"))[1]] == [
        "18 bytes, over the 10-byte limit for this source file — remove it, or raise [limits] file_mib in packs.toml"
    ]


def test_the_real_sample_maps_717_of_the_721_cusips_of_the_real_filings() -> None:
    root = realdata()
    securities, problems = read_securities(root / "securities_sample.csv", root)
    assert (len(securities), problems) == (717, ())
    assert securities["00206R102"] == Security("00206R102", "T", "AT&T INC")
    folders = ("berkshire_hathaway_0001067983", "filings", "official")
    filed = [f for folder in folders for f in read_filing_tree(REALDATA / "sec13f" / folder, REALDATA).filings]
    tables = [parse_document((REALDATA / "sec13f" / "filings" / name).read_bytes()) for name in TABLE_ONLY]
    cusips = {r.cusip for f in filed for r in f.rows} | {
        r.cusip for t in tables if isinstance(t, InformationTable) for r in t.rows
    }
    assert (len(cusips), len(cusips & securities.keys())) == (721, 717)
