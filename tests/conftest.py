"""Shared fixtures: one release of the embedded fixture per test run, and helpers to reach ../shared.

The suite stays fast (`make test`: four workers on two cores, well under five minutes) by making each costly thing
once and keeping the cores for work that tests something:
- a release, an export or any folder several files read is a session fixture made once in the whole run, whatever
  the number of workers (`made_once`: `published`, `exported`, `berkshire_published`); a test that changes one works
  on a copy (`releases_copy`);
- a server several tests of a file ask is a module-scoped fixture, started once per file (`make test` hands out
  whole files, `--dist loadfile`); a test starts its own only when the start itself is what it tests;
- a test that runs for a set time (a soak, a timeout) paces its load instead of taking every cycle it can: the other
  three workers' tests share the two cores with it;
- speed is measured in bench/, never asserted here. `pytest --durations=30` lists the slowest tests; a new one among
  them should say in its docstring why it cannot share.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from builder.export.tree import export_release
from builder.release.publish import publish
from builder.release.store import LoadedRelease, current_release, load_release
from builder.sources.tree import fixture_source

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
REALDATA = SHARED / "realdata"


def realdata(*parts: str) -> Path:
    """A path under ../shared/realdata; skips the test when ../shared is not beside the checkout."""
    if not REALDATA.is_dir():
        pytest.skip("../shared/realdata is not beside this checkout (CI always has it)")
    return REALDATA.joinpath(*parts)


def quiet(_message: str) -> None:
    """A progress sink for tests."""


def made_once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The directory `make(directory)` fills, made once in the whole run however many workers run it: the first
    worker to ask makes it, under a lock in the run's base folder; the others wait for it and take it as it is. What
    it holds is read-only (copy it to change it): every worker's tests read it at once."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:  # one process: its own temporary folder
        directory = factory.mktemp(name)
        make(directory)
        return directory
    root = factory.getbasetemp().parent  # the run's folder, above each worker's
    directory, made = root / name, root / f"{name}.made"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not made.exists():
            shutil.rmtree(directory, ignore_errors=True)  # what a worker that failed to make it left
            make(directory)
            made.touch()
    return directory


@pytest.fixture(scope="session")
def fixture_tree() -> Path:
    return fixture_source()


@pytest.fixture(scope="session")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A releases directory holding one promoted release of the embedded fixture (read-only: copy to change)."""
    return made_once(tmp_path_factory, "releases", lambda releases: publish(fixture_source(), releases, None, quiet))


@pytest.fixture(scope="session")
def release(published: Path) -> LoadedRelease:
    directory = current_release(published)
    assert directory is not None
    return load_release(directory)


@pytest.fixture(scope="session")
def berkshire_published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A releases directory of Berkshire Hathaway's real 13F filings, eight versions up to 2020-06-30 (the quarter it
    sold the airlines), with the public record of its corporate actions (read-only: copy to change)."""
    from tests.berkshire import berkshire_tree, series  # beside this module, which it imports

    def make(root: Path) -> None:
        later = sorted({path.name[:10] for path in series().iterdir() if path.name[:10] > "2020-06-30"})
        tree = berkshire_tree(root / "source", without=later, versions=8)
        shutil.copy(Path(__file__).with_name("berkshire_corporate_actions.csv"), tree / "corporate_actions.csv")
        publish(tree, root / "releases", None, quiet)

    return made_once(tmp_path_factory, "berkshire", make) / "releases"


@pytest.fixture(scope="session")
def berkshire_release(berkshire_published: Path) -> LoadedRelease:
    directory = current_release(berkshire_published)
    assert directory is not None
    return load_release(directory)


@pytest.fixture(scope="session")
def exported(published: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`ras export` of the session's release (read-only: copy to change)."""
    return (
        made_once(
            tmp_path_factory,
            "exported",
            lambda root: export_release(published, root / "dist", 8081, "http://127.0.0.1:8080", quiet),
        )
        / "dist"
    )


@pytest.fixture
def releases_copy(published: Path, tmp_path: Path) -> Path:
    """A private copy of the published releases directory that a test may alter."""
    target = tmp_path / "releases"
    shutil.copytree(published, target, symlinks=True)
    return target


DAMAGES = ("flip", "truncate", "delete", "add")


def damage(directory: Path, kind: str) -> Path:
    """Alter one answer file of a release as `kind` says; returns the file now wrong (the added one for "add")."""
    victim = sorted((directory / "objects").iterdir())[3]
    if kind == "flip":
        data = bytearray(victim.read_bytes())
        data[10] ^= 0x01
        victim.write_bytes(bytes(data))
    elif kind == "truncate":
        victim.write_bytes(victim.read_bytes()[:20])
    elif kind == "delete":
        victim.unlink()
    else:
        victim = directory / "objects" / "extra.json"
        victim.write_bytes(b"{}")
    return victim


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow reliability tests first: on several workers the soak then runs beside the rest, not after it."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
