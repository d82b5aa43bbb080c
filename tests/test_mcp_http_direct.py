"""/mcp answers a plain handshake-era tools/call from the shared tools without the SDK's kernel: the same bytes as the
kernel's answer for every tool, every error result, every revision and every protocol error, from a fresh call and
from the memo; every other message still goes to the kernel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from builder.release.store import LoadedRelease
from server.dispatch import LiveCache
from server.mcp_http.endpoint import MAX_REQUEST_BYTES
from server.mcp_http.exchange import HANDSHAKE, Exchange, plain_call
from server.mcp_server.messages import Refused, judge
from server.watch import ReleaseWatch, Serving
from tests.test_mcp import error_cases, tool_cases
from tests.test_mcp_errors import BAD_INPUTS

CALL = {"name": "get_health", "arguments": {}}


def request(params: Any, request_id: Any = 1, **extra: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params, **extra}


def calls(release: LoadedRelease) -> list[dict[str, Any]]:
    """Params of a success per tool, every error case, every bad input a message can carry, an unknown tool."""
    found = [{"name": case.tool, "arguments": case.arguments} for case in tool_cases(release).values()]
    found += [{"name": case.tool, "arguments": case.arguments} for case in error_cases(release)]
    found += [
        {"name": tool, "arguments": arguments}
        for tool, arguments, _code in BAD_INPUTS
        if len(orjson.dumps(arguments)) < MAX_REQUEST_BYTES
    ]
    return [*found, {"name": "place_order", "arguments": {"ticker": "AAPL"}}, {"name": "list_ethos"}]


def serving_of(releases: Path) -> Serving:
    watch = ReleaseWatch(releases)
    watch.refresh()
    return watch.serving


async def kernel_answer(exchange: Exchange, serving: Serving, value: dict[str, Any], version: str) -> tuple[int, bytes]:
    """The SDK kernel's answer to a message, as /mcp gave every message before the direct path."""
    message = judge(orjson.dumps(value), "one")
    assert not isinstance(message, Refused)
    reply = await exchange.reply(serving, message, version, {})
    return reply.status, reply.body


@pytest.mark.parametrize("version", HANDSHAKE)
async def test_every_plain_call_is_answered_with_the_kernels_bytes_fresh_and_from_the_memo(
    published: Path, release: LoadedRelease, version: str, monkeypatch
):
    serving = serving_of(published)
    direct, kernel = Exchange(LiveCache()), Exchange(LiveCache())  # two memos: each answers on its own

    async def unreached(*_arguments: Any) -> Any:
        raise AssertionError("a plain call reached the kernel")

    monkeypatch.setattr(direct, "reply", unreached)
    for number, params in enumerate(calls(release)):
        value = request(params, request_id=number if number % 2 else f"call-{number}")
        assert plain_call(value, version) is not None, params
        expected = await kernel_answer(kernel, serving, value, version)
        for attempt in ("fresh", "memo"):
            reply = await direct.answer(serving, value, version, {})
            assert (reply.status, reply.body) == expected, (attempt, params["name"], reply.body[:300])


async def test_without_a_release_a_call_is_the_kernels_error_result_naming_no_release(tmp_path: Path):
    serving = serving_of(tmp_path)
    assert serving.release is None
    value = request(CALL)
    reply = await Exchange(LiveCache()).answer(serving, value, HANDSHAKE[-1], {})
    assert (reply.status, reply.body) == await kernel_answer(Exchange(LiveCache()), serving, value, HANDSHAKE[-1])
    result = orjson.loads(reply.body)["result"]
    assert result["isError"] is True and "_meta" not in result
    assert orjson.loads(result["content"][0]["text"])["error"]["code"] == "release_unavailable"


async def test_a_fault_in_a_tool_is_the_kernels_internal_error(published: Path, monkeypatch, caplog):
    serving = serving_of(published)
    direct, kernel = Exchange(LiveCache()), Exchange(LiveCache())

    def broken(*_arguments: Any) -> Any:
        raise RuntimeError("a bug with a secret in its message")

    for exchange in (direct, kernel):
        monkeypatch.setattr(exchange.box, "call", broken)
    value = request(CALL, request_id="b")
    reply = await direct.answer(serving, value, HANDSHAKE[-1], {})
    assert (reply.status, reply.body) == await kernel_answer(kernel, serving, value, HANDSHAKE[-1])
    assert orjson.loads(reply.body)["error"] == {"code": -32603, "message": "Internal server error"}
    assert "a bug with a secret" in caplog.text  # logged, never sent


@pytest.mark.parametrize(
    ("value", "version"),
    [
        (request({**CALL, "_meta": {"progressToken": 5}}), "2025-11-25"),  # a progress token the SDK checks
        (request({**CALL, "task": {}}), "2025-11-25"),
        (request({"name": 3, "arguments": {}}), "2025-11-25"),
        (request({"name": "get_health", "arguments": []}), "2025-11-25"),
        (request({"arguments": {}}), "2025-11-25"),
        (request(None), "2025-11-25"),
        (request([]), "2025-11-25"),
        (request(CALL, request_id=True), "2025-11-25"),
        (request(CALL, request_id=1.5), "2025-11-25"),
        (request(CALL, request_id=None), "2025-11-25"),
        (request(CALL, extra=1), "2025-11-25"),
        ({"jsonrpc": "2.0", "id": 1, "method": "tools/call"}, "2025-11-25"),
        ({"jsonrpc": "2.0", "method": "tools/call", "params": CALL}, "2025-11-25"),
        ({"jsonrpc": "1.0", "id": 1, "method": "tools/call", "params": CALL}, "2025-11-25"),
        ({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}, "2025-11-25"),
        (request(CALL), "2026-07-28"),  # the 2026 revision: its envelope and routing headers, the SDK's ladder
        ([request(CALL)], "2025-11-25"),
    ],
)
def test_anything_but_a_plain_handshake_era_call_goes_to_the_kernel(value: Any, version: str):
    assert plain_call(value, version) is None


@pytest.mark.parametrize("params", [CALL, {"name": "get_health"}, {"name": "get_health", "arguments": None}])
def test_a_call_without_arguments_or_with_null_ones_is_plain_and_has_none(params: dict[str, Any]):
    call = plain_call(request(params, request_id="x"), "2025-06-18")
    assert call is not None and (call.request_id, call.name, call.arguments) == ("x", "get_health", {})


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"name": "place_order", "arguments": {}}, -32602),  # answered directly, as the kernel words it
        ({"name": 3, "arguments": {}}, -32602),  # the kernel's own checks
        ({"name": "get_health", "arguments": []}, -32602),
        ({"arguments": {}}, -32602),
        (None, -32602),
    ],
)
async def test_protocol_errors_keep_their_codes_and_are_answered_200_with_their_id(
    published: Path, params: Any, code: int
):
    serving = serving_of(published)
    for version in HANDSHAKE:
        reply = await Exchange(LiveCache()).answer(serving, request(params, request_id=7), version, {})
        answer = orjson.loads(reply.body)
        assert reply.status == 200 and answer["id"] == 7 and answer["error"]["code"] == code, answer
