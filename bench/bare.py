"""A bare aiohttp server, the reference for `ras serve`: one answer from memory, with nothing else around it.

Usage: `python -m bench.bare --port N --body FILE [--etag '"…"'] [--header 'Name: value' …] [--keep Name …]`.
Every GET or HEAD gets the body (200) or, when If-None-Match equals --etag exactly, a bodiless 304 with the
--keep headers; every POST gets the body. Run the same way `ras serve` runs (web.run_app, no access log), so a ratio between them
is the cost of what `ras serve` does beyond handing over bytes: routing, lookups, checks, envelopes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from aiohttp import web

NOT_MODIFIED_HEADERS = ("ETag", "Cache-Control", "Vary", "X-Service-API-Version")  # what a 304 keeps
# Headers aiohttp writes itself, and the ETag, which --etag gives: never copied with --header.
TRANSPORT = frozenset({"date", "server", "content-length", "etag", "connection", "keep-alive", "transfer-encoding"})


def command(port: int, body: Path, headers: Mapping[str, str], keep: Iterable[str] = ()) -> list[str]:
    """This server's command line answering the bytes of `body` with an answer's `headers` (lower-case names; its
    ETag, when it has one, by --etag) and, for a 304, keeping the `keep` headers (default: NOT_MODIFIED_HEADERS)."""
    etag = ["--etag", headers["etag"]] if "etag" in headers else []
    copied = [
        arg for name, value in headers.items() if name not in TRANSPORT for arg in ("--header", f"{name}: {value}")
    ]
    kept = [arg for name in keep for arg in ("--keep", name)]
    return [sys.executable, "-m", "bench.bare", "--port", str(port), "--body", str(body), *etag, *copied, *kept]


def create_app(
    body: bytes, etag: str | None, headers: dict[str, str], keep: tuple[str, ...] = NOT_MODIFIED_HEADERS
) -> web.Application:
    """The app: `body` with `headers` to everything, a 304 keeping the `keep` headers to a GET whose
    If-None-Match is `etag`."""
    answered = {**headers, **({"ETag": etag} if etag else {})}
    wanted = {name.lower() for name in keep}
    kept = {name: value for name, value in answered.items() if name.lower() in wanted}

    async def answer(request: web.Request) -> web.Response:
        if etag and request.method in ("GET", "HEAD") and request.headers.get("If-None-Match") == etag:
            return web.Response(status=304, headers=kept)
        return web.Response(body=body, headers=answered)

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", answer)
    return app


def header(text: str) -> tuple[str, str]:
    name, _, value = text.partition(":")
    if not value:
        raise argparse.ArgumentTypeError(f"a header is 'Name: value', not {text!r}")
    return name.strip(), value.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--body", type=Path, required=True, help="the bytes every answer carries")
    parser.add_argument("--etag", default=None, help="the ETag of GET answers, quotes included")
    parser.add_argument("--header", type=header, action="append", default=[], help="another answer header")
    parser.add_argument(
        "--keep",
        action="append",
        default=None,
        help=f"a header a 304 keeps (repeat; default {', '.join(NOT_MODIFIED_HEADERS)})",
    )
    args = parser.parse_args(argv)
    keep = tuple(args.keep) if args.keep else NOT_MODIFIED_HEADERS
    app = create_app(args.body.read_bytes(), args.etag, dict(args.header), keep)
    web.run_app(app, host=args.host, port=args.port, access_log=None, print=lambda *_: None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
