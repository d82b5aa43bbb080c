"""The published preview claims recomputed from the raw rows by a second reading (tests/congress_reading.py,
which shares no code with the product): every cluster day of both rules, every trade behind a cluster, the
count of distinct trades and every tracker holding. No claim the raw rows contradict."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from builder.research.previews.congress import DEMO_RULE, STRICT_RULE, CongressInput, build_congress
from builder.research.previews.disclosures import distinct_trades
from builder.research.previews.person import build_person
from builder.sources.congress.rows import parse_congress
from builder.sources.previews import PersonSource
from tests import congress_reading as second
from tests.conftest import realdata

AS_OF = date(2026, 8, 1)  # after every sample's last disclosure
FOLDERS = ("congress", "congress-round2")


@pytest.fixture(scope="module")
def paths() -> list[tuple[Path, str]]:
    found = []
    for folder in FOLDERS:
        root = realdata(folder)
        found += [
            (path, f"{folder}/{path.relative_to(root).as_posix()}")
            for path in sorted(root.rglob("*.json"))
            if "aggregate" not in path.name  # no disclosure dates: a publish refuses it (tested apart)
        ]
    return found


@pytest.fixture(scope="module")
def published(paths):
    files = tuple(parse_congress(path.read_bytes(), source) for path, source in paths)
    return files, build_congress(CongressInput(files), as_of=AS_OF)


@pytest.fixture(scope="module")
def reread(paths) -> list[list[second.Row]]:
    return [second.rows_of(path, source) for path, source in paths]


def test_both_readings_count_the_same_distinct_trades(published, reread):
    files, _ = published
    readable = [[row for row in rows if row.traded and row.disclosed and row.direction and row.low] for rows in reread]
    assert len(distinct_trades(files).trades) == len(second.distinct(readable))


@pytest.mark.parametrize(("rule", "name"), [(DEMO_RULE, "demo"), (STRICT_RULE, "strict")])
def test_every_cluster_day_of_the_history_is_the_second_readings(published, reread, rule, name):
    _, pack = published
    rows = second.distinct(reread)
    history = {entry["date"]: set(entry["tickers"]) for entry in pack.artifact["history"][name]}
    eligible = [r for r in rows if r.direction == "purchase" and r.instrument == "stock" and r.ticker and r.low]
    # the history's days are the days an eligible purchase was disclosed on
    days = {r.disclosed for r in eligible if r.disclosed and r.disclosed <= AS_OF and r.low >= rule.min_amount}
    recomputed = {
        day.isoformat(): found
        for day in sorted(days)
        if (found := second.cluster_tickers(rows, day, rule.window_days, rule.min_members, rule.min_amount))
    }
    assert history == recomputed
    assert len(history) > 40 if name == "demo" else history == {}  # no three members buy within 30 days here


def test_every_trade_behind_a_cluster_is_a_stock_purchase_in_the_raw_row(published, reread):
    files, pack = published
    by_row = {(row.source, row.row): row for rows in reread for row in rows}
    for entry in pack.artifact["history"]["demo"][-15:]:
        day = date.fromisoformat(entry["date"])
        clusters = build_congress(CongressInput(files), as_of=day).artifact["signals"]["demo"]
        for cluster in clusters:
            for trade in cluster["trades"]:
                raw = by_row[(trade["source"], trade["row"])]
                assert (raw.ticker, raw.instrument, raw.direction) == (cluster["ticker"], "stock", "purchase")
                assert raw.disclosed == date.fromisoformat(trade["disclosureDate"])
                assert raw.traded == date.fromisoformat(trade["transactionDate"])
            assert cluster["disclosedWithin45Days"] == sum(
                0 <= (by_row[t["source"], t["row"]].disclosed - by_row[t["source"], t["row"]].traded).days <= 45
                for t in cluster["trades"]
            )


@pytest.mark.parametrize("name", ["Mark Green", "Marie Newman", "Josh Gottheimer", "Earl Blumenauer"])
def test_every_tracker_holding_is_a_stock_the_raw_rows_show_bought(published, reread, name):
    files, _ = published
    pack = build_person(PersonSource(name, files), as_of=AS_OF)
    key = second._name(name)
    mine = [row for row in second.distinct(reread) if row.person[2:] == key and row.disclosed and row.traded]
    assert len(pack.artifact["transactions"]) == len(mine) > 0
    bought = {row.ticker for row in mine if row.direction == "purchase" and row.instrument == "stock"}
    assert pack.artifact["holdings"] and {h["ticker"] for h in pack.artifact["holdings"]} <= bought
    not_stock = {(row.source, row.row) for row in mine if row.instrument != "stock"}
    listed = {(t["source"], t["row"]) for key in ("options", "untracked") for t in pack.artifact[key]}
    assert not_stock <= listed
