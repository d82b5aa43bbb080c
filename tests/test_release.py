"""Releases: deterministic, content-addressed, verified against their manifests, promoted atomically."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import date, timedelta
from pathlib import Path

import orjson
import pytest

from builder.errors import PublishError, ReleaseError
from builder.release import inputs
from builder.release.inputs import RECORD
from builder.release.promote import promote
from builder.release.publish import publish
from builder.release.store import current_release, list_releases, verify_release
from tests.conftest import DAMAGES, damage, quiet


def tree_bytes(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_two_publishes_of_the_same_sources_are_byte_identical(published: Path, fixture_tree: Path, tmp_path: Path):
    other = tmp_path / "again"
    release_id = publish(fixture_tree, other, None, quiet)
    first = current_release(published)
    assert release_id == first.name
    assert tree_bytes(other / release_id) == tree_bytes(first)


def test_the_manifest_and_seal_vouch_for_every_file(release):
    manifest = orjson.loads((release.directory / "manifest.json").read_bytes())
    seal = orjson.loads((release.directory / "seal.json").read_bytes())
    on_disk = {p.relative_to(release.directory).as_posix() for p in release.directory.rglob("*") if p.is_file()}
    assert on_disk - {"manifest.json", "seal.json"} == manifest["files"].keys() | seal["files"].keys()
    assert verify_release(release.directory) == []
    assert release.release_id.startswith(release.data.index["asOf"])


def test_every_answer_file_is_named_by_the_sha256_of_its_bytes(release):
    import hashlib

    for path in (release.directory / "objects").iterdir():
        assert path.stem == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", DAMAGES)
def test_verify_names_the_damaged_file(releases_copy: Path, kind: str):
    directory = current_release(releases_copy)
    victim = damage(directory, kind)
    problems = verify_release(directory)
    assert len(problems) == 1
    assert problems[0].startswith(f"objects/{victim.name}: ")


@pytest.mark.parametrize("workers", [1, 3])  # the source tree hashed on any number of processes: the same inputs
def test_republishing_unchanged_sources_stops_before_building(
    releases_copy: Path, fixture_tree: Path, workers: int, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(inputs, "HASHED_TOGETHER", 16)  # the fixture's 196 files in 13 shares
    before = current_release(releases_copy)
    messages: list[str] = []
    assert publish(fixture_tree, releases_copy, None, messages.append, workers=workers) == before.name
    assert any(
        m.startswith(f"unchanged: the sources, --as-of and code built the promoted release {before.name}")
        for m in messages
    )
    assert not any(m.startswith("reading sources") for m in messages)
    assert list_releases(releases_copy) == [before.name]


def test_without_the_record_of_its_inputs_an_unchanged_publish_builds_and_reuses_the_release(
    releases_copy: Path, fixture_tree: Path
):
    before = current_release(releases_copy)
    (releases_copy / RECORD).unlink()
    messages: list[str] = []
    assert publish(fixture_tree, releases_copy, None, messages.append) == before.name
    assert any("already written; reusing it" in m for m in messages)
    assert list_releases(releases_copy) == [before.name]


def test_an_unchanged_publish_over_a_damaged_release_does_not_skip(releases_copy: Path, fixture_tree: Path):
    victim = next((current_release(releases_copy) / "objects").iterdir())
    victim.write_bytes(victim.read_bytes() + b" ")
    messages: list[str] = []
    with pytest.raises(PublishError, match="fails verification"):
        publish(fixture_tree, releases_copy, None, messages.append)
    assert any("fails verification" in m and "building it again" in m for m in messages)


def test_another_as_of_is_another_input(releases_copy: Path, fixture_tree: Path):
    before = current_release(releases_copy)
    as_of = date.fromisoformat(before.name[:10]) + timedelta(days=1)
    assert publish(fixture_tree, releases_copy, as_of, quiet) != before.name


def changed_sources(fixture_tree: Path, tmp_path: Path) -> Path:
    """The fixture with one securities.csv name changed: every version's content changes."""
    source = tmp_path / "source"
    shutil.copytree(fixture_tree, source)
    lines = (source / "securities.csv").read_text().splitlines()
    assert lines[0].startswith("cusip,ticker")
    (source / "securities.csv").write_text("\n".join([lines[0], lines[1] + " (RENAMED)", *lines[2:]]) + "\n")
    return source


def test_changed_content_of_a_published_quarter_gets_the_next_minor(
    releases_copy: Path, fixture_tree: Path, tmp_path: Path
):
    before = current_release(releases_copy)
    old_versions = orjson.loads((before / "data/release.json").read_bytes())["copycat"]["versions"]
    publish(changed_sources(fixture_tree, tmp_path), releases_copy, None, quiet)
    new_versions = orjson.loads((current_release(releases_copy) / "data/release.json").read_bytes())["copycat"][
        "versions"
    ]
    assert [v.replace("-v2.0", "-v2.1") for v in old_versions] == new_versions
    ledger = orjson.loads((current_release(releases_copy) / "data/ledger.json").read_bytes())
    assert {e["versionId"] for e in ledger} == set(old_versions) | set(new_versions)


def test_a_release_whose_own_ledger_forgot_still_gets_no_reused_id(
    releases_copy: Path, fixture_tree: Path, tmp_path: Path
):
    current = current_release(releases_copy)
    old_versions = orjson.loads((current / "data/release.json").read_bytes())["copycat"]["versions"]
    (current / "data/ledger.json").write_bytes(b"[]")  # a release ledger that forgot what it published
    publish(changed_sources(fixture_tree, tmp_path), releases_copy, None, quiet)
    new_versions = orjson.loads((current_release(releases_copy) / "data/release.json").read_bytes())["copycat"][
        "versions"
    ]
    assert not set(old_versions) & set(new_versions)  # releases/ledger.jsonl remembers


def test_promote_refuses_an_unknown_or_damaged_release(releases_copy: Path):
    with pytest.raises(ReleaseError, match="no release"):
        promote(releases_copy, "../elsewhere")
    directory = current_release(releases_copy)
    (directory / "routes.json").write_bytes(b"{}")
    with pytest.raises(ReleaseError, match="fails verification"):
        promote(releases_copy, directory.name)


def test_a_publish_killed_at_any_moment_leaves_current_on_a_complete_release(
    releases_copy: Path, fixture_tree: Path, tmp_path: Path
):
    source = changed_sources(fixture_tree, tmp_path)
    before = current_release(releases_copy).name
    command = [
        sys.executable,
        "-m",
        "builder.cli",
        "publish",
        "--source",
        str(source),
        "--releases",
        str(releases_copy),
    ]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    outcomes = set()
    for delay in (0.05, 0.2, 0.4, 0.6, 0.8, 1.0, 1.3, 1.7):
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait()
        current = current_release(releases_copy)
        assert verify_release(current) == []
        outcomes.add(current.name == before)
        if current.name != before:
            os.replace(releases_copy / "current", releases_copy / "dropped")
            os.symlink(before, releases_copy / "current")
            shutil.rmtree(releases_copy / current.name)
    assert True in outcomes  # at least one kill landed before the promotion
    publish(source, releases_copy, None, quiet)  # the next publish cleans up and completes
    assert not [p for p in releases_copy.iterdir() if p.name.startswith(".staging-")]
    assert verify_release(current_release(releases_copy)) == []
