"""`ras verify --export DIR`: every damaged file of a static export tree, found from the bytes on disk.

A tree's export.json records the sha256 of every other file in it; each object is also named by the sha256
of its bytes, and each compressed variant must decompress to its object. A file missing, altered or not in
the record is reported; `ras export` rewrites exactly those (builder.export.tree).
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson

from builder.errors import ReleaseError, escaped
from builder.export.variants import EXTENSIONS, decompresses_to
from builder.release.store import sha256_files

RECORD = "export.json"
SITE = "site"
OBJECTS = "objects/"


def tree_files(tree: Path) -> list[str]:
    """Every file under the tree, as paths relative to it."""
    return sorted(
        (Path(folder) / name).relative_to(tree).as_posix() for folder, _dirs, names in os.walk(tree) for name in names
    )


def damaged_files(tree: Path, expected: dict[str, str]) -> tuple[list[str], list[str]]:
    """(files missing or not holding the bytes `expected` names, files present that `expected` lacks)."""
    present = set(tree_files(tree)) - {RECORD}
    checked = sorted(present & expected.keys())
    altered = [
        path
        for path, sha256 in zip(checked, sha256_files([tree / p for p in checked]), strict=True)
        if sha256 != expected[path]
    ]
    return sorted([*altered, *(expected.keys() - present)]), sorted(present - expected.keys())


def verify_export(out: Path) -> tuple[str, list[str]]:
    """The live tree's name under OUT and every problem of its files (an empty list: every byte checks out)."""
    site = out / SITE
    if not site.is_symlink() or not site.resolve().is_dir():
        raise ReleaseError(f"{escaped(out)}: no exported tree (no {SITE} link) — run `ras export --out {escaped(out)}`")
    tree = site.resolve()
    try:
        expected = orjson.loads((tree / RECORD).read_bytes())["files"]
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return tree.name, [f"{RECORD}: missing or unreadable — run `ras export` again", *_object_problems(tree)]
    altered, extra = damaged_files(tree, expected)
    return tree.name, [
        *(
            f"{path}: {'sha256 does not match export.json' if (tree / path).exists() else 'missing'}"
            for path in altered
        ),
        *(f"{path}: not in export.json" for path in extra),
    ]


def _object_problems(tree: Path) -> list[str]:
    """Without the record: objects whose bytes are not the sha256 in their name, variants that do not
    decompress to their object."""
    problems = []
    for path in tree_files(tree):
        if not path.startswith(OBJECTS) or not path.endswith(".json"):
            continue
        body = (tree / path).read_bytes()
        if sha256_files([tree / path])[0] != path.removeprefix(OBJECTS).removesuffix(".json"):
            problems.append(f"{path}: sha256 does not match its name")
            continue
        for coding, extension in EXTENSIONS.items():
            variant = tree / f"{path}{extension}"
            if variant.exists() and not decompresses_to(coding, variant.read_bytes(), body):
                problems.append(f"{path}{extension}: does not decompress to its object")
    return problems
