"""Preview packs on the second round of real rows: a bond under a stock ticker, a put without the word option,
crypto pairs, both spellings of a class share, one report in two scrapers' copies, and a file whose shape
cannot answer. Expected rows are read off the raw files here (README of ../shared/realdata/congress-round2)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.release.store import current_release
from builder.research.previews.congress import DEMO_RULE, CongressInput, build_congress, clusters_on, signal_history
from builder.research.previews.disclosures import copy_warnings, distinct_trades
from builder.research.previews.person import build_person
from builder.sources.congress.rows import CongressFile, parse_congress
from builder.sources.previews import PersonSource, read_previews
from builder.sources.tree import fixture_source
from tests.conftest import realdata

ROUND2 = "congress-round2"
COUPONS = "house_stock_watcher_tickered_coupons_sample.json"
SUMMARIES = "senate_stock_watcher_daily_summaries_sample.json"
CLASS_SHARES = "house_stock_watcher_class_shares_sample.json"
AGGREGATE = "senate_stock_watcher_aggregate_sample.json"
RESCRAPE = "house_rescrape_tattooedhead_sample.json"
CAPITOL = "capitol_watch_house_same_reports_sample.json"
OPTIONS = "house_stock_watcher_options_and_names_sample.json"
CONGRESS_FILES = 'files = ["previews/congress"]\n'


def parsed(name: str, folder: str = ROUND2) -> CongressFile:
    return parse_congress(realdata(folder, name).read_bytes(), name)


def raw(name: str, folder: str = ROUND2) -> list[dict]:
    return json.loads(realdata(folder, name).read_bytes())


def test_notes_filed_under_the_issuers_stock_ticker_are_bonds_and_make_no_cluster():
    file = parsed(COUPONS)
    rows = raw(COUPONS)
    worded = {
        n for n, row in enumerate(rows, 1) if "%" in row["asset_description"] or "CUSIP" in row["asset_description"]
    }
    assert worded == {1, 2, 5, 6, 7, 8, 9, 11}  # GS 3.24%, TM 3.25%, DE, AMZN CUSIP, JNJ, C GLB, DE /21, CAT 3.9%
    assert {t.row for t in file.trades if t.instrument.value == "bond"} == worded
    assert all(t.ticker for t in file.trades)  # every one carries a stock ticker
    assert {(t.ticker, t.member) for t in file.trades if t.instrument.value == "stock"} == {
        ("C", "Hon. John A. Yarmuth"),
        ("GS", "Hon. Earl Blumenauer"),
        ("AMZN", "Hon. Kevin Hern"),
    }
    # Yarmuth's C stock (07-01) and Roe's C note (07-14), Hern's AMZN stock (08-15) and Conaway's note (09-04):
    # two members within 30 days each time, but a note is no purchase of the stock.
    assert signal_history(file.trades, DEMO_RULE, date(2022, 12, 31)) == []


def test_a_put_worded_without_option_under_a_stock_type_is_an_option_and_the_type_is_counted_as_contradicted():
    file = parsed(SUMMARIES)
    puts = [t for t in file.trades if "put" in t.asset_description.casefold().split()]
    assert {t.asset_description for t in puts} == {"SPY Feb 2016 put 180.000", "PUT Standard & Poors Dep Rec at 180"}
    assert {(t.asset_type, t.instrument.value) for t in puts} == {("Stock", "option")}
    contradicted = [i for i in file.issues if i.code == "asset-type-contradicted"]
    assert sorted(i.row for i in contradicted) == sorted(t.row for t in puts) and len(puts) == 4
    found = read_previews(realdata(ROUND2).parent, {"congress": {"files": [f"{ROUND2}/{SUMMARIES}"]}})
    assert "asset-type-contradicted ×4" in found.reports[0] and "option 4" in found.reports[0]


def test_crypto_pairs_are_crypto_and_no_holding_of_the_tracker():
    file = parsed(OPTIONS, "congress")
    pairs = {n for n, row in enumerate(raw(OPTIONS, "congress"), 1) if str(row["ticker"]).endswith("-USD")}
    assert len(pairs) == 13
    assert {t.row for t in file.trades if t.instrument.value == "crypto"} == pairs
    pack = build_person(PersonSource("Mark Green", (file,)), as_of=date(2022, 12, 31))
    assert not [h for h in pack.artifact["holdings"] if h["ticker"].endswith("-USD")]
    assert Counter(t["instrument"] for t in pack.artifact["untracked"] if t["ticker"])["crypto"] == 13


def test_a_class_share_is_one_security_in_every_spelling_across_the_chambers():
    house, senate = parsed(CLASS_SHARES), parsed(SUMMARIES)
    raw_tickers = {row["ticker"] for row in raw(CLASS_SHARES)}
    assert {"BRK.B", "RDS.B"} <= raw_tickers and "BRK-B" in json.dumps(raw(SUMMARIES))
    assert "BRK-B" not in {t.ticker for t in senate.trades} and "BRK.B" in {t.ticker for t in senate.trades}
    trades = distinct_trades((house, senate)).trades

    def clusters(day: date) -> list[tuple[str, tuple[str, ...]]]:
        return [(c.ticker, c.members) for c in clusters_on([t for t in trades if t.disclosed <= day], DEMO_RULE, day)]

    assert ("BRK.B", ("David Perdue", "Gilbert Cisneros")) in clusters(date(2020, 4, 16))
    assert "RDS.B" in dict(clusters(date(2020, 5, 13)))  # Wyden RDS-B, Gottheimer RDS.B
    assert ("BRK.B", ("Jerry Moran", "Josh Gottheimer")) in clusters(date(2020, 9, 8))


def test_one_report_in_two_scrapers_copies_counts_each_trade_once_with_the_owner_its_code_says():
    rescrape, capitol = parsed(RESCRAPE), parsed(CAPITOL)
    distinct = distinct_trades((rescrape, capitol))
    assert len(distinct.trades) == 25  # the 9 rescraped lines are all among capitol-watch's 25
    assert [(c.source, c.of, len(c.rows)) for c in distinct.copies] == [(CAPITOL, RESCRAPE, 9)]
    owners = {t.row: t.owner for t in capitol.trades}
    coded = {n: row["asset_description"] for n, row in enumerate(raw(CAPITOL), 1) if row["owner"] == "Self"}
    assert owners[5] == "joint" and " JT " in coded[5]  # "… # 1 JT M3 INC UNSP/ADR"
    assert owners[25] == "spouse" and " SP " in coded[25]  # "… SP Kroger Company"
    assert owners[19] == "dependent" and " DC " in coded[19]  # "F S: New DC STERIS plc"
    assert owners[1] == "self"  # Fields's MSFT: no code, identical in both
    disney = next(t for t in distinct.trades if t.ticker == "DIS")
    assert (disney.source, disney.instrument.value, disney.instrument_rule) == (RESCRAPE, "bond", "other-copy")
    messages = [w.message for w in copy_warnings(distinct)]
    assert any(CAPITOL in m and RESCRAPE in m for m in messages if "copy trades" in m)
    assert any("Corporate Bond" in m and "DIS bond" in m for m in messages)
    pack = build_congress(CongressInput((rescrape, capitol)), as_of=date(2026, 3, 31))
    assert pack.artifact["duplicatesDropped"] == 9


def test_a_file_without_disclosure_dates_fails_the_publish_in_one_line_unless_listed_unused(tmp_path: Path):
    source = tmp_path / "source"
    shutil.copytree(fixture_source(), source)
    shutil.copy(realdata(ROUND2, AGGREGATE), source / "previews" / "congress" / AGGREGATE)
    result = CliRunner().invoke(main, ["publish", "--source", str(source), "--releases", str(tmp_path / "r")])
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert errors == [
        f"Error: previews/congress/{AGGREGATE}: no disclosure date on any of its 16 rows (the Senate aggregate "
        "shape): the [person] and [congress] packs count a trade from the day it was disclosed; give the daily or "
        "per-report files instead, or list this file in the section's `unused`"
    ]
    assert current_release(tmp_path / "r") is None
    config = source / "packs.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace(CONGRESS_FILES, f'{CONGRESS_FILES}unused = ["previews/congress/{AGGREGATE}"]\n'), encoding="utf-8"
    )
    published = CliRunner().invoke(main, ["publish", "--source", str(source), "--releases", str(tmp_path / "r")])
    assert published.exit_code == 0, published.output
    assert AGGREGATE not in published.stderr


@pytest.mark.parametrize("unused", [["elsewhere.json"], "one.json"])
def test_an_unused_entry_that_names_no_configured_file_is_a_problem(unused):
    found = read_previews(realdata(ROUND2).parent, {"congress": {"files": [ROUND2], "unused": unused}})
    assert found.problems and all("unused" in p.message for p in found.problems)
