"""Promotion is the last thing that can fail: what a publish records is written before `current` moves, and
after the move the exit is 0 (anything that still fails is a warning). A non-zero exit means nothing changed."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder import atomic
from builder.cli import main
from builder.release.inputs import RECORD
from builder.release.store import current_release, verify_release
from tests.test_reliability import changed_fixture


def publish(releases: Path, source: Path):
    return CliRunner().invoke(main, ["publish", "--source", str(source), "--releases", str(releases)])


def test_a_record_that_cannot_be_written_is_a_warning_and_the_release_is_promoted(
    releases_copy: Path, fixture_tree: Path, tmp_path: Path
):
    (releases_copy / RECORD).unlink()
    (releases_copy / RECORD).mkdir()  # a directory where the record of the inputs belongs
    result = publish(releases_copy, changed_fixture(fixture_tree, tmp_path))
    assert result.exit_code == 0, result.output
    promoted = current_release(releases_copy)
    assert result.stdout.strip() == promoted.name and verify_release(promoted) == []
    assert f"warning: {releases_copy / RECORD}: not written" in result.stderr
    assert "Traceback" not in result.output


def test_what_fails_after_current_has_moved_is_a_warning_with_exit_0(
    releases_copy: Path, fixture_tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    before = current_release(releases_copy).name
    real = atomic.fsync_directory

    def failing(directory: Path) -> None:
        if (directory / "current").resolve().name != before:  # only once the link has moved
            raise OSError(errno.EIO, os.strerror(errno.EIO), str(directory))
        real(directory)

    monkeypatch.setattr(atomic, "fsync_directory", failing)
    result = publish(releases_copy, changed_fixture(fixture_tree, tmp_path))
    assert result.exit_code == 0, result.output
    assert current_release(releases_copy).name == result.stdout.strip() != before
    assert (
        f"warning: {releases_copy}: the promotion may not survive a power cut (Input/output error); it is in "
        "place" in result.stderr.splitlines()
    )
