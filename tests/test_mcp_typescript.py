"""The official MCP TypeScript SDK client (what most hosts embed) against `python -m server.mcp_server` over stdio,
and against `ras serve`'s /mcp over Streamable HTTP (a real server on loopback): the same report from both.

Every tool with valid arguments: no error, structured content accepted by the client's own output-schema
check, every linked resource read and reassembled into the REST bytes. Every bad input an agent developer
tried: an error result carrying the REST error code in its first text block, never a protocol error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from builder.canonical import sha256_hex
from server.app import create_app
from server.mcp_http.endpoint import MAX_REQUEST_BYTES
from tests.node_clients import run_script
from tests.servers import REPO, running_server
from tests.test_mcp import PACK, TOOL_NAMES, Case, rest_answer, tool_cases
from tests.test_mcp_errors import BAD_INPUTS

TOOLS_LIST_BYTES = 16 * 1024  # the whole list an agent holds before it asks anything
TOOL_ENTRY_BYTES = 3 * 1024
TEXT_BYTES = 16 * 1024  # what an agent reads from one call
LATEST_TEXT_BYTES = 10 * 1024
RESULT_BYTES = 1024 * 1024  # text, structured content and links together
UNKNOWN = {"tool": "place_order", "arguments": {"ticker": "AAPL"}}
DEEP = 1000  # the nesting an agent developer tried; the Python client cannot send it, the TypeScript one can


def typescript_client(
    releases: Path, calls: list[dict[str, Any]], work: Path, url: str | None = None
) -> dict[str, Any]:
    """Run the TypeScript client over a plan, over stdio (a server it starts) or over HTTP to `url`; its report."""
    plan: dict[str, Any] = {
        "command": sys.executable,
        "args": ["-m", "server.mcp_server", "--releases", str(releases)],
        "env": {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        "cwd": str(REPO),
        "calls": calls,
    }
    if url is not None:
        plan = {"url": url, "calls": calls}
    (work / "plan.json").write_bytes(orjson.dumps(plan))
    result = run_script("mcp_client.mjs", str(work / "plan.json"))
    assert result.returncode == 0, result.stderr[-3000:]
    return orjson.loads(result.stdout)


def bad_calls() -> list[dict[str, Any]]:
    """BAD_INPUTS as the TypeScript client sends them: the nested ones 1,000 levels deep."""
    calls = []
    for tool, arguments, _code in BAD_INPUTS:
        nested = {
            key: value
            for key, value in arguments.items()
            if isinstance(value, list) and value and isinstance(value[0], list)
        }
        call: dict[str, Any] = {"tool": tool, "arguments": {k: v for k, v in arguments.items() if k not in nested}}
        for key in nested:
            call["nest"] = {"key": key, "value": "larch", "depth": DEEP}
        calls.append(call)
    return calls


PREVIEWS = [
    Case(tool, {"packId": pack}, f"/api/v1/packs/{pack}/{route}")
    for pack in ("congress-trades", "jane-roe-tracker", "wsb-social-momentum")
    for tool, route in (("get_latest_pack", "latest"), ("export_audit_trail", "audit"))
]


@pytest.fixture(scope="module", params=["stdio", "http"])
def report(request, published: Path, release, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    cases = [*tool_cases(release).values(), *PREVIEWS]
    calls = [{"tool": case.tool, "arguments": case.arguments} for case in cases] + bad_calls() + [UNKNOWN]
    work = tmp_path_factory.mktemp(f"typescript-{request.param}")
    if request.param == "stdio":
        found = typescript_client(published, calls, work)
    else:
        with running_server(published) as (base, _process):
            found = typescript_client(published, calls, work, f"{base}/mcp")
    found["cases"], found["transport"] = cases, request.param
    return found


def test_the_tool_list_is_light_typed_annotated_and_one_page(report):
    listed = report["toolsList"]
    assert listed["names"] == TOOL_NAMES and listed["nextCursor"] is None
    assert listed["bytes"] <= TOOLS_LIST_BYTES, listed["bytes"]
    assert max(listed["entries"].values()) <= TOOL_ENTRY_BYTES, listed["entries"]
    assert report["server"]["name"] == "research-artifact-service" and not report["connectionClosedEarly"]


async def test_every_tool_answers_within_its_weight_and_links_the_rest_bytes(report, published, aiohttp_client):
    rest = await aiohttp_client(create_app(published))
    for case, call in zip(report["cases"], report["calls"], strict=False):
        assert "protocolError" not in call, (case.tool, call.get("protocolError"))
        assert not call["isError"] and call["hasStructured"], (case.tool, call["firstText"][:300])
        assert call["contentTypes"] == ["text", *["resource_link"] * len(call["links"])] and call["links"]
        limit = LATEST_TEXT_BYTES if case.tool == "get_latest_pack" else TEXT_BYTES
        assert call["textBytes"] <= limit and call["resultBytes"] <= RESULT_BYTES, (case.tool, call["textBytes"])
        status, body = await rest_answer(rest, case)
        assert status == 200 and call["body"]["sha256"] == sha256_hex(body) and call["body"]["bytes"] == len(body)
        assert all(f"/answers/{sha256_hex(body)}/" in link["uri"] for link in call["links"])


def test_an_unknown_tool_is_a_protocol_error_the_client_reads(report):
    unknown = report["calls"][-1]
    assert unknown["tool"] == UNKNOWN["tool"] and unknown["protocolError"]["code"] == -32602
    assert "unknown tool 'place_order'" in unknown["protocolError"]["message"]


def test_every_result_names_the_release_it_came_from(report, release):
    assert {call["releaseId"] for call in report["calls"] if "protocolError" not in call} == {release.release_id}


def test_over_http_the_client_negotiates_the_newest_handshake_revision(report):
    assert report["protocolVersion"] == (None if report["transport"] == "stdio" else "2025-11-25")


def test_every_bad_input_is_an_error_result_with_the_rest_code_first(report):
    """Over HTTP a message over MAX_REQUEST_BYTES is refused whole: 413, its JSON-RPC error read by the client."""
    calls = report["calls"][len(report["cases"]) : -1]
    assert len(calls) == len(BAD_INPUTS)
    for (tool, arguments, code), call in zip(BAD_INPUTS, calls, strict=True):
        if report["transport"] == "http" and len(orjson.dumps(arguments)) > MAX_REQUEST_BYTES:
            assert call["protocolError"]["code"] == 413 and "Payload Too Large" in call["protocolError"]["message"]
            continue
        assert "protocolError" not in call, (tool, code, call.get("protocolError"))
        assert call["isError"] and call["contentTypes"] == ["text"] and not call["hasStructured"], (tool, code)
        assert orjson.loads(call["firstText"])["error"]["code"] == code, (tool, call["firstText"][:300])


def test_the_latest_pack_text_stands_on_its_own(report):
    latest = next(
        call
        for case, call in zip(report["cases"], report["calls"], strict=False)
        if case.tool == "get_latest_pack" and case.arguments.get("packId") == PACK
    )
    payload = orjson.loads(latest["firstText"])
    assert (
        payload["managers"] and payload["nextCalls"] and payload["limits13F"] and payload["executionEnabled"] is False
    )


def _text_of(report: dict[str, Any], tool: str) -> dict[str, Any]:
    call = next(c for case, c in zip(report["cases"], report["calls"], strict=False) if case.tool == tool)
    return orjson.loads(call["firstText"])


def test_the_typescript_client_reads_names_per_manager_rankings_and_freshness_dates(report, release):
    """What the client validated against each tool's output schema carries the issuer and tickerAsOf of every trade
    and position, each manager's own trades, and freshness as dates (no stale flag)."""
    latest, diff = _text_of(report, "get_latest_pack"), _text_of(report, "compare_versions")
    explanation, policy = _text_of(report, "explain_position"), _text_of(report, "validate_policy")
    securities = {e["ticker"]: e for m in release.data.latest["managers"] for e in m["positions"]}
    trades = [t for m in latest["managers"] for t in m["trades"]] + [
        t for m in diff["tradesByManager"] for t in m["trades"]
    ]
    assert trades and all(t["issuer"] and t["tickerAsOf"] in ("quarter-end", "current", "unmapped") for t in trades)
    for trade in trades:
        if trade["ticker"] in securities:
            assert trade["issuer"] == securities[trade["ticker"]]["issuer"], trade
    assert [m["managerId"] for m in diff["tradesByManager"]] and diff["tradingManagerCount"] >= 2
    assert all(m["tradeCount"] >= len(m["trades"]) >= 1 for m in diff["tradesByManager"])
    assert all(h["issuer"] and h["tickerAsOf"] for h in latest["headline"])
    assert all(c["tickerAsOf"] for c in explanation["changes"])
    dates = {"filingDeadline": "2026-11-14", "supersededAfter": "2026-12-31", "nextFilingDeadline": "2027-02-14"}
    assert latest["freshness"] == policy["freshness"] == dates
    assert "freshness" not in {c["id"] for c in policy["checks"]}


def test_the_typescript_client_reads_the_name_of_every_ticker_a_list_carries(report):
    """The names a diff gives its entered and left tickers and compare_ethos its ranked ones, as the client validated
    them against the output schemas (the undecided changes' names: on Berkshire's filings, test_agent_payload)."""
    diff, ethos = _text_of(report, "compare_versions"), _text_of(report, "compare_ethos")
    listed = [*diff["tickers"]["entered"], *diff["tickers"]["left"]]
    assert listed and set(listed) <= set(diff["names"])
    assert all(diff["names"][t]["issuer"] and diff["names"][t]["tickerAsOf"] for t in listed)
    ranked = {t for tickers in ethos["topSets"].values() for t in tickers}
    assert ranked and ranked <= set(ethos["names"]) and all(ethos["names"][t]["issuer"] for t in ranked)
