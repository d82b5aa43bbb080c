"""builder.cores.forked_map: a task over items on forked processes, the results in the items' order on any count."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from builder.cores import forked_map, in_child
from builder.errors import SourceError
from builder.records import SourceProblem

ITEMS = list(range(23))


def square_and_pid(item: int) -> tuple[int, int]:
    return item * item, os.getpid()


@pytest.mark.parametrize("workers", [1, 2, 3, 8])
def test_the_results_are_in_the_items_order_whatever_the_count(workers: int):
    results = forked_map(square_and_pid, ITEMS, workers)
    assert [square for square, _ in results] == [item * item for item in ITEMS]


def meeting(parties: int) -> Any:
    """A barrier the first `parties` items wait at: each is then claimed by a process of its own, whatever the
    speed of the fork (the timeout only keeps a broken pool from hanging the test)."""
    return multiprocessing.get_context("fork").Barrier(parties, timeout=60)


def squares_meeting(parties: int) -> Callable[[int], tuple[int, int]]:
    """square_and_pid, its first `parties` items meeting first (so each runs in a process of its own)."""
    barrier = meeting(parties)

    def task(item: int) -> tuple[int, int]:
        if item < parties:
            barrier.wait()
        return square_and_pid(item)

    return task


def test_every_item_runs_once_and_each_process_takes_a_share():
    results = forked_map(squares_meeting(3), ITEMS, 3)
    assert [square for square, _ in results] == [item * item for item in ITEMS]
    assert os.getpid() in {pid for _, pid in results} and len({pid for _, pid in results}) == 3


def test_a_process_that_stays_out_of_the_work_only_collects_it():
    results = forked_map(squares_meeting(2), ITEMS, 2, here=False)
    assert [square for square, _ in results] == [item * item for item in ITEMS]
    assert os.getpid() not in {pid for _, pid in results} and len({pid for _, pid in results}) == 2


def test_one_worker_runs_here_in_the_claim_order():
    seen: list[int] = []

    def task(item: int) -> int:
        seen.append(item)
        return item + 1

    assert forked_map(task, [10, 20, 30], 1, order=[2, 0, 1]) == [11, 21, 31]
    assert seen == [30, 10, 20]


def test_a_forked_task_reads_the_parents_memory_through_a_closure_never_pickled():
    lookup = {item: (lambda item=item: item) for item in ITEMS}  # lambdas cannot be pickled: only a fork shares them

    def task(item: int) -> int:
        return lookup[item]() * 2

    assert forked_map(task, ITEMS, 2) == [item * 2 for item in ITEMS]


def test_a_failure_in_a_forked_process_is_raised_here():
    barrier, parent = meeting(2), os.getpid()

    def task(item: int) -> int:
        if item < 2:
            barrier.wait()
            if os.getpid() != parent:
                raise ValueError(f"item {item} failed in a forked process")
        return item

    with pytest.raises(ValueError, match="failed in a forked process"):
        forked_map(task, ITEMS, 2)


def test_a_task_that_spreads_work_itself_runs_that_in_place():
    def inner(item: int) -> tuple[int, int]:
        return item, os.getpid()

    def outer(item: int) -> bool:
        return {pid for _, pid in forked_map(inner, [1, 2, 3], 2)} == {os.getpid()}

    assert forked_map(outer, [0, 1], 2) == [True, True]


def test_a_child_passes_its_progress_on_as_it_goes_and_returns_what_it_made():
    lines: list[str] = []
    parent = os.getpid()

    def task(progress: Callable[[str], None]) -> tuple[int, list[int]]:
        progress("reading")
        progress("built")
        return os.getpid(), forked_map(lambda n: n * n, [1, 2, 3], 2)  # it may spread work of its own

    pid, squares = in_child(task, lines.append)
    assert pid != parent and squares == [1, 4, 9]
    assert lines == ["reading", "built"]


def test_a_childs_publish_error_is_raised_here_as_it_was():
    problems = [SourceProblem("sec13f/a.xml", "bad row", 3), SourceProblem("sec13f/b.xml", "no period", 9)]

    def task(progress: Callable[[str], None]) -> None:
        raise SourceError(problems)

    with pytest.raises(SourceError) as raised:
        in_child(task, lambda line: None)
    assert raised.value.problems == tuple(problems)
    assert str(raised.value) == str(SourceError(problems)) and raised.value.exit_code == 1


def test_a_child_killed_before_it_answers_is_an_error_here():
    def task(progress: Callable[[str], None]) -> None:
        progress("about to die")
        os.kill(os.getpid(), 9)

    lines: list[str] = []
    with pytest.raises(ChildProcessError, match="exit code -9"):
        in_child(task, lines.append)
    assert lines == ["about to die"]


LEFT_BEHIND: list[int] = []  # what a task leaves in its process's heap


@pytest.mark.parametrize("workers", [1, 2])
def test_a_fresh_process_for_each_item_sees_nothing_an_earlier_item_left(workers: int):
    """On one worker too: a one-core publish built every quarter in place and peaked at 2.3 GB at 2,000 managers."""

    def task(item: int) -> tuple[int, int, int]:
        LEFT_BEHIND.append(item)
        return item, os.getpid(), len(LEFT_BEHIND)

    found = forked_map(task, list(range(7)), workers, order=[6, 5, 4, 3, 2, 1, 0], here=False, fresh=True)
    assert [item for item, _, _ in found] == list(range(7))
    assert len({pid for _, pid, _ in found} | {os.getpid()}) == 8  # seven processes, none of them this one
    assert {seen for _, _, seen in found} == {1} and LEFT_BEHIND == []
    [(_, alone, _)] = forked_map(task, [0], workers, here=False, fresh=True)
    assert alone != os.getpid() and LEFT_BEHIND == []  # a single item as well
    assert forked_map(task, [], workers, here=False, fresh=True) == []
    pooled = forked_map(task, list(range(7)), 2, here=False)
    assert max(seen for _, _, seen in pooled) > 1  # a pooled worker's next item finds the earlier one's list


def test_a_failure_in_a_fresh_process_is_raised_here_and_the_others_are_stopped():
    """The failing process too: it is reaped before its error is raised here, however long it takes to exit after
    sending it (here a thread keeps it; on a busy machine, the scheduler did, and the map raised while it ran)."""

    def task(item: int) -> int:
        if item == 3:
            threading.Thread(target=time.sleep, args=(30,)).start()  # not a daemon: the process waits for it
            raise SourceError([SourceProblem("sec13f/q3.xml", "bad quarter", 7)])
        return item

    with pytest.raises(SourceError, match=r"sec13f/q3\.xml:7: bad quarter"):
        forked_map(task, list(range(6)), 2, here=False, fresh=True)
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("here", [True, False])
def test_a_pooled_worker_killed_mid_share_is_an_error_here_not_a_wait(here: bool):
    """A worker killed (the kernel's out-of-memory killer, an operator) loses the items it held: the map says so
    instead of waiting for them, and leaves no process behind. Run in a child with a deadline: a wait fails it."""
    mapper: list[int] = []  # the process that maps (in which nothing is killed)

    def task(item: int) -> int:
        if os.getpid() != mapper[0]:
            os.kill(os.getpid(), 9)  # every forked worker dies at its first item
        time.sleep(0.05)  # the mapping process's own items take long enough for a worker to claim one
        return item

    def spread() -> str:
        mapper.append(os.getpid())
        try:
            forked_map(task, list(range(12)), 3, here=here)
        except ChildProcessError as exc:
            return str(exc)
        return "finished"

    context = multiprocessing.get_context("fork")
    receiving, sending = context.Pipe(duplex=False)
    mapping = context.Process(target=lambda: sending.send(spread()))  # so a wait is a deadline here, not a hang
    mapping.start()
    mapping.join(60)
    waiting = mapping.is_alive()
    if waiting:
        mapping.kill()
        mapping.join()
    assert not waiting, "the map waited for the killed worker's items"
    assert "exit code -9" in receiving.recv()
    assert multiprocessing.active_children() == []
