"""Export trusts the bytes on disk, not its record of what it wrote: `ras verify --export` names every damaged
file of a static tree, and `ras export` again rewrites exactly those."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.export.tree import SITE


@pytest.fixture
def out(exported: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "dist"
    shutil.copytree(exported, copy, symlinks=True)
    return copy


def ras(*arguments: str):
    return CliRunner().invoke(main, list(arguments))


def objects(out: Path) -> list[Path]:
    return sorted((out / SITE / "objects").iterdir())


def test_every_damaged_file_is_named_and_the_next_export_rewrites_exactly_those(published: Path, out: Path):
    files = objects(out)
    flipped, truncated, deleted = files[3], files[7], files[11]  # answers and compressed variants alike
    original = {path: path.read_bytes() for path in (flipped, truncated, deleted)}
    data = bytearray(original[flipped])
    data[len(data) // 2] ^= 0x01  # one byte, as a disk or a hand might change it
    flipped.write_bytes(bytes(data))
    truncated.write_bytes(original[truncated][:10])
    deleted.unlink()
    (out / SITE / "objects" / "stray.json").write_bytes(b"{}")

    checked = ras("verify", "--export", str(out))
    tree = (out / SITE).resolve().name
    assert checked.exit_code == 1
    assert sorted(checked.stderr.strip().splitlines()[:-1]) == sorted(
        [
            f"{tree}: objects/{flipped.name}: sha256 does not match export.json",
            f"{tree}: objects/{truncated.name}: sha256 does not match export.json",
            f"{tree}: objects/{deleted.name}: missing",
            f"{tree}: objects/stray.json: not in export.json",
        ]
    )
    assert checked.stderr.strip().splitlines()[-1] == f"Error: export tree {tree} fails verification (4 problems)"

    again = ras("export", "--releases", str(published), "--out", str(out))
    assert again.exit_code == 0, again.output
    assert f"tree {tree} already written; every file hashed again, 4 repaired" in again.stderr
    assert {path: path.read_bytes() for path in original} == original
    assert not (out / SITE / "objects" / "stray.json").exists()
    assert ras("verify", "--export", str(out)).stdout.strip() == f"{tree}: ok"


def test_an_unreadable_record_is_reported_and_each_object_is_still_checked_against_its_name(out: Path):
    tree = (out / SITE).resolve()
    (tree / "export.json").write_bytes(b"{not json")
    victim = next(path for path in objects(out) if path.name.endswith(".json"))
    victim.write_bytes(victim.read_bytes() + b" ")
    checked = ras("verify", "--export", str(out))
    assert checked.exit_code == 1
    assert checked.stderr.strip().splitlines()[:-1] == [
        f"{tree.name}: export.json: missing or unreadable — run `ras export` again",
        f"{tree.name}: objects/{victim.name}: sha256 does not match its name",
    ]


def test_verify_export_of_a_folder_with_no_export_is_one_line(tmp_path: Path):
    checked = ras("verify", "--export", str(tmp_path))
    assert checked.exit_code == 1
    assert checked.stderr.splitlines() == [
        f"Error: {tmp_path}: no exported tree (no site link) — run `ras export --out {tmp_path}`"
    ]
