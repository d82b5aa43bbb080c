"""Export compresses on several processes into the same tree as on one, keeps every variant in a cache named by
the answer's sha256, coding and level, and takes from it only variants that decompress to their answer."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import brotli
import pytest

from builder.canonical import sha256_hex
from builder.export import variants
from builder.export.tree import SITE, TREES, Settings, export_release
from builder.export.variants import BATCH_ANSWERS, BATCH_BYTES, CACHE, Job, _batches, cache_path, cached_variants
from builder.release.objects import object_path
from builder.release.store import current_release


def export(releases: Path, out: Path, workers: int) -> list[str]:
    lines: list[str] = []
    export_release(releases, out, 8081, "http://127.0.0.1:8080", lines.append, Settings(workers=workers))
    return lines


def tree_bytes(out: Path) -> dict[str, bytes]:
    tree = (out / SITE).resolve()
    return {path.relative_to(tree).as_posix(): path.read_bytes() for path in tree.rglob("*") if path.is_file()}


def compressed_line(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith("compressed "))


@pytest.fixture
def out(exported: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "dist"
    shutil.copytree(exported, copy, symlinks=True)
    return copy


def test_two_processes_write_the_tree_one_writes(published: Path, exported: Path, tmp_path: Path):
    # conftest's `exported` ran on the default workers with brotli 4; so do these, on 1 and on 2 processes
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(variants, "BROTLI_QUALITY", 4)
        one, two = tmp_path / "one", tmp_path / "two"
        first = export(published, one, 1)
        export(published, two, 2)
    answers = len(list((one / SITE / "objects").glob("*.json")))
    assert compressed_line(first) == (
        f"compressed {answers} answers on 1 processes: 0 of {2 * answers} variants from the cache, "
        f"{2 * answers} compressed (br 4, gzip {variants.GZIP_LEVEL})"
    )
    assert tree_bytes(one) == tree_bytes(two) == tree_bytes(exported)
    assert (one / SITE).resolve().name == (two / SITE).resolve().name


def test_answers_and_variants_are_copies_of_their_own_of_the_release_and_the_cache(published: Path, exported: Path):
    release = current_release(published)
    assert release is not None
    tree = (exported / SITE).resolve()
    answers = sorted((tree / "objects").glob("*.json"))
    for answer in answers:
        sha256 = answer.name.removesuffix(".json")
        assert answer.read_bytes() == (release / object_path(sha256)).read_bytes()
        assert not os.path.samefile(answer, release / object_path(sha256))
        variant = tree / "objects" / f"{answer.name}.gz"
        entry = cached_variants(exported / CACHE)[(sha256, f"gzip-{variants.GZIP_LEVEL}")]
        assert variant.read_bytes() == entry.read_bytes() and not os.path.samefile(variant, entry)
        assert entry.name == f"{sha256}.gzip-{variants.GZIP_LEVEL}.{sha256_hex(variant.read_bytes())}"
    assert answers and all(path.stat().st_nlink == 1 for path in tree.rglob("*") if path.is_file())


def test_a_second_export_compresses_nothing_and_a_bad_cached_variant_is_compressed_again(published: Path, out: Path):
    tree = (out / SITE).resolve()
    answer = sorted((tree / "objects").glob("*.json"))[0]
    sha256 = answer.name.removesuffix(".json")
    cached = cached_variants(out / CACHE)[(sha256, "br-4")]
    assert brotli.decompress(cached.read_bytes()) == answer.read_bytes()
    cached.write_bytes(b"not brotli")
    (tree / "objects" / f"{answer.name}.br").unlink()  # the tree must be repaired from a good variant
    answers = len(list((tree / "objects").glob("*.json")))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(variants, "BROTLI_QUALITY", 4)
        lines = export(published, out, 2)

    assert compressed_line(lines) == (
        f"compressed {answers} answers on 2 processes: {2 * answers - 1} of {2 * answers} variants from the cache, "
        f"1 compressed (br 4, gzip {variants.GZIP_LEVEL})"
    )
    assert brotli.decompress((tree / "objects" / f"{answer.name}.br").read_bytes()) == answer.read_bytes()
    assert brotli.decompress(cached.read_bytes()) == answer.read_bytes()


def test_another_level_is_another_cache_entry_and_unused_entries_go(published: Path, out: Path):
    stale = cache_path(out / CACHE, "0" * 64, "br", 4, "1" * 64)
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_bytes(b"an answer no tree holds")
    answers = len(list((out / SITE / "objects").glob("*.json")))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(variants, "BROTLI_QUALITY", 3)
        lines = export(published, out, 2)

    assert compressed_line(lines).startswith(f"compressed {answers} answers on 2 processes: {answers} of ")
    trees = sorted(entry.name for entry in (out / TREES).iterdir())
    assert len(trees) == 2  # the brotli 4 tree and the brotli 3 one: another level, another tree
    assert not stale.exists()
    kept = sorted(path.name.split(".")[1] for path in (out / CACHE).rglob("*") if path.is_file())
    assert kept == sorted(["br-3", "br-4", f"gzip-{variants.GZIP_LEVEL}"] * answers)
    assert "removed 0 older trees, 1 unused cached variants" in lines[-3]


def test_answers_go_to_the_workers_in_batches_in_their_order_a_large_one_alone():
    sizes = {"big": BATCH_BYTES * 2, **{f"s{i:04}": 1000 for i in range(BATCH_ANSWERS + 10)}, "mid": BATCH_BYTES - 5}
    jobs = [Job(sha, Path(sha), (), Path("cache")) for sha in sizes]
    batches = _batches(jobs, sizes)
    assert [job for batch in batches for job in batch] == jobs
    assert [len(batch) for batch in batches] == [1, BATCH_ANSWERS, 10, 1]
    assert all(sum(sizes[j.sha256] for j in batch) <= BATCH_BYTES or len(batch) == 1 for batch in batches)
