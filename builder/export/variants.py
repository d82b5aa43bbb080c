"""Precompressed variants of an answer: gzip always, brotli when the `brotli` package is importable."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

from builder.errors import PublishError

try:  # brotli is an optional extra: without it an export is gzip-only, and says so
    import brotli
except ImportError:  # pragma: no cover - depends on the environment
    brotli = None

GZIP_LEVEL = 9  # exports run once per publish; gzip's smallest output costs ~50 ms per MB
BROTLI_QUALITY = 10  # on the fixture's 5 MB of answers: 6% larger than quality 11 at under a third of its time
EXTENSIONS = {"gzip": ".gz", "br": ".br"}
BROTLI_MISSING = "brotli is not installed: writing gzip variants only (pip install brotli, then export again)"


def encodings() -> tuple[str, ...]:
    """The content codings this export writes, in nginx's order of preference."""
    return ("br", "gzip") if brotli is not None else ("gzip",)


def _compress(coding: str, body: bytes) -> bytes:
    if coding == "gzip":
        return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)  # mtime 0: same bytes on every export
    return brotli.compress(body, quality=BROTLI_QUALITY)


def decompresses_to(coding: str, data: bytes, body: bytes) -> bool:
    failures: tuple[type[Exception], ...] = (OSError, EOFError, zlib.error)
    try:
        if coding == "gzip":
            return gzip.decompress(data) == body
        return brotli.decompress(data) == body
    except failures + ((brotli.error,) if brotli is not None else ()):  # noqa: B030 (a tuple of exception classes)
        return False


def _read(previous: Path | None, name: str) -> bytes | None:
    if previous is None:
        return None
    try:
        return (previous / name).read_bytes()
    except OSError:
        return None


def compressed_variants(sha256: str, body: bytes, previous: Path | None) -> dict[str, bytes]:
    """Extension → compressed bytes, each checked to decompress to `body`; the previous tree's are reused."""
    variants = {}
    for coding in encodings():
        name = f"objects/{sha256}.json{EXTENSIONS[coding]}"
        data = _read(previous, name)  # objects are content-addressed: same name, same answer
        if data is None or not decompresses_to(coding, data, body):
            data = _compress(coding, body)
            if not decompresses_to(coding, data, body):
                raise PublishError(f"{name}: the {coding} variant does not decompress to the answer")
        variants[EXTENSIONS[coding]] = data
    return variants
