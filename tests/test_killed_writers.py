"""One writer at a time (builder.atomic.exclusive), held by the writing process alone: never by the processes
it forks, so a killed publish's or export's lock is free once that process is gone; and no worker outlives it.
(A publish killed at random moments: tests/test_reliability.py.)"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from builder.atomic import LOCK, exclusive
from builder.cores import forked_map, in_child
from builder.errors import PublishError
from tests.leftovers import alive, assert_none_left, children, eventually, lock_free
from tests.servers import child_env


def lock_descriptors(lock: Path) -> list[int]:
    """This process's descriptors open on `lock`."""
    found = []
    for entry in Path("/proc/self/fd").iterdir():
        try:
            if Path(os.readlink(entry)) == lock:
                found.append(int(entry.name))
        except OSError:
            continue  # the descriptor iterdir itself held, closed meanwhile
    return found


def test_a_second_writer_fails_at_once_naming_the_directory(tmp_path: Path):
    refused = pytest.raises(PublishError, match=f"another publish is writing to {tmp_path}")
    with exclusive(tmp_path, "publish"), refused, exclusive(tmp_path, "publish"):
        pass
    assert lock_free(tmp_path)  # released on leaving


def test_a_process_forked_while_the_lock_is_held_does_not_hold_it(tmp_path: Path):
    """A flock belongs to the open file, which a fork shares: each worker of a publish held the releases lock until
    its own end, so a publish killed while its workers ran left the lock taken for the next one."""
    lock = tmp_path / LOCK

    def held(_: object) -> list[int]:
        return lock_descriptors(lock)

    with exclusive(tmp_path, "publish"):
        assert len(lock_descriptors(lock)) == 1  # this process holds it
        assert in_child(held, lambda line: None) == []
        assert forked_map(held, [0, 1], 2, here=False, fresh=True) == [[], []]
        assert forked_map(held, [0, 1, 2, 3], 2, here=False) == [[], [], [], []]
        assert not lock_free(tmp_path)  # and this process still holds it after they are gone


def fork_dying_at_once(marker: Path) -> None:
    """In a process of the test's own (fork hooks cannot be taken back): fork a child through in_child and die
    right after the fork, while the child is held back before it has asked to die with its parent."""
    os.register_at_fork(
        after_in_child=lambda: (marker.with_suffix(".pid").write_text(str(os.getpid())), time.sleep(1.0)),
        after_in_parent=lambda: os.kill(os.getpid(), signal.SIGKILL),
    )

    def task(progress: Callable[[str], None]) -> None:
        marker.write_text("the task ran without its parent")

    in_child(task, lambda line: None)


def test_a_worker_whose_parent_died_before_it_asked_to_die_with_it_runs_nothing(tmp_path: Path):
    """PR_SET_PDEATHSIG is sent only for a death after the request (prctl(2)): a publish killed between a fork and the
    request left its worker running, reparented, with whatever it was about to write."""
    marker = tmp_path / "ran"
    parent = multiprocessing.get_context("fork").Process(target=fork_dying_at_once, args=(marker,))
    parent.start()
    parent.join(60)
    assert parent.exitcode == -signal.SIGKILL
    child = int(marker.with_suffix(".pid").read_text())
    eventually(lambda: not alive(child))  # it sleeps 1 s, then has to notice
    assert not alive(child)
    assert not marker.exists()


# `ras export` whose every compression waits a minute first: killed while its workers compress, deterministically.
SLOW_COMPRESSION = (
    "import sys, time\n"
    "from builder.export import variants\n"
    "compress = variants._compress\n"
    "variants._compress = lambda *args: (time.sleep(60), compress(*args))[1]\n"
    "from builder.cli import main\n"
    "main(sys.argv[1:])\n"
)


def test_an_export_killed_while_it_compresses_leaves_no_worker_and_its_lock_free(published: Path, tmp_path: Path):
    """Its workers wait on a queue that each of them holds open: killed with the export, they waited for ever."""
    out = tmp_path / "dist"
    export = subprocess.Popen(
        [sys.executable, "-c", SLOW_COMPRESSION, "export", "--releases", str(published), "--out", str(out)],
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        eventually(lambda: children(export.pid), seconds=60)
        assert children(export.pid)  # its workers compress
    finally:
        export.kill()  # the export alone, never its workers
        export.wait()
    assert lock_free(out)
    assert_none_left(export.pid)
