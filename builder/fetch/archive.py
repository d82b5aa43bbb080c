"""A filing onto disk whole or not at all: temporary name in the same folder, checked, fsynced, renamed."""

from __future__ import annotations

import asyncio
import csv
import io
import os
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from builder.fetch.client import Client, FetchError, Reply, RetryableError
from builder.fetch.edgar import HOLDINGS_FORMS, Hosts, Listed
from builder.sources.sec13f.filing_dates import COLUMNS as DATE_COLUMNS
from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from builder.sources.sec13f.filing_dates import filing_dates_text
from builder.sources.sec13f.safexml import DocumentError
from builder.sources.sec13f.submission import accession_in, carried_documents, is_submission, parse_submission

TEMPORARY_SUFFIX = ".part"  # `.<accession>.txt.<random>.part`: a dot-file the filings reader never takes


def held_accessions(folder: Path) -> set[str]:
    """Accessions already in `folder`, by file name (any layout below it); temporary files do not count."""
    if not folder.is_dir():
        return set()
    held = set()
    for path in folder.rglob("*"):
        if path.is_file() and not path.name.startswith("."):
            accession = accession_in(path.name)
            if accession:
                held.add(accession)
    return held


def remove_leftovers(folder: Path) -> list[str]:
    """Delete temporary files a killed fetch left; returns their names."""
    if not folder.is_dir():
        return []
    left = sorted(path for path in folder.glob(f".*{TEMPORARY_SUFFIX}") if path.is_file())
    for path in left:
        path.unlink()
    return [path.name for path in left]


async def download_filing(client: Client, hosts: Hosts, cik: str, filing: Listed, folder: Path) -> Path:
    """Fetch the filing's complete submission text file into `folder/<accession>.txt`; checked before it lands."""
    url = hosts.submission_text(cik, filing.accession)
    reply = await client.get(url, lambda answer: check_submission(answer, filing.accession))
    if reply.status != 200:  # www.sec.gov answers a missing archive path with 403 AccessDenied, not 404
        raise FetchError(f"{filing.accession}: HTTP {reply.status} for {url}")
    # off the event loop: an fsync may take tens of milliseconds, and the other downloads keep their pace
    return await asyncio.to_thread(write_atomically, folder, f"{filing.accession}.txt", reply.body)


def check_submission(reply: Reply, accession: str) -> None:
    """Raise RetryableError unless the body is a whole 13F holdings submission for `accession`."""
    if not is_submission(reply.body):
        start = reply.body[:60].decode("utf-8", "replace").strip().replace("\n", " ")
        raise RetryableError(f"the answer is not an EDGAR submission (it starts {start!r})")
    try:
        submission = parse_submission(reply.body)
        if submission.accession != accession:
            raise RetryableError(f"the answer is accession {submission.accession}, not the one asked for")
        if submission.submission_type not in HOLDINGS_FORMS:
            raise RetryableError(f"the answer is a {submission.submission_type}, not a 13F holdings report")
        carried_documents(submission)
    except DocumentError as exc:
        raise RetryableError(f"the answer {exc.message}") from exc


def record_filing_dates(folder: Path, listed: Iterable[Listed]) -> int:
    """Keep EDGAR's filing date of every listed holdings report in folder/filing_dates.csv, beside the filings (rows
    of accessions no longer listed stay: the record only grows); how many rows it holds."""
    rows = {row[0]: row for row in _recorded_rows(folder / DATES_FILE)}
    for filing in listed:
        if filing.holdings:
            period = filing.period.isoformat() if filing.period else ""
            rows[filing.accession] = (filing.accession, filing.form, period, filing.filed.isoformat())
    text = filing_dates_text(list(rows.values())).encode()
    path = folder / DATES_FILE
    if rows and not (path.is_file() and path.read_bytes() == text):  # a rerun with nothing new writes nothing
        write_atomically(folder, DATES_FILE, text)
    return len(rows)


def _recorded_rows(path: Path) -> list[tuple[str, str, str, str]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError:
        return []
    found = []
    for row in csv.DictReader(io.StringIO(text)):
        accession, form, period, filed = (row.get(column) or "" for column in DATE_COLUMNS)
        if accession:
            found.append((accession, form, period, filed))
    return found


def write_atomically(folder: Path, name: str, data: bytes) -> Path:
    """Write `data` to folder/name through a temporary file: fsync the file, rename, fsync the folder."""
    with atomic_file(folder, name) as handle:
        handle.write(data)
    return folder / name


@contextmanager
def atomic_file(folder: Path, name: str) -> Iterator[BinaryIO]:
    """A file to write that appears at folder/name only whole: written under a temporary dot-name in the same
    folder, fsynced and renamed when the block ends; removed instead when the block raises."""
    folder.mkdir(parents=True, exist_ok=True)
    temporary = folder / f".{name}.{secrets.token_hex(4)}{TEMPORARY_SUFFIX}"
    try:
        with open(temporary, "xb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, folder / name)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    directory = os.open(folder, os.O_RDONLY)  # the rename survives a crash once the folder is synced too
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
