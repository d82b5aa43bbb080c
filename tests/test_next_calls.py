"""Every call an answer proposes succeeds: a walk over a whole release (the fixture's, and one of Berkshire
Hathaway's real 13F filings) makes every precomputed request as its tool call with the official MCP Python SDK
client over stdio, then replays each `nextCalls` entry of the precomputed answers and of the compact answers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import orjson
from mcp import ClientSession, stdio_client

from builder.api import diffs, methods
from builder.api.contract import OPERATIONS
from builder.release.store import LoadedRelease
from server.mcp_server.results import compact
from tests.test_mcp_errors import tool_call
from tests.test_mcp_stdio import child

WALK_SECONDS = 600  # a few hundred calls over stdio; a hang must still fail
BY_ROUTE = {op.route: op for op in OPERATIONS if op.tool}


def precomputed_calls(release: LoadedRelease) -> list[tuple[str, dict[str, Any]]]:
    """Every precomputed answer of the release as the tool call that stands for it (the raw OpenAPI has no tool)."""
    calls = []
    for key in sorted(release.answers):
        if key.startswith("POST "):
            _, route, params = key.split(" ", 2)
            body = orjson.loads(params)
            if "managers" in body:
                body["managerIds"] = body.pop("managers")
            calls.append((BY_ROUTE[route].tool, body))
        elif not key.startswith("/api/v1/openapi.json"):
            operation, arguments = tool_call(key)
            calls.append((operation.tool, arguments))
    return calls


def next_calls(node: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every nextCalls entry anywhere in an answer (the agent payload's, a compact answer's)."""
    if isinstance(node, list):
        return [found for item in node for found in next_calls(item)]
    if not isinstance(node, dict):
        return []
    own = [(c["tool"], c["arguments"]) for c in node.get("nextCalls", [])]
    return own + [found for key, value in node.items() if key != "nextCalls" for found in next_calls(value)]


async def walk(releases: Path, release: LoadedRelease) -> tuple[int, dict[str, int], list[Any]]:
    """(precomputed calls made, distinct next calls replayed by tool, the failures among both)."""
    proposed: dict[bytes, tuple[str, dict[str, Any]]] = {}
    failures = []
    calls = precomputed_calls(release)
    with anyio.fail_after(WALK_SECONDS):
        async with (
            stdio_client(child(["-m", "server.mcp_server"], releases)) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for tool, arguments in calls:
                result = await session.call_tool(tool, arguments)
                if result.is_error:
                    failures.append((tool, arguments, result.content[0].text[:300]))
                    continue
                rest = orjson.loads((await session.read_resource(result.content[1].uri)).contents[0].text)
                for found in next_calls(result.structured_content) + next_calls(rest):
                    proposed.setdefault(orjson.dumps(found, option=orjson.OPT_SORT_KEYS), found)
            replayed: dict[str, int] = {}
            for tool, arguments in proposed.values():
                replayed[tool] = replayed.get(tool, 0) + 1
                result = await session.call_tool(tool, arguments)
                if result.is_error:
                    failures.append((tool, arguments, result.content[0].text[:300]))
    return len(calls), replayed, failures


async def test_every_next_call_of_the_fixture_release_succeeds(published, release):
    made, replayed, failures = await walk(published, release)
    assert failures == []
    assert made == len(release.answers) - 1  # every precomputed answer but the raw OpenAPI document
    assert set(replayed) == {
        "list_packs",
        "get_latest_pack",
        "list_pack_versions",
        "compare_versions",
        "explain_position",
        "compare_ethos",
        "validate_policy",
        "export_audit_trail",
    }
    assert replayed["explain_position"] >= 20 and replayed["compare_versions"] >= 20


async def test_every_next_call_of_a_real_filings_release_succeeds(berkshire_published, berkshire_release):
    made, replayed, failures = await walk(berkshire_published, berkshire_release)
    assert failures == []
    assert made == len(berkshire_release.answers) - 1
    assert replayed["explain_position"] >= 5 and replayed["compare_versions"] >= 5


def test_a_diff_proposes_explanations_only_of_what_the_latest_version_explains(release):
    versions = release.data.versions
    pack = "/api/v1/packs/13f-copycat/versions/diff"

    def brief(older: str, newer: str, mode: str = "any") -> dict[str, Any]:
        query = "" if mode == "any" else f"&mode={mode}"
        data = orjson.loads(release.answers[f"{pack}?from={older}&to={newer}{query}"].body)["data"]
        arguments = {"packId": "13f-copycat", "from": older, "to": newer, **({"mode": mode} if query else {})}
        return compact(diffs.diff, data, arguments, versions)

    assert brief(versions[0], versions[1])["nextCalls"] == [
        {
            "tool": "compare_versions",
            "arguments": {"packId": "13f-copycat", "from": versions[1], "to": versions[-1]},
            "why": "what changed since, up to the latest version",
        }
    ]
    latest = brief(versions[-2], versions[-1])
    assert [c["tool"] for c in latest["nextCalls"]] == ["explain_position"] * 2
    # the largest trade of each of the first two managers (ranked by their largest trade), not one manager's two
    first, second = latest["tradesByManager"][:2]
    assert [c["arguments"]["ticker"] for c in latest["nextCalls"]] == [
        first["trades"][0]["ticker"],
        second["trades"][0]["ticker"],
    ]
    assert (first["managerId"], second["managerId"]) == ("tamarack", "larch")
    # Across the release in overlap: GS, larch's largest trade, left the overlap before the version before the
    # latest, so explain_position (of the latest version) would not find it: larch's next largest is proposed.
    across = brief(versions[0], versions[-1], "overlap")
    first, second = across["tradesByManager"][:2]
    assert (first["managerId"], first["trades"][0]["ticker"], second["managerId"], second["trades"][0]["ticker"]) == (
        "quillwort",
        "ISRG",
        "larch",
        "GS",
    )
    assert "GS" not in methods.explained_tickers(release.data, [], "overlap")
    assert [c["arguments"]["ticker"] for c in across["nextCalls"]] == ["ISRG", second["trades"][1]["ticker"]]
