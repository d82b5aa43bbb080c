"""CUSIPs that share a share-class FIGI are one security: every one takes the ticker filed most recently."""

from __future__ import annotations

from datetime import date

from builder.records import Security
from builder.sources.identity import link_by_figi, linked_tickers
from builder.sources.tables.securities import parse_securities
from tests.factories import filing

OLD, NEW = "891027104", "37959E102"
CSV = f"cusip,ticker,name,figi\n{OLD},TMK,TORCHMARK CORP,BBGFICTION01\n{NEW},GL,GLOBE LIFE INC,bbgfiction01\n"


def test_the_figi_column_is_read_when_present_and_optional_otherwise():
    securities, problems = parse_securities(CSV, "securities.csv")
    assert problems == () and securities[NEW].figi == "BBGFICTION01"  # upper-cased, as FIGIs are
    plain, _ = parse_securities("cusip,ticker,name\n037833100,AAPL,APPLE INC\n", "securities.csv")
    assert plain["037833100"] == Security("037833100", "AAPL", "APPLE INC", "")


def test_the_cusip_filed_last_gives_the_ticker_whichever_order_the_rows_come_in():
    securities, _ = parse_securities(CSV, "securities.csv")
    filings = [filing("0000000001", date(2019, 6, 30), {OLD: 10}), filing("0000000001", date(2019, 9, 30), {NEW: 10})]
    linked = link_by_figi(securities, filings)
    assert (linked[OLD].ticker, linked[NEW].ticker) == ("GL", "GL") and linked[OLD].name == "GLOBE LIFE INC"
    assert linked_tickers(securities, linked) == [f"linked {OLD} (TMK) to GL by share-class FIGI BBGFICTION01"]
    reversed_filings = [
        filing("0000000001", date(2019, 6, 30), {NEW: 10}),
        filing("0000000001", date(2019, 9, 30), {OLD: 10}),
    ]
    assert link_by_figi(securities, reversed_filings)[NEW].ticker == "TMK"


def test_rows_without_a_figi_are_never_linked():
    securities, _ = parse_securities(CSV.replace(",BBGFICTION01", ",").replace(",bbgfiction01", ","), "securities.csv")
    assert link_by_figi(securities, []) == securities
