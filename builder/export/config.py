"""Host configuration of an exported release: nginx.conf, its route maps, and `_headers`/`_redirects`."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import jinja2

from builder.api.wire import (
    COMMON_HEADERS,
    GET_CACHE_CONTROL,
    GET_VARY,
    JSON_TYPE,
    MAX_LINE_BYTES,
    POST_CACHE_CONTROL,
    ApiError,
    ErrorCode,
    failure,
)
from builder.canonical import canonical_json
from builder.errors import PublishError
from builder.export.apidocs import PAGE, TYPES

TEMPLATES = Path(__file__).parent / "templates"
DEFAULT_LISTEN = 8081  # beside `ras serve`'s 8080, which is the default upstream
DEFAULT_UPSTREAM = "http://127.0.0.1:8080"
# Request targets nginx matches byte for byte: what canonical keys are made of. No '%' or '+' (the app
# decodes them, so the raw and the decoded target would differ) and nothing that could end a quoted
# nginx string or the maps' '|' and ':' separators. Other targets are left to the app.
SAFE_TARGET = re.compile(r"^/[A-Za-z0-9/._~?=&,-]*$")
UPSTREAM_URL = re.compile(
    r"^(?P<scheme>https?)://(?P<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(?P<port>\d{1,5}))?/?$"
)
DEFAULT_PORTS = {"http": 80, "https": 443}
# nginx builds each map as a hash; its buckets must hold the longest key, and the table must be allowed
# to grow past the number of keys (it gives up rather than resize).
MIN_HASH_BUCKET = 64
MIN_HASH_SIZE = 2048
# What `ras serve` sends with every answer besides `Server`; tests/test_nginx_export.py compares every header.
BASE_HEADERS = tuple(COMMON_HEADERS.items())
# nginx's buffers are twice the app's MAX_LINE_BYTES, so an oversized query reaches the app and its envelope.
REQUEST_LINE_BUFFER = f"{2 * MAX_LINE_BYTES // 1024}k"
UNREACHABLE_MESSAGE = "the service behind this server is not answering; precomputed GET answers still are"


@dataclass(frozen=True, slots=True)
class Route:
    """One request target nginx answers from a file: the exact target and the sha256 of its answer."""

    request: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Upstream:
    url: str  # as given, without a trailing slash
    scheme: str
    server: str  # host:port for nginx's upstream block


def parse_upstream(url: str) -> Upstream:
    """The app's base URL, or PublishError: http(s), a host, an optional port, no path."""
    match = UPSTREAM_URL.match(url.strip())
    if match is None:
        raise PublishError(
            f"--upstream must look like http://127.0.0.1:8080 (scheme, host, port, no path), not {url!r}"
        )
    port = int(match["port"] or DEFAULT_PORTS[match["scheme"]])
    if not 0 < port < 65536:
        raise PublishError(f"--upstream port {port} is out of range")
    return Upstream(url.strip().rstrip("/"), match["scheme"], f"{match['host']}:{port}")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )


def _render(name: str, **values: object) -> bytes:
    return _environment().get_template(name).render(**values).encode()


def router_envelope(error: ApiError) -> bytes:
    """An error envelope nginx answers by itself (it sits in a quoted nginx string)."""
    body = canonical_json(failure("router", error))
    assert not set(body.decode()) & set("'\\$"), "the envelope must fit in a single-quoted nginx string"
    return body


def unreachable_body() -> bytes:
    """What nginx answers while the app is down."""
    return router_envelope(ApiError(503, ErrorCode.RELEASE_UNAVAILABLE, UNREACHABLE_MESSAGE))


def refusal_bodies() -> dict[str, str]:
    """What nginx answers to requests it cannot read itself, worded as `ras serve` words its own refusals
    (server/protocol.py): a line over nginx's buffers, or bytes that are not HTTP."""
    oversize = ApiError(
        400, ErrorCode.MALFORMED_REQUEST, f"the request line or a header field is over {MAX_LINE_BYTES} bytes"
    )
    invalid = ApiError(400, ErrorCode.MALFORMED_REQUEST, "the request is not valid HTTP/1.1")
    return {"oversize": router_envelope(oversize).decode(), "invalid": router_envelope(invalid).decode()}


def render_nginx_conf(listen: int, upstream: Upstream) -> bytes:
    """The release-independent nginx.conf: runtime paths, the server, and the include of the live routes."""
    return _render(
        "nginx.conf.j2",
        listen=listen,
        upstream=upstream,
        json_type=JSON_TYPE,
        cache_control=GET_CACHE_CONTROL,
        no_store=POST_CACHE_CONTROL,
        base_headers=BASE_HEADERS,
        line_buffer=REQUEST_LINE_BUFFER,
        vary=GET_VARY,
        unreachable_body=unreachable_body().decode(),
        refusals=refusal_bodies(),
        docs_types=[(extension.lstrip("."), content.split(";")[0]) for extension, content in TYPES.items()],
    )


def _power_of_two_at_least(value: int) -> int:
    return 1 << max(0, value - 1).bit_length()


def render_routes_conf(release_id: str, tree: str, routes: Sequence[Route], encodings: Sequence[str]) -> bytes:
    """The maps of one tree: exact request target → object, content coding, ETag suffix and If-None-Match."""
    longest = max((len(route.request) for route in routes), default=0)
    return _render(
        "nginx-routes.conf.j2",
        release_id=release_id,
        tree=tree,
        routes=routes,
        encodings=encodings,
        hash_bucket_size=max(MIN_HASH_BUCKET, _power_of_two_at_least(longest + 32)),
        hash_max_size=max(MIN_HASH_SIZE, _power_of_two_at_least(len(routes) * 4)),
    )


def render_headers(release_id: str, routes: Sequence[Route]) -> bytes:
    """`_headers`: the GET answer headers for every rewritten path and for the objects themselves."""
    paths = [*sorted({urlsplit(route.request).path for route in routes}), "/objects/*"]
    return _render(
        "_headers.j2",
        release_id=release_id,
        paths=paths,
        json_type=JSON_TYPE,
        cache_control=GET_CACHE_CONTROL,
        base_headers=BASE_HEADERS,
        docs_page=f"/{PAGE}",
        docs_type=TYPES[".html"],
    )


def render_redirects(release_id: str, routes: Sequence[Route], upstream: Upstream) -> bytes:
    """`_redirects` (Netlify syntax): rewrites to the objects, most specific query first, then the app."""
    return _render(
        "_redirects.j2", release_id=release_id, upstream=upstream.url, rules=list(redirect_rules(routes, upstream))
    )


def redirect_rules(routes: Sequence[Route], upstream: Upstream) -> Iterable[str]:
    """The `_redirects` lines, in order: the first match wins."""
    # Per path: manager subsets to the app; precomputed queries, most parameters first, each group
    # followed by a catch to the app for the parameters shorter queries lack (so `mode=bogus` reaches
    # the app's 400 instead of the plain path's file); then the plain path. Last, the rest of /api.
    by_path: dict[str, list[tuple[tuple[tuple[str, str], ...], str]]] = {}
    for route in routes:
        parts = urlsplit(route.request)
        query = tuple(parse_qsl(parts.query, keep_blank_values=True))
        by_path.setdefault(parts.path, []).append((query, route.sha256))
    for path, entries in sorted(by_path.items()):
        app = f"{upstream.url}{path}"
        yield f"{path}  managers=:managers  {app}  200"
        for size in sorted({len(query) for query, _ in entries}, reverse=True):
            group = sorted(entry for entry in entries if len(entry[0]) == size)
            for query, sha256 in group:
                yield "  ".join([path, *(f"{name}={value}" for name, value in query), f"/objects/{sha256}.json", "200"])
            shorter = [{name for name, _ in query} for query, _ in entries if len(query) < size]
            names = dict.fromkeys(name for query, _ in group for name, _ in query)
            yield from (f"{path}  {name}=:{name}  {app}  200" for name in names if not all(name in s for s in shorter))
    yield f"/docs  /{PAGE}  200"  # the API reference's page; its assets are files of docs/
    yield f"/api/*  {upstream.url}/api/:splat  200"
