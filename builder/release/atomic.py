"""Filesystem steps that make a directory's update atomic: one writer at a time, and durable renames."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from builder.errors import PublishError

LOCK = ".lock"


@contextmanager
def exclusive(directory: Path, what: str) -> Iterator[None]:
    """Hold DIRECTORY/.lock; a second writer fails at once, and a killed one's lock is released by the kernel."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / LOCK, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise PublishError(f"another {what} is writing to {directory}") from exc
        yield


def fsync_directory(directory: Path) -> None:
    """Make the directory's entries (a rename, a new file) durable."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
