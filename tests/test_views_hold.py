"""Views hold everywhere: a diff's position changes, trades, rankings and counts are those of the view's tickers
(in the view in either version) and managers, in the precomputed answers, on REST and in the compact MCP answer."""

from __future__ import annotations

from pathlib import Path

import anyio
import orjson
import pytest
from mcp import ClientSession, stdio_client

from builder.api import methods
from builder.research.changes import is_trade
from builder.research.diff import position_changes
from server.app import create_app
from tests.test_mcp_stdio import ROUND_TRIP_SECONDS, child

PACK = "/api/v1/packs/13f-copycat"
PAIR = ["larch", "osprey"]


def view_tickers(release, version: str, managers: list[str], mode: str) -> set[str]:
    return methods.view_tickers_of(release.data, version, managers, mode)


def test_every_precomputed_diff_lists_only_changes_of_its_views_tickers_and_managers(release):
    diffs = [key for key in release.answers if "/versions/diff?" in key]
    count = len(release.data.versions)
    assert len(diffs) == 4 * (2 * count - 3)  # each version's diff from the one before, and every one up to the latest
    narrower = 0
    for key in diffs:
        data = orjson.loads(release.answers[key].body)["data"]
        mode, changes = data["view"]["mode"], position_changes(data)
        shown = view_tickers(release, data["from"], [], mode) | view_tickers(release, data["to"], [], mode)
        assert {p["ticker"] for p in changes} <= shown, key
        assert {p["managerId"] for p in changes} <= set(data["view"]["managers"]), key
        any_mode = orjson.loads(release.answers[key.split("&mode=")[0]].body)["data"]
        narrower += len(changes) < len(position_changes(any_mode))
    assert narrower >= len(diffs) // 4  # the modes other than any do leave changes out


@pytest.fixture
async def rest(aiohttp_client, published: Path):
    return await aiohttp_client(create_app(published))


async def test_an_overlap_diff_lists_the_overlaps_trades_and_counts_only_those(published, release, rest):
    older, newer = release.data.versions[-2:]
    query = f"from={older}&to={newer}&managers={','.join(PAIR)}"
    every = orjson.loads(await (await rest.get(f"{PACK}/versions/diff?{query}")).read())["data"]
    overlap = orjson.loads(await (await rest.get(f"{PACK}/versions/diff?{query}&mode=overlap")).read())["data"]
    shown = view_tickers(release, older, PAIR, "overlap") | view_tickers(release, newer, PAIR, "overlap")
    every_change, overlap_changes = position_changes(every), position_changes(overlap)
    left_out = {(p["managerId"], p["ticker"]) for p in every_change if p["ticker"] not in shown}
    assert ("larch", "WFC") in left_out and ("osprey", "ADBE") in left_out  # held by one of the two only
    assert [p for p in every_change if p["ticker"] in shown] == overlap_changes
    arguments = {"packId": "13f-copycat", "from": older, "to": newer, "managers": PAIR, "mode": "overlap"}
    with anyio.fail_after(ROUND_TRIP_SECONDS):
        async with (
            stdio_client(child(["-m", "server.mcp_server"], published)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            brief = (await session.call_tool("compare_versions", arguments)).structured_content
    trades = [p for p in overlap_changes if is_trade(p["kind"])]
    assert brief["tradeCount"] == len(trades) == 33
    listed = {(m["managerId"], t["ticker"]) for m in brief["tradesByManager"] for t in m["trades"]}
    assert listed <= {(p["managerId"], p["ticker"]) for p in trades}
    # two managers: each its own five largest trades, whatever the other's size
    assert [(m["managerId"], len(m["trades"])) for m in brief["tradesByManager"]] == [("larch", 5), ("osprey", 5)]
    # each manager's largest trade explained: larch's BAC, then osprey's MA (not larch's second, KO)
    assert [m["trades"][0]["ticker"] for m in brief["tradesByManager"]] == ["BAC", "MA"]
    assert [call["arguments"]["ticker"] for call in brief["nextCalls"]] == ["BAC", "MA"]
    assert all(call["arguments"]["mode"] == "overlap" for call in brief["nextCalls"])


def test_the_agent_payload_counts_the_trades_of_the_view_it_describes(release):
    for mode in ("any", "overlap", "exclusive", "disagreement"):
        query = "" if mode == "any" else f"?mode={mode}"
        payload = orjson.loads(release.answers[f"{PACK}/latest{query}"].body)["data"]["agentPayload"]
        older, newer = release.data.versions[-2:]
        diff_key = f"{PACK}/versions/diff?from={older}&to={newer}" + ("" if mode == "any" else f"&mode={mode}")
        diff = orjson.loads(release.answers[diff_key].body)["data"]
        assert payload["tradeCount"] == sum(is_trade(p["kind"]) for p in position_changes(diff)), mode
