"""The golden map: the session's release of the embedded fixture, request by request, as committed.

A change that moves a byte of any answer, release file, the OpenAPI document or an MCP tool listing fails here,
naming what moved; `python -m scripts.golden` regenerates the map when the change means it.
"""

from __future__ import annotations

from pathlib import Path

from builder.release.store import current_release
from scripts.golden import differences, golden_map, read_golden, report


def test_the_fixture_release_has_the_bytes_of_the_golden_map(published: Path):
    directory = current_release(published)
    assert directory is not None
    lines = differences(read_golden(), golden_map(directory))
    assert not lines, report(lines)


def test_a_difference_is_named_by_section_and_request():
    expected = {"requests": {"/a": "200 1", "/b": "200 2"}, "mcp": {"t output": "3"}}
    found = {"requests": {"/a": "200 9", "/c": "200 4"}, "mcp": {"t output": "3"}}
    assert differences(expected, found) == ["changed  requests: /a", "added    requests: /c", "vanished requests: /b"]
    assert differences(expected, expected) == []
