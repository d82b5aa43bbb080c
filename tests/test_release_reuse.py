"""A new release writes (or reflinks) its own copy of the files it shares with the promoted one: never a hard link."""

from __future__ import annotations

import os
import re
import shutil
from datetime import date
from pathlib import Path

from builder.release.promote import publish
from builder.release.store import verify_release
from builder.sources.tree import fixture_source


def test_a_next_day_release_shares_no_inode_with_the_previous_one(published: Path, tmp_path: Path) -> None:
    releases = tmp_path / "releases"
    shutil.copytree(published, releases, symlinks=True)
    before = (releases / "current").resolve()
    messages: list[str] = []
    release_id = publish(fixture_source(), releases, date(2027, 1, 4), messages.append)
    after = releases / release_id
    assert re.search(r"\((\d+) reused from the previous release\)", "\n".join(messages))
    shared = [p for p in (after / "objects").iterdir() if (before / "objects" / p.name).exists()]
    assert shared
    assert not any(os.path.samefile(p, before / "objects" / p.name) for p in shared)
    assert all(p.stat().st_nlink == 1 for p in shared)
    assert verify_release(after) == [] and verify_release(before) == []
