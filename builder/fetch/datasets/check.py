"""Whether a downloaded data-set zip is a whole Form 13F data set: its central directory, every member's CRC, and the
seven tables the SEC publishes in every set, checked by streaming each member from disk (never whole in memory).

The tables: the Form 13F data sets' readme (FORM13F_readme.htm, §5 Table Definitions) and every real set name
SUBMISSION, COVERPAGE, OTHERMANAGER, OTHERMANAGER2, SIGNATURE, SUMMARYPAGE and INFOTABLE, each a `.tsv`, at the
zip's root or under a folder (`01JUN2025-31AUG2025_form13f/`): matched by base name, as the reader does.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path, PurePosixPath

from builder.sources.datasets.members import MAX_RATIO, MEMBER_BYTES, MIB

TABLES = ("SUBMISSION", "COVERPAGE", "OTHERMANAGER", "OTHERMANAGER2", "SIGNATURE", "SUMMARYPAGE", "INFOTABLE")
CHUNK = 1 << 20  # bytes inflated at a time
_BROKEN = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError, ValueError)


class NotASet(Exception):
    """Why a downloaded zip is not a whole Form 13F data set (the caller names the zip)."""


def check_set(path: Path) -> None:
    """NotASet unless `path` is a zip whose members all inflate to their stated CRC and which holds the seven tables."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            names = {PurePosixPath(info.filename).name.upper() for info in members}
            missing = [table for table in TABLES if f"{table}.TSV" not in names]
            if missing:
                raise NotASet(f"lacks {', '.join(f'{table}.tsv' for table in missing)}: not a whole Form 13F data set")
            for info in members:
                _inflate(archive, info)
    except _BROKEN as exc:
        raise NotASet(f"is not a whole zip archive (a cut or altered download): {exc}") from exc


def _inflate(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> None:
    """Read one member to its end: zipfile checks its CRC there, and stops at its stated size."""
    name = PurePosixPath(info.filename).name
    if info.file_size > MEMBER_BYTES:
        raise NotASet(f"{name} states {info.file_size:,} bytes, over the {MEMBER_BYTES // MIB} MiB a table may hold")
    if info.file_size > MAX_RATIO * max(info.compress_size, 1) and info.file_size > MIB:
        raise NotASet(
            f"{name} inflates {info.file_size // max(info.compress_size, 1):,} times: a zip bomb, not a table"
        )
    try:
        with archive.open(info) as stream:
            while stream.read(CHUNK):
                pass
    except _BROKEN as exc:
        raise NotASet(f"{name} cannot be read whole (a cut or altered download): {exc}") from exc
