"""A ticker never travels alone: every entry of a 13f-copycat compact answer that names a ticker carries its issuer
and tickerAsOf, and the tickers compare_ethos ranks in its top sets and overlap are named once in its `names`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcp import Client

from server.mcp_server import create_server
from tests.test_next_calls import precomputed_calls

PACK = "13f-copycat"


def entries(node: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every object of an answer with its key path, nextCalls' arguments (a call, not a position) left out."""
    if isinstance(node, list):
        for item in node:
            yield from entries(item, path)
    elif isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            if key != "nextCalls":
                yield from entries(value, (*path, key))


def listed_tickers(answer: dict[str, Any]) -> set[str]:
    """The tickers of compare_ethos' top sets and overlap (its pairs' shared tickers included)."""
    overlap = answer["overlap"]
    return {
        *(t for tickers in answer["topSets"].values() for t in tickers),
        *overlap["tickers"],
        *(t for pair in overlap["pairwise"] for t in pair["shared"]),
    }


async def test_every_ticker_of_every_compact_answer_of_the_fixture_is_named(published, release):
    named = bare = ethos = 0
    async with Client(create_server(published)) as client:
        for tool, arguments in precomputed_calls(release):
            if arguments.get("packId", PACK) != PACK:
                continue  # a preview pack's answers are its own shapes
            result = await client.call_tool(tool, arguments)
            answer = result.structured_content
            assert answer is not None, (tool, arguments)
            for path, entry in entries(answer):
                if "ticker" not in entry:
                    continue
                named += 1
                assert entry.get("issuer"), (tool, arguments, path, entry)
                if path:  # an explanation names its own ticker at the top; each manager's change says tickerAsOf
                    assert entry.get("tickerAsOf") in ("quarter-end", "current", "unmapped"), (tool, path, entry)
            if tool == "compare_ethos":
                ethos += 1
                listed = listed_tickers(answer)
                bare += len(listed)
                assert set(answer["names"]) == listed, arguments
                assert all(name["issuer"] and name["tickerAsOf"] for name in answer["names"].values())
    assert named > 500 and bare > 20 and ethos >= 4
