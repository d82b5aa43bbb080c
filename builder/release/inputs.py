"""The inputs of a publish, as one digest: a publish whose inputs built the promoted release has nothing to do.

A build is a function of the source tree's bytes, the `--as-of` date, the builder's code and the promoted
release (its ledger of versions). After each publish the digest of those inputs, with the new release as
the promoted one, is kept in `releases/.cache/publish.json`; the next publish with the same digest finds
the release it would build already promoted, and stops after checking it.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from datetime import date
from pathlib import Path

import orjson

import builder

RECORD = Path(".cache") / "publish.json"  # beside the releases, in the dot-directory `ras releases` ignores
_CODE = Path(builder.__file__).parent
_SKIPPED_DIRECTORIES = {"__pycache__"}


def inputs_digest(source: Path, as_of: date | None, promoted: str | None, checks: Mapping[str, object]) -> str:
    """sha256 over every file of the source tree and of the builder, the as-of date, the promoted id and the
    publish's checks (a stricter `--max-unmapped-value` must run its check again)."""
    digest = hashlib.sha256()
    digest.update(orjson.dumps({"asOf": as_of and as_of.isoformat(), "promoted": promoted, "checks": dict(checks)}))
    for label, root in (("source", source.resolve()), ("code", _CODE)):
        for relative, sha256 in _tree(root):
            digest.update(f"{label}\0{relative}\0{sha256}\n".encode())
    return digest.hexdigest()


def recorded_release(releases: Path, digest: str) -> str | None:
    """The release the last publish made from inputs with this digest, if that is what was recorded."""
    try:
        record = orjson.loads((releases / RECORD).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    if not isinstance(record, dict) or record.get("inputs") != digest:
        return None
    release_id = record.get("releaseId")
    return release_id if isinstance(release_id, str) else None


def record_inputs(releases: Path, digest: str, release_id: str) -> None:
    """Keep the digest of the inputs that build `release_id` when it is the promoted release (atomically)."""
    path = releases / RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}-{os.getpid()}")
    temporary.write_bytes(orjson.dumps({"inputs": digest, "releaseId": release_id}))
    os.replace(temporary, path)


def _tree(root: Path) -> list[tuple[str, str]]:
    """(relative path, sha256) of every file under root; links to folders are named, not followed."""
    found = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = sorted(name for name in subfolders if name not in _SKIPPED_DIRECTORIES)
        for name in sorted(names):
            path = Path(folder) / name
            found.append((path.relative_to(root).as_posix(), _sha256(path)))
        found += [((Path(folder) / name).relative_to(root).as_posix(), "link")
                  for name in subfolders if (Path(folder) / name).is_symlink()]
    return sorted(found)


def _sha256(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"  # the build itself reports it; here it only has to differ
