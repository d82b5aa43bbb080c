"""ras serve's GET path in process: CPU per answer against bench.bare, with no socket and no load generator.

Usage: `python -m bench.handler [--releases DIR] [--connections 256] [--rounds 40] [--repeat 7]`.
Each server's aiohttp protocol objects (ras serve's runner, or aiohttp's own for bench.bare) get fake transports
that keep nothing; every round hands each of the connections one whole GET of `latest` (200, then 304 to its
ETag) and runs the loop until all are answered. Process CPU over the rounds ÷ answers, the two servers in turn,
minimum and median of the repeats. Parsing, routing, the handler and writing the response are all in it; the
kernel's share of a real connection is not, so the ratio is of the Python work alone: steadier than wrk's req/s
on a shared machine, though a busy box still slows both (compare ratios).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import shutil
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from aiohttp import web

from bench import bare
from bench.get import LATEST, WORK
from bench.processes import measure, ras
from server.app import create_app
from server.runner import Guard, GuardedRunner

PEER = {"peername": ("127.0.0.1", 40000), "sockname": ("127.0.0.1", 8080)}


class Answers:
    """Where the fake transports write: counts responses (a write that starts a status line) until `want`."""

    def __init__(self) -> None:
        self.count = 0
        self.want = 0
        self.done: asyncio.Future[None] | None = None

    def wrote(self, data: bytes | bytearray | memoryview) -> None:
        if bytes(data[:9]) == b"HTTP/1.1 ":
            self.count += 1
            if self.count >= self.want and self.done is not None and not self.done.done():
                self.done.set_result(None)


class Transport(asyncio.Transport):
    """A connection's transport that hands what is written to `answers` and never pushes back."""

    def __init__(self, answers: Answers) -> None:
        super().__init__()
        self.answers = answers
        self.closing = False

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.answers.wrote(data)

    def writelines(self, chunks: object) -> None:
        first = next(iter(chunks), b"")  # type: ignore[call-overload]
        self.answers.wrote(first)

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def get_extra_info(self, name: str, default: object = None) -> object:
        return PEER.get(name, default)

    def get_write_buffer_size(self) -> int:
        return 0


async def cpu_per_answer(make: Callable[[], web.AppRunner], connections: int, rounds: int, request: bytes) -> float:
    """µs of process CPU per answer over `rounds` rounds of one request on each of `connections` connections."""
    runner = make()
    await runner.setup()
    if isinstance(runner, GuardedRunner):
        gc.freeze()  # as `ras serve` does once its app is made (server/runner.py)
    assert runner.server is not None
    answers = Answers()
    protocols = []
    for _ in range(connections):
        protocol = runner.server()
        protocol.connection_made(Transport(answers))
        protocols.append(protocol)
    loop = asyncio.get_running_loop()

    async def one_round() -> None:
        answers.want, answers.done = answers.count + connections, loop.create_future()
        for protocol in protocols:
            protocol.data_received(request)
        await answers.done

    for _ in range(10):
        await one_round()
    started = time.process_time()
    for _ in range(rounds):
        await one_round()
    cpu = time.process_time() - started
    for protocol in protocols:
        protocol.connection_lost(None)
    await runner.cleanup()
    return cpu / (rounds * connections) * 1e6


async def first_answer(make: Callable[[], web.AppRunner], request: bytes) -> tuple[str, dict[str, str], bytes]:
    """The status line, headers (lower-case names) and body of one answer, written out in full."""
    runner = make()
    await runner.setup()
    assert runner.server is not None
    written: list[bytes] = []
    transport = Transport(Answers())
    transport.write = lambda data: written.append(bytes(data))  # type: ignore[method-assign]
    transport.writelines = lambda chunks: written.extend(bytes(c) for c in chunks)  # type: ignore[method-assign,attr-defined]
    protocol = runner.server()
    protocol.connection_made(transport)
    protocol.data_received(request)
    while not written:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)  # the body follows the head
    protocol.connection_lost(None)
    await runner.cleanup()
    head, _, body = b"".join(written).partition(b"\r\n\r\n")
    status, *lines = head.decode().split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return status, headers, body


def get_request(etag: str | None = None) -> bytes:
    lines = [f"GET {LATEST} HTTP/1.1", "Host: 127.0.0.1:8080", *([f"If-None-Match: {etag}"] if etag else [])]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--releases", type=Path, default=None, help="a releases directory (default: publish the fixture)"
    )
    parser.add_argument("--connections", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=40, help="requests per connection in each measured run")
    parser.add_argument("--repeat", type=int, default=7, help="runs per server and status, in turn")
    args = parser.parse_args(argv)
    releases = args.releases
    if releases is None:
        releases = WORK / "releases-handler"
        shutil.rmtree(releases, ignore_errors=True)
        if measure(ras("publish", "--releases", str(releases))).returncode:
            raise SystemExit("publish failed")
    app: Callable[[], web.AppRunner] = lambda: GuardedRunner(create_app(releases), Guard())  # noqa: E731
    _, headers, body = asyncio.run(first_answer(app, get_request()))
    etag = headers["etag"]
    _, kept, _ = asyncio.run(first_answer(app, get_request(etag)))
    copied = {name: value for name, value in headers.items() if name not in bare.TRANSPORT}
    keep = tuple(name for name in kept if name not in bare.TRANSPORT - {"etag"})
    reference: Callable[[], web.AppRunner] = lambda: web.AppRunner(  # noqa: E731
        bare.create_app(body, etag, copied, keep), access_log=None
    )
    print(f"GET {LATEST}, {args.connections} connections × {args.rounds} rounds, {args.repeat} runs each")
    print("| status | ras serve µs CPU/answer min / median | bare | bare ÷ ras serve, min / median |")
    print("|---|---|---|---|")
    for status, request in ((304, get_request(etag)), (200, get_request())):
        found: dict[str, list[float]] = {"app": [], "bare": []}
        for _ in range(args.repeat):
            for name, make in (("app", app), ("bare", reference)):
                found[name].append(asyncio.run(cpu_per_answer(make, args.connections, args.rounds, request)))
        mine, theirs = found["app"], found["bare"]
        print(
            f"| {status} | {min(mine):.1f} / {statistics.median(mine):.1f} | {min(theirs):.1f} / "
            f"{statistics.median(theirs):.1f} | {min(theirs) / min(mine):.2f} / "
            f"{statistics.median(theirs) / statistics.median(mine):.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
