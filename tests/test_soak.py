"""Soak: a bounded mixed GET/POST load on loopback; no errors and flat memory (RSS reported)."""

from __future__ import annotations

import asyncio
import itertools
import time
from pathlib import Path

import aiohttp
import pytest

from tests.servers import running_server

SOAK_SECONDS = 150  # "a few minutes", bounded: the slow suite must stay well inside CI's budget
WARMUP_SECONDS = 15  # live caches and memos fill first; memory is compared from then on
CLIENTS = 16
# A steady load, not the most the machine can answer (that is bench.get's): unpaced, the 16 clients and the server
# took both cores for the whole 150 s (144,318 requests), and every test beside the soak waited for them.
RATE = 250  # requests a second, all clients together: 37,500 in all
RSS_GROWTH_KIB = 24 * 1024  # flat: allocator noise only, well under one cached answer per request


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def requests(managers: list[str], versions: list[str]):
    """An endless, varied mix: precomputed GETs, live manager subsets, 304s, errors, and both POSTs."""
    subsets = [",".join(pair) for pair in itertools.combinations(managers, 2)]
    base = "/api/v1/packs/13f-copycat"
    mix = [
        ("GET", "/api/v1/health", None),
        ("GET", f"{base}/latest?mode=overlap", None),
        ("GET", f"{base}/versions/diff?from={versions[0]}&to={versions[-1]}", None),
        ("GET", "/api/v1/packs/nope/latest", None),
        ("POST", "/api/v1/policy/validate", {"mode": "disagreement"}),
        ("POST", "/api/v1/ethos/compare", {"ethosIds": ["breadth", "conviction"]}),
    ]
    for index in itertools.count():
        yield mix[index % len(mix)]
        yield "GET", f"{base}/latest?managers={subsets[index % len(subsets)]}", None


@pytest.mark.slow
def test_a_mixed_load_for_minutes_has_no_errors_and_flat_memory(published: Path, release):
    managers = sorted(m["id"] for m in release.data.index["copycat"]["managers"])
    with running_server(published) as (base, process):
        figures = asyncio.run(_soak(base, process.pid, requests(managers, release.data.versions)))
    print(f"\nsoak: {figures}")
    assert figures["errors"] == 0 and figures["requests"] > 1000
    assert figures["rss_end_kib"] - figures["rss_warm_kib"] < RSS_GROWTH_KIB


async def _soak(base: str, pid: int, mix) -> dict:
    counts = {"requests": 0, "errors": 0}
    rss = {"rss_start_kib": rss_kib(pid)}
    started = time.monotonic()
    deadline = started + SOAK_SECONDS
    warm_at = started + WARMUP_SECONDS

    async def client(session: aiohttp.ClientSession, index: int) -> None:
        for sent in itertools.count():
            due = started + (sent * CLIENTS + index) / RATE  # the clients take turns: one request every 1/RATE s
            if due >= deadline:
                return
            await asyncio.sleep(due - time.monotonic())  # none when the server is behind: then back to back
            method, path, body = next(mix)
            async with session.request(method, base + path, json=body) as response:
                await response.read()
                counts["requests"] += 1
                counts["errors"] += response.status >= 500 or (response.status >= 400 and "nope" not in path)
            if "rss_warm_kib" not in rss and time.monotonic() > warm_at:
                rss["rss_warm_kib"] = rss_kib(pid)

    async with aiohttp.ClientSession() as session:
        await asyncio.gather(*(client(session, index) for index in range(CLIENTS)))
    return {**counts, **rss, "rss_end_kib": rss_kib(pid)}
