"""Phase two of `ras export`: the planned tree written into a staging directory and renamed into place.

Every file of a tree is its own. The answers are copies of the release's object files and the compressed variants
copies of the export's cache entries: reflinks where the filesystem has them (builder.release.staging.owned_copy,
blocks shared copy-on-write, so a tree costs little more than its directory entries), plain copies where it has not.
Never hard links: a byte written into a linked file (a deploy tool editing in place, a mistaken command) landed in
the promoted release itself, which then failed `ras verify` and was answered 503 by `ras serve`, and the next export
copied the damage back. A file damaged by hand is found by `ras verify --export` and replaced, by a rename, by the
next export.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from builder.atomic import fsync_directory, staged, sync_filesystem
from builder.canonical import sha256_hex
from builder.errors import at_path
from builder.export.verify import RECORD, damaged_files
from builder.release.staging import owned_copy

TREES = ".releases"
STAGING_PREFIX = ".staging-"


@dataclass(frozen=True, slots=True)
class Tree:
    """Phase one's result: every file of an export tree, before anything is written."""

    release_id: str
    name: str  # directory under .releases: release id and a digest of the files
    files: dict[str, bytes]  # rendered for this tree: configuration, docs, the record
    copies: dict[str, tuple[str, Path]]  # answers and variants: path → (sha256, the checked file copied)

    def size(self) -> int:
        return sum(map(len, self.files.values())) + sum(source.stat().st_size for _, source in self.copies.values())


def write_tree(out: Path, tree: Tree, progress: Callable[[str], None]) -> Path:
    """Write a staging directory, make it durable, rename it into place. A tree of the same name is kept, but
    only after every file of it is hashed again: a file whose bytes differ is replaced, one too many removed
    (the record is what was planned, never proof of what is on disk)."""
    trees = out / TREES
    target = trees / tree.name
    if target.exists():
        repaired = repair_tree(target, tree)
        listed = f": {', '.join(repaired[:5])}{' …' if len(repaired) > 5 else ''}" if repaired else ""
        progress(f"tree {tree.name} already written; every file hashed again, {len(repaired)} repaired{listed}")
        return target
    staging = trees / f"{STAGING_PREFIX}{tree.name}-{os.getpid()}"
    with staged(staging) as place:
        paths = [*tree.files, *tree.copies]
        directories = sorted({staging, *((staging / path).parent for path in paths)})
        for directory in directories:
            directory.mkdir(parents=True, exist_ok=True)
        for path, body in sorted(tree.files.items()):
            if path != RECORD:
                _write(staging / path, body)
        reflinked = sum(_copy(source, staging / path) for path, (_, source) in sorted(tree.copies.items()))
        sync_filesystem(staging)  # every file durable (the cache's new variants too) before the record
        _write(staging / RECORD, tree.files[RECORD], durable=True)  # last: a tree with its record is complete
        for directory in reversed(directories):
            fsync_directory(directory)
        place(target)
    progress(
        f"wrote {len(paths)} files ({tree.size()} bytes) to {TREES}/{tree.name}: {len(tree.copies)} answers and "
        f"variants of its own, {reflinked} of them reflinked (copy-on-write), {len(tree.copies) - reflinked} copied"
    )
    return target


def repair_tree(target: Path, tree: Tree) -> list[str]:
    """Replace each file of `target` whose bytes are not the planned ones (each in one rename: a server reading the
    tree sees the old bytes or the new), remove those the plan lacks; the paths repaired."""
    planned = {path: sha256 for path, (sha256, _) in tree.copies.items()}
    planned.update({path: sha256_hex(body) for path, body in tree.files.items() if path != RECORD})
    altered, extra = damaged_files(target, planned)
    if sha256_hex(_read_bytes(target / RECORD)) != sha256_hex(tree.files[RECORD]):
        altered.append(RECORD)
    for path in altered:
        body = tree.files[path] if path in tree.files else tree.copies[path][1].read_bytes()
        replace_file(target / path, body)
    for path in extra:
        (target / path).unlink()
    return sorted([*altered, *extra])


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _copy(source: Path, destination: Path) -> bool:
    """`destination` a file of its own with `source`'s bytes; True when reflinked."""
    with at_path(destination):
        return owned_copy(source, destination)


def _write(path: Path, body: bytes, durable: bool = False) -> None:
    with at_path(path), open(path, "wb") as handle:
        handle.write(body)
        if durable:
            handle.flush()
            os.fsync(handle.fileno())


def replace_file(path: Path, body: bytes) -> None:
    """Replace `path` with `body` in one rename, durable; the temporary file never stays."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}-{os.getpid()}")
    try:
        _write(temporary, body, durable=True)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    fsync_directory(path.parent)


def write_atomically(path: Path, body: bytes) -> bool:
    """Replace a file in one rename; False when it already holds these bytes."""
    if path.is_file() and path.read_bytes() == body:
        return False
    replace_file(path, body)
    return True
