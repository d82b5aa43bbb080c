"""One data-set zip from the network onto disk: resumable, checked, kept whole or not at all.

The bytes land in `.<name>.partial` beside the zips, with `.<name>.partial.json` (the URL and the validator the
server gave: its strong ETag, else Last-Modified) so that an attempt cut short, or a later run after a kill, asks only for the rest (RFC 9110 §14.2
Range, §13.1.5 If-Range: a file changed since gives the whole of it again). Once every byte is there the zip is
checked (size, central directory, every member's CRC, the seven tables), fsynced and renamed to its name; a zip
that fails a check is deleted, never kept, and one that was resumed is asked for once more from its first byte.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import aiohttp
import orjson

from builder.fetch.archive import write_atomically
from builder.fetch.client import Client, FetchError, Reply, RetryableError
from builder.fetch.datasets.check import NotASet, check_set
from builder.fetch.datasets.page import DataSet
from builder.fetch.datasets.progress import Meter, Progress

PARTIAL = ".partial"  # `.<name>.partial`: a dot-file, which neither the reader nor a re-run takes for a set
STATE = ".partial.json"
CHUNK = 1 << 20  # bytes read and written at a time: a set is ~95 MB and is never held in memory
ZIP_MAGIC = b"PK\x03\x04"  # a zip starts with a local file header (PKWARE APPNOTE 4.3.7)
_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


@dataclass(frozen=True, slots=True)
class Landed:
    """A set kept under its name: its size, sha256, and where this run began it (0: from its first byte)."""

    size: int
    sha256: str
    resumed_at: int


class Partial:
    """The bytes of one set so far, and what a resumed request must name."""

    def __init__(self, folder: Path, found: DataSet) -> None:
        self.found = found
        self.path = folder / f".{found.name}{PARTIAL}"
        self.state = folder / f".{found.name}{STATE}"

    def held(self) -> int:
        """Bytes on disk from an earlier attempt or run (a re-upload has a name of its own: `_N`)."""
        return self.path.stat().st_size if self.path.is_file() else 0

    def headers(self) -> dict[str, str]:
        """The next attempt's request headers: the rest of the file, if it is still the same file."""
        headers = {"Accept-Encoding": "identity"}  # byte offsets are of the zip itself, never of a compressed body
        held = self.held()
        if held:
            headers["Range"] = f"bytes={held}-"
            validator = self._state().get("validator")
            if validator:
                headers["If-Range"] = validator
        return headers

    def begin(self, response: aiohttp.ClientResponse) -> BinaryIO:
        """The file to write a 200 answer's body into, from its first byte."""
        etag = response.headers.get("ETag", "")
        validator = etag if etag and not etag.startswith("W/") else response.headers.get("Last-Modified", "")
        state = {"url": self.found.url, "validator": validator}
        write_atomically(self.path.parent, self.state.name, orjson.dumps(state))
        return open(self.path, "wb")

    def drop(self) -> None:
        self.path.unlink(missing_ok=True)
        self.state.unlink(missing_ok=True)

    def _state(self) -> dict[str, str]:
        try:
            state = orjson.loads(self.state.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}
        return {str(key): str(value) for key, value in state.items()} if isinstance(state, dict) else {}


async def land_set(client: Client, found: DataSet, folder: Path, progress: Progress) -> Landed:
    """Fetch `found` into folder/<name>, resuming a partial download; FetchError naming it when it is refused."""
    partial = Partial(folder, found)
    resumed_at = partial.held()
    if resumed_at:
        progress(f"  {found.name}  resuming at {resumed_at:,} bytes")
    await _receive_all(client, partial, progress)
    try:
        await asyncio.to_thread(_check, partial)
    except NotASet as exc:
        partial.drop()
        if not resumed_at:
            raise FetchError(f"{folder.name}/{found.name}: {exc}; nothing kept — run ras fetch again") from exc
        progress(f"  {found.name}  failed its check after resuming ({exc}); asking for it whole")
        return await land_set(client, found, folder, progress)
    return Landed(*await asyncio.to_thread(_seal, partial, folder / found.name), resumed_at)


async def _receive_all(client: Client, partial: Partial, progress: Progress) -> None:
    found = partial.found
    try:
        reply = await client.get_streamed(found.url, lambda r: _receive(r, partial, progress), partial.headers)
    except FetchError as exc:
        raise FetchError(f"{partial.path.parent.name}/{found.name}: {exc.message}") from exc
    if reply.status not in (200, 206):  # www.sec.gov answers a missing file with 403 AccessDenied, not 404
        raise FetchError(f"{partial.path.parent.name}/{found.name}: HTTP {reply.status} for {found.url}")


async def _receive(response: aiohttp.ClientResponse, partial: Partial, progress: Progress) -> Reply:
    """One attempt: append what a 206 sends to the partial, or write a 200's body from the start."""
    if response.status == 416:  # the partial is not a prefix of what the server holds now
        partial.drop()
        raise RetryableError("the server has no bytes past the partial download; asking again from the start")
    if response.status not in (200, 206):
        return Reply(response.status, dict(response.headers), await response.read())
    offset, total = _extent(response, partial)
    head = b"" if offset else await _zip_head(response)
    stated = partial.found.stated
    if total is not None and stated is not None and not stated.admits(total):
        partial.drop()
        raise FetchError(f"the answer holds {total:,} bytes, not the {stated.text} the SEC's page states")
    meter = Meter(partial.found.name, total, offset, progress)
    with partial.begin(response) if not offset else open(partial.path, "ab") as handle:
        handle.write(head)
        size = offset + len(head)
        async for chunk in response.content.iter_chunked(CHUNK):
            handle.write(chunk)
            size += len(chunk)
            meter.update(size)
            if stated is not None and size > stated.most:
                partial.drop()
                raise FetchError(f"more than the {stated.text} the SEC's page states arrived")
    if total is not None and size < total:
        raise RetryableError(f"{size:,} of {total:,} bytes arrived")  # the partial stays: the next attempt resumes
    return Reply(response.status, dict(response.headers), b"")


def _extent(response: aiohttp.ClientResponse, partial: Partial) -> tuple[int, int | None]:
    """Where the body starts in the file and the file's whole size (None when the server does not say)."""
    if response.status == 200:
        return 0, response.content_length
    found = _RANGE.fullmatch(response.headers.get("Content-Range", "").strip())
    held = partial.held()
    if found is None or int(found[1]) != held:
        partial.drop()
        raise RetryableError(f"asked for the bytes from {held:,}, given {response.headers.get('Content-Range')!r}")
    return held, None if found[3] == "*" else int(found[3])


async def _zip_head(response: aiohttp.ClientResponse) -> bytes:
    """The body's first bytes, RetryableError unless they open a zip (an error page served as 200 is not a set)."""
    try:
        head = await response.content.readexactly(len(ZIP_MAGIC))
    except asyncio.IncompleteReadError as exc:
        head = exc.partial
    if head != ZIP_MAGIC:
        start = (head + await response.content.read(56)).decode("utf-8", "replace").strip()
        raise RetryableError(f"the answer is not a zip archive (it starts {start!r})")
    return head


def _check(partial: Partial) -> None:
    with open(partial.path, "rb") as handle:
        os.fsync(handle.fileno())
    check_set(partial.path)


def _seal(partial: Partial, path: Path) -> tuple[int, str]:
    """Rename the checked partial to its name (the folder fsynced after), and its size and sha256."""
    digest, size = hashlib.sha256(), 0
    with open(partial.path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    os.replace(partial.path, path)
    partial.state.unlink(missing_ok=True)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return size, digest.hexdigest()
