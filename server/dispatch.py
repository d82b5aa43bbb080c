"""Answer an operation from the served release: precomputed bytes first, else the handler, cached.

Shared by the aiohttp routes and the MCP tools, so both give the same bytes for the same request.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import Any

from builder.api.contract import Operation
from builder.api.params import resolve, resolve_body
from builder.api.render import Rendered, render
from builder.api.wire import ApiError, ErrorCode, Params, failure
from builder.canonical import canonical_json, strong_etag
from builder.recent import Recent
from builder.release.objects import Answer, ReleaseDamaged
from builder.release.store import LoadedRelease
from server.watch import DAMAGED, Serving

LIVE_CACHE_SIZE = 2048  # live GET answers kept (manager subsets × modes × routes); each is at most a few hundred kB
# Recent POST answers kept by raw body. At 500 managers an all-ethos comparison of every manager is ~1 MB and a
# subset's tens of kB: 64 MiB keeps hundreds of recent questions per worker without growing with the release.
POST_CACHE_BYTES = 64 * 1024 * 1024


def computed(operation: Operation, release: LoadedRelease, params: Params) -> Rendered:
    """An answer the release does not hold, rendered; then what the computation memoised (subset views, scores,
    policy facts: hundreds of them, each thousands of objects at 500 managers) joins the frozen release data.

    The collector's full passes scan only unfrozen objects: left unfrozen, the memo made each pass longer as it
    filled (a never-asked policy check every ~2 s took 140 to 350 ms instead of 8 at 500 managers). The young
    generations are collected first, so no cyclic garbage is frozen; an evicted memo value is freed by its count.
    """
    rendered = render(operation, release.data, params)
    gc.collect(1)
    gc.freeze()
    return rendered


class LiveCache:
    """A bounded LRU of rendered answers, keyed by release and canonical request."""

    def __init__(self, size: int = LIVE_CACHE_SIZE) -> None:
        self._answers: Recent[tuple[str, str], Answer] = Recent(size)

    def get_or_render(self, release: LoadedRelease, operation: Operation, params: Params) -> Answer:
        key = (release.release_id, operation.request_key(params))
        answer = self._answers.get(key)
        if answer is None:
            rendered = computed(operation, release, params)
            answer = Answer(rendered.status, rendered.body, strong_etag(rendered.body))
            self._answers.put(key, answer)
        return answer


class PostCache:
    """Recent 200 answers to POSTs by (release, operation, raw body bytes), bounded by the bytes they hold.

    The same bytes asked again skip JSON parsing, validation and rendering. The release id is part of the key,
    so a promotion never serves an answer of the release before; a body of other spelling is simply a miss.
    """

    def __init__(self, limit: int = POST_CACHE_BYTES) -> None:
        # one answer never evicts most others: an eighth of the bound at most
        self._answers: Recent[tuple[str, str, bytes], bytes] = Recent(budget=limit, weight=_held, largest=limit // 8)

    @property
    def held(self) -> int:
        """The bytes kept: raw bodies and answers."""
        return self._answers.held

    def get(self, release_id: str, operation_id: str, raw: bytes) -> bytes | None:
        return self._answers.get((release_id, operation_id, raw))

    def put(self, release_id: str, operation_id: str, raw: bytes, body: bytes) -> None:
        self._answers.put((release_id, operation_id, raw), body)


def _held(key: tuple[str, str, bytes], body: bytes) -> int:
    """What a POST answer holds: the raw body it answers and its own bytes."""
    return len(key[2]) + len(body)


def unavailable(serving: Serving) -> ApiError:
    return ApiError(503, ErrorCode.RELEASE_UNAVAILABLE, f"no consumable artifact release: {serving.problem}")


def error_answer(capability: str, error: ApiError) -> Answer:
    body = canonical_json(failure(capability, error))
    return Answer(error.status, body, strong_etag(body))


def answer_get(
    serving: Serving, cache: LiveCache, operation: Operation, path: dict[str, str], query: Sequence[tuple[str, str]]
) -> Answer:
    """The answer to a GET: the precomputed one for its canonical request, else rendered live."""
    release = serving.release
    if release is None:
        return error_answer(operation.id, unavailable(serving))
    try:
        params = resolve(operation, release.data, path, query)
        answer = release.answers.get(operation.request_key(params))
        return answer if answer is not None else cache.get_or_render(release, operation, params)
    except ApiError as error:
        return error_answer(operation.id, error)
    except ReleaseDamaged:  # the watcher drops the release at its next tick (reader.problem is set)
        return error_answer(operation.id, unavailable(Serving(None, DAMAGED)))


def answer_post(serving: Serving, operation: Operation, body: Any) -> Answer:
    """The answer to a POST recalculation: precomputed by the release for its canonical request, else computed."""
    release = serving.release
    if release is None:
        return error_answer(operation.id, unavailable(serving))
    try:
        params = resolve_body(operation, release.data, body)
        precomputed = release.answers.get(operation.request_key(params))
        if precomputed is not None:
            return Answer(precomputed.status, precomputed.body, "")
        rendered = computed(operation, release, params)
    except ApiError as error:
        return error_answer(operation.id, error)
    except ReleaseDamaged:
        return error_answer(operation.id, unavailable(Serving(None, DAMAGED)))
    return Answer(rendered.status, rendered.body, "")
