"""An agent's seven questions on Berkshire Hathaway's real 13F filings (2018-09-30 … 2020-06-30), asked through the
official MCP Python SDK client over stdio in at most 10 tool calls and 20 KB of tool text besides the tool list, each
figure checked against the filings' own information tables, read here independently of the service's parser.

The real-filings release holds one manager, so "where did the two agree or disagree" is asked of the two views
that release has on one book: the ethos, whose top sets agree or disagree (compare_ethos' pairwise agreement).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from mcp import ClientSession, stdio_client

from builder.research.diff import position_changes
from server.app import create_app
from tests.berkshire import series
from tests.conftest import realdata
from tests.test_mcp_stdio import ROUND_TRIP_SECONDS, child

PACK = "13f-copycat"
MAX_CALLS = 10
MAX_TEXT_BYTES = 20 * 1024
JUNE_2019, MARCH_2020, JUNE_2020 = "2019-06-30", "2020-03-31", "2020-06-30"
TABLE = re.compile(r"<infoTable>(.*?)</infoTable>", re.S | re.I)


def _field(row: str, name: str) -> str:
    found = re.search(rf"<{name}>\s*(.*?)\s*</{name}>", row, re.S | re.I)
    return found.group(1) if found else ""


@dataclass(frozen=True)
class Filing:
    """A 13F-HR as filed: its accession, filing date and information table rows (1-based, in order)."""

    accession: str
    filed: str
    rows: list[dict[str, Any]]

    def shares(self, cusips: Collection[str]) -> int:
        return sum(r["shares"] for r in self.rows if r["cusip"] in cusips)

    def dollars(self, cusips: Collection[str]) -> int:
        return sum(r["value"] for r in self.rows if r["cusip"] in cusips) * 1000  # filed in thousands then

    def issuer(self, cusips: Collection[str]) -> str | None:
        return next((r["issuer"] for r in self.rows if r["cusip"] in cusips), None)

    def row_numbers(self, cusips: Collection[str]) -> list[int]:
        return [r["row"] for r in self.rows if r["cusip"] in cusips]


def filing(quarter: str) -> Filing:
    (path,) = series().glob(f"{quarter}_*.txt")
    text = path.read_text()
    filed = re.search(r"FILED AS OF DATE:\s*(\d{8})", text)
    assert filed is not None
    rows = [
        {
            "row": number,
            "cusip": _field(row, "cusip"),
            "issuer": _field(row, "nameOfIssuer"),
            "shares": int(_field(row, "sshPrnamt")),
            "value": int(_field(row, "value")),
        }
        for number, row in enumerate(TABLE.findall(text), start=1)
        if _field(row, "sshPrnamtType") == "SH" and not _field(row, "putCall")
    ]
    day = filed.group(1)
    return Filing(path.stem.split("_", 1)[1], f"{day[:4]}-{day[4:6]}-{day[6:]}", rows)


@dataclass(frozen=True)
class Securities:
    """securities.csv of the release (no dates: every ticker is today's ticker for its CUSIP)."""

    rows: list[dict[str, str]]

    def cusips(self, ticker: str) -> set[str]:
        return {row["cusip"] for row in self.rows if row["ticker"] == ticker}

    def name(self, ticker: str, *filings: Filing) -> str | None:
        """securities.csv's name of the ticker, else the name as filed (what the artifact names a position by)."""
        named = [row["name"] for row in self.rows if row["ticker"] == ticker and row["name"]]
        return (
            named[0] if named else next(f.issuer(self.cusips(ticker)) for f in filings if f.issuer(self.cusips(ticker)))
        )

    def tickers(self) -> set[str]:
        return {row["ticker"] for row in self.rows}


@pytest.fixture(scope="module")
def securities() -> Securities:
    with realdata("securities_sample.csv").open(newline="") as handle:
        return Securities(list(csv.DictReader(handle)))


async def ask(releases: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[dict[str, Any]], int]:
    """Each call's text as JSON (an error's envelope too), and the bytes of tool text read in all."""
    answers: list[dict[str, Any]] = []
    read = 0
    with anyio.fail_after(ROUND_TRIP_SECONDS):
        async with (
            stdio_client(child(["-m", "server.mcp_server"], releases)) as (reader, writer),
            ClientSession(reader, writer) as session,
        ):
            await session.initialize()
            await session.list_tools()  # the tool list, which the budget leaves aside
            for tool, arguments in calls:
                result = await session.call_tool(tool, arguments)
                text = result.content[0].text
                read += len(text.encode())
                answers.append({"isError": bool(result.is_error), **orjson.loads(text)})
    return answers, read


def _version(quarter: str) -> str:
    return f"multi-manager-{quarter}-v2.0"


async def test_seven_questions_on_berkshire_in_ten_calls_and_twenty_kilobytes(
    berkshire_published: Path, securities: Securities
):
    june_2019, march, june = filing(JUNE_2019), filing(MARCH_2020), filing(JUNE_2020)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("get_latest_pack", {"packId": PACK}),  # 1: what did Berkshire buy and sell? 6: freshness
        ("compare_versions", {"packId": PACK, "from": _version(MARCH_2020), "to": _version(JUNE_2020)}),  # 1
        ("explain_position", {"packId": PACK, "ticker": "DAL"}),  # 3: why did the Delta position change?
        ("compare_versions", {"packId": PACK, "from": "multi-manager-2019-06-30", "to": _version(JUNE_2020)}),  # 7
        ("compare_versions", {"packId": PACK, "from": _version(JUNE_2019), "to": _version(JUNE_2020)}),  # 4: a year
        ("compare_ethos", {}),  # 2: where do the ethos agree or disagree; 5: which ethos ranks what
        ("validate_policy", {}),  # 6: may this drive trading?
        ("explain_position", {"packId": PACK, "ticker": "ZZZZ"}),  # 7: bad arguments
        ("get_latest_pack", {"packId": "13f-copy"}),  # 7
        ("get_latest_pack", {"packId": PACK, "managers": "berkshire"}),  # 7
    ]
    assert len(calls) <= MAX_CALLS
    answers, read = await ask(berkshire_published, calls)
    assert read <= MAX_TEXT_BYTES, read
    latest, quarter, dal, wrong_version, year, ethos, policy, never, no_pack, one_string = answers
    assert not any(a["isError"] for a in (latest, quarter, dal, year, ethos, policy))

    # 1. What did Berkshire buy and sell in the quarter to 2020-06-30? Each trade its own shares, named.
    (berkshire,) = latest["managers"]
    assert berkshire["filings"] == [{"accession": june.accession, "filed": june.filed}]
    assert latest["freshness"]["filingDeadline"] == june.filed == "2020-08-14"
    (manager,) = quarter["tradesByManager"]
    assert manager["managerId"] == "berkshire" and manager["tradeCount"] == quarter["tradeCount"] == 22
    assert berkshire["trades"] == manager["trades"][:3]
    for trade in manager["trades"]:
        cusip = securities.cusips(trade["ticker"])
        assert (trade["issuer"], trade["tickerAsOf"]) == (securities.name(trade["ticker"], june, march), "current")
        assert trade["shareDelta"] == june.shares(cusip) - march.shares(cusip), trade
        held = june if june.shares(cusip) else march  # an exit is valued at the earlier price
        assert trade["tradedValue"] == round(trade["shareDelta"] * held.dollars(cusip) / held.shares(cusip)), trade
    bought = {t["ticker"]: t["kind"] for t in manager["trades"] if t["shareDelta"] > 0}
    assert bought == {"GOLD": "new", "LSXMK": "added"}
    assert [t["ticker"] for t in manager["trades"][:4]] == ["JPM", "WFC", "DAL", "LUV"]
    assert {"AAL", "DAL", "LUV", "UAL", "GS"} <= set(quarter["tickers"]["left"])
    listed = [*quarter["tickers"]["entered"], *quarter["tickers"]["left"]]  # the tickers that left, named
    assert quarter["issuers"] == {t: securities.name(t, june, march) for t in listed}
    assert quarter["issuers"]["DAL"] == "DELTA AIR LINES INC"

    # 3. Why did the Delta position change? It ended: the March rows it ended, cited, and no June row.
    delta = securities.cusips("DAL")
    assert dal["viewStatus"] == "left-view" and dal["issuer"] == "DELTA AIR LINES INC"
    (change,) = dal["changes"]
    assert (change["held"], change["change"]["kind"], change["tickerAsOf"]) == (False, "exited", "current")
    assert change["change"]["shareDelta"] == -march.shares(delta) == -71_886_963 and not june.shares(delta)
    cited = [(c["accession"], c["row"]) for c in dal["evidence"][1]["citations"]]
    assert cited == [(june.accession, None), *((march.accession, row) for row in march.row_numbers(delta))]
    assert march.row_numbers(delta) == [60, 61]

    # 7. A version id that is not one: the error lists the ids, which the next call uses.
    assert wrong_version["isError"] and wrong_version["error"]["code"] == "version_not_found"
    assert _version(JUNE_2019) in wrong_version["error"]["details"]["available"]

    # 4. How did the pack change over a year? Berkshire's year of trades, against the two June filings.
    (over_year,) = year["tradesByManager"]
    assert (year["fromQuarter"], year["toQuarter"]) == (JUNE_2019, JUNE_2020)
    for trade in over_year["trades"]:
        cusip = securities.cusips(trade["ticker"])
        assert trade["shareDelta"] == june.shares(cusip) - june_2019.shares(cusip), trade
        assert trade["issuer"] == securities.name(trade["ticker"], june, june_2019)
    assert [t["ticker"] for t in over_year["trades"][:3]] == ["WFC", "DAL", "GS"]
    assert {"AAL", "DAL", "GS", "LUV", "UAL", "TRV"} <= set(year["tickers"]["left"])
    assert {"GOLD", "KR", "BIIB"} <= set(year["tickers"]["entered"])
    assert (year["issuers"]["GOLD"], year["issuers"]["TRV"]) == ("BARRICK GOLD CORP", "TRAVELERS COS INC/THE")

    # 2 and 5. Which ethos ranks what, and where do they agree or disagree?
    by_value = sorted(
        {
            t: june.dollars(securities.cusips(t)) for t in securities.tickers() if june.shares(securities.cusips(t))
        }.items(),
        key=lambda item: -item[1],
    )
    largest = [ticker for ticker, _ in by_value[:5]]
    assert largest == ["AAPL", "BAC", "KO", "AXP", "KHC"]
    assert ethos["topSets"]["conviction"][:5] == largest == [h["ticker"] for h in latest["headline"]]
    assert latest["headline"][0]["value"] == june.dollars(securities.cusips("AAPL")) == 89_432_750_000
    new_in_june = {
        t for t in securities.tickers() if june.shares(securities.cusips(t)) and not march.shares(securities.cusips(t))
    }
    assert ethos["topSets"]["new-money"] == sorted(new_in_june) == ["GOLD"]
    pairs = {(p["a"], p["b"]): p["agreement"] for p in ethos["overlap"]["pairwise"]}
    assert pairs[("breadth", "conviction")] == 1.0 and pairs[("breadth", "new-money")] == 0.0
    assert ethos["overlap"]["tickers"] == []  # no ticker is in every ethos's top set

    # 6. May this drive trading? Research only; freshness as dates the agent compares with its own clock.
    assert policy["signal"] == "research-only" and policy["executionEnabled"] is False is latest["executionEnabled"]
    dates = {"filingDeadline": "2020-08-14", "supersededAfter": "2020-09-30", "nextFilingDeadline": "2020-11-14"}
    assert policy["freshness"] == latest["freshness"] == dates
    assert "freshness" not in {c["id"] for c in policy["checks"]} and "stale" not in orjson.dumps(answers).decode()

    # 7. Bad arguments: each error names the next step.
    assert never["error"]["code"] == "position_not_found" and never["error"]["details"]["heldIn"] == []
    assert no_pack["error"]["code"] == "pack_not_found" and "list_packs" in no_pack["error"]["message"]
    assert one_string["error"]["code"] == "invalid_parameter"
    assert one_string["error"]["details"] == {"expected": "an array of strings", "parameter": "managers"}


async def test_the_rest_diff_names_every_position_change_as_securities_csv_does(
    aiohttp_client, berkshire_published: Path, securities: Securities
):
    """Over REST on loopback: every position change of Berkshire's latest quarter, and every ticker that entered or
    left the view, carries its issuer and says its ticker is today's (securities.csv gives no dates)."""
    rest = await aiohttp_client(create_app(berkshire_published))
    query = f"from={_version(MARCH_2020)}&to={_version(JUNE_2020)}"
    response = await rest.get(f"/api/v1/packs/{PACK}/versions/diff?{query}")
    assert response.status == 200
    diff = orjson.loads(await response.read())["data"]
    positions = position_changes(diff)
    assert len(positions) == 22
    june, march = filing(JUNE_2020), filing(MARCH_2020)
    for change in positions:
        assert (change["issuer"], change["tickerAsOf"]) == (securities.name(change["ticker"], june, march), "current")
    named = {*diff["tickers"]["entered"], *diff["tickers"]["left"], *(p["ticker"] for p in positions)}
    assert named == set(diff["securities"]) and {"DAL", "GS"} <= set(diff["tickers"]["left"])
    for ticker, name in diff["securities"].items():
        assert name == {"issuer": securities.name(ticker, june, march), "tickerAsOf": "current", "mapped": True}
    latest = orjson.loads(await (await rest.get(f"/api/v1/packs/{PACK}/latest")).read())["data"]["agentPayload"]
    leaders = [leader for listed in latest["ethosLeaders"].values() for leader in listed]
    assert leaders and all(leader["issuer"] == securities.name(leader["ticker"], june) for leader in leaders)
