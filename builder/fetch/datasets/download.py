"""`ras fetch --datasets`: the SEC's Form 13F data sets covering the window into sec13f-datasets/, one zip a set.

Each zip keeps the SEC's file name and lands whole or not at all (streamed to a temporary dot-file in the folder,
checked, fsynced, renamed). A record beside the zips (`.fetched.csv`: name, bytes, sha256, url) says which are
whole, so a re-run asks for none of them again; a `_N` re-upload replaces the set it re-uploads.
"""

from __future__ import annotations

import asyncio
import csv
import hashlib
import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import aiohttp

from builder.fetch.archive import atomic_file, remove_leftovers, write_atomically
from builder.fetch.client import Client, FetchError, Reply, RetryableError, open_session
from builder.fetch.datasets.page import PAGE_PATH, DataSet, covering, listed_sets
from builder.fetch.edgar import Hosts

FOLDER = "sec13f-datasets"
RECORD = ".fetched.csv"  # a dot-file: whatever reads the zips of the folder never takes it
RECORD_COLUMNS = ("name", "bytes", "sha256", "url")
CHUNK = 1 << 20  # bytes read and written at a time: a set is ~95 MB and is never held in memory
Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class SetsPlan:
    """What one `ras fetch --datasets` run fetches, from where, into which tree."""

    source: Path
    quarters: tuple[date, ...]
    hosts: Hosts
    user_agent: str
    rate: float
    deadline: float  # seconds for the whole run
    timeout: float  # seconds a transfer may stall


@dataclass(slots=True)
class SetsResult:
    chosen: list[DataSet] = field(default_factory=list)
    uncovered: list[date] = field(default_factory=list)  # quarters no listed set covers yet
    fetched: list[str] = field(default_factory=list)
    requests: int = 0


def fetch_sets(plan: SetsPlan, progress: Progress) -> SetsResult:
    """Read the data-set page, then fetch each covering set the folder does not hold whole."""
    return asyncio.run(_fetch_sets(plan, progress))


async def _fetch_sets(plan: SetsPlan, progress: Progress) -> SetsResult:
    folder = plan.source / FOLDER
    for name in remove_leftovers(folder):
        progress(f"removed {name}, left by an interrupted fetch")
    result = SetsResult()
    async with open_session(plan.user_agent) as session:
        client = Client(session, plan.rate, plan.deadline, plan.timeout)
        page_url = f"{plan.hosts.archive}{PAGE_PATH}"
        reply = await client.get(page_url)
        if reply.status != 200:
            raise FetchError(f"{page_url}: HTTP {reply.status}; the SEC's Form 13F data-set page is not there")
        sets = listed_sets(reply.body.decode("utf-8", "replace"), page_url, plan.hosts.archive)
        result.chosen, result.uncovered = covering(sets, plan.quarters)
        for found in result.chosen:
            if await _fetch_one(client, found, folder, progress):
                result.fetched.append(found.name)
        result.requests = client.requests
    return result


async def _fetch_one(client: Client, found: DataSet, folder: Path, progress: Progress) -> bool:
    """Fetch one set unless the folder holds it whole; True when it was fetched."""
    record = read_record(folder)
    held = record.get(found.name)
    path = folder / found.name
    if held is not None and path.is_file() and path.stat().st_size == int(held["bytes"]):
        progress(f"{found.name}  {int(held['bytes']):,} bytes  already here")
        return False
    landed = _Landed()
    reply = await client.get_streamed(found.url, lambda response: _stream(response, folder / found.name, landed))
    if reply.status != 200:  # www.sec.gov answers a missing file with 403 AccessDenied, not 404
        raise FetchError(f"{found.name}: HTTP {reply.status} for {found.url}")
    record[found.name] = {"name": found.name, "bytes": str(landed.size), "sha256": landed.sha256, "url": found.url}
    for older in _older_uploads(folder, found):
        older.unlink()
        record.pop(older.name, None)
        progress(f"removed {older.name}: replaced by the re-upload {found.name}")
    write_record(folder, record)
    progress(f"{found.name}  {landed.size:,} bytes  fetched")
    return True


@dataclass(slots=True)
class _Landed:
    """What a streamed download wrote."""

    size: int = 0
    sha256: str = ""


async def _stream(response: aiohttp.ClientResponse, path: Path, landed: _Landed) -> Reply:
    """Write a 200 answer's body chunk by chunk to `path`, whole or not at all; other answers as they are."""
    if response.status != 200:
        return Reply(response.status, dict(response.headers), await response.read())
    digest, size = hashlib.sha256(), 0
    with atomic_file(path.parent, path.name) as handle:
        async for chunk in response.content.iter_chunked(CHUNK):
            handle.write(chunk)
            digest.update(chunk)
            size += len(chunk)
        promised = response.content_length
        if promised is not None and size != promised:
            raise RetryableError(f"{size:,} of {promised:,} bytes arrived")
        handle.flush()
        if not zipfile.is_zipfile(handle.name):  # an error page served as 200 is not a set
            raise RetryableError("the answer is not a zip archive")
    landed.size, landed.sha256 = size, digest.hexdigest()
    return Reply(200, dict(response.headers), b"")


def _older_uploads(folder: Path, found: DataSet) -> list[Path]:
    """Zips of the same filing window that the new upload replaces."""
    prefix = f"{found.window}_form13f"
    return [
        path
        for path in folder.glob("*.zip")
        if path.name != found.name and path.name.lower().startswith(prefix) and path.is_file()
    ]


def read_record(folder: Path) -> dict[str, dict[str, str]]:
    """The record of whole sets, by name; empty when there is none (or it cannot be read: the sets are asked
    for again, which is slow but right)."""
    try:
        text = (folder / RECORD).read_text(encoding="utf-8")
    except OSError:
        return {}
    rows = csv.DictReader(io.StringIO(text))
    return {row["name"]: row for row in rows if row.get("name") and (row.get("bytes") or "").isdigit()}


def write_record(folder: Path, record: dict[str, dict[str, str]]) -> None:
    out = io.StringIO(newline="")
    writer = csv.DictWriter(out, RECORD_COLUMNS, lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(record[name] for name in sorted(record))
    write_atomically(folder, RECORD, out.getvalue().encode("utf-8"))
