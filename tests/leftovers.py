"""What a killed command may leave behind: processes of its session still running, a directory's lock still held."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from builder.atomic import LOCK

GONE_SECONDS = 30.0  # how long a killed process's workers get to die (a bound, not a measure: they die in ms)


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped by its new parent, does not)."""
    return _state(Path(f"/proc/{pid}")) not in (None, "Z")


def running_in_session(session: int) -> list[int]:
    """The processes of `session` (the pid of a command started with start_new_session) that still run."""
    return [
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and _fields(entry)[3:4] == [str(session)] and _state(entry) != "Z"
    ]


def children(pid: int) -> list[int]:
    """The processes `pid` forked that have not been reaped."""
    try:
        return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def eventually(condition: Callable[[], object], seconds: float = GONE_SECONDS) -> None:
    """Poll until `condition()` is true or `seconds` have passed (the caller then asserts what it waited for)."""
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)


def assert_none_left(session: int) -> None:
    """No process of `session` runs (within GONE_SECONDS); any that does is killed before the assertion fails."""
    eventually(lambda: not running_in_session(session))
    left = running_in_session(session)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert left == [], f"processes of the killed command's session still run: {left}"


def lock_free(directory: Path) -> bool:
    """Whether another writer could take DIRECTORY/.lock now (builder.atomic.exclusive), without taking it."""
    with open(directory / LOCK, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(handle, fcntl.LOCK_UN)
        return True


def _fields(entry: Path) -> list[str]:
    """/proc/PID/stat after the command name: state, ppid, pgrp, session, …; empty once the process is gone."""
    try:
        return (entry / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return []


def _state(entry: Path) -> str | None:
    fields = _fields(entry)
    return fields[0] if fields else None
