"""The CLI's error family: each becomes one clean `Error: …` line and a non-zero exit, no traceback.

Exit codes: 1 a publish, build, promote or verify step that cannot go on (bad sources, a damaged release);
2 a usage error (click); 3 a gate stopped the release (builder.review.gates: publish kept it unpromoted, or
promote refused it without --override-gates); 4 a fixture release refused over real
data; and, for what the operating system refused, the sysexits.h codes below, so a script can tell a full
disk from bad sources. Every one of them means that nothing was promoted.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from builder.records import SourceProblem

EXIT_NO_SPACE = 73  # EX_CANTCREAT: the output could not be written for lack of space (ENOSPC, EDQUOT)
EXIT_IO = 74  # EX_IOERR: the device failed (EIO) or another OS error
EXIT_NO_PERMISSION = 77  # EX_NOPERM: no permission, or a read-only filesystem (EACCES, EPERM, EROFS)
EXIT_UNAVAILABLE = 69  # EX_UNAVAILABLE: the address to serve on is taken by another process

# errno → (what happened, what to do), the line an operator reads instead of a traceback.
_ADVICE = {
    errno.ENOSPC: ("no space left on the device", "free space on that filesystem, then run the command again"),
    errno.EDQUOT: ("the disk quota is exhausted", "free space or raise the quota, then run the command again"),
    errno.EACCES: ("permission denied", "give this user access to it (ls -ld shows owner and mode), then run again"),
    errno.EPERM: (
        "operation not permitted",
        "give this user access to it (ls -ld shows owner and mode), then run again",
    ),
    errno.EROFS: ("the filesystem is read-only", "use a writable folder (or remount it read-write), then run again"),
    errno.EIO: ("the device reported an I/O error", "check the disk (dmesg, smartctl) before running again"),
    errno.ENOENT: ("it does not exist", "check the path; a folder may have been moved while the command ran"),
    errno.ENOTDIR: ("a file stands where a folder belongs", "move that file away, then run the command again"),
    errno.EISDIR: ("a folder stands where a file belongs", "move that folder away, then run the command again"),
    errno.EMFILE: ("too many open files", "raise the limit (ulimit -n), then run the command again"),
    errno.ENAMETOOLONG: ("the name is too long", "use a shorter path"),
}
_EXIT_CODES = {
    errno.ENOSPC: EXIT_NO_SPACE,
    errno.EDQUOT: EXIT_NO_SPACE,
    errno.EACCES: EXIT_NO_PERMISSION,
    errno.EPERM: EXIT_NO_PERMISSION,
    errno.EROFS: EXIT_NO_PERMISSION,
}


class PublishError(click.ClickException):
    """A publish, build, promote or verify step that cannot go on; nothing is promoted."""

    exit_code = 1

    def __reduce__(self) -> tuple[Callable[..., PublishError], tuple[type[PublishError], str, dict[str, Any]]]:
        """Raised in a forked process and raised again in the one that forked it (cores.in_child): the same error
        and message whatever its class's __init__ takes."""
        return _rebuilt, (type(self), self.message, self.__dict__)


def _rebuilt(kind: type[PublishError], message: str, state: dict[str, Any]) -> PublishError:
    error = kind.__new__(kind)
    PublishError.__init__(error, message)
    error.__dict__.update(state)
    return error


class SourceError(PublishError):
    """Every fatal problem found in the source tree, reported at once."""

    def __init__(self, problems: Sequence[SourceProblem]) -> None:
        self.problems = tuple(problems)
        if len(self.problems) == 1:
            message = str(self.problems[0])
        else:
            lines = "\n".join(f"  {problem}" for problem in self.problems)
            message = f"{len(self.problems)} problems in the sources:\n{lines}"
        super().__init__(message)


class ReleaseError(PublishError):
    """A release that is missing, incomplete or fails its manifest."""


class FixtureRefused(PublishError):
    """A release of fictional fixture data would replace a promoted release built from real sources."""

    exit_code = 4


class OSFault(PublishError):
    """What the operating system refused (an I/O error, or any other): `<path>: <what> — <what to do>`."""

    exit_code = EXIT_IO

    def __init__(self, exc: OSError) -> None:
        code = exc.errno or 0
        what, todo = _ADVICE.get(code, (exc.strerror or str(exc), "run the command again once the cause is fixed"))
        name = errno.errorcode.get(code, "")
        where = escaped(exc.filename) if exc.filename is not None else "(no path known)"
        super().__init__(f"{where}: {what}{f' ({name})' if name else ''} — {todo}")


class NoSpace(OSFault):
    exit_code = EXIT_NO_SPACE


class NoPermission(OSFault):
    exit_code = EXIT_NO_PERMISSION


def os_fault(exc: OSError) -> OSFault:
    """The one-line error of what the operating system refused, of the class that carries its exit code."""
    kind = {EXIT_NO_SPACE: NoSpace, EXIT_NO_PERMISSION: NoPermission}.get(
        _EXIT_CODES.get(exc.errno or 0, EXIT_IO), OSFault
    )
    return kind(exc)


def escaped(path: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str:
    """A path as text that can always be printed and encoded: bytes that are not UTF-8 become \\xNN."""
    raw = path if isinstance(path, bytes) else os.fsencode(path)
    return raw.decode("utf-8", "backslashreplace")


@contextmanager
def at_path(path: Path | str) -> Iterator[None]:
    """Name `path` on an OSError raised inside that names none (a write or fsync on an open handle)."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = os.fspath(path)
        raise
