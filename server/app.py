"""The aiohttp app: GET answers are the promoted release's bytes; views not precomputed are rendered live."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from aiohttp import web

from builder.api import (
    API_VERSION, GET_CACHE_CONTROL, JSON_TYPE, POST_CACHE_CONTROL, ApiError, ErrorCode, canonical_json, failure,
    strong_etag,
)
from builder.contract import OPERATIONS, Operation, resolve
from builder.release import render
from builder.store import Answer
from server.conditional import none_match
from server.watch import WATCH_INTERVAL, ReleaseWatch, Serving

LOG = logging.getLogger("ras.server")
LIVE_CACHE_SIZE = 2048  # live views kept per release; each is one manager subset × mode × route
WATCH: web.AppKey[ReleaseWatch] = web.AppKey("watch", ReleaseWatch)
LIVE: web.AppKey[OrderedDict] = web.AppKey("live", OrderedDict)
BASE_HEADERS = {"X-Service-API-Version": API_VERSION, "X-Content-Type-Options": "nosniff", "Server": "ras"}


def _answer_response(request: web.Request, answer: Answer) -> web.Response:
    if answer.status != 200:
        return _bytes_response(answer.status, answer.body, POST_CACHE_CONTROL)
    headers = {**BASE_HEADERS, "ETag": answer.etag, "Cache-Control": GET_CACHE_CONTROL}
    if none_match(request.headers.get("If-None-Match"), answer.etag):
        return web.Response(status=304, headers=headers)
    return web.Response(body=answer.body, status=200, content_type=JSON_TYPE, headers=headers)


def _bytes_response(status: int, body: bytes, cache_control: str) -> web.Response:
    headers = {**BASE_HEADERS, "Cache-Control": cache_control}
    return web.Response(body=body, status=status, content_type=JSON_TYPE, headers=headers)


def error_response(capability: str, error: ApiError) -> web.Response:
    return _bytes_response(error.status, canonical_json(failure(capability, error)), POST_CACHE_CONTROL)


def _unavailable(serving: Serving) -> ApiError:
    return ApiError(503, ErrorCode.RELEASE_UNAVAILABLE, f"no consumable artifact release: {serving.problem}")


def _live_answer(app: web.Application, serving: Serving, operation: Operation, request: web.Request) -> Answer:
    release = serving.release
    assert release is not None
    params = resolve(operation, release.data, dict(request.match_info), list(request.query.items()))
    key = operation.request_key(params)
    answer = release.answers.get(key)
    if answer is not None:
        return answer
    cache = app[LIVE]
    cached = cache.get((release.release_id, key))
    if cached is None:
        rendered = render(operation, release.data, params)
        cached = Answer(rendered.status, rendered.body, strong_etag(rendered.body))
        cache[(release.release_id, key)] = cached
        if len(cache) > LIVE_CACHE_SIZE:
            cache.popitem(last=False)
    else:
        cache.move_to_end((release.release_id, key))
    return cached


def get_handler(operation: Operation) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        serving = request.app[WATCH].serving
        if serving.release is None:
            raise _unavailable(serving)
        answer = serving.release.answers.get(request.path_qs)  # the canonical form: no parsing needed
        if answer is None:
            answer = _live_answer(request.app, serving, operation, request)
        return _answer_response(request, answer)

    return handle


@web.middleware
async def envelope_errors(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """Every failure, the router's own 404/405/413 included, leaves as the error envelope."""
    capability = request.match_info.route.name or "router"
    try:
        return await handler(request)
    except ApiError as error:
        return error_response(capability, error)
    except web.HTTPNotFound:
        return error_response("router", ApiError(404, ErrorCode.ROUTE_NOT_FOUND, "no such route; see /api/v1/openapi.json"))
    except web.HTTPMethodNotAllowed as exc:
        response = error_response(capability, ApiError(405, ErrorCode.METHOD_NOT_ALLOWED, f"method {request.method} is not allowed here"))
        response.headers["Allow"] = ", ".join(sorted(exc.allowed_methods))
        return response
    except web.HTTPRequestEntityTooLarge:
        return error_response(capability, ApiError(413, ErrorCode.PAYLOAD_TOO_LARGE, "request body too large"))
    except web.HTTPException as exc:
        return error_response(capability, ApiError(exc.status, ErrorCode.INVALID_PARAMETER, exc.reason))
    except Exception:
        LOG.exception("unhandled error on %s %s", request.method, request.rel_url)
        return error_response(capability, ApiError(500, ErrorCode.INTERNAL_ERROR, "internal error"))


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


def create_app(releases: Path, watch_interval: float = WATCH_INTERVAL) -> web.Application:
    """The app over a releases directory; fails at start-up if the directory does not exist."""
    if not releases.is_dir():
        raise FileNotFoundError(f"releases directory {releases} does not exist; run `ras publish` first")
    app = web.Application(middlewares=[envelope_errors])
    app[WATCH] = ReleaseWatch(releases)
    app[WATCH].refresh()
    app[LIVE] = OrderedDict()
    for operation in OPERATIONS:
        if operation.method == "GET":
            app.router.add_get(operation.route, get_handler(operation), name=operation.id)
    app.cleanup_ctx.append(lambda a: _watch_releases(a, watch_interval))
    return app


def run(releases: Path, host: str, port: int) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    web.run_app(create_app(releases), host=host, port=port, access_log=None, print=lambda *_: None)
