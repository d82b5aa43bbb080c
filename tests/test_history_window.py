"""A position's history in its explanation, the explanation of a past version, and a window's trades in a diff
across several quarters, on Berkshire Hathaway's real filings (2018-09-30 … 2020-06-30, eight versions) through the
official MCP Python SDK client over stdio and over REST, every number against the filings' own information tables
(read as tests/test_agent_questions reads them, apart from the service's parser)."""

from __future__ import annotations

import csv
from itertools import pairwise
from pathlib import Path

import orjson
import pytest

from builder.api import methods
from builder.release.store import LoadedRelease
from builder.research.artifact import WEIGHT_DIGITS
from builder.research.diff import position_changes
from builder.sources.tables.corporate_actions import parse_corporate_actions
from server.app import create_app
from tests.conftest import realdata
from tests.test_agent_questions import PACK, SERIES, Securities, ask, filing

EXITS_TEXT_BYTES = 16 * 1024  # what the two calls of "its five largest exits" may read
RECORDS = Path(__file__).with_name("berkshire_corporate_actions.csv")  # the public record of its corporate actions


@pytest.fixture(scope="module")
def securities() -> Securities:
    with realdata("securities_sample.csv").open(newline="") as handle:
        return Securities(list(csv.DictReader(handle)))


def version_of(release: LoadedRelease, quarter: str) -> str:
    return next(v for v in release.data.versions if release.data.artifacts[v]["quarter"] == quarter)


async def test_a_positions_build_up_over_eight_versions_is_one_call_equal_to_the_filings(
    berkshire_published: Path, securities: Securities
):
    (answer,), read = await ask(berkshire_published, [("explain_position", {"packId": PACK, "ticker": "DAL"})])
    history = answer["history"]
    assert history["quarters"] == list(SERIES) and history["managerCount"] == 1
    (berkshire,) = history["managers"]
    cusips = securities.cusips("DAL")
    for index, quarter in enumerate(SERIES):
        filed = filing(quarter)
        assert (berkshire["shares"][index], berkshire["values"][index]) == (filed.shares(cusips), filed.dollars(cusips))
        if filed.shares(cusips):
            row = berkshire["rows"][index]
            assert row["accession"] == filed.accession and row["row"] in filed.row_numbers(cusips)
    # sold out in 2020-Q2: the exit cites the rows of 2020-03-31 that it ended
    march = filing(SERIES[-2])
    assert (berkshire["kinds"][-1], berkshire["shareDeltas"][-1]) == ("exited", -march.shares(cusips))
    assert berkshire["rows"][-1]["accession"] == march.accession
    assert read < 8 * 1024


def test_the_rest_history_has_each_versions_weight_cause_and_every_row(berkshire_release, securities):
    data = berkshire_release.data
    explanation = methods.explain_position(data, {"packId": PACK, "ticker": "AAPL"})
    (berkshire,) = explanation["history"]["managers"]
    cusips = securities.cusips("AAPL")
    for index, quarter in enumerate(SERIES):
        filed = filing(quarter)
        assert berkshire["weights"][index] == round(filed.dollars(cusips) / filed.book(), WEIGHT_DIGITS)
        cited = [(s["accession"], s["row"]) for s in berkshire["sources"][index]]
        assert cited == [(filed.accession, row) for row in filed.row_numbers(cusips)]
    assert explanation["history"]["previousQuarters"][1:] == list(SERIES[:-1])
    assert set(berkshire["causes"]) <= {"trade", "none", "unknown"}  # no corporate action touched Apple then
    overlap = methods.explain_position(data, {"packId": PACK, "ticker": "AAPL", "mode": "overlap"})
    assert overlap["history"] is None  # in mode any only: the same call in mode any has it


@pytest.fixture
async def rest(aiohttp_client, berkshire_published: Path):
    return await aiohttp_client(create_app(berkshire_published))


async def test_a_past_version_is_explained_as_it_was_and_naming_the_latest_is_the_same_request(
    rest, berkshire_release: LoadedRelease, securities: Securities
):
    route = f"/api/v1/packs/{PACK}/positions/AAPL/explanation"
    past = version_of(berkshire_release, "2019-06-30")
    assert f"{route}?version={past}" not in berkshire_release.answers  # computed when asked, never precomputed
    assert route in berkshire_release.answers
    response = await rest.get(f"{route}?version={past}")
    data = orjson.loads(await response.read())["data"]
    assert response.status == 200 and (data["versionId"], data["quarter"]) == (past, "2019-06-30")
    (change,) = data["changes"]
    assert change["shares"] == filing("2019-06-30").shares(securities.cusips("AAPL"))
    latest = berkshire_release.data.versions[-1]
    named, bare = (await rest.get(f"{route}?version={latest}")), (await rest.get(route))
    assert await named.read() == await bare.read() and named.headers["ETag"] == bare.headers["ETag"]
    unknown = await rest.get(f"{route}?version=multi-manager-1999-12-31-v2.0")
    error = orjson.loads(await unknown.read())["error"]
    assert (unknown.status, error["code"], error["details"]["parameter"]) == (404, "version_not_found", "version")


def test_a_windows_trades_are_every_quarters_own_trades_ranked_by_value(berkshire_release: LoadedRelease):
    data, versions = berkshire_release.data, berkshire_release.data.versions
    diff = methods.compare_versions(data, {"packId": PACK, "from": versions[0], "to": versions[-1]})
    (window,) = diff["windowTrades"]
    listed = set(zip(window["quarters"], window["tickers"], window["kinds"], window["shareDeltas"], strict=True))
    quarters = set()
    for older, newer in pairwise(versions):
        one = methods.compare_versions(data, {"packId": PACK, "from": older, "to": newer})
        assert one["windowTrades"] == []  # one quarter: its changes are its trades
        quarter = data.artifacts[newer]["quarter"]
        trades = [c for c in position_changes(one) if c["kind"] in ("new", "added", "reduced", "exited")]
        quarters |= {(quarter, c["ticker"], c["kind"], c["shareDelta"]) for c in trades}
    assert listed == quarters and window["tradeCount"] == len(quarters) > 40
    assert [abs(v) for v in window["tradedValues"]] == sorted((abs(v) for v in window["tradedValues"]), reverse=True)
    overlap = methods.compare_versions(
        data, {"packId": PACK, "from": versions[0], "to": versions[-1], "mode": "overlap"}
    )
    assert overlap["windowTrades"] == []  # mode any only


async def test_a_managers_five_largest_exits_of_the_window_in_two_calls_equal_to_the_filings(
    berkshire_published: Path, berkshire_release: LoadedRelease, securities: Securities
):
    versions = berkshire_release.data.versions
    window = {"packId": PACK, "from": versions[0], "to": versions[-1], "managers": ["berkshire"]}
    (_, diff), read = await ask(
        berkshire_published, [("list_pack_versions", {"packId": PACK}), ("compare_versions", window)]
    )
    assert read <= EXITS_TEXT_BYTES
    (berkshire,) = diff["windowTrades"]
    exits = berkshire["largest"]["exited"]
    assert len(exits) == 5 and berkshire["counts"]["exited"] >= 5
    records, _ = parse_corporate_actions(RECORDS.read_text(), RECORDS.name)
    found = []
    for before, after in pairwise(SERIES):
        held, kept = filing(before), filing(after)
        # what the public record ended between the two quarter ends (a cash merger, an exchange) is no sale
        ended = {leg.cusip for leg in records if before < leg.effective.isoformat() <= after}
        for ticker in sorted(securities.tickers()):
            cusips = securities.cusips(ticker)
            if held.shares(cusips) and not kept.shares(cusips) and not cusips & ended:
                found.append((after, ticker, -held.shares(cusips), -held.dollars(cusips), held, cusips))
    found.sort(key=lambda e: (e[3], e[1]))
    for trade, (quarter, ticker, shares, dollars, held, cusips) in zip(exits, found[:5], strict=True):
        assert (trade["quarter"], trade["ticker"], trade["shareDelta"], trade["tradedValue"]) == (
            quarter,
            ticker,
            shares,
            dollars,
        )
        assert trade["rowCount"] == len(held.row_numbers(cusips))
        assert trade["rows"][0]["accession"] == held.accession and trade["rows"][0]["row"] in held.row_numbers(cusips)
