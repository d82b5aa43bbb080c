"""A stand-in web service for tests: an aiohttp app on a free loopback port, in a thread of its own.

The thread has its own event loop, so the code under test may run `asyncio.run` in the test's thread
(click's CliRunner) or be a child process (`ras fetch` killed with SIGKILL) and reach it the same way.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from aiohttp import web

from tests.servers import free_port


@dataclass(frozen=True, slots=True)
class Seen:
    """One request as the stand-in received it."""

    at: float  # time.monotonic() when it arrived
    method: str
    path: str
    user_agent: str
    status: int
    range: str = ""  # the Range header asked, if any


class RequestLog:
    """Every request a stand-in answered, for the rate and User-Agent checks."""

    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self._lock = threading.Lock()

    def add(self, seen: Seen) -> None:
        with self._lock:
            self.seen.append(seen)

    def most_in_one_second(self) -> int:
        """The largest number of requests that arrived within any one-second span."""
        times = sorted(s.at for s in self.seen)
        most, first = 0, 0
        for last, at in enumerate(times):
            while at - times[first] >= 1.0:
                first += 1
            most = max(most, last - first + 1)
        return most

    def median_gap(self) -> float:
        """The median time between two consecutive arrivals: the pace of the requests, which one arrival recorded late
        (this stand-in runs in a thread of a test process that a loaded machine may not schedule for a while) does
        not move, where it can bring two arrivals within one second of each other."""
        times = sorted(s.at for s in self.seen)
        return statistics.median(later - earlier for earlier, later in itertools.pairwise(times))

    def paths(self) -> list[str]:
        return [s.path for s in self.seen]


def logging_middleware(log: RequestLog):
    @web.middleware
    async def record(request: web.Request, handler):
        arrived = time.monotonic()
        response = await handler(request)
        agent, asked = request.headers.get("User-Agent", ""), request.headers.get("Range", "")
        log.add(Seen(arrived, request.method, request.path, agent, response.status, asked))
        return response

    return record


async def cut_short(request: web.Request, body: bytes, content_type: str) -> web.StreamResponse:
    """Promise the whole body in Content-Length, send half, drop the connection (a transfer cut mid-way)."""
    response = web.StreamResponse(headers={"Content-Type": content_type})
    response.content_length = len(body)
    await response.prepare(request)
    await response.write(body[: len(body) // 2])
    request.transport.close()
    return response


@contextmanager
def serving(app: web.Application) -> Iterator[str]:
    """Serve `app` on 127.0.0.1 in a background thread; yields its base URL."""
    port = free_port()
    loop = asyncio.new_event_loop()
    runner = web.AppRunner(app, handle_signals=False)
    started = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", port).start())
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(10), "the stand-in did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()
