"""Promote a release with one atomic rename, one writer at a time (the publish's last step: builder.release.publish).

Promotion is the last thing that can fail: everything a publish records is written before `current` moves,
and what follows the move (making the rename durable, the progress line) can only warn. So a non-zero exit
always means that `current` did not move.
"""

from __future__ import annotations

import os
from contextlib import AbstractContextManager
from pathlib import Path

import orjson

from builder.atomic import exclusive, settle
from builder.errors import FixtureRefused, ReleaseError
from builder.release.store import CURRENT, INDEX, current_release, verify_release

CURRENT_PREFIX = ".current-"  # the new link, made beside `current` and renamed over it


def releases_lock(releases: Path) -> AbstractContextManager[None]:
    """One publish, build or promote at a time in a releases directory."""
    return exclusive(releases, "publish")


def promote(releases: Path, release_id: str, replace_real: bool = False) -> list[str]:
    """Point `current` at a verified release with one atomic rename (readers see the old or the new).

    Raises before the rename, never after it: what fails after it is returned as warnings.
    """
    target = releases / release_id
    if not target.is_dir() or target.is_symlink() or release_id.startswith("."):
        raise ReleaseError(f"no release {release_id!r} in {releases}")
    refuse_fixture_over_real(releases, _is_fixture(target) is True, replace_real)
    problems = verify_release(target)
    if problems:
        raise ReleaseError(f"release {release_id} fails verification: {problems[0]}")
    link = releases / f"{CURRENT_PREFIX}{os.getpid()}"
    try:
        if link.is_symlink():
            link.unlink()
        os.symlink(release_id, link)
        os.replace(link, releases / CURRENT)
    except BaseException:
        link.unlink(missing_ok=True)
        raise
    return settle(releases, "the promotion")  # `current` has moved: from here on nothing may fail it


def refuse_fixture_over_real(releases: Path, fixture: bool, replace_real: bool) -> None:
    """FixtureRefused when a release of fixture data would replace a promoted one built from real sources."""
    current = current_release(releases)
    if not fixture or replace_real or current is None or _is_fixture(current) is not False:
        return
    raise FixtureRefused(
        f"the promoted release {current.name} is built from real sources and this one from the fictional fixture: "
        f"not replaced — give --source DIR for real filings (or --replace-real-with-fixture if that is meant)"
    )


def _is_fixture(directory: Path) -> bool | None:
    """Whether a release was built from fixture data; None when its index cannot be read."""
    try:
        return bool(orjson.loads((directory / INDEX).read_bytes())["fixture"])
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return None
