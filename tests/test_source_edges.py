"""The source tree's edges hold for every kind of file: names, links out of the tree, sizes.

A name that is not UTF-8 is refused by its escaped form (and a dot-folder such as .git/ is not walked at all); a
link leading out of the tree is refused in one line whatever reads it; a file over its limit is refused with
its size and the limit before a byte of it is read, so a publish stays small whatever the input.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.release.store import current_release, list_releases
from tests.servers import run_cli

MEMORY_BOUND_KIB = 300 * 1024  # the fixture publishes in ~50 MB; a 200 MB file must never be read into memory
FILING = "sec13f/9900000002/9900000002-23-000002.txt"  # one of the fixture's full submission files


@pytest.fixture
def source(fixture_tree: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "source"
    shutil.copytree(fixture_tree, copy)
    return copy


def publish(source: Path, releases: Path):
    return CliRunner().invoke(main, ["publish", "--source", str(source), "--releases", str(releases)])


def refused(result, releases: Path, before: str | None) -> str:
    """The one error line of a refused publish, after checking that nothing was promoted."""
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert (current_release(releases).name if current_release(releases) else None) == before
    return result.stderr.strip().splitlines()[-1]


def add_config(source: Path, text: str) -> None:
    with open(source / "packs.toml", "a", encoding="utf-8") as handle:
        handle.write(f"\n{text}\n")


def test_a_name_that_is_not_utf8_inside_a_dot_folder_is_never_walked(source: Path, releases_copy: Path):
    (source / ".git" / "objects").mkdir(parents=True)
    with open(os.fsencode(source / ".git" / "objects") + b"/caf\xe9", "wb") as handle:
        handle.write(b"not a source")
    result = publish(source, releases_copy)
    assert result.exit_code == 0, result.output
    assert current_release(releases_copy).name == result.stdout.strip()


def test_a_name_that_is_not_utf8_among_the_filings_is_refused_by_its_escaped_form(source: Path, releases_copy: Path):
    before = current_release(releases_copy).name
    shutil.copy(source / FILING, os.fsencode(source / "sec13f" / "9900000002") + b"/r\xe9sum\xe9.txt")
    line = refused(publish(source, releases_copy), releases_copy, before)
    assert line == (
        "Error: sec13f/9900000002/r\\xe9sum\\xe9.txt: the name is not UTF-8 — rename it (a release names "
        "its sources in UTF-8)"
    )


def test_a_200_mb_preview_file_is_refused_unread_with_its_size_and_the_limit(source: Path, releases_copy: Path):
    before = current_release(releases_copy).name
    preview = source / "previews" / "social" / "apewisdom_fixture.json"
    with open(preview, "r+b") as handle:
        handle.truncate(200 * 1000 * 1000)  # sparse: no disk used
    code, _out, stderr, peak_kib = run_cli("publish", "--source", str(source), "--releases", str(releases_copy))
    assert code == 1 and current_release(releases_copy).name == before
    assert stderr.strip().splitlines()[-1] == (
        "Error: previews/social/apewisdom_fixture.json: 200,000,000 bytes, over the 64 MiB limit for this source "
        "file — remove it, or raise [limits] file_mib in packs.toml"
    )
    assert peak_kib < MEMORY_BOUND_KIB


def test_the_limits_are_set_in_packs_toml_and_hold_for_a_new_kind_of_file_too(source: Path, tmp_path: Path):
    add_config(source, "[limits]\nsec13f_file_mib = 1\nfile_mib = 1")
    (source / "corporate_actions.csv").write_bytes(b"x" * (2 * 1024 * 1024))  # a kind no reader knows yet
    with open(source / FILING, "ab") as handle:
        handle.write(b" " * (2 * 1024 * 1024))
    result = publish(source, tmp_path / "releases")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines()[-3:] == [
        "Error: 2 problems in the sources:",
        "  corporate_actions.csv: 2,097,152 bytes, over the 1 MiB limit for this source file — remove it, or raise "
        "[limits] file_mib in packs.toml",
        f"  {FILING}: {2 * 1024 * 1024 + 20415:,} bytes, over the 1 MiB limit for this source file — remove it, or "
        "raise [limits] sec13f_file_mib in packs.toml",
    ]


def test_a_limit_that_is_no_whole_number_of_mib_is_a_problem_naming_the_key(source: Path, tmp_path: Path):
    add_config(source, '[limits]\nfile_mib = "big"')
    result = publish(source, tmp_path / "releases")
    assert result.stderr.strip().splitlines()[-1] == (
        "Error: packs.toml: [limits] file_mib must be a whole number of MiB 1–4096, not 'big'"
    )


@pytest.mark.parametrize(
    "inside", [FILING, "securities.csv", "previews/social/apewisdom_fixture.json", "sec13f/9900000002"]
)
def test_a_link_out_of_the_source_tree_is_refused_in_one_line_whatever_reads_it(
    inside: str, source: Path, tmp_path: Path
):
    outside = tmp_path / "outside" / Path(inside).name
    outside.parent.mkdir()
    shutil.move(source / inside, outside)
    (source / inside).symlink_to(outside, target_is_directory=outside.is_dir())
    result = publish(source, tmp_path / "releases")
    assert result.exit_code == 1 and list_releases(tmp_path / "releases") == []
    assert result.stderr.strip().splitlines()[-1] == (
        f"Error: {inside}: is a link to {outside}, outside the source tree — copy the file into the tree instead (a "
        "release is built from the tree alone)"
    )


def test_a_link_inside_the_source_tree_is_read_like_the_file_it_names(source: Path, tmp_path: Path):
    (source / "maps").mkdir()
    shutil.move(source / "securities.csv", source / "maps" / "securities.csv")
    (source / "securities.csv").symlink_to(Path("maps") / "securities.csv")
    assert publish(source, tmp_path / "releases").exit_code == 0
