"""A real headless Chromium driven over the Chrome DevTools Protocol (aiohttp's websocket client).

`open_page(target)` loads a local file or a URL and returns what a reader's browser saw: every network request it
made, every console error or uncaught exception, the value of a script evaluated in the page, and a PNG
screenshot. Missing Chromium fails the test under CI=true (.ci/run installs Debian's `chromium`) and skips
it locally with the reason.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import os
import re
import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp
import pytest

BINARIES = ("chromium", "chromium-browser", "google-chrome")
START_SECONDS = 30.0  # a cold Chromium start on a loaded 2-CPU machine


@dataclass
class PageVisit:
    requests: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    value: object = None
    screenshot: bytes = b""


def chromium() -> str:
    found = next((path for name in BINARIES if (path := shutil.which(name))), None)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing; .ci/run installs Debian's chromium package")
        pytest.skip("chromium is not installed here (apt-get install chromium); CI installs it")
    return found


async def open_page(target: Path | str, expression: str, profile: Path, ready: str | None = None) -> PageVisit:
    """Load file://`target` (a Path) or the URL `target` in a fresh headless Chromium; wait until the `ready`
    expression is true, if given; evaluate `expression`; take a screenshot."""
    process = subprocess.Popen(
        [
            chromium(),
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "--window-size=800,600",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = await asyncio.wait_for(asyncio.to_thread(_devtools_port, process), START_SECONDS)
        async with aiohttp.ClientSession() as session:
            async with session.get(f"http://127.0.0.1:{port}/json/list") as response:
                tab = next(t for t in await response.json() if t["type"] == "page")
            async with session.ws_connect(tab["webSocketDebuggerUrl"], max_msg_size=0) as socket:
                url = target.resolve().as_uri() if isinstance(target, Path) else target
                return await _visit(_Protocol(socket), url, expression, ready)
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stderr.close()


def _devtools_port(process: subprocess.Popen) -> int:
    for line in process.stderr:
        found = re.search(r"DevTools listening on ws://[^:]+:(\d+)/", line)
        if found:
            return int(found[1])
    raise RuntimeError("chromium exited before opening its DevTools port")


class _Protocol:
    """Commands with ids, answers matched to them, every event kept in arrival order."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket, self.ids, self.events = socket, itertools.count(1), []

    async def call(self, method: str, **params) -> dict:
        ident = next(self.ids)
        await self.socket.send_json({"id": ident, "method": method, "params": params})
        while True:
            message = await self.socket.receive_json(timeout=START_SECONDS)
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]
            self.events.append(message)

    async def wait_for(self, method: str) -> None:
        while not any(event.get("method") == method for event in self.events):
            self.events.append(await self.socket.receive_json(timeout=START_SECONDS))


async def _visit(protocol: _Protocol, url: str, expression: str, ready: str | None) -> PageVisit:
    for domain in ("Page", "Runtime", "Log", "Network"):
        await protocol.call(f"{domain}.enable")
    await protocol.call("Page.navigate", url=url)
    await protocol.wait_for("Page.loadEventFired")
    deadline = asyncio.get_running_loop().time() + START_SECONDS
    while ready and not (await protocol.call("Runtime.evaluate", expression=ready, returnByValue=True))["result"].get(
        "value"
    ):
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"the page never made {ready!r} true")
        await asyncio.sleep(0.1)
    evaluated = await protocol.call("Runtime.evaluate", expression=expression, returnByValue=True)
    shot = await protocol.call("Page.captureScreenshot", format="png")
    visit = PageVisit(value=evaluated["result"].get("value"), screenshot=base64.b64decode(shot["data"]))
    for event in protocol.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Network.requestWillBeSent":
            visit.requests.append(params["request"]["url"])
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            visit.errors.append(str(params["args"]))
        elif method == "Runtime.exceptionThrown":
            visit.errors.append(params["exceptionDetails"].get("text", "exception"))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            visit.errors.append(params["entry"]["text"])
    return visit


def png_colours(png: bytes) -> int:
    """How many distinct pixel colours an 8-bit RGB or RGBA PNG holds (PNG spec: IHDR, IDAT, filters 0-4)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, offset = {}, 8
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset : offset + 8])
        chunks.setdefault(kind, []).append(png[offset + 8 : offset + 8 + length])
        offset += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", chunks[b"IHDR"][0][:10])
    assert depth == 8 and colour in (2, 6), (depth, colour)
    size = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(b"".join(chunks[b"IDAT"])), width * size
    previous, seen = bytearray(stride), set()
    for row in range(height):
        start = row * (stride + 1)
        line = _unfilter(raw[start], bytearray(raw[start + 1 : start + 1 + stride]), previous, size)
        seen.update(bytes(line[i : i + size]) for i in range(0, stride, size))
        previous = line
    return len(seen)


def _unfilter(kind: int, line: bytearray, above: bytearray, size: int) -> bytearray:
    for i in range(len(line)):
        left = line[i - size] if i >= size else 0
        up, corner = above[i], above[i - size] if i >= size else 0
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            estimate = left + up - corner
            pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
            line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
    return line
