"""Every step of a publish and an export × ENOSPC, EACCES, EIO and SIGKILL: the exit code and the directories agree.

A non-zero exit means that nothing changed: `current` (or the export's `site`) is where it was, and nothing is
left behind (a SIGKILL's leftovers are removed by the next run, which then completes). Exit 0 means promoted
and verified. Each fault is injected in-process at the Python call that touches the step's files
(tests/faults.py); SIGKILL runs the command in a child.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.errors import EXIT_IO, EXIT_NO_PERMISSION, EXIT_NO_SPACE
from builder.export.tree import SITE
from builder.export.verify import verify_export
from builder.release.ledger import verify_ledger
from builder.release.store import current_release, verify_release
from tests.faults import FAULTS, STEPS, injected
from tests.servers import child_env
from tests.test_reliability import changed_fixture

PUBLISH_STEPS = [step for step in STEPS if step != "export"]
# A kill costs a child process and a second run: that column is marked slow (`make test-quick` leaves it out).
FAULT_PARAMS = [pytest.param(fault, marks=pytest.mark.slow) if fault == "SIGKILL" else fault for fault in FAULTS]
EXIT_CODES = {"ENOSPC": EXIT_NO_SPACE, "EACCES": EXIT_NO_PERMISSION, "EROFS": EXIT_NO_PERMISSION, "EIO": EXIT_IO}
# What a killed or failed run may leave, by name: none of it may stay after a non-zero exit (or after the next run).
DEBRIS = (".staging-", ".current-", ".tmp-", ".entry-", ".site-", ".nginx.conf-")
OTHER_UPSTREAM = "http://127.0.0.1:9"  # another _redirects file: a new export tree, its objects all reused
KILLED_WORKER = "ended without an answer (exit code -9)"  # a kill that landed in a process the command forked


def debris(*folders: Path) -> list[str]:
    return sorted(str(path) for folder in folders for path in folder.rglob("*") if path.name.startswith(DEBRIS))


def run(step: str, fault: str, arguments: list[str]) -> tuple[int, str, int]:
    """`ras ARGUMENTS` with the fault injected at `step`: exit code, stderr, and how often the fault landed."""
    if fault == "SIGKILL":
        command = [sys.executable, "-m", "tests.faults", step, fault, *arguments]
        child = subprocess.run(command, env=child_env(), capture_output=True, text=True)
        landed = child.returncode == -signal.SIGKILL or KILLED_WORKER in child.stderr
        return child.returncode, child.stderr, int(landed)
    with injected(step, fault) as injection:
        result = CliRunner().invoke(main, arguments, catch_exceptions=False)
    return result.exit_code, result.stderr, len(injection.hits)


@pytest.mark.parametrize("fault", FAULT_PARAMS)
@pytest.mark.parametrize("step", PUBLISH_STEPS)
def test_a_fault_at_any_step_of_a_publish_changes_nothing_or_completes_it(
    step: str, fault: str, releases_copy: Path, fixture_tree: Path, tmp_path: Path
):
    if step == "read" and fault in ("ENOSPC", "EROFS"):
        shutil.rmtree(releases_copy / ".cache" / "sec13f")  # the parse cache is what a read writes
    before = current_release(releases_copy).name
    arguments = ["publish", "--source", str(changed_fixture(fixture_tree, tmp_path)), "--releases", str(releases_copy)]
    code, stderr, hits = run(step, fault, arguments)
    assert hits, f"the {fault} at {step} never landed: the test would prove nothing"
    assert "Traceback" not in stderr, stderr
    if code == 0:
        after = current_release(releases_copy)
        assert after.name != before and verify_release(after) == [] and verify_ledger(releases_copy) == []
        assert debris(releases_copy) == []
        return
    assert current_release(releases_copy).name == before
    assert verify_release(current_release(releases_copy)) == []
    if fault == "SIGKILL":
        if code != -signal.SIGKILL:  # the kill landed in a process the publish forked: it stopped and said so
            last = stderr.strip().splitlines()[-1]
            assert last.startswith("Error: ") and KILLED_WORKER in last, stderr
        rerun = CliRunner().invoke(main, arguments, catch_exceptions=False)
        assert rerun.exit_code == 0, rerun.output
        assert current_release(releases_copy).name != before
    else:
        last = stderr.strip().splitlines()[-1]
        assert last.startswith("Error: ") and " — " in last, stderr
        assert code == (1 if step == "read" else EXIT_CODES[fault]), stderr  # a source file unread: a source problem
    assert debris(releases_copy) == []


@pytest.mark.parametrize("fault", FAULT_PARAMS)
def test_a_fault_while_an_export_writes_leaves_the_live_tree_and_no_staging(
    fault: str, published: Path, exported: Path, tmp_path: Path
):
    out = tmp_path / "dist"
    shutil.copytree(exported, out, symlinks=True)
    live = (out / SITE).resolve()
    arguments = ["export", "--releases", str(published), "--out", str(out), "--upstream", OTHER_UPSTREAM]
    code, stderr, hits = run("export", fault, arguments)
    assert hits and code != 0 and "Traceback" not in stderr, stderr
    assert (out / SITE).resolve() == live and verify_export(out) == (live.name, [])
    if fault == "SIGKILL":
        rerun = CliRunner().invoke(main, arguments, catch_exceptions=False)
        assert rerun.exit_code == 0 and (out / SITE).resolve() != live, rerun.output
    else:
        assert code == EXIT_CODES[fault] and stderr.strip().splitlines()[-1].startswith("Error: "), stderr
    assert debris(out) == []


@pytest.mark.parametrize(
    ("step", "fault", "line"),
    [
        (
            "seal",
            "ENOSPC",
            "no space left on the device (ENOSPC) — free space on that filesystem, then run the command again",
        ),
        (
            "promote",
            "EROFS",
            "the filesystem is read-only (EROFS) — use a writable folder (or remount it read-write), then run again",
        ),
    ],
)
def test_an_os_fault_names_the_file_what_happened_and_what_to_do(
    step: str, fault: str, line: str, releases_copy: Path, fixture_tree: Path, tmp_path: Path
):
    arguments = ["publish", "--source", str(changed_fixture(fixture_tree, tmp_path)), "--releases", str(releases_copy)]
    with injected(step, fault) as injection:
        result = CliRunner().invoke(main, arguments, catch_exceptions=False)
    assert result.exit_code == EXIT_CODES[fault]
    assert result.stderr.strip().splitlines()[-1] == f"Error: {injection.hits[0].path}: {line}"


def test_what_a_killed_run_left_is_removed_by_the_next_publish_which_names_it(releases_copy: Path, fixture_tree: Path):
    entry_folder = next((releases_copy / ".cache" / "sec13f").glob("*/*"))
    left = [
        releases_copy / ".staging-4242",
        releases_copy / ".cache" / ".tmp-publish.json-4242",
        entry_folder / ".entry-abc123",
    ]
    left[0].mkdir()
    for path in left[1:]:
        path.write_bytes(b"")
    (releases_copy / ".current-4242").symlink_to("nowhere")
    result = CliRunner().invoke(main, ["publish", "--source", str(fixture_tree), "--releases", str(releases_copy)])
    assert result.exit_code == 0, result.output
    assert debris(releases_copy) == []
    removed = [line for line in result.stderr.splitlines() if line.startswith("removed ")]
    assert removed == [
        "removed .current-4242 left by an interrupted publish",
        "removed .staging-4242 left by an interrupted publish",
        "removed .cache/.tmp-publish.json-4242 left by an interrupted publish",
        "removed 1 half-written parse-cache entries left by an interrupted publish",
    ]
