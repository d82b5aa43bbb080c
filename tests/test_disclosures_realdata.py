"""Preview packs on the real House samples: options are not the stock, one person is one person, every trade
links its report, one trade is counted once. Each claim is checked against the raw rows, read here with
plain json and the test's own word lists, not through the product's parser."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from builder.research.previews.congress import DEMO_RULE, CongressInput, build_congress, clusters_on
from builder.research.previews.person import build_person
from builder.sources.congress.people import People
from builder.sources.congress.rows import parse_congress
from builder.sources.previews import PersonSource, read_previews
from tests.conftest import realdata

OPTIONS_SAMPLE = "house_stock_watcher_options_and_names_sample.json"
CAPITOL_SAMPLE = "capitol_watch_house_sample.json"
AS_OF = date(2022, 12, 31)  # after the options sample's last disclosure (2022-10-30)
# The twelve exercise rows of the options sample and the shares each delivered, read off their descriptions
# ("Exercised 100 call options (10K shares)", "Exercised 25 Call options 2.5K shares", "(3,000 shares)").
EXERCISES = {
    1293: ("AAPL", 10_000),
    720: ("AMZN", 3_000),
    1292: ("AXP", 5_000),
    1295: ("DIS", 10_000),
    723: ("FB", 3_000),
    724: ("FB", 2_000),
    416: ("GOOG", 20_000),
    269: ("MSFT", 15_000),
    270: ("MSFT", 10_000),
    887: ("NVDA", 20_000),
    1294: ("PYPL", 5_000),
    733: ("TSLA", 2_500),
}


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


@pytest.fixture(scope="module")
def raw() -> list[dict]:
    return json.loads(realdata("congress", OPTIONS_SAMPLE).read_bytes())


@pytest.fixture(scope="module")
def sample():
    return parse_congress(realdata("congress", OPTIONS_SAMPLE).read_bytes(), OPTIONS_SAMPLE)


@pytest.fixture(scope="module")
def option_rows(raw) -> set[int]:
    """Rows (1-based) that say call or put and are neither an exercise nor a note (a callable bond)."""
    described = [(row, words(entry["asset_description"])) for row, entry in enumerate(raw, 1)]
    return {
        row
        for row, found in described
        if found & {"call", "calls", "put", "puts"} and not found & {"exercised", "excercised", "note", "mtn"}
    }


def trades_of(pack, key: str) -> set[int]:
    return {trade["row"] for trade in pack.artifact[key]}


def test_every_call_and_put_row_is_an_option_in_each_real_spelling(raw, sample, option_rows):
    assert len(option_rows) == 56
    assert {t.row for t in sample.trades if t.instrument.value == "option"} == option_rows
    described = [raw[row - 1]["asset_description"] for row in option_rows]
    for spelling in (
        "Call Opt strike @",
        "Call Opts at",
        "CALL options @",
        "Put Option",
        "CALL Option @",
        "Call options Strike",
        "CALL opts with strike",
        "call options with a strike price",
    ):
        assert any(spelling in text for text in described), spelling


def test_no_option_row_reaches_a_cluster_on_any_disclosure_day(raw, sample, option_rows):
    days = sorted({t.disclosed for t in sample.trades})
    clustered = {t.row for day in days for c in clusters_on(sample.trades, DEMO_RULE, day) for t in c.trades}
    assert clustered and not clustered & option_rows
    # Without the rule, option rows would be counted: purchases of a ticker by its option buyers exist.
    assert any(raw[row - 1]["type"] == "purchase" and raw[row - 1]["ticker"] not in ("--", "") for row in option_rows)


@pytest.mark.parametrize("member", ["James R. Langevin", "Nancy Pelosi"])
def test_an_option_traders_calls_and_puts_are_listed_apart_and_in_no_stock_position(raw, sample, option_rows, member):
    pack = build_person(PersonSource(member, (sample,)), as_of=AS_OF)
    theirs = {row for row in option_rows if member.split()[-1] in raw[row - 1]["representative"]}
    assert theirs and trades_of(pack, "options") == theirs
    assert not {t["row"] for t in pack.artifact["transactions"] if t["row"] in theirs} - theirs
    held = {h["ticker"] for h in pack.artifact["holdings"]}
    only_options = {raw[row - 1]["ticker"] for row in theirs} - {
        entry["ticker"] for row, entry in enumerate(raw, 1) if row not in theirs and member in entry["representative"]
    }
    assert only_options and not held & only_options  # a ticker traded only through options is held by no one


def test_each_exercise_adds_the_shares_it_delivered_and_a_sale_of_calls_leaves_the_stock(raw, sample):
    exercised = {t.row: (t.ticker, t.shares) for t in sample.trades if t.instrument_rule == "exercise"}
    assert exercised == EXERCISES
    assert all(
        t.instrument.value == "stock" and t.trade_type.value == "purchase" for t in sample.trades if t.row in EXERCISES
    )
    pack = build_person(PersonSource("Nancy Pelosi", (sample,)), as_of=AS_OF)
    shares = {h["ticker"]: h["exercisedShares"] for h in pack.artifact["holdings"]}
    # FB (sold in full 2020-08-07) and NVDA (sold in full 2022-07-26) were sold out after their exercises.
    assert shares == {
        "AAPL": 10_000,
        "AMZN": 3_000,
        "AXP": 5_000,
        "CRM": 0,
        "DIS": 10_000,
        "GOOG": 20_000,
        "MSFT": 25_000,
        "NFLX": 0,
        "PYPL": 5_000,
        "RBLX": 0,
        "TSLA": 2_500,
    }
    assert {"FB", "NVDA"} <= set(pack.artifact["closed"])
    # Row 419 sold all of the DIS calls bought 12/17/21 ("expired with no value"); the DIS stock stays held.
    assert raw[418]["type"] == "sale_full" and "Call options" in raw[418]["asset_description"]
    dis = next(h for h in pack.artifact["holdings"] if h["ticker"] == "DIS")
    assert (dis["estimate"], dis["transactions"]) == ((1_000_001 + 5_000_000) // 2, 1)


def test_callable_bonds_are_bonds_not_options_nor_stock(raw, sample):
    described = [(row, words(entry["asset_description"])) for row, entry in enumerate(raw, 1)]
    callable_rows = {row for row, found in described if "call" in found and found & {"note", "mtn"}}
    assert len(callable_rows) == 21
    assert {t.instrument.value for t in sample.trades if t.row in callable_rows} == {"bond"}
    pack = build_person(PersonSource("William R. Keating", (sample,)), as_of=AS_OF)
    tickered = {raw[row - 1]["ticker"] for row in callable_rows} - {"--"}
    assert tickered == {"VZ", "ORCL", "NFLX", "GM", "CMCSA"} and pack.artifact["holdings"] == []
    counted = {t["row"] for t in pack.artifact["transactions"]}
    untracked = {t["row"] for t in pack.artifact["untracked"]}
    assert len(counted & callable_rows) == 21 and counted & callable_rows <= untracked


@pytest.mark.parametrize(
    ("person", "spellings"),
    [
        ("Marie Newman", {"Hon. Marie Newman", "None Marie Newman"}),
        ("Mark Green", {"Hon. Mark Green", "Hon. Mark Dr Green"}),
        ("Marjorie Taylor Greene", {"Hon. Marjorie Taylor Greene", "Mrs. Marjorie Taylor Greene"}),
    ],
)
def test_each_persons_spellings_are_one_person(raw, sample, person, spellings):
    rows = Counter(entry["representative"] for entry in raw if entry["representative"] in spellings)
    assert set(rows) == spellings
    pack = build_person(PersonSource(person, (sample,)), as_of=AS_OF)
    assert len(pack.artifact["transactions"]) == sum(rows.values())  # identical rows within one file stay
    assert {s["spelling"]: s["rows"] for s in pack.artifact["spellings"]} == dict(rows)
    merged = {p.name: dict(p.spellings) for p in People(sample.trades).merged()}
    assert merged[person] == dict(rows)


def test_the_two_members_for_ca53_stay_two_people(raw, sample):
    ca53 = {entry["representative"] for entry in raw if entry["district"] == "CA53"}
    assert ca53 == {"Hon. Sara Jacobs", "None Sara Jacobs", "Hon. Susan A. Davis"}
    people = People(sample.trades)
    assert {people.of(t).name for t in sample.trades if t.district == "CA53"} == {"Sara Jacobs", "Susan A. Davis"}
    davis = next(t for t in sample.trades if t.member == "Hon. Susan A. Davis" and t.trade_type.value == "purchase")
    jacobs = next(t for t in sample.trades if t.member == "Hon. Sara Jacobs")
    same_buy = replace(
        jacobs,
        ticker=davis.ticker,
        disclosed=davis.disclosed,
        trade_type=davis.trade_type,
        instrument=davis.instrument,
        amount=davis.amount,
    )
    assert [c.members for c in clusters_on([davis, same_buy], DEMO_RULE, davis.disclosed)] == [
        ("Sara Jacobs", "Susan A. Davis")
    ]


@pytest.fixture(scope="module")
def capitol_raw() -> list[dict]:
    return json.loads(realdata("congress", CAPITOL_SAMPLE).read_bytes())


def test_every_capitol_watch_trade_links_its_source_url(capitol_raw):
    parsed = parse_congress(json.dumps(capitol_raw).encode(), CAPITOL_SAMPLE)
    assert [t.ptr_link for t in parsed.trades] == [entry["source_url"] for entry in capitol_raw]
    assert all(link.startswith("https://disclosures-clerk.house.gov/") for link in (t.ptr_link for t in parsed.trades))
    pack = build_congress(CongressInput((parsed,)), as_of=date(2026, 1, 31))
    person = build_person(PersonSource("Julie Johnson", (parsed,)), as_of=date(2026, 1, 31))
    published = [*pack.artifact["windowTrades"], *person.artifact["transactions"]]
    assert published and all(t["ptrLink"] == capitol_raw[t["row"] - 1]["source_url"] for t in published)
    assert all("no-report-link" not in t["flags"] for t in published)


def test_a_trade_copied_into_a_second_file_is_counted_once(tmp_path: Path, capitol_raw):
    copied = [entry for entry in capitol_raw if entry["disclosure_date"] == "10/07/2025"]  # one day's report
    (tmp_path / "house").mkdir()
    (tmp_path / "house" / "all_transactions.json").write_text(json.dumps(capitol_raw), encoding="utf-8")
    (tmp_path / "house" / "daily_2025_10_07.json").write_text(json.dumps(copied), encoding="utf-8")
    found = read_previews(
        tmp_path, {"congress": {"files": ["house"]}, "person": {"name": "Julie Johnson", "files": ["house"]}}
    )
    assert found.problems == ()
    person = build_person(found.sources["person"], as_of=date(2026, 1, 31))
    johnson = [entry for entry in capitol_raw if entry["representative"] == "Julie Johnson"]
    assert len(copied) == 18 and len(person.artifact["transactions"]) == len(johnson) == 36
    assert person.artifact["duplicatesDropped"] == 18
    estimate_once = build_person(
        PersonSource(
            "Julie Johnson", (parse_congress(json.dumps(capitol_raw).encode(), "house/all_transactions.json"),)
        ),
        as_of=date(2026, 1, 31),
    )
    assert person.agent_payload["totals"] == estimate_once.agent_payload["totals"]
    daily = next(s for s in person.artifact["sources"] if s["path"] == "house/daily_2025_10_07.json")
    assert (daily["duplicatesDropped"], daily["duplicatesOf"]) == (
        18,
        [{"path": "house/all_transactions.json", "rows": 18}],
    )
    warning = next(w for w in person.warnings if w.code == "duplicate-trades")
    assert warning.source == "house/daily_2025_10_07.json" and "house/all_transactions.json" in warning.message
    congress = build_congress(CongressInput(found.sources["congress"].files), as_of=date(2026, 1, 31))
    assert congress.artifact["duplicatesDropped"] == 18
