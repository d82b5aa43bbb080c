"""Work spread over the machine's cores: the same results, in the same order, on any number of processes.

A publish is Python through and through, so its cores are processes. `forked_map` forks them from the one holding
the work's input (on Linux a fork shares that memory copy-on-write: nothing is pickled but the results), each
takes the next item when free, and the results come back in the items' order whatever the count, so a release is
the same bytes on one process as on sixteen.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from multiprocessing.connection import wait
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
PR_SET_PDEATHSIG = 1  # linux/prctl.h: the signal a process gets when its parent dies
# What forked workers read, set just before the fork: the task, its items, the order they are claimed in and the
# counter of claimed ones. Empty outside a forked_map: a task that calls forked_map itself runs that one in place.
_WORK: tuple[Any, ...] = ()


def forked_map(
    task: Callable[[Item], Result],
    items: Sequence[Item],
    workers: int,
    order: Sequence[int] | None = None,
    *,
    here: bool = True,
    fresh: bool = False,
) -> list[Result]:
    """`[task(item) for item in items]` on `workers` processes: this one and `workers - 1` forked from it.

    The forked ones inherit `task` and whatever it reads (a closure is fine: it is never pickled); each process
    claims the next index of `order` (default the items' own; the costliest first evens out the shares) until none
    is left, and the results travel back pickled. An exception in any process is raised here. `here=False`: this
    process only waits, `workers` forked ones do the work (what a task allocates never lands in this process's
    heap, which lives on: a publish's artifacts are built so). `fresh` (with here=False): each item in a process
    forked for it alone, on one worker too, so what one item leaves in a heap never sits under the next (a build
    worker at 2,000 managers kept 400 MB of one quarter's artifact under the next one's; building them all in place,
    one worker's publish peaked at 2.3 GB)."""
    assert not (fresh and here), "a fresh process for each item: this one only waits"
    global _WORK
    claims = list(range(len(items))) if order is None else list(order)
    alone = workers <= 1 or len(items) <= 1
    if (alone and not fresh) or not items or _WORK or not _can_fork():
        return _in_place(task, items, claims)
    context = multiprocessing.get_context("fork")
    _WORK = (task, items, claims, context.Value("q", 0))
    gc.freeze()  # no collector pass in a worker touches the inherited heap (each would copy its pages)
    forked = max(1, min(workers, len(items))) - (1 if here else 0)
    try:
        results = _fresh(task, items, claims, forked, context) if fresh else _pooled(forked, here, context)
    finally:
        _WORK = ()
        gc.unfreeze()
    return [results[index] for index in range(len(items))]


def _pooled(forked: int, here: bool, context: Any) -> dict[int, Any]:
    """The shares of `forked` processes forked from this thread, each claiming items until none is left (and this
    one's, `here`). One that dies without sending its share (killed) fails the map with a ChildProcessError; a
    multiprocessing Pool would fork a replacement and wait for the lost items for ever."""
    children = [_Child(lambda _: _share(), context) for _ in range(forked)]
    failed = True
    try:
        results = dict(_share()) if here else {}
        for child in children:
            results.update(child.result())
        failed = False
    finally:
        for child in children:
            child.close(failed)
    return results


def _fresh(
    task: Callable[[Item], Result], items: Sequence[Item], claims: list[int], forked: int, context: Any
) -> dict[int, Result]:
    """Each item in a process forked for it alone, `forked` at a time, all forked from this thread. (A pool that
    replaces its workers forks them from a thread of its own: a lock another of its threads held then stays locked
    in the new worker, which hung a publish.)"""
    todo, results = iter(claims), {}
    running: dict[Any, tuple[int, _Child]] = {}  # by the end of its pipe a child answers on

    def start(index: int) -> None:
        child = _Child(lambda _: task(items[index]), context)
        running[child.receiving] = (index, child)

    try:
        for index in islice(todo, forked):
            start(index)
        while running:
            for ready in wait(list(running)):
                index, child = running.pop(ready)
                results[index] = child.outcome()
                following = next(todo, None)
                if following is not None:
                    start(following)
    finally:
        for _, child in running.values():
            child.close(failed=True)
    return results


def _in_place(task: Callable[[Item], Result], items: Sequence[Item], claims: list[int]) -> list[Result]:
    results = {index: task(items[index]) for index in claims}
    return [results[index] for index in range(len(items))]


def _share() -> list[tuple[int, Any]]:
    """In each process: the indices it claims, one at a time until none is left, with their results."""
    task, items, claims, counter = _WORK
    return [(index, task(items[index])) for index in _claimed(claims, counter)]


def _claimed(claims: list[int], counter: Any) -> Iterator[int]:
    while True:
        with counter.get_lock():
            claimed = counter.value
            counter.value = claimed + 1
        if claimed >= len(claims):
            return
        yield claims[claimed]


def in_child(task: Callable[[Callable[[str], None]], Result], progress: Callable[[str], None]) -> Result:
    """`task(progress)` in one process forked from this one: its progress lines are passed on here as it prints them,
    and its result, or its exception, comes back pickled. Whatever it allocates and leaves dies with it, so this
    process's heap does not keep it (CPython gives little of a freed heap back: a publish's read left 0.9 GB behind
    at 2,000 managers that every process forked after it then counted). In place where nothing forks."""
    if _WORK or not _can_fork():
        return task(progress)
    found: Result = _Child(task, multiprocessing.get_context("fork")).outcome(progress)
    return found


class _Child:
    """`task(progress)` in a process forked for it; its progress lines and then its outcome come back pickled."""

    def __init__(self, task: Callable[[Callable[[str], None]], Any], context: Any) -> None:
        self.receiving, sending = context.Pipe(duplex=False)
        parent = os.getpid()

        def run() -> None:
            die_with_parent(parent)
            try:
                outcome: tuple[str, Any] = ("done", task(lambda line: sending.send(("line", line))))
            except BaseException as exc:  # every failure is the caller's to raise
                outcome = ("failed", exc)
            try:
                sending.send(outcome)
            except Exception as exc:  # pickling failed before a byte was sent: say what could not travel
                sending.send(("failed", RuntimeError(f"{outcome[1]!r} could not be sent back: {exc}")))

        self.process = context.Process(target=run, name="ras-child")  # not a daemon: it may fork workers of its own
        self.process.start()
        sending.close()

    def result(self, progress: Callable[[str], None] = lambda line: None) -> Any:
        """Its result once it sends it, each line before passed to `progress`; its exception raised here, or a
        ChildProcessError when it ended without either (killed)."""
        while True:
            try:
                kind, value = self.receiving.recv()
            except EOFError:
                self.process.join()
                raise ChildProcessError(
                    f"the forked process ended without an answer (exit code {self.process.exitcode})"
                ) from None
            if kind == "line":
                progress(value)
            elif kind == "failed":
                raise value
            else:
                return value

    def outcome(self, progress: Callable[[str], None] = lambda line: None) -> Any:
        """`result`, and the process reaped whatever it was: killed first if it failed, so that no error is raised
        here while the process that sent it still runs (on a busy machine it may not have exited yet)."""
        failed = True
        try:
            found = self.result(progress)
            failed = False
            return found
        finally:
            self.close(failed)

    def close(self, failed: bool) -> None:
        self.receiving.close()
        if failed and self.process.is_alive():
            self.process.kill()
        self.process.join()


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def die_with_parent(parent: int) -> None:
    """First thing in a process started by `parent` (its pid): be killed when it dies, so a killed publish leaves no
    worker behind (Linux's PR_SET_PDEATHSIG). The kernel sends that signal only for a death after the request
    (prctl(2)): if `parent` died since the fork, the process is reparented, and it is killed here instead of
    running on alone, with whatever it was about to write."""
    with contextlib.suppress(OSError, AttributeError):  # not Linux: nothing to ask, the check below still holds
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)
