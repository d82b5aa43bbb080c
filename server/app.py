"""The aiohttp app: GET answers are the promoted release's bytes; views not precomputed are rendered live."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import orjson
from aiohttp import web
from multidict import CIMultiDict

from builder.api.contract import OPERATIONS, Operation
from builder.api.wire import (
    COMMON_HEADERS,
    GET_CACHE_CONTROL,
    GET_VARY,
    JSON_TYPE,
    MAX_LINE_BYTES,
    POST_CACHE_CONTROL,
    ApiError,
    ErrorCode,
)
from builder.canonical import strong_etag
from builder.export.apidocs import PAGE, api_docs_files, content_type
from builder.release.objects import CACHE_BYTES, Answer, Answers, ReleaseDamaged, Route
from server.conditional import none_match
from server.dispatch import LiveCache, PostCache, answer_get, answer_post, error_answer, unavailable
from server.mcp_http.mount import LazyEndpoint
from server.mcp_http.origins import Origins
from server.protocol import MAX_BODY_BYTES, body_too_large, hang_up
from server.watch import DAMAGED, Pace, ReleaseWatch, Serving

LOG = logging.getLogger("ras.server")
MCP_PATH = "/mcp"  # MCP's Streamable HTTP endpoint (server/mcp_http)
Handler = Callable[[web.BaseRequest], Awaitable[web.StreamResponse]]
WATCH: web.AppKey[ReleaseWatch] = web.AppKey("watch", ReleaseWatch)
LIVE: web.AppKey[LiveCache] = web.AppKey("live", LiveCache)
POSTS: web.AppKey[PostCache] = web.AppKey("posts", PostCache)
BODY_TIMEOUT: web.AppKey[float] = web.AppKey("body_timeout", float)
MCP: web.AppKey[LazyEndpoint] = web.AppKey("mcp", LazyEndpoint)
# A POST body is a few kB sent right after its head: 10 s is ample on any link, and a body that trickles in slower
# holds a connection and a handler (nginx's client_body_timeout is 60 s between two reads; this bounds the whole).
DEFAULT_BODY_TIMEOUT = 10.0
BASE_HEADERS = {**COMMON_HEADERS, "Server": "ras"}  # no server version disclosed
GET_HEADER_SETS = 16384  # ETags whose GET headers stay built: a 500-manager release has 11,650 answers, plus live ones
POST_200_HEADERS = CIMultiDict({**BASE_HEADERS, "Cache-Control": POST_CACHE_CONTROL, "Content-Type": JSON_TYPE})
PREFLIGHT_HEADERS = {
    **BASE_HEADERS,
    "Access-Control-Allow-Methods": "GET, HEAD",
    "Access-Control-Allow-Headers": "If-None-Match",
    "Access-Control-Max-Age": "86400",
}
# A POST route's preflight: a browser sends its application/json body only after being allowed Content-Type.
POST_PREFLIGHT_HEADERS = {
    **PREFLIGHT_HEADERS,
    "Access-Control-Allow-Methods": "POST",
    "Access-Control-Allow-Headers": "Content-Type",
}


def _answer_response(request: web.BaseRequest, answer: Answer) -> web.Response:
    if answer.status != 200:
        return _bytes_response(answer.status, answer.body, POST_CACHE_CONTROL)
    return _not_modified(request, answer.etag) or web.Response(body=answer.body, headers=_get_headers(answer.etag)[1])


def _not_modified(request: web.BaseRequest, etag: str) -> web.Response | None:
    """The 304 of a 200 answer whose ETag the request's If-None-Match matches; None when it does not."""
    tags = request.headers.get("If-None-Match")
    if tags is not None and (tags == etag or none_match(tags, etag)):  # a client echoing the ETag: no list parsing
        return web.Response(status=304, headers=_get_headers(etag)[0])
    return None


@functools.lru_cache(maxsize=GET_HEADER_SETS)
def _get_headers(etag: str) -> tuple[CIMultiDict[str], CIMultiDict[str]]:
    """The 304 and 200 header sets of an ETag, built once (a Response copies them, so sharing is safe)."""
    headers = {**BASE_HEADERS, "ETag": etag, "Cache-Control": GET_CACHE_CONTROL, "Vary": GET_VARY}
    return CIMultiDict(headers), CIMultiDict({**headers, "Content-Type": JSON_TYPE})


def _bytes_response(status: int, body: bytes, cache_control: str) -> web.Response:
    headers = {**BASE_HEADERS, "Cache-Control": cache_control}
    return web.Response(body=body, status=status, content_type=JSON_TYPE, headers=headers)


def error_response(capability: str, error: ApiError) -> web.Response:
    return _bytes_response(error.status, error_answer(capability, error).body, POST_CACHE_CONTROL)


def _internal_error(request: web.Request, capability: str) -> web.Response:
    LOG.exception("unhandled error on %s %s", request.method, request.rel_url)
    return error_response(capability, ApiError(500, ErrorCode.INTERNAL_ERROR, "internal error"))


def post_handler(operation: Operation, posts: PostCache) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        try:
            if request.query:  # as on GET routes: a parameter the operation does not take is refused, not ignored
                name = next(iter(request.query))
                raise ApiError(
                    400, ErrorCode.UNKNOWN_PARAMETER, f"unknown query parameter {name!r}", {"parameter": name}
                )
            raw = await _raw_body(request)
            serving = request.app[WATCH].serving
            release_id = serving.release.release_id if serving.release is not None else None
            cached = posts.get(release_id, operation.id, raw) if release_id else None
            if cached is not None:  # the same bytes asked of the same release: the same answer, headers prebuilt
                return web.Response(body=cached, headers=POST_200_HEADERS)
            answer = answer_post(serving, operation, _json(raw))
            if answer.status == 200 and release_id:
                posts.put(release_id, operation.id, raw, answer.body)
        except ApiError as error:
            if isinstance(error, SlowBody):
                return await hang_up(request, error_response(operation.id, error))
            return error_response(operation.id, error)
        except Exception:
            return _internal_error(request, operation.id)
        return _bytes_response(answer.status, answer.body, POST_CACHE_CONTROL)

    return handle


class SlowBody(ApiError):
    """A POST body that did not arrive within the body timeout: answered, then the connection is closed."""


async def _raw_body(request: web.Request) -> bytes:
    if request.content_type != JSON_TYPE:
        raise ApiError(400, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "the request body must be application/json")
    seconds = request.app[BODY_TIMEOUT]
    try:
        if request.content.is_eof():  # the whole body came with its head (nearly every POST): nothing to wait for
            return await request.read()
        async with asyncio.timeout(seconds):
            return await request.read()  # bounded by client_max_size
    except web.HTTPRequestEntityTooLarge as exc:
        raise body_too_large() from exc
    except TimeoutError as exc:
        raise SlowBody(
            400,
            ErrorCode.MALFORMED_REQUEST,
            f"the request body did not arrive within {seconds:g} s of its head",
            {"bodyTimeoutSeconds": seconds},
        ) from exc


def _json(raw: bytes) -> object:
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ApiError(400, ErrorCode.MALFORMED_JSON, "the request body is not valid JSON") from exc


def get_handler(
    operation: Operation, watch: ReleaseWatch, live: LiveCache
) -> Callable[[web.Request], Awaitable[web.Response]]:
    """The GET route: a precomputed answer is a dict lookup of the raw request target, with no middleware."""

    async def handle(request: web.Request) -> web.Response:
        serving = watch.serving
        try:
            answers = serving.release.answers if serving.release else None
            route = answers.route(request.path_qs) if answers else None  # the canonical target: no parsing
            if route is None or answers is None:
                answer = answer_get(serving, live, operation, dict(request.match_info), list(request.query.items()))
                return _answer_response(request, answer)
            return _precomputed(request, answers, route)
        except ReleaseDamaged as exc:  # read and found altered: never its bytes, and no answer from it after this one
            assert serving.release is not None
            watch.drop(serving.release, str(exc))
            return error_response(operation.id, unavailable(Serving(None, DAMAGED)))
        except Exception:
            return _internal_error(request, operation.id)

    return handle


def _precomputed(request: web.BaseRequest, answers: Answers, route: Route) -> web.Response:
    # A precomputed 200 answers a matching If-None-Match from its name alone: a 304 sends no byte to verify.
    return (route.status == 200 and _not_modified(request, route.etag)) or _answer_response(
        request, answers.answer(route)
    )


def precomputed_first(app: web.Application, routed: Handler) -> Handler:
    """The app's request handler `routed`, with a GET of a precomputed request target answered before any routing,
    and a POST to /mcp handed to its handler.

    The answer is the one the target's route gives (the same lookup of the same target, the same response), so
    only its cost changes: no resource matching, match info or path parameters. Whatever else happens (another
    method, an Expect header, a target the release does not hold, any failure) goes the routed way.
    """
    watch, mcp = app[WATCH], app[MCP]

    async def handle(request: web.BaseRequest) -> web.StreamResponse:
        if request.method == "POST" and request.path == MCP_PATH and "Expect" not in request.headers:
            return await mcp.handle(request)  # its one route: nothing to match
        release = watch.serving.release
        if release is not None and request.method == "GET" and "Expect" not in request.headers:
            route = release.answers.route(request.path_qs)
            if route is not None:
                try:
                    return _precomputed(request, release.answers, route)
                except Exception:  # answered again by its route, which names its operation in the envelope
                    pass
        return await routed(request)

    return handle


def _preflight(request: web.Request, headers: dict[str, str] = PREFLIGHT_HEADERS) -> web.Response | None:
    """A CORS preflight: the route's methods from any origin, no credentials (GET and HEAD off the routes)."""
    if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
        return web.Response(status=204, headers=headers)
    return None


def other_methods(capability: str, allowed: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    """Any other method on a known route: a preflight, else 405 with Allow."""

    preflight = POST_PREFLIGHT_HEADERS if allowed == "POST" else PREFLIGHT_HEADERS

    async def handle(request: web.Request) -> web.Response:
        response = _preflight(request, preflight) or error_response(
            capability, ApiError(405, ErrorCode.METHOD_NOT_ALLOWED, f"method {request.method} is not allowed here")
        )
        if response.status == 405:
            response.headers["Allow"] = allowed
        return response

    return handle


def docs_handler(path: str, body: bytes) -> Callable[[web.Request], Awaitable[web.Response]]:
    """A file of the browsable API reference (builder/export/apidocs.py), with a strong ETag and its 304."""
    etag = strong_etag(body)
    validators = {**BASE_HEADERS, "ETag": etag, "Cache-Control": GET_CACHE_CONTROL}
    headers = {**validators, "Content-Type": content_type(path)}

    async def handle(request: web.Request) -> web.Response:
        if none_match(request.headers.get("If-None-Match"), etag):
            return web.Response(status=304, headers=validators)
        return web.Response(body=body, headers=headers)

    return handle


async def not_found(request: web.Request) -> web.Response:
    return _preflight(request) or error_response(
        "router", ApiError(404, ErrorCode.ROUTE_NOT_FOUND, "no such route; see /api/v1/openapi.json")
    )


async def _watch_releases(app: web.Application, interval: float) -> AsyncIterator[None]:
    watch = app[WATCH]
    loop = asyncio.get_running_loop()

    async def poll() -> None:
        while True:
            await asyncio.sleep(interval)
            try:
                await loop.run_in_executor(None, watch.refresh)
            except Exception:  # the watcher must outlive any one bad check
                LOG.exception("release check failed")

    task = asyncio.create_task(poll())
    yield
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


def create_app(
    releases: Path,
    watch_interval: float | None = None,
    pace: Pace = Pace(),
    cache_bytes: int = CACHE_BYTES,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    mcp_origins: Origins = Origins(),
) -> web.Application:
    """The app over a releases directory, watched at `pace` (`watch_interval` sets its tick), giving a POST body
    `body_timeout` seconds to arrive, answering MCP at /mcp to `mcp_origins` besides its own; fails at start-up if
    the directory does not exist."""
    if not releases.is_dir():
        raise FileNotFoundError(f"releases directory {releases} does not exist; run `ras publish` first")
    app = web.Application(
        client_max_size=MAX_BODY_BYTES, handler_args={"max_line_size": MAX_LINE_BYTES, "max_field_size": MAX_LINE_BYTES}
    )
    pace = pace if watch_interval is None else dataclasses.replace(pace, tick=watch_interval)
    watch = app[WATCH] = ReleaseWatch(releases, pace, cache_bytes)
    app[BODY_TIMEOUT] = body_timeout
    watch.refresh()
    live = app[LIVE] = LiveCache()
    posts = app[POSTS] = PostCache()
    # Errors are envelopes without a middleware: each route answers its own, a "*" route on every path
    # answers other methods (405, or a CORS preflight), and a last catch-all answers unknown paths (404).
    for operation in OPERATIONS:
        if operation.method == "GET":
            app.router.add_get(operation.route, get_handler(operation, watch, live), name=operation.id)
            allowed = "GET, HEAD"
        else:
            app.router.add_post(operation.route, post_handler(operation, posts), name=operation.id)
            allowed = "POST"
        app.router.add_route("*", operation.route, other_methods(operation.id, allowed), name=operation.id)
    mcp = app[MCP] = LazyEndpoint(watch, live, mcp_origins, body_timeout)
    app.router.add_route("*", MCP_PATH, mcp.handle, name="mcp")
    for path, body in api_docs_files().items():  # /docs is the page; /docs/<name> its assets
        app.router.add_get("/docs" if path == PAGE else f"/{path}", docs_handler(path, body))
    app.router.add_route("*", r"/{tail:[\s\S]*}", not_found)  # [\s\S]: a decoded %0A is a path too
    app.cleanup_ctx.append(lambda a: _watch_releases(a, pace.tick))
    return app
