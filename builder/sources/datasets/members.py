"""The members of one Form 13F data-set zip, found by base name and streamed within limits (never extracted).

A set's zip holds tab-separated tables (SUBMISSION.tsv, COVERPAGE.tsv, INFOTABLE.tsv, …), at its root or under a
folder (`01JUN2025-31AUG2025_form13f/`). Before a member is read its stated sizes are checked (a zip bomb states
a huge size or a huge ratio); while it is read the inflated bytes are counted against the stated size, and zipfile
checks the CRC at its end, so a member that inflates past what it states, or a cut download, fails by name.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO

MIB = 1024 * 1024
# The largest real INFOTABLE.tsv is about 400 MB (3.8 million rows); 2 GiB bounds one member with room to grow.
MEMBER_BYTES = 2048 * MIB
# The other tables are read whole (SUBMISSION 0.7 MB, COVERPAGE 2 MB in a real set): 64 MiB bounds them.
TABLE_BYTES = 64 * MIB
# Tab-separated text deflates 3–10 times; a member claiming more than 100 times its compressed size is a bomb.
MAX_RATIO = 100
TABLES = ("SUBMISSION.tsv", "COVERPAGE.tsv", "SUMMARYPAGE.tsv", "INFOTABLE.tsv")  # the ones read


class DatasetError(Exception):
    """What is wrong with one data-set zip, said without its name (the caller names it)."""


class Archive:
    """An open data-set zip: its members by base name."""

    opened = 0  # zips opened by this process: a re-read from the cache opens none

    def __init__(self, handle: IO[bytes]) -> None:
        try:
            self._zip = zipfile.ZipFile(handle)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise DatasetError(f"is not a whole zip archive (a cut download, or not a zip at all): {exc}") from exc
        Archive.opened += 1
        self.members = {PurePosixPath(info.filename).name.upper(): info for info in self._zip.infolist()}
        missing = [name for name in TABLES if name.upper() not in self.members]
        if missing:
            raise DatasetError(f"lacks {', '.join(missing)}: not a Form 13F data set")

    @contextmanager
    def open(self, name: str) -> Iterator[IO[bytes]]:
        """The inflated bytes of member `name` (base name), counted; DatasetError when it breaks a limit."""
        info = self.members[name.upper()]
        limit = MEMBER_BYTES if name == "INFOTABLE.tsv" else TABLE_BYTES
        if info.file_size > limit:
            raise DatasetError(f"{name} states {info.file_size:,} bytes, over the {limit // MIB} MiB limit")
        if info.file_size > MAX_RATIO * max(info.compress_size, 1) and info.file_size > MIB:
            ratio = info.file_size // max(info.compress_size, 1)
            raise DatasetError(f"{name} inflates {ratio:,} times (over {MAX_RATIO}): a zip bomb, not a table")
        try:
            with self._zip.open(info) as stream:
                yield Counted(stream, min(info.file_size, limit), name)  # type: ignore[misc]
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            raise DatasetError(f"{name} cannot be read whole (a cut or altered archive): {exc}") from exc

    def close(self) -> None:
        self._zip.close()


class Counted(io.RawIOBase):
    """A member's stream that fails once more bytes come out than the member states."""

    def __init__(self, stream: IO[bytes], stated: int, name: str) -> None:
        self._stream, self._left, self._name = stream, stated, name

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
        data = self._stream.read(len(buffer))
        self._left -= len(data)
        if self._left < 0:
            raise DatasetError(f"{self._name} inflates past its stated size: a zip bomb, not a table")
        buffer[: len(data)] = data
        return len(data)


def line_of(path: Path, member: str, starts: str) -> int | None:
    """The number of the first line of member `member` of the zip at `path` that begins with `starts` (the header is
    line 1); None when none does or the zip cannot be read. For a message only: it reads the member again."""
    wanted = starts.encode("utf-8")
    try:
        with path.open("rb") as handle:
            archive = Archive(handle)
            try:
                with archive.open(member) as stream:
                    return _first_line(stream, wanted)
            finally:
                archive.close()
    except (OSError, DatasetError):
        return None


def _first_line(stream: IO[bytes], wanted: bytes) -> int | None:
    """The number of the first line of `stream` that begins with `wanted`, read a MiB at a time."""
    pending, number = b"", 0
    while chunk := stream.read(MIB):
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        for line in lines:
            number += 1
            if line.startswith(wanted):
                return number
    return number + 1 if pending.startswith(wanted) and pending else None
