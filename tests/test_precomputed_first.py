"""`ras serve` answers a GET of a precomputed target before routing it: the very answer its route gives."""

from __future__ import annotations

from pathlib import Path

import aiohttp
from aiohttp import web

from builder.release.store import LoadedRelease
from server.app import create_app
from server.runner import Guard, GuardedRunner
from tests.servers import free_port

UNCOMPARED = {"Date"}  # the one header that changes from one answer to the next
MANY = ("/positions/", "/versions/diff")  # hundreds of targets each: three of each are compared


def _headers(response: aiohttp.ClientResponse) -> dict[str, str]:
    return {name: value for name, value in response.headers.items() if name not in UNCOMPARED}


async def _answer(response: aiohttp.ClientResponse) -> tuple[int, dict[str, str], bytes]:
    return response.status, _headers(response), await response.read()


async def test_every_precomputed_target_answers_as_its_route_does_200_and_304(
    aiohttp_client, published: Path, release: LoadedRelease
):
    routed = await aiohttp_client(create_app(published))  # aiohttp's own runner: every request is routed
    runner = GuardedRunner(create_app(published), Guard())  # what `ras serve` runs
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    gets = sorted(target for target in release.answers if target.startswith("/"))  # (POST keys name a body)
    targets = [t for t in gets if not any(kind in t for kind in MANY)] + [
        target for kind in MANY for target in [t for t in gets if kind in t][:3]
    ]
    statuses = set()
    try:
        async with aiohttp.ClientSession(f"http://127.0.0.1:{port}") as session:
            for target in targets:
                async with session.get(target) as response:
                    first = await _answer(response)
                expected = await _answer(await routed.get(target))
                assert first == expected, target
                statuses.add(first[0])
                etag = first[1].get("ETag")
                if etag is None:
                    continue
                for tags in (etag, f'"other", W/{etag}'):
                    async with session.get(target, headers={"If-None-Match": tags}) as response:
                        again = await _answer(response)
                    assert again == await _answer(await routed.get(target, headers={"If-None-Match": tags})), target
                    assert again[0] == 304 and again[2] == b"" and again[1]["ETag"] == etag
    finally:
        await runner.cleanup()
    assert statuses == {200} and len(targets) > 20
