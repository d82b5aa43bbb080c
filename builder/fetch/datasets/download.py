"""`ras fetch`'s data sets: the SEC's Form 13F data sets covering the window into sec13f-datasets/, one zip a set.

Each zip keeps the SEC's file name and lands whole or not at all (`transfer`: resumable, checked, fsynced, renamed).
A record beside the zips (`.fetched.csv`: name, bytes, sha256, url) says which are whole, so a re-run asks for none
of them again; a `_N` re-upload replaces the set it re-uploads.
"""

from __future__ import annotations

import csv
import io
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from builder.fetch.archive import remove_leftovers, write_atomically
from builder.fetch.client import Client, FetchError
from builder.fetch.datasets.page import PAGE_PATH, DataSet, covering, listed_sets
from builder.fetch.datasets.progress import Progress
from builder.fetch.datasets.transfer import PARTIAL, STATE, land_set
from builder.fetch.edgar import Hosts
from builder.sources.files import DATASETS

FOLDER = DATASETS  # sec13f-datasets/ of the source tree, where the reader finds the zips
RECORD = ".fetched.csv"  # a dot-file: whatever reads the zips of the folder never takes it
RECORD_COLUMNS = ("name", "bytes", "sha256", "url")


@dataclass(slots=True)
class SetsResult:
    chosen: list[DataSet] = field(default_factory=list)
    uncovered: list[date] = field(default_factory=list)  # quarters no listed set covers yet
    fetched: list[str] = field(default_factory=list)
    received: int = 0  # bytes this run brought
    seconds: float = 0.0
    requests: int = 0  # the run's requests when the sets were done


async def fetch_sets(
    client: Client, source: Path, quarters: tuple[date, ...], hosts: Hosts, progress: Progress, report: Progress
) -> SetsResult:
    """Read the data-set page, then fetch each set covering `quarters` that the tree does not hold whole: `progress`
    hears how a download moves, `report` what became of each set."""
    folder, began = source / FOLDER, time.monotonic()
    for name in remove_leftovers(folder):
        report(f"removed {name}, left by an interrupted fetch")
    result = SetsResult()
    result.chosen, result.uncovered = covering(await _listed(client, hosts), quarters)
    for name in _stale_partials(folder, result.chosen):
        report(f"removed {name}: a partial download of a set no longer asked for")
    for found in result.chosen:
        received = await _fetch_one(client, found, folder, progress, report)
        if received is not None:
            result.fetched.append(found.name)
            result.received += received
    result.requests = client.requests
    result.seconds = time.monotonic() - began
    return result


async def _listed(client: Client, hosts: Hosts) -> list[DataSet]:
    page_url = f"{hosts.archive}{PAGE_PATH}"
    reply = await client.get(page_url)
    if reply.status != 200:
        raise FetchError(
            f"{page_url}: HTTP {reply.status}; the SEC's Form 13F data-set page is not there "
            "(`ras fetch --no-datasets` fetches the filings alone)"
        )
    return listed_sets(reply.body.decode("utf-8", "replace"), page_url, hosts.archive)


async def _fetch_one(client: Client, found: DataSet, folder: Path, progress: Progress, report: Progress) -> int | None:
    """Fetch one set unless the folder holds it whole; the bytes received when it was fetched."""
    record = read_record(folder)
    held = record.get(found.name)
    path = folder / found.name
    if held is not None and path.is_file() and path.stat().st_size == int(held["bytes"]):
        report(f"{found.name}  {int(held['bytes']):,} bytes  already here")
        return None
    landed = await land_set(client, found, folder, progress)
    record[found.name] = {"name": found.name, "bytes": str(landed.size), "sha256": landed.sha256, "url": found.url}
    for older in _older_uploads(folder, found):
        older.unlink()
        record.pop(older.name, None)
        report(f"removed {older.name}: replaced by the re-upload {found.name}")
    write_record(folder, record)
    resumed = f" (resumed at {landed.resumed_at:,})" if landed.resumed_at else ""
    report(f"{found.name}  {landed.size:,} bytes  fetched{resumed}")
    return landed.size - landed.resumed_at


def _stale_partials(folder: Path, chosen: list[DataSet]) -> list[str]:
    """Remove the partial downloads of sets this run does not ask for (a set since re-uploaded); their names."""
    wanted = {f".{found.name}{suffix}" for found in chosen for suffix in (PARTIAL, STATE)}
    stale = sorted(p for p in folder.glob(f".*{PARTIAL}*") if p.name not in wanted) if folder.is_dir() else []
    for path in stale:
        path.unlink()
    return [path.name for path in stale if path.name.endswith(PARTIAL)]


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
