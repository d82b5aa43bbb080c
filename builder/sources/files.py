"""The source tree's edges, the same for every kind of source file: which files are walked, which names and
links are refused, and how many bytes a file may hold.

The rules hold for the whole tree before any reader runs (`tree_problems`), so a new kind of source file
gets them without a line of its own; a reader then reads through `read_bounded`, which never holds more than
the limit in memory however the file grew since.

- A dot-file or dot-folder (.git, .DS_Store, an editor's swap file) is not the operator's data: not walked.
- A name that is not UTF-8 cannot be published (JSON, HTTP and the provenance need text): refused, shown
  with its bytes escaped (`caf\\xe9.txt`).
- A link that leads out of the source tree is refused: a release is built from the tree, not from wherever
  its links point (a link inside the tree is read like the file it names).
- A file larger than its limit is refused, naming its size and the limit (packs.toml `[limits]`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.errors import escaped
from builder.records import SourceProblem

MIB = 1024 * 1024
# eis_13FDocument.xsd allows 250,000 rows; the largest real tables (tens of thousands of rows) are tens of MB.
# 128 MiB admits them with room and bounds what one hostile file can claim while it is parsed.
SEC13F_FILE_MIB = 128
# Any other source file: House Stock Watcher's whole history is ~15 MB, a securities map of every US listing a
# few tens of MB. A 200 MB preview file took 2.4 GB to publish and 1.5 GB to serve: no source is that large.
FILE_MIB = 64
# A Form 13F data-set zip (sec13f-datasets/): the SEC's sets are 95–100 MB zipped; 512 MiB leaves room for growth
# (a set of 3.8 million rows is 400 MB inflated) and bounds what one hostile archive can claim.
DATASET_FILE_MIB = 512
MAX_LIMIT_MIB = 4096  # what packs.toml may raise a limit to
CONFIG_BYTES = MIB  # packs.toml itself, read before its limits are known: 1,000 managers are ~100 kB
SEC13F = "sec13f"
DATASETS = "sec13f-datasets"


@dataclass(frozen=True, slots=True)
class Limit:
    """The bytes one kind of source file may hold, and the packs.toml `[limits]` key that sets them (in MiB)."""

    bytes: int
    key: str


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits of 13F documents (under sec13f/), of the data-set zips (under sec13f-datasets/) and of every other
    source file."""

    sec13f: Limit = Limit(SEC13F_FILE_MIB * MIB, "sec13f_file_mib")
    file: Limit = Limit(FILE_MIB * MIB, "file_mib")
    datasets: Limit = Limit(DATASET_FILE_MIB * MIB, "datasets_file_mib")

    def of(self, relative: str) -> Limit:
        """The limit of the source file at `relative` (its path from the source root)."""
        if relative.startswith(f"{DATASETS}/"):
            return self.datasets
        return self.sec13f if relative.startswith(f"{SEC13F}/") else self.file


LIMIT_KEYS = {
    "sec13f_file_mib": "sec13f",
    "file_mib": "file",
    "datasets_file_mib": "datasets",
}  # packs.toml [limits] key → Limits field
DEFAULT_LIMITS = Limits()


def read_limits(section: Any, name: str, problems: list[SourceProblem]) -> Limits:
    """packs.toml `[limits]` (MiB per file) as Limits; a bad value is a problem naming the key."""
    if not isinstance(section, Mapping):
        problems.append(SourceProblem(name, "[limits] must be a table"))
        return DEFAULT_LIMITS
    values = {}
    for key, field in LIMIT_KEYS.items():
        value = section.get(key)
        if value is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_LIMIT_MIB:
            problems.append(
                SourceProblem(name, f"[limits] {key} must be a whole number of MiB 1–{MAX_LIMIT_MIB}, not {value!r}")
            )
            continue
        values[field] = Limit(value * MIB, key)
    return Limits(**values)


def hidden(name: str) -> bool:
    """A dot-file or dot-folder: not the operator's data, never walked."""
    return name.startswith(".")


def is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # os.walk hands undecodable bytes over as lone surrogates
        return False
    return True


def walk(directory: Path, skipped: frozenset[str] = frozenset()) -> Iterator[Path]:
    """Every file (and link to a folder, not followed) under `directory`, sorted; dot-names and folders named in
    `skipped` are left out."""
    for folder, subfolders, names in os.walk(directory):  # links to folders are not followed: no cycles
        subfolders[:] = sorted(name for name in subfolders if not hidden(name) and name not in skipped)
        links = [name for name in subfolders if (Path(folder) / name).is_symlink()]
        yield from (Path(folder) / name for name in sorted([*(n for n in names if not hidden(n)), *links]))


def relative(path: Path, root: Path) -> str:
    return Path(os.path.relpath(path, root)).as_posix()


def tree_problems(root: Path, limits: Limits) -> list[SourceProblem]:
    """Every name, link and size in the tree that breaks the rules above (`root` resolved)."""
    problems = []
    for path in walk(root):
        source = relative(path, root)
        problem = _name_problem(source) or _link_problem(path, source, root) or _size_problem(path, source, limits)
        if problem is not None:
            problems.append(problem)
    return problems


def _name_problem(source: str) -> SourceProblem | None:
    if is_utf8(source):
        return None
    return SourceProblem(escaped(source), "the name is not UTF-8 — rename it (a release names its sources in UTF-8)")


def _link_problem(path: Path, source: str, root: Path) -> SourceProblem | None:
    if not path.is_symlink():
        return None
    target = path.resolve()
    if target.is_relative_to(root):
        return None
    return SourceProblem(
        source,
        f"is a link to {escaped(target)}, outside the source tree — copy the file into "
        f"the tree instead (a release is built from the tree alone)",
    )


def _size_problem(path: Path, source: str, limits: Limits) -> SourceProblem | None:
    try:
        size = path.stat().st_size
    except OSError:
        return None  # a dangling link or a file gone: its reader says so
    limit = limits.of(source)
    return _too_large(source, size, limit) if size > limit.bytes else None


def _too_large(source: str, size: int, limit: Limit) -> SourceProblem:
    allowed = f"{limit.bytes // MIB} MiB" if limit.bytes % MIB == 0 else f"{limit.bytes:,}-byte"
    return SourceProblem(
        source,
        f"{size:,} bytes, over the {allowed} limit for this source file — remove it, or "
        f"raise [limits] {limit.key} in packs.toml",
    )


def read_bounded(path: Path, source: str, limit: Limit) -> bytes | SourceProblem:
    """The bytes of a source file (`source`: its name in messages), never more than `limit` of them in memory;
    a problem naming the file otherwise."""
    try:
        with path.open("rb") as handle:
            data = handle.read(limit.bytes + 1)
    except OSError as exc:
        return SourceProblem(source, f"cannot be read ({exc.strerror}) — check that it is a readable file")
    if len(data) > limit.bytes:
        return _too_large(source, max(len(data), _size(path)), limit)
    return data


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
