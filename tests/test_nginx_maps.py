"""The regexes of the generated nginx maps, run as nginx's PCRE would run them, against the rules they encode.

No nginx here: tests/test_nginx_export.py runs the maps in a real nginx on fixed cases; these cover the
headers a client could send, which no fixed list exhausts.
"""

from __future__ import annotations

import functools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from builder.export.config import Route, render_routes_conf
from server.conditional import none_match

CODINGS = ("br", "gzip")
ETAG = "ab" * 32
TOKENS = st.sampled_from(
    [f'"{ETAG}"', f'W/"{ETAG}"', f'"{ETAG}-gzip"', f'"{ETAG[:-1]}"', '"x"', "W/", "*", '"', ",", " ", "\t", "w/", "a"]
)
CODING_TOKENS = st.sampled_from(
    ["br", "BR", "gzip", "x-gzip", "X-GZIP", "gzipx", "brotli", "deflate", "identity", "*", ";q=0", ";q=0.000",
     ";q=0.5", ";q=1", "; q = 0", ";q=0.0001", ";", ",", ", ", " ", "\t"]
)  # fmt: skip


@functools.cache
def routes_conf() -> str:
    return render_routes_conf("r", "t", [Route("/api/v1/health", "0" * 64)], CODINGS).decode()


def map_block(variable: str) -> str:
    conf = routes_conf()
    return conf[conf.index(f"{variable} {{") :].split("}\n", 1)[0]


@functools.cache
def fresh_patterns() -> list[re.Pattern[str]]:
    """The If-None-Match regexes of the generated $ras_fresh map."""
    return [re.compile(pattern) for pattern in re.findall(r"'~(.*)' 1;", map_block("$ras_fresh"))]


@functools.cache
def coding_patterns() -> list[tuple[re.Pattern[str], str]]:
    """The Accept-Encoding regexes of the generated $ras_coding map, in order (`~*`: caseless)."""
    found = re.findall(r'"~\*(.*)" (\w+);', map_block("$ras_coding"))
    return [(re.compile(pattern, re.IGNORECASE), coding) for pattern, coding in found]


def coding_in_nginx(header: str) -> str:
    """The first matching regex's coding; an absent or empty header is the map's exact "" key."""
    if not header:
        return ""
    return next((coding for pattern, coding in coding_patterns() if pattern.search(header)), "")


def preferred_coding(header: str) -> str:
    """The export's rule, element by element: br, else gzip (x-gzip is its alias), when some element names it
    and none names it with q=0 (RFC 9110 §12.5.3: q=0 means not acceptable)."""
    elements = header.split(",")
    for coding, name in (("br", "br"), ("gzip", "(?:x-)?gzip")):
        listed = any(re.fullmatch(rf"\s*{name}\s*(?:;.*)?", element, re.I | re.S) for element in elements)
        refused = any(
            re.fullmatch(rf"\s*{name}\s*;\s*q\s*=\s*0(?:\.0{{0,3}})?\s*", element, re.I) for element in elements
        )
        if listed and not refused:
            return coding
    return ""


@settings(max_examples=400, deadline=None)
@given(st.lists(TOKENS, max_size=8).map("".join))
def test_the_nginx_if_none_match_pattern_agrees_with_the_server_predicate(header):
    header = header.strip(" \t")  # nginx and aiohttp both drop a field value's outer whitespace
    in_nginx = any(pattern.search(f"{ETAG} {header}") for pattern in fresh_patterns())
    assert in_nginx == none_match(header, f'"{ETAG}"'), header


@settings(max_examples=600, deadline=None)
@given(st.lists(CODING_TOKENS, max_size=8).map("".join))
def test_the_nginx_coding_map_picks_br_then_gzip_unless_refused_with_q_0(header):
    header = header.strip(" \t")  # as nginx stores the field value
    assert coding_in_nginx(header) == preferred_coding(header), header


def test_the_coding_map_offers_only_the_exported_variants():
    gzip_only = render_routes_conf("r", "t", [Route("/api/v1/health", "0" * 64)], ("gzip",)).decode()
    block = gzip_only[gzip_only.index("$ras_coding {") :].split("}\n", 1)[0]
    assert re.findall(r'" (\w+);', block) == ["gzip"]
