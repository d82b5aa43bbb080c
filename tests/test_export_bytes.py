"""Export trusts the bytes on disk, not its record of what it wrote: `ras verify --export` names every damaged
file of a static tree, and `ras export` again rewrites exactly those. A tree's files are its own: damage written into
one never reaches the release (or the variants' cache) it was copied from."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.export.tree import SITE
from builder.export.variants import CACHE
from builder.release.objects import object_path
from builder.release.store import ROUTES, current_release, verify_release
from server.app import create_app


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


LATEST = "/api/v1/packs/13f-copycat/latest"


def flip_in_place(path: Path) -> None:
    """One byte changed in the file itself (same inode), as a deploy tool editing in place would."""
    with open(path, "r+b") as handle:
        handle.seek(10)
        byte = handle.read(1)
        handle.seek(10)
        handle.write(bytes([byte[0] ^ 0x01]))


async def test_damage_written_into_an_export_never_reaches_the_release_and_the_next_export_repairs_it(
    aiohttp_client, releases_copy: Path, exported: Path, tmp_path: Path
):
    out = tmp_path / "dist"
    shutil.copytree(exported / CACHE, out / CACHE)  # the session's variants: this export compresses nothing
    assert ras("export", "--releases", str(releases_copy), "--out", str(out)).exit_code == 0
    release = current_release(releases_copy)
    assert release is not None
    sha256 = orjson.loads((release / ROUTES).read_bytes())[LATEST]["sha256"]
    answer = out / SITE / "objects" / f"{sha256}.json"
    assert answer.read_bytes() == (release / object_path(sha256)).read_bytes()
    client = await aiohttp_client(create_app(releases_copy))

    flip_in_place(answer)
    flip_in_place(answer.with_name(f"{answer.name}.gz"))

    assert verify_release(release) == []
    # the server reads and checks the answer's file now, for the first time: damaged, it would drop the release (503)
    served = await client.get(LATEST)
    assert served.status == 200 and await served.read() == (release / object_path(sha256)).read_bytes()
    assert (await client.get("/api/v1/health")).status == 200
    tree = (out / SITE).resolve().name
    assert ras("verify", "--export", str(out)).stderr.splitlines()[:2] == [
        f"{tree}: objects/{sha256}.json: sha256 does not match export.json",
        f"{tree}: objects/{sha256}.json.gz: sha256 does not match export.json",
    ]
    again = ras("export", "--releases", str(releases_copy), "--out", str(out))
    assert f"tree {tree} already written; every file hashed again, 2 repaired" in again.stderr
    assert " variants from the cache, 0 compressed " in again.stderr  # the cache's copy was never damaged either
    assert ras("verify", "--export", str(out)).stdout.strip() == f"{tree}: ok"
    assert answer.read_bytes() == (release / object_path(sha256)).read_bytes()


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
