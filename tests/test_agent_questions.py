"""An agent's seven questions on real 13F filings, asked through the official MCP Python SDK client over stdio in at
most 10 tool calls and 27 KB of tool text besides the tool lists, each figure checked against the filings' own
information tables, read here independently of the service's parser.

Berkshire Hathaway's series (2018-09-30 … 2020-06-30, eight versions) answers six of them. "Where did the two agree
or disagree" is asked of a second release: Berkshire beside Duquesne Family Office, whose one real quarter in
../shared/realdata (2019-06-30) is the two managers' one common quarter, so the release has one version, and
Duquesne's changes are unknown (no 13F of the quarter before): the tickers both hold are certain, a trade of
Duquesne's is not, so no ticker can be said to be bought by one and sold by the other.
"""

from __future__ import annotations

import csv
import re
import shutil
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import orjson
import pytest
from mcp import ClientSession, stdio_client

from builder.release.publish import publish
from builder.research.agent import FIRST_VERSION
from builder.research.diff import position_changes
from server.app import create_app
from tests.berkshire import DUQUESNE_QUARTER, add_duquesne, berkshire_tree, duquesne_manager, series
from tests.conftest import quiet, realdata
from tests.test_mcp_stdio import ROUND_TRIP_SECONDS, child

PACK = "13f-copycat"
MAX_CALLS = 10
# 20 KB before a diff across several quarters listed its window's largest trades of each kind (the year's diff below:
# about 4 KB for Berkshire's 20), an explanation its position's history over every version (about 1 KB for Delta) and
# every answer said in a line how to judge its dates against a clock (about 0.1 KB each): 26 KB measured
MAX_TEXT_BYTES = 27 * 1024
MARCH_2019, JUNE_2019, MARCH_2020, JUNE_2020 = "2019-03-31", "2019-06-30", "2020-03-31", "2020-06-30"
SERIES = ("2018-09-30", "2018-12-31", MARCH_2019, JUNE_2019, "2019-09-30", "2019-12-31", MARCH_2020, JUNE_2020)
DUQUESNE_TABLE, DUQUESNE_COVER = (
    f"duquesne_family_office_{DUQUESNE_QUARTER}_{part}.xml" for part in ("infotable", "primary_doc")
)
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

    def book(self) -> int:
        """The long-equity book in dollars: what a weight is a fraction of."""
        return self.dollars({r["cusip"] for r in self.rows})


def _long_rows(text: str) -> list[dict[str, Any]]:
    """The long-equity rows of an information table (shares, no option), numbered as filed from 1."""
    return [
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


def filing(quarter: str) -> Filing:
    (path,) = series().glob(f"{quarter}_*.txt")
    text = path.read_text()
    filed = re.search(r"FILED AS OF DATE:\s*(\d{8})", text)
    assert filed is not None
    day = filed.group(1)
    return Filing(path.stem.split("_", 1)[1], f"{day[:4]}-{day[4:6]}-{day[6:]}", _long_rows(text))


def duquesne() -> tuple[Filing, int, int]:
    """Duquesne's 2019-06-30 13F-HR, dated by its signature (no header dates it), named by its path (no accession
    in the files); the sum of every row's value as filed and the cover's tableValueTotal, in thousands."""
    folder = realdata("sec13f", "filings")
    table, cover = (folder / DUQUESNE_TABLE).read_text(), (folder / DUQUESNE_COVER).read_text()
    month, day, year = _field(cover, "signatureDate").split("-")
    path = f"local:sec13f/1536411/{DUQUESNE_COVER}"
    summed = sum(int(_field(row, "value")) for row in TABLE.findall(table))
    return Filing(path, f"{year}-{month}-{day}", _long_rows(table)), summed, int(_field(cover, "tableValueTotal"))


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


@pytest.fixture(scope="module")
def two_managers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A releases directory of Berkshire's 2018-09-30 … 2020-06-30 filings (and its corporate actions) beside
    Duquesne's 2019-06-30 filing, allowed to miss the others: one version, the two managers' common quarter."""
    root = tmp_path_factory.mktemp("two-managers")
    others = sorted({path.name[:10] for path in series().iterdir()} - set(SERIES))
    manager = duquesne_manager(q for q in SERIES if q != DUQUESNE_QUARTER)
    tree = add_duquesne(berkshire_tree(root / "source", without=others, versions=1, manager=manager))
    shutil.copy(Path(__file__).with_name("berkshire_corporate_actions.csv"), tree / "corporate_actions.csv")
    publish(tree, root / "releases", None, quiet)
    return root / "releases"


def _kind(before: int, after: int) -> str:
    """A position's change as the two quarters' shares say it (no corporate action moved these)."""
    return "new" if not before else "added" if after > before else "reduced" if after < before else "unchanged"


async def test_seven_questions_on_real_filings_in_ten_calls_and_twenty_seven_kilobytes(
    berkshire_published: Path, two_managers: Path, securities: Securities
):
    june_2019, march, june = filing(JUNE_2019), filing(MARCH_2020), filing(JUNE_2020)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("compare_versions", {"packId": PACK, "from": _version(MARCH_2020), "to": _version(JUNE_2020)}),  # 1
        ("explain_position", {"packId": PACK, "ticker": "DAL"}),  # 3: why did the Delta position change?
        ("compare_versions", {"packId": PACK, "from": "multi-manager-2019-06-30", "to": _version(JUNE_2020)}),  # 7
        ("compare_versions", {"packId": PACK, "from": _version(JUNE_2019), "to": _version(JUNE_2020)}),  # 4: a year
        ("compare_ethos", {"ethosIds": ["breadth", "conviction", "new-money"]}),  # 5: which ethos ranks what
        ("validate_policy", {}),  # 6: may this drive trading?
        ("get_latest_pack", {"packId": "13f-copy"}),  # 7: bad arguments
        ("get_latest_pack", {"packId": PACK, "managers": "berkshire"}),  # 7
    ]
    two_calls: list[tuple[str, dict[str, Any]]] = [
        ("get_latest_pack", {"packId": PACK, "mode": "overlap"})  # 2: where did the two agree or disagree?
    ]
    assert len(calls) + len(two_calls) <= MAX_CALLS
    answers, read = await ask(berkshire_published, calls)
    (both,), read_two = await ask(two_managers, two_calls)
    assert read + read_two <= MAX_TEXT_BYTES, (read, read_two)
    quarter, dal, wrong_version, year, ethos, policy, no_pack, one_string = answers
    assert not any(a["isError"] for a in (quarter, dal, year, ethos, policy, both))

    # 1. What did Berkshire buy and sell in the quarter to 2020-06-30? Each trade its own shares, named.
    (manager,) = quarter["tradesByManager"]
    assert manager["managerId"] == "berkshire" and manager["tradeCount"] == quarter["tradeCount"] == 22
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
    assert quarter["names"] == {t: {"issuer": securities.name(t, june, march), "tickerAsOf": "current"} for t in listed}
    assert quarter["names"]["DAL"]["issuer"] == "DELTA AIR LINES INC"

    # 2. Where did Berkshire and Duquesne agree or disagree (2019-06-30, their one common quarter)? Both held the
    # tickers their two tables share; each weight is its own book's; Berkshire's change is measured against its
    # March table, Duquesne's is unknown (no 13F of the quarter before), so no ticker was bought by one and sold by
    # the other: the disagreement the filings can show is of conviction (the weights).
    berkshire_then, berkshire_before = filing(JUNE_2019), filing(MARCH_2019)
    theirs, summed, cover_total = duquesne()
    held_by = {
        ticker: cusips
        for ticker in securities.tickers()
        if berkshire_then.shares(cusips := securities.cusips(ticker)) and theirs.shares(cusips)
    }
    assert sorted(held_by) == ["AMZN", "MA", "V"]
    assert (both["versionId"], both["previousVersionId"]) == (_version(DUQUESNE_QUARTER), None)
    assert both["view"] == {"mode": "overlap", "managerCount": 2, "tickerCount": len(held_by)}
    filings = {m["id"]: m["filings"] for m in both["managers"]}
    assert filings == {
        "berkshire": [{"accession": berkshire_then.accession, "filed": berkshire_then.filed}],
        "duquesne": [{"accession": theirs.accession, "filed": theirs.filed}],
    }
    total = sum(berkshire_then.dollars(c) + theirs.dollars(c) for c in held_by.values())
    for holding in both["headline"]:
        cusips = held_by[holding["ticker"]]
        value = berkshire_then.dollars(cusips) + theirs.dollars(cusips)
        assert (holding["issuer"], holding["tickerAsOf"]) == (securities.name(holding["ticker"], theirs), "current")
        assert (holding["value"], holding["weight"], holding["holderCount"]) == (value, round(value / total, 4), 2)
        before, after = berkshire_before.shares(cusips), berkshire_then.shares(cusips)
        assert {h["managerId"]: (h["weight"], h["change"]) for h in holding["topHolders"]} == {
            "berkshire": (
                round(round(berkshire_then.dollars(cusips) / berkshire_then.book(), 6), 4),
                _kind(before, after),
            ),
            "duquesne": (round(round(theirs.dollars(cusips) / theirs.book(), 6), 4), "unknown"),
        }
    assert sorted(h["ticker"] for h in both["headline"]) == sorted(held_by)
    kinds = {
        h["ticker"]: t["change"] for h in both["headline"] for t in h["topHolders"] if t["managerId"] == "berkshire"
    }
    assert kinds == {"AMZN": "added", "MA": "unchanged", "V": "unchanged"}  # Berkshire bought Amazon that quarter
    assert berkshire_then.shares(held_by["AMZN"]) - berkshire_before.shares(held_by["AMZN"]) == 54_000
    assert "No filing a quarter earlier" in both["glossary"]["unknown"]
    assert both["caveats"][0] == FIRST_VERSION and both["tradeCount"] == 0  # trades are measured between versions
    assert any(f"values sum to {summed}, tableValueTotal {cover_total} (off by +4)" in c for c in both["caveats"])
    largest = max(held_by, key=lambda t: berkshire_then.dollars(held_by[t]) + theirs.dollars(held_by[t]))
    share = (berkshire_then.dollars(held_by[largest]) + theirs.dollars(held_by[largest])) / total
    assert both["policy"]["signal"] == "research-only" and both["executionEnabled"] is False
    assert any(w.startswith(f"Concentrated: {largest} is {share:.2%}") for w in both["policy"]["warnings"])
    quarter_dates = {
        "filingDeadline": "2019-08-14",
        "supersededAfter": "2019-09-30",
        "nextFilingDeadline": "2019-11-14",
    }
    assert both["freshness"] == quarter_dates and theirs.filed == "2019-08-14"

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
    assert (year["names"]["GOLD"]["issuer"], year["names"]["TRV"]["issuer"]) == (
        "BARRICK GOLD CORP",
        "TRAVELERS COS INC/THE",
    )

    # 5. Which ethos ranks what, and where do they agree or disagree? Every ticker ranked is named.
    by_value = sorted(
        {
            t: june.dollars(securities.cusips(t)) for t in securities.tickers() if june.shares(securities.cusips(t))
        }.items(),
        key=lambda item: -item[1],
    )
    largest = [ticker for ticker, _ in by_value[:5]]
    assert largest == ["AAPL", "BAC", "KO", "AXP", "KHC"] and ethos["topSets"]["conviction"][:5] == largest
    new_in_june = {
        t for t in securities.tickers() if june.shares(securities.cusips(t)) and not march.shares(securities.cusips(t))
    }
    assert ethos["topSets"]["new-money"] == sorted(new_in_june) == ["GOLD"]
    pairs = {(p["a"], p["b"]): p["agreement"] for p in ethos["overlap"]["pairwise"]}
    assert pairs[("breadth", "conviction")] == 1.0 and pairs[("breadth", "new-money")] == 0.0
    assert ethos["overlap"]["tickers"] == []  # no ticker is in every ethos's top set
    ranked = {t for tickers in ethos["topSets"].values() for t in tickers}
    assert {t: (n["issuer"], n["tickerAsOf"]) for t, n in ethos["names"].items()} == {
        t: (securities.name(t, june), "current") for t in ranked
    }

    # 6. May this drive trading? Research only; freshness as dates the agent compares with its own clock.
    assert policy["signal"] == "research-only" and policy["executionEnabled"] is False
    dates = {"filingDeadline": "2020-08-14", "supersededAfter": "2020-09-30", "nextFilingDeadline": "2020-11-14"}
    assert policy["freshness"] == dates and dates["filingDeadline"] == june.filed
    assert "freshness" not in {c["id"] for c in policy["checks"]} and "stale" not in orjson.dumps(answers).decode()

    # 7. Bad arguments: each error names the next step.
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
    assert named == set(diff["names"]) and {"DAL", "GS"} <= set(diff["tickers"]["left"])
    for ticker, name in diff["names"].items():
        assert name == {"issuer": securities.name(ticker, june, march), "tickerAsOf": "current", "mapped": True}
    latest = orjson.loads(await (await rest.get(f"/api/v1/packs/{PACK}/latest")).read())["data"]["agentPayload"]
    leaders = [leader for listed in latest["ethosLeaders"].values() for leader in listed]
    assert leaders and all(leader["issuer"] == securities.name(leader["ticker"], june) for leader in leaders)
