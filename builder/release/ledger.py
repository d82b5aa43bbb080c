"""The releases directory's ledger: every version id ever assigned there, with the content it names.

releases/ledger.jsonl holds one {versionId, quarter, contentSha256} per line, appended and fsynced before
the release that introduces the ids is renamed into place, so no release (promoted, rolled back or pruned)
ever holds an id the ledger does not know. It is never rewritten, only appended to. Reading it also folds in
what every release still present vouches for (its own data/ledger.json, and the digest of any artifact no
ledger lists), which rebuilds a lost or truncated ledger and keeps ids unique across releases written
before the ledger existed.

A line a crash cut short (the last one, without its newline) is cut off by the next publish, which says so;
`ras verify` checks the whole file: every line parses, no id names two contents, and every entry a release
records of itself (its data/ledger.json) is in the ledger with the same content.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from builder.atomic import fsync_directory
from builder.errors import at_path
from builder.release.objects import LEGACY_SUFFIX, artifact_of
from builder.release.store import ARTIFACT_SUFFIX, ARTIFACTS, LEDGER, list_releases
from builder.research.versions import LedgerEntry, content_digest

LEDGER_FILE = "ledger.jsonl"
KEYS = frozenset({"versionId", "quarter", "contentSha256"})


def read_ledger(releases: Path) -> list[LedgerEntry]:
    """Every version id known in `releases`, the first content recorded for an id winning, sorted by id."""
    entries: dict[str, LedgerEntry] = {}
    names = list_releases(releases)
    for entry in (
        *_ledger_lines(releases / LEDGER_FILE),
        *(e for name in names for e in _release_ledger(releases / name)),
    ):
        entries.setdefault(entry["versionId"], entry)
    for name in names:  # an artifact no ledger lists (a ledger lost or edited): its own digest, read only then
        for entry in _unlisted_artifacts(releases / name, entries.keys()):
            entries.setdefault(entry["versionId"], entry)
    return [entries[key] for key in sorted(entries)]


def record_ledger(releases: Path, entries: Iterable[LedgerEntry]) -> int:
    """Append the entries the ledger lacks and make them durable; how many were appended."""
    known = {entry["versionId"] for entry in _ledger_lines(releases / LEDGER_FILE)}
    missing = [_entry(entry) for entry in entries if entry["versionId"] not in known]
    if not missing:
        return 0
    path = releases / LEDGER_FILE
    created = not path.exists()
    with at_path(path), open(path, "ab") as handle:
        if handle.tell() and not _ends_with_newline(path):
            handle.write(b"\n")  # a line cut short by a crash stays alone, never glued to the next one
        handle.write(b"".join(orjson.dumps(entry, option=orjson.OPT_SORT_KEYS) + b"\n" for entry in missing))
        handle.flush()
        os.fsync(handle.fileno())
    if created:
        fsync_directory(releases)
    return len(missing)


def repair_ledger(releases: Path) -> str:
    """Cut off a last line a crash left without its newline (an entry of a release that never landed: the
    append precedes the rename); what was done, for the console ("" when the ledger is whole)."""
    path = releases / LEDGER_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return ""
    if not data or data.endswith(b"\n"):
        return ""
    whole = data.rfind(b"\n") + 1
    with at_path(path), open(path, "r+b") as handle:
        handle.truncate(whole)
        handle.flush()
        os.fsync(handle.fileno())
    line = data.count(b"\n") + 1
    return (
        f"{LEDGER_FILE}: removed line {line}, cut short by an interrupted publish ({len(data) - whole} bytes, "
        f"an entry of a release that never landed)"
    )


def verify_ledger(releases: Path) -> list[str]:
    """Every problem of the ledger: a line that does not parse, an id with two contents, an entry a release
    records that the ledger lacks or gives other content."""
    path = releases / LEDGER_FILE
    names = list_releases(releases)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return [f"{LEDGER_FILE}: missing — the next publish rebuilds it from the releases"] if names else []
    problems: list[str] = []
    first: dict[str, tuple[str, int]] = {}  # version id → (its first content, the line of it)
    lines = data.splitlines()
    for number, line in enumerate(lines, start=1):
        entry = _parsed(line)
        if number == len(lines) and not data.endswith(b"\n"):
            problems.append(
                f"{LEDGER_FILE}:{number}: cut short by an interrupted publish — the next publish removes it"
            )
        elif entry is None:
            problems.append(f"{LEDGER_FILE}:{number}: not a ledger entry ({line[:60].decode('utf-8', 'replace')!r})")
        elif first.setdefault(entry["versionId"], (entry["contentSha256"], number))[0] != entry["contentSha256"]:
            problems.append(
                f"{LEDGER_FILE}:{number}: {entry['versionId']} names other content than line "
                f"{first[entry['versionId']][1]}"
            )
    for name in names:
        for entry in _release_ledger(releases / name):
            known = first.get(entry["versionId"])
            if known is None:
                problems.append(
                    f"{LEDGER_FILE}: lacks {entry['versionId']}, which release {name} records — the next "
                    f"publish appends it"
                )
            elif known[0] != entry["contentSha256"]:
                problems.append(
                    f"{LEDGER_FILE}:{known[1]}: {entry['versionId']} names other content than release {name} records"
                )
    return problems


def _entry(entry: Mapping[str, Any]) -> LedgerEntry:
    """The entry's three fields (a ledger line or a release's record, parsed: what is written of it)."""
    return {"versionId": entry["versionId"], "quarter": entry["quarter"], "contentSha256": entry["contentSha256"]}


def _ends_with_newline(path: Path) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def _ledger_lines(path: Path) -> Iterator[LedgerEntry]:
    """The ledger's entries in the order written; a line a crash cut short is skipped (the releases rebuild it)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    for line in data.splitlines():
        entry = _parsed(line)
        if entry is not None:
            yield entry


def _parsed(line: bytes) -> LedgerEntry | None:
    """A ledger entry, or None for a line that is not one."""
    try:
        entry = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return _entry(entry) if isinstance(entry, dict) and entry.keys() >= KEYS else None


def _unlisted_artifacts(directory: Path, known: Iterable[str]) -> Iterator[LedgerEntry]:
    """Ledger entries for the release's artifacts whose ids `known` lacks, from the artifacts' own bytes."""
    listed = set(known)
    stored = (*(directory / ARTIFACTS).glob(f"*{ARTIFACT_SUFFIX}"), *(directory / ARTIFACTS).glob(f"*{LEGACY_SUFFIX}"))
    for path in sorted(stored):
        if path.name.removesuffix(ARTIFACT_SUFFIX).removesuffix(LEGACY_SUFFIX) in listed:
            continue
        try:
            artifact = artifact_of(path.read_bytes())
            yield {
                "versionId": artifact["versionId"],
                "quarter": artifact["quarter"],
                "contentSha256": content_digest(artifact),
            }
        except (OSError, orjson.JSONDecodeError, zlib.error, KeyError, TypeError):
            continue


def _release_ledger(directory: Path) -> list[LedgerEntry]:
    try:
        entries = orjson.loads((directory / LEDGER).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return []
    if not isinstance(entries, list):
        return []
    return [_entry(e) for e in entries if isinstance(e, dict) and e.keys() >= KEYS]
