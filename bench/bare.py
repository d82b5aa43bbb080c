"""The reference GET server: one bare aiohttp handler returning fixed bytes from memory with `ras serve`'s headers.

Usage: `python -m bench.bare --port P --body FILE --etag ETAG [--target PATH]`. No release, no watcher, no
routing table beyond the one path, no conditional-request logic beyond an exact If-None-Match: the least an
aiohttp process can do to answer that GET, so `ras serve` is measured against aiohttp itself.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from aiohttp import web

from bench.processes import HOST
from builder.api.wire import COMMON_HEADERS, GET_CACHE_CONTROL, GET_VARY, JSON_TYPE


def create_app(target: str, body: bytes, etag: str) -> web.Application:
    headers = {**COMMON_HEADERS, "Server": "bare", "ETag": etag, "Cache-Control": GET_CACHE_CONTROL, "Vary": GET_VARY,
               "Content-Type": JSON_TYPE}  # the header set `ras serve` sends with a 200 (server/app.py)

    async def answer(request: web.Request) -> web.Response:
        if request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers={k: v for k, v in headers.items() if k != "Content-Type"})
        return web.Response(body=body, headers=headers)

    app = web.Application()
    app.router.add_get(target, answer)
    app.router.add_get("/api/v1/health", answer)  # what bench.processes.wait_listening polls
    return app


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--body", type=Path, required=True)
    parser.add_argument("--etag", required=True)
    parser.add_argument("--target", default="/api/v1/packs/13f-copycat/latest")
    args = parser.parse_args(argv)
    app = create_app(args.target, args.body.read_bytes(), args.etag)
    web.run_app(app, host=HOST, port=args.port, access_log=None, print=lambda *_: None)


if __name__ == "__main__":
    main()
