"""Every change of the latest quarter is explainable: a ticker that left the view (an exit, a corporate-action
ending, too few holders for the mode) is explained with the change that ended it and the previous rows it ended;
position_not_found means the view never held it then, and says which quarters did. On the fixture, and on
Berkshire Hathaway's real filings, whose 2020-06-30 13F no longer lists the airlines."""

from __future__ import annotations

from pathlib import Path

import anyio
import orjson
import pytest
from mcp import ClientSession, stdio_client

from builder.api import methods
from builder.research.methods.explained import citations, source_paths, source_record
from server.app import create_app
from tests.test_mcp_stdio import ROUND_TRIP_SECONDS, child

PACK = "/api/v1/packs/13f-copycat"
MARCH_2020 = "0000950123-20-005345"  # Berkshire's 13F-HR for 2020-03-31
JUNE_2020 = "0000950123-20-009058"  # and for 2020-06-30
# Exits of 2020-06-30 as Berkshire's 2020-03-31 information table lists them: (ticker, shares, rows of that table)
AIRLINES_AND_GS = [("DAL", 71_886_963, [60, 61]), ("GS", 1_920_180, [70, 71])]


def data_of(release, target: str) -> dict:
    answer = release.answers[target]
    assert answer.status == 200, target
    return orjson.loads(answer.body)["data"]


@pytest.fixture
async def rest(aiohttp_client, published: Path):
    return await aiohttp_client(create_app(published))


async def test_a_ticker_every_selected_manager_exited_is_explained_as_having_left_the_view(release, rest):
    larch = release.data.artifacts[release.data.versions[-1]]["managers"]
    (bac,) = [e for m in larch if m["id"] == "larch" for e in m["ended"] if e["ticker"] == "BAC"]
    response = await rest.get(f"{PACK}/positions/bac/explanation?managers=larch")
    explanation = orjson.loads(await response.read())["data"]
    assert explanation["viewStatus"] == "left-view" and explanation["summary"]["holderCount"] == 0
    ((change),) = explanation["changes"]
    assert (change["held"], change["change"]["kind"], change["sources"]) == (False, "exited", bac["sources"])
    summary, statement = explanation["evidence"]["statements"]
    assert summary["text"].startswith("BAC left the selected view at 2026-09-30: 0 of 1 selected managers hold BAC")
    assert (
        statement["text"]
        == "Larch Hill Capital (fictional) exited: 3,768,020 shares at 2026-06-30, no row in its 13F for 2026-09-30."
    )
    assert [(c["accession"], c["row"]) for c in citations(explanation, statement)][1:] == [
        (s["accession"], s["row"]) for s in bac["sources"]
    ]
    previous = release.data.artifacts[release.data.versions[-2]]["managers"]
    (filed_before,) = [f for m in previous if m["id"] == "larch" for f in m["filings"]]
    assert source_record("larch", filed_before) in explanation["sourceRecords"]
    assert filed_before["source"] in [source_paths(r) for r in explanation["sourceRecords"]]
    assert explanation["ethos"]["scores"] == {} and any(
        "left the selected view" in n for n in explanation["limitations"]
    )


def test_every_ticker_that_left_a_precomputed_view_has_its_precomputed_explanation(release):
    left = {mode: methods.left_view(release.data, [], mode) for mode in MODES}
    assert left["exclusive"] and left["disagreement"]
    for mode, tickers in left.items():
        query = "" if mode == "any" else f"?mode={mode}"
        for ticker in tickers:
            assert data_of(release, f"{PACK}/positions/{ticker}/explanation{query}")["viewStatus"] == "left-view"


MODES = ("any", "overlap", "exclusive", "disagreement")


def _listed_from_rows(data, managers: list[str], mode: str) -> list[str]:
    """explained_tickers as the latest view's rows list them: the view's, then those that left it with a change."""
    latest = data.versions[-1]
    left = methods.left_view(data, managers, mode)
    ended = [row["ticker"] for row in methods.rows_of(data, latest, managers) if row["ticker"] in left]
    return [row["ticker"] for row in methods.view_of(data, latest, managers, mode)["tickers"]] + ended


@pytest.mark.parametrize("managers", [[], ["larch"], ["larch", "osprey", "quillwort"]])
def test_the_explained_tickers_are_the_latest_views_rows_and_what_left_it(release, managers):
    for mode in MODES:
        listed = methods.explained_tickers(release.data, managers, mode)
        assert listed == _listed_from_rows(release.data, managers, mode), mode
    assert methods.explained_tickers(release.data, managers, "any")


async def test_berkshires_explained_tickers_are_its_views_rows_and_the_exits_of_2020_q2(berkshire_release):
    data = berkshire_release.data
    for mode in MODES:
        assert methods.explained_tickers(data, [], mode) == _listed_from_rows(data, [], mode), mode
    assert methods.explained_tickers(data, [], "any")[-7:] == ["AAL", "DAL", "GS", "LUV", "OXY", "QSR", "UAL"]


def test_a_ticker_in_the_view_says_so(release):
    assert data_of(release, f"{PACK}/positions/AAPL/explanation")["viewStatus"] == "in-view"


@pytest.fixture
async def berkshire_rest(aiohttp_client, berkshire_published: Path):
    return await aiohttp_client(create_app(berkshire_published))


@pytest.mark.parametrize(("ticker", "shares", "rows"), AIRLINES_AND_GS)
async def test_berkshires_exits_of_2020_are_explained_with_the_rows_they_ended(berkshire_rest, ticker, shares, rows):
    response = await berkshire_rest.get(f"{PACK}/positions/{ticker}/explanation")
    explanation = orjson.loads(await response.read())["data"]
    assert response.status == 200 and explanation["viewStatus"] == "left-view"
    ((change),) = explanation["changes"]
    assert change["change"]["kind"] == "exited" and change["change"]["shareDelta"] == -shares
    assert explanation["previousQuarter"] == "2020-03-31" and change["absentFrom"] == [JUNE_2020]
    assert [(s["accession"], s["row"]) for s in change["sources"]] == [(MARCH_2020, row) for row in rows]
    statement = explanation["evidence"]["statements"][1]
    assert (
        statement["text"]
        == f"Berkshire Hathaway Inc exited: {shares:,} shares at 2020-03-31, no row in its 13F for 2020-06-30."
    )
    assert citations(explanation, statement) == [
        {"accession": JUNE_2020, "row": None, "managerId": "berkshire"},
        *({"accession": MARCH_2020, "row": row, "managerId": "berkshire"} for row in rows),
    ]
    assert [(r["accession"], r["filed"]) for r in explanation["sourceRecords"]] == [
        (JUNE_2020, "2020-08-14"),
        (MARCH_2020, "2020-05-15"),
    ]


async def test_berkshires_left_view_is_the_airlines_and_the_rest_it_ended_in_2020_q2(berkshire_release):
    assert methods.left_view(berkshire_release.data, [], "any") == {"AAL", "DAL", "GS", "LUV", "OXY", "QSR", "UAL"}


async def test_position_not_found_says_which_quarters_held_the_ticker(berkshire_rest):
    response = await berkshire_rest.get(f"{PACK}/positions/ORCL/explanation")
    error = orjson.loads(await response.read())["error"]
    assert (response.status, error["code"]) == (404, "position_not_found")
    (version,) = error["details"].pop("heldInVersions")
    assert error["details"] == {"ticker": "ORCL", "managers": ["berkshire"], "mode": "any", "heldIn": ["2018-09-30"]}
    assert version.startswith("multi-manager-2018-09-30-v")
    assert f"the view held it at 2018-09-30: explain_position with version '{version}'" in error["message"]
    response = await berkshire_rest.get(f"{PACK}/positions/ORCL/explanation?version={version}")
    assert response.status == 200
    response = await berkshire_rest.get(f"{PACK}/positions/ZZZZ/explanation")
    error = orjson.loads(await response.read())["error"]
    assert error["details"]["heldIn"] == [] and "no version of this release held it" in error["message"]


async def test_over_stdio_an_exit_is_explained_and_the_agent_is_sent_back_to_the_view(berkshire_published):
    with anyio.fail_after(ROUND_TRIP_SECONDS):
        async with (
            stdio_client(child(["-m", "server.mcp_server"], berkshire_published)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            results = {
                t: await session.call_tool("explain_position", {"packId": "13f-copycat", "ticker": t})
                for t in ("dal", "luv", "ual", "aal", "gs")
            }
    for ticker, result in results.items():
        brief = result.structured_content
        assert not result.is_error and brief["ticker"] == ticker.upper() and brief["viewStatus"] == "left-view"
        ((change),) = brief["changes"]
        assert (change["held"], change["change"]["kind"], change["accession"]) == (False, "exited", MARCH_2020)
        assert brief["nextCalls"] == [
            {"tool": "get_latest_pack", "arguments": {"packId": "13f-copycat"}, "why": "the view it left, in brief"}
        ]


def test_the_openapi_description_states_what_the_explanation_answers_for_a_ticker_that_left(release):
    operation = release.data.openapi["paths"]["/api/v1/packs/{packId}/positions/{ticker}/explanation"]["get"]
    assert "left the view in the version explained" in operation["description"]
    assert "viewStatus left-view" in operation["description"] and "heldIn" in operation["description"]
    schema = release.data.openapi["components"]["schemas"]["PositionExplanation"]["properties"]["viewStatus"]
    assert schema["enum"] == ["in-view", "left-view"] and schema["description"].startswith("in-view:")
