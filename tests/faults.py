"""Faults injected in-process, as the kernel would return them: ENOSPC, EACCES, EROFS or EIO from the Python call that
touches a path of one step of a publish or an export, or SIGKILL at that call.

Only Python's own entry points to the OS are wrapped (open, os.open, os.mkdir, os.rename, os.replace,
os.symlink), so it works as any user on any filesystem, in a test's process or in a child
(`python -m tests.faults STEP FAULT ras-arguments…`, for SIGKILL).
"""

from __future__ import annotations

import builtins
import errno
import io
import mmap
import os
import pickle
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

FAULTS = ("ENOSPC", "EACCES", "EIO", "SIGKILL")  # EROFS (a read-only folder: root ignores chmod) takes EACCES's path
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND


@dataclass(frozen=True, slots=True)
class Call:
    """One OS call a command makes: which function, the path it touches, whether it writes."""

    function: str
    path: str
    write: bool


def _staging(call: Call, part: str) -> bool:
    return call.write and "/.staging-" in call.path and part in call.path and "/.releases/" not in call.path


# Each step of a publish or an export → the calls that are that step (a fault lands on the first of them).
STEPS: dict[str, Callable[[Call, str], bool]] = {
    # reading the sources; a full or read-only disk meets the parse cache, the only thing written while reading
    "read": lambda call, fault: (
        call.write and "/.cache/sec13f/" in call.path and call.function == "open"
        if fault in ("ENOSPC", "EROFS")
        else not call.write and "/sec13f/" in call.path and "/.cache/" not in call.path
    ),
    "render": lambda call, fault: _staging(call, "/objects/"),  # each answer is written as it is rendered
    "stage": lambda call, fault: _staging(call, "/artifacts/") or _staging(call, "/data/"),
    "seal": lambda call, fault: _staging(call, "/seal.json"),
    "record": lambda call, fault: call.write and call.path.endswith("/ledger.jsonl"),
    "promote": lambda call, fault: call.function in ("symlink", "replace") and "/.current-" in call.path,
    "export": lambda call, fault: call.write and "/.releases/.staging-" in call.path,
}


@dataclass
class Injection:
    """The fault lands on the first call of the step, and on every later call on that same path (one bad file,
    one full disk: the command stops at the first failure either way)."""

    step: str
    fault: str
    # the calls the fault landed on (`hits`: a test asserts there was one), pickled in anonymous shared memory: the
    # processes a command forks (a publish reads its sources in one) add to the same list
    shared: mmap.mmap = field(default_factory=lambda: mmap.mmap(-1, 1 << 16))

    @property
    def hits(self) -> list[Call]:
        size = int.from_bytes(self.shared[:4], "little")
        found: list[Call] = pickle.loads(self.shared[4 : 4 + size]) if size else []
        return found

    def check(self, call: Call) -> None:
        hits = self.hits
        if (hits and call.path != hits[0].path) or (not hits and not STEPS[self.step](call, self.fault)):
            return
        body = pickle.dumps([*hits, call])
        self.shared[4 : 4 + len(body)] = body
        self.shared[:4] = len(body).to_bytes(4, "little")
        if self.fault == "SIGKILL":
            os.kill(os.getpid(), signal.SIGKILL)
        code = getattr(errno, self.fault)
        raise OSError(code, os.strerror(code), call.path)


def _path(target: object) -> str:
    if isinstance(target, int):  # an open descriptor (os.fdopen): the path it was opened at
        try:
            return os.readlink(f"/proc/self/fd/{target}")
        except OSError:
            return ""
    return os.fsdecode(os.fspath(target)) if isinstance(target, (str, bytes, os.PathLike)) else ""


@contextmanager
def injected(step: str, fault: str) -> Iterator[Injection]:
    """While inside, the first call of `step` and every one after it fails with `fault` (a full disk stays full)."""
    injection = Injection(step, fault)
    real_open, real_os_open = builtins.open, os.open
    real = {name: getattr(os, name) for name in ("mkdir", "rename", "replace", "symlink")}

    def opened(file, mode="r", *args, **kwargs):
        injection.check(Call("open", _path(file), any(c in mode for c in "wax+")))
        return real_open(file, mode, *args, **kwargs)

    def os_opened(path, flags, *args, **kwargs):
        injection.check(Call("os.open", _path(path), bool(flags & WRITE_FLAGS)))
        return real_os_open(path, flags, *args, **kwargs)

    def wrapped(name: str) -> Callable:
        def call(*args, **kwargs):
            injection.check(Call(name, _path(args[-1] if name != "mkdir" else args[0]), True))
            return real[name](*args, **kwargs)

        return call

    builtins.open = io.open = opened
    os.open = os_opened
    for name in real:
        setattr(os, name, wrapped(name))
    try:
        yield injection
    finally:
        builtins.open = io.open = real_open
        os.open = real_os_open
        for name, function in real.items():
            setattr(os, name, function)


if __name__ == "__main__":  # python -m tests.faults STEP FAULT ARGS…: `ras ARGS…` with the fault injected
    from builder.cli import main

    with injected(sys.argv[1], sys.argv[2]):
        main(sys.argv[3:])
