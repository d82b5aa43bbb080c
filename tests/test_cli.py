"""The `ras` command line: progress with counts, one-line errors, exit codes."""

from __future__ import annotations

import gc
from pathlib import Path

from click.testing import CliRunner

from builder.cli import main
from builder.release import publish as publish_module
from builder.release.store import current_release


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_publish_reports_progress_with_counts_and_prints_the_release_id(tmp_path: Path):
    result = run("publish", "--releases", str(tmp_path))
    assert result.exit_code == 0, result.output
    release_id = result.stdout.strip()
    assert current_release(tmp_path).name == release_id
    assert "filings" in result.stderr and "versions of 13f-copycat" in result.stderr
    assert f"promoted {release_id}" in result.stderr


def test_verify_and_releases_mark_the_promoted_release(published: Path):
    release_id = current_release(published).name
    result = run("verify", "--releases", str(published))
    assert result.exit_code == 0 and result.stdout.splitlines() == [f"{release_id}: ok", "ledger.jsonl: ok"]
    listing = run("releases", "--releases", str(published)).stdout.splitlines()
    assert listing[0].endswith("oldest as-of first (then build time); * promoted")
    assert listing[1].startswith(f"* {release_id}  as of ")


def test_verify_fails_with_exit_1_naming_the_altered_file(releases_copy: Path):
    directory = current_release(releases_copy)
    victim = sorted((directory / "objects").iterdir())[0]
    victim.write_bytes(b"tampered")
    result = CliRunner().invoke(main, ["verify", "--releases", str(releases_copy)])
    assert result.exit_code == 1
    assert f"objects/{victim.name}: sha256 does not match the manifest" in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("Error: release")


def test_a_source_tree_without_packs_toml_is_one_clear_error(tmp_path: Path):
    (tmp_path / "src").mkdir()
    result = CliRunner().invoke(main, ["publish", "--source", str(tmp_path / "src"), "--releases", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-1] == "Error: packs.toml: missing: every source tree needs a packs.toml"
    assert current_release(tmp_path / "r") is None


def test_build_writes_without_promoting_and_promote_then_switches(tmp_path: Path):
    built = run("build", "--releases", str(tmp_path))
    release_id = built.stdout.strip()
    assert current_release(tmp_path) is None
    promoted = run("promote", release_id, "--releases", str(tmp_path))
    assert promoted.exit_code == 0 and current_release(tmp_path).name == release_id


def test_build_and_publish_write_by_one_story_with_the_collector_paused(tmp_path: Path, monkeypatch):
    """`ras build` is `ras publish` stopped after the write (builder.release.publish): the same release, written with
    the cyclic collector off, and the collector back on after."""
    written: list[tuple[str, bool]] = []
    real = publish_module.write_release

    def watched(*args, **kwargs):
        release_id = real(*args, **kwargs)
        written.append((release_id, gc.isenabled()))
        return release_id

    monkeypatch.setattr(publish_module, "write_release", watched)
    built = run("build", "--releases", str(tmp_path / "built"))
    published = run("publish", "--releases", str(tmp_path / "published"))
    assert built.exit_code == 0 and published.exit_code == 0, (built.output, published.output)
    release_id = built.stdout.strip()
    assert written == [(release_id, False), (release_id, False)]
    assert published.stdout.strip() == release_id and current_release(tmp_path / "published").name == release_id
    assert current_release(tmp_path / "built") is None
    assert gc.isenabled()
