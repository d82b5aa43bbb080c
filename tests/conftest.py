"""Shared fixtures: one release of the embedded fixture per session, and helpers to reach ../shared."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.export import variants as export_variants
from builder.export.tree import export_release
from builder.release.promote import publish
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


@pytest.fixture(scope="session")
def fixture_tree() -> Path:
    return fixture_source()


@pytest.fixture(scope="session")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A releases directory holding one promoted release of the embedded fixture (read-only: copy to change)."""
    releases = tmp_path_factory.mktemp("releases")
    publish(fixture_source(), releases, None, quiet)
    return releases


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

    root = tmp_path_factory.mktemp("berkshire")
    later = sorted({path.name[:10] for path in series().iterdir() if path.name[:10] > "2020-06-30"})
    tree = berkshire_tree(root / "source", without=later, versions=8)
    shutil.copy(Path(__file__).with_name("berkshire_corporate_actions.csv"), tree / "corporate_actions.csv")
    publish(tree, root / "releases", None, quiet)
    return root / "releases"


@pytest.fixture(scope="session")
def berkshire_release(berkshire_published: Path) -> LoadedRelease:
    directory = current_release(berkshire_published)
    assert directory is not None
    return load_release(directory)


@pytest.fixture(scope="session")
def exported(published: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """`ras export` of the session's release (read-only: copy to change). Brotli at quality 4, not the default
    10, costs a fraction of the time; every variant is still checked to decompress to its answer."""
    out = tmp_path_factory.mktemp("exported") / "dist"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(export_variants, "BROTLI_QUALITY", 4)
        export_release(published, out, 8081, "http://127.0.0.1:8080", quiet)
        yield out


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
