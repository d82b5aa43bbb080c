"""The full REST answer behind a tool result, as content-addressed resources read in parts of bounded size."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp import MCPError

from builder.canonical import sha256_hex
from server.mcp_server.resources import PART_BUDGET, parse_uri, part_bounds, parts_of
from server.mcp_server.results import RESOURCE_NOT_FOUND
from tests.test_mcp import PACK, connect, reassembled


def escaped_size(text: bytes) -> int:
    return len(orjson.dumps(text.decode()))


@given(st.text(alphabet=st.sampled_from('ab"\\é€𝄞 \n\u2028'), max_size=300), st.integers(min_value=8, max_value=64))
def test_parts_rejoin_into_the_bytes_and_each_escaped_part_fits_its_budget(text, budget):
    body = orjson.dumps(text)  # canonical JSON: quotes, backslashes, escapes and multi-byte characters
    bounds = part_bounds(body, budget)
    assert b"".join(body[start:end] for start, end in bounds) == body
    assert all(start < end for start, end in bounds) or body == b""
    for start, end in bounds:
        part = body[start:end]
        part.decode("utf-8")  # never cut inside a character
        assert escaped_size(part) - 2 <= budget  # the escaped text, without its quotes


def test_a_large_answer_is_cut_into_parts_each_under_8_mib_in_json():
    body = orjson.dumps({"rows": [{"ticker": 'T"X', "value": i} for i in range(600_000)]})
    parts = parts_of(body, "get_latest_pack", {"packId": PACK})
    assert len(parts) > 1 and sum(part.size for part in parts) == len(body)
    assert all(escaped_size(body[p.start : p.end]) <= PART_BUDGET + 2 for p in parts)
    request = parse_uri(parts[1].uri)
    assert (request.sha256, request.part, request.parts) == (sha256_hex(body), 2, len(parts))
    assert (request.tool, request.arguments) == ("get_latest_pack", {"packId": PACK})


@pytest.mark.parametrize(
    "uri",
    [
        "research-artifact://answers/abc/part/1/of/1",
        "https://example.org/x",
        "research-artifact://answers/" + "0" * 64 + "/part/2/of/1",
        "research-artifact://answers/" + "0" * 64 + "/part/1/of/1?call=%7Bnot",
    ],
)
def test_a_uri_outside_the_template_is_not_a_resource(uri):
    assert parse_uri(uri) is None


async def test_a_live_views_link_still_reads_after_the_server_restarts(published):
    arguments = {"packId": PACK, "managers": ["larch", "fennel"], "mode": "exclusive"}  # not precomputed
    async with connect(published) as first:
        result = await first.call_tool("export_audit_trail", arguments)
        expected = await reassembled(first, result)
    async with connect(published) as second:  # a new server: nothing held, the call in the URI answers again
        assert await reassembled(second, result) == expected


async def test_a_link_to_bytes_no_release_answers_is_resource_not_found(published):
    missing = "research-artifact://answers/" + "0" * 64 + "/part/1/of/1"
    async with connect(published) as client:
        with pytest.raises(MCPError) as refused:
            await client.read_resource(missing)
        with pytest.raises(MCPError) as foreign:
            await client.read_resource("file:///etc/passwd")
        templates = (await client.list_resource_templates()).resource_templates
    assert refused.value.error.code == foreign.value.error.code == RESOURCE_NOT_FOUND
    assert [t.uri_template for t in templates] == ["research-artifact://answers/{sha256}/part/{part}/of/{parts}{?call}"]
    assert "Concatenate the text of parts 1..N" in templates[0].description
