"""A polite HTTP client: one pace for every request, retries with backoff, Retry-After, a total deadline."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import aiohttp

from builder.errors import PublishError

# SEC fair access: "no more than 10 requests per second" (sec.gov/os/accessing-edgar-data).
SEC_MAX_RATE = 10.0
REQUEST_TIMEOUT = 30.0  # seconds for one response, body included; a stalled transfer is retried
MAX_ATTEMPTS = 5  # one try and four retries: enough to ride out a short 503 maintenance window
BACKOFF_BASE = 0.5  # seconds; doubled on every retry (0.5, 1, 2, 4)
# Requests are spaced 5% wider than the rate asks: the server sees arrival times, and the network's jitter
# between two requests ten apart must not push an eleventh into its one-second window.
PACE_MARGIN = 1.05
MAX_RETRY_AFTER = 120.0  # seconds; OpenFIGI's 429 asks for 60; a longer wait is an outage, not a limit
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class FetchError(PublishError):
    """A fetch that cannot go on (no User-Agent, an unknown CIK, the deadline); one `Error: …` line."""


class RetryableError(Exception):
    """A response that may succeed when asked again (a bad body that passed the status check)."""


@dataclass(frozen=True, slots=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    body: bytes


Read = Callable[[aiohttp.ClientResponse], Awaitable[Reply]]  # how an answer's body is taken


async def read_whole(response: aiohttp.ClientResponse) -> Reply:
    """The answer with its whole body in memory (listings, filings: small)."""
    return Reply(response.status, dict(response.headers), await response.read())


class Pacer:
    """At most `rate` request starts per second, over every request of the client (one shared clock)."""

    def __init__(self, rate: float) -> None:
        self.interval = PACE_MARGIN / rate
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            delay = self._next - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            # from the moment this request really starts: a late wake-up must not shorten the next gap
            self._next = max(time.monotonic(), self._next) + self.interval

    def hold(self, seconds: float) -> None:
        """Start nothing for `seconds` (a Retry-After applies to every request, not just the one refused)."""
        self._next = max(self._next, time.monotonic() + seconds)


class Client:
    """Requests through one aiohttp session, paced, retried, within `deadline` seconds in total."""

    def __init__(
        self, session: aiohttp.ClientSession, rate: float, deadline: float, timeout: float = REQUEST_TIMEOUT
    ) -> None:
        self.session = session
        self.timeout = timeout
        self.pacer = Pacer(rate)
        self.ends = time.monotonic() + deadline
        self.requests = 0
        self.retries = 0

    async def get(
        self, url: str, check: Callable[[Reply], None] | None = None, headers: Mapping[str, str] | None = None
    ) -> Reply:
        """GET `url` until a final answer; `check` may raise RetryableError to ask again."""
        return await self._send(lambda: self.session.get(url, headers=headers, timeout=self._timeout()), url, check)

    async def get_streamed(self, url: str, read: Read, headers: Callable[[], Mapping[str, str]] = dict) -> Reply:
        """GET `url`, `read` taking the body as it arrives (a large download never held in memory); retried like
        `get`, `read` raising RetryableError included, each attempt with the `headers` it gives then (a Range that
        resumes where the last attempt stopped). Here `timeout` bounds a stall, not the whole transfer."""
        return await self._send(
            lambda: self.session.get(
                url, headers=headers(), timeout=aiohttp.ClientTimeout(total=self._remaining(), sock_read=self.timeout)
            ),
            url,
            None,
            read,
        )

    async def post_json(self, url: str, body: bytes, headers: Mapping[str, str]) -> Reply:
        sent = {"Content-Type": "application/json", **headers}
        return await self._send(
            lambda: self.session.post(url, data=body, headers=sent, timeout=self._timeout()), url, None
        )

    async def _send(
        self, request: Callable[[], Any], url: str, check: Callable[[Reply], None] | None, read: Read = read_whole
    ) -> Reply:
        reason = ""
        for attempt in range(MAX_ATTEMPTS):
            if attempt:
                self.retries += 1
            await self._wait_for_turn(url, reason)
            try:
                reply = await self._once(request, read)
            except (TimeoutError, aiohttp.ClientError, RetryableError) as exc:
                reason = _describe(exc)
                self.pacer.hold(BACKOFF_BASE * 2**attempt)
                continue
            if reply.status in RETRY_STATUSES:
                reason = f"HTTP {reply.status}"
                self.pacer.hold(retry_after_seconds(reply.headers) or BACKOFF_BASE * 2**attempt)
                continue
            if check is not None and reply.status == 200:
                try:
                    check(reply)
                except RetryableError as exc:
                    reason = str(exc)
                    self.pacer.hold(BACKOFF_BASE * 2**attempt)
                    continue
            return reply
        raise FetchError(f"{url}: gave up after {MAX_ATTEMPTS} attempts ({reason})")

    async def _wait_for_turn(self, url: str, reason: str) -> None:
        await self.pacer.wait()
        if time.monotonic() > self.ends:
            raise FetchError(f"{url}: the fetch ran out of its time limit{f' ({reason})' if reason else ''}")
        self.requests += 1

    async def _once(self, request: Callable[[], Any], read: Read) -> Reply:  # an aiohttp request: awaitable, a context
        async with request() as response:
            return await read(response)

    def _timeout(self) -> aiohttp.ClientTimeout:
        return aiohttp.ClientTimeout(total=min(self.timeout, self._remaining()))

    def _remaining(self) -> float:
        return max(0.1, self.ends - time.monotonic())


def open_session(user_agent: str) -> aiohttp.ClientSession:
    """One session for the whole run: kept-alive connections, the declared User-Agent on every request."""
    return aiohttp.ClientSession(headers={"User-Agent": user_agent}, connector=aiohttp.TCPConnector(limit=4))


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """Seconds from a Retry-After header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3)."""
    value = next((v for k, v in headers.items() if k.lower() == "retry-after"), None)
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return min(float(value), MAX_RETRY_AFTER)
    try:
        return min(max(0.0, parsedate_to_datetime(value).timestamp() - time.time()), MAX_RETRY_AFTER)
    except (TypeError, ValueError):
        return None


def _describe(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return "no complete answer in time"
    if isinstance(exc, RetryableError):
        return str(exc)
    if isinstance(exc, aiohttp.ClientPayloadError):
        return "the body was cut short"
    return f"{type(exc).__name__}: {exc}"
