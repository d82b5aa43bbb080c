"""Provenance of a source file: its path relative to the source root, size and sha256."""

from __future__ import annotations

import hashlib
from pathlib import Path

from builder.records import SourceFile


def source_file(path: Path, root: Path, data: bytes | None = None) -> SourceFile:
    """The SourceFile record of `path`; pass `data` when the bytes were already read."""
    if data is None:
        data = path.read_bytes()
    return SourceFile(path.relative_to(root).as_posix(), hashlib.sha256(data).hexdigest(), len(data))
