"""The source is never a surprise: named on the first line, the current folder's packs.toml before the fixture,
and the fictional fixture never promoted over a release of real filings (Berkshire's, from ../shared/realdata)."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.errors import FixtureRefused
from builder.release.store import INDEX, current_release, list_releases
from builder.sources.tree import fixture_source
from tests.berkshire import berkshire_tree


def ras(*arguments: str):
    return CliRunner().invoke(main, list(arguments))


@pytest.fixture(scope="module")
def real_published(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a source tree of Berkshire's real filings; releases with a release of it promoted), published once by the
    operator's quarterly command run in the tree, with no --source: the corporate-actions gate stops it (AAPL's
    split and COST are undecided), and the operator, having reviewed it, promotes it with --override-gates."""
    root = tmp_path_factory.mktemp("real")
    tree = berkshire_tree(root / "quarterly", without=tuple(f"{year}-" for year in range(2013, 2019)), versions=4)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tree)
        first = ras("publish", "--releases", str(root / "releases"))
        assert first.exit_code == 3 and "corporate-actions: 2 undecided change(s)" in first.stderr, first.output
        built = first.stderr.split("`ras promote ")[-1].split()[0]
        promoted = ras("promote", built, "--override-gates", "--releases", str(root / "releases"))
    assert promoted.exit_code == 0, promoted.output
    return tree, root / "releases"


@pytest.fixture
def real(real_published: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The tree (the current folder) and a private copy of its releases."""
    tree, releases = real_published
    shutil.copytree(releases, tmp_path / "releases", symlinks=True)
    monkeypatch.chdir(tree)
    return tree, tmp_path / "releases"


def fixture_flag(releases: Path) -> bool:
    return orjson.loads((current_release(releases) / INDEX).read_bytes())["fixture"]


def test_a_folder_holding_packs_toml_is_the_source_and_the_first_line_says_so(real):
    tree, releases = real
    again = ras("publish", "--releases", str(releases))
    assert again.exit_code == 0
    assert again.stderr.splitlines()[0] == f"source: {tree.resolve()} (packs.toml in the current folder)"
    assert fixture_flag(releases) is False


def test_the_fixture_never_replaces_a_real_release_in_silence(real, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    _tree, releases = real
    promoted = current_release(releases).name
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    monkeypatch.chdir(empty)  # no packs.toml here: the fixture is chosen, and said to be
    refused = ras("publish", "--releases", str(releases))
    assert refused.exit_code == FixtureRefused.exit_code
    assert refused.stderr.splitlines()[0].startswith("source: the embedded fictional fixture (no packs.toml in ")
    assert refused.stderr.strip().splitlines()[-1] == (
        f"Error: the promoted release {promoted} is built from real sources and this one from the fictional fixture: "
        "not replaced — give --source DIR for real filings (or --replace-real-with-fixture if that is meant)"
    )
    assert current_release(releases).name == promoted and list_releases(releases) == [promoted]  # nothing built


def test_a_gate_names_the_fixture_as_the_reason_before_any_review(real, tmp_path: Path):
    _tree, releases = real
    gated = ras("publish", "--fixture", "--releases", str(releases), "--gate", "shrink,new-warnings")
    assert gated.exit_code == FixtureRefused.exit_code, gated.output  # not 3: the shrink is not the reason
    last = gated.stderr.strip().splitlines()[-1]
    assert "fictional fixture" in last and "shrink:" not in gated.stderr  # the gates are named, none reviewed
    assert "gates: new-warnings, shrink" in gated.stderr.splitlines()


def test_replacing_real_data_with_the_fixture_takes_the_explicit_flag(real):
    _tree, releases = real
    allowed = ras("publish", "--fixture", "--releases", str(releases), "--replace-real-with-fixture")
    assert allowed.exit_code == 0, allowed.output
    assert fixture_flag(releases) is True


def test_promote_of_a_fixture_release_over_a_real_one_is_refused_too(real):
    _tree, releases = real
    built = ras("build", "--fixture", "--releases", str(releases))
    assert built.exit_code == 0, built.output
    refused = ras("promote", built.stdout.strip(), "--releases", str(releases))
    assert refused.exit_code == FixtureRefused.exit_code and fixture_flag(releases) is False
    assert (
        ras("promote", built.stdout.strip(), "--releases", str(releases), "--replace-real-with-fixture").exit_code == 0
    )


def test_filings_without_packs_toml_are_an_error_not_a_reason_for_the_fixture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    (tmp_path / "sec13f").mkdir()
    monkeypatch.chdir(tmp_path)
    result = ras("publish", "--releases", str(tmp_path / "releases"))
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == (
        f"Error: {tmp_path.resolve()}: holds sec13f but no packs.toml — add packs.toml to publish this folder, or "
        "give --source DIR (or --fixture for the fictional demo data)"
    )
    assert not (tmp_path / "releases").exists()


def test_source_and_fixture_together_are_refused(tmp_path: Path):
    result = ras("build", "--fixture", "--source", str(fixture_source()), "--releases", str(tmp_path))
    assert result.exit_code == 1 and "--source and --fixture name two source trees" in result.stderr


def test_asked_for_by_name_the_fixture_is_built_wherever_the_command_runs(real):
    tree, releases = real
    built = ras("build", "--fixture", "--releases", str(releases))
    assert built.stderr.splitlines()[0] == "source: the embedded fictional fixture (--fixture)"
    assert (tree / "packs.toml").exists() and built.exit_code == 0
