"""packs.toml: which packs a source tree publishes, and for 13f-copycat which managers."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from builder.records import CopycatConfig, ManagerConfig, ManagerSource, SourceProblem
from builder.sources.files import CONFIG_BYTES, DEFAULT_LIMITS, Limits, read_limits
from builder.sources.packs_keys import KeyLines, key_lines, unknown_keys

DEFAULT_VERSIONS = 8  # DESIGN: newest 8 common quarters unless packs.toml says otherwise
QUARTER_ENDS = ((3, 31), (6, 30), (9, 30), (12, 31))  # 13F periods end on calendar quarter ends
MANAGER_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")  # safe in a query string and a file name


@dataclass(frozen=True, slots=True)
class PacksConfig:
    fixture: bool
    as_of: date | None
    copycat: CopycatConfig
    sections: Mapping[str, Any]  # the whole parsed file, for the preview-pack readers
    limits: Limits = DEFAULT_LIMITS  # [limits]: the bytes a source file may hold
    largest: Largest | None = None  # [copycat] largest: the pack's managers also the N largest filers of the sets


@dataclass(frozen=True, slots=True)
class Largest:
    """`[copycat] largest = N`: the N largest filers of the Form 13F data sets are managers of the pack too
    (builder.sources.datasets.largest chooses them)."""

    count: int
    line: int | None  # where packs.toml says it
    versions: int = 1  # [copycat] versions: a filer is taken only with a holdings report for each (see largest_filers)

    def problem(self, message: str) -> SourceProblem:
        """A problem of the selection, naming the line of packs.toml that asks for it."""
        return SourceProblem("packs.toml", f"[copycat] largest = {self.count}: {message}", self.line)


def read_packs_config(path: Path, base: Path) -> tuple[PacksConfig | None, tuple[SourceProblem, ...]]:
    """Parse packs.toml; every problem names the file (and the key)."""
    name = path.relative_to(base).as_posix()
    try:
        with path.open("rb") as handle:
            data = handle.read(CONFIG_BYTES + 1)
        if len(data) > CONFIG_BYTES:
            return None, (SourceProblem(name, f"larger than {CONFIG_BYTES:,} bytes: not a packs.toml"),)
        text = data.decode("utf-8")
        sections = tomllib.loads(text)
    except FileNotFoundError:
        return None, (SourceProblem(name, "missing: every source tree needs a packs.toml"),)
    except OSError as exc:
        return None, (SourceProblem(name, f"cannot be read ({exc.strerror}) — check that it is a readable file"),)
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        line = _toml_error_line(exc)
        return None, (SourceProblem(name, f"not valid TOML: {exc}", line),)
    lines = key_lines(text)
    problems: list[SourceProblem] = unknown_keys(sections, lines, name)
    source = sections.get("source", {})
    as_of = _as_of(source.get("as_of"), name, problems)
    largest = _largest(sections.get("copycat", {}), name, problems, lines)
    copycat = _copycat(sections.get("copycat", {}), name, problems, lines, largest is not None)
    largest = replace(largest, versions=copycat.versions) if largest is not None else None
    limits = read_limits(sections.get("limits", {}), name, problems)
    if problems:
        return None, tuple(problems)
    return PacksConfig(bool(source.get("fixture", False)), as_of, copycat, sections, limits, largest), ()


def _largest(section: Any, name: str, problems: list[SourceProblem], lines: KeyLines) -> Largest | None:
    """`largest = N`: a whole number of filers, at least one."""
    if "largest" not in section:
        return None
    count, line = section["largest"], lines.get(("copycat", 0, "largest"))
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        message = f"[copycat] largest must be a whole number of filers, 1 or more, not {count!r}"
        problems.append(SourceProblem(name, message, line))
        return None
    return Largest(count, line)


def _copycat(section: Any, name: str, problems: list[SourceProblem], lines: KeyLines, selects: bool) -> CopycatConfig:
    versions = section.get("versions", DEFAULT_VERSIONS)
    if not isinstance(versions, int) or isinstance(versions, bool) or not 1 <= versions <= 64:
        problems.append(SourceProblem(name, f"[copycat] versions must be an integer 1–64, not {versions!r}"))
        versions = DEFAULT_VERSIONS
    managers: list[ManagerConfig] = []
    for index, entry in enumerate(section.get("managers", []), start=1):
        manager = _manager(entry, index, name, problems, lines)
        if manager is not None:
            managers.append(manager)
    if not managers and not problems and not selects:
        message = "[copycat] lists no managers ([[copycat.managers]] with a cik) and selects none (largest = N)"
        problems.append(SourceProblem(name, message))
    _check_unique(managers, name, problems)
    return CopycatConfig(tuple(managers), versions)


def _manager(entry: Any, index: int, name: str, problems: list[SourceProblem], lines: KeyLines) -> ManagerConfig | None:
    where = f"[[copycat.managers]] #{index}"
    if not isinstance(entry, dict):
        problems.append(SourceProblem(name, f"{where} must be a table"))
        return None
    # Only the CIK is required: a manager named by it alone takes the name its newest filing gives and an id made
    # of that name (sources.named).
    manager_id, manager_name, cik = entry.get("id", ""), entry.get("name", ""), str(entry.get("cik", ""))
    if not isinstance(manager_id, str) or (manager_id and not MANAGER_ID.match(manager_id)):
        problems.append(SourceProblem(name, f"{where}: id must match {MANAGER_ID.pattern}, not {manager_id!r}"))
        return None
    if not isinstance(manager_name, str) or ("name" in entry and not manager_name.strip()):
        problems.append(SourceProblem(name, f"{where} ({manager_id or cik}): name must be text, not {manager_name!r}"))
        return None
    if not cik.isdigit() or len(cik) > 10:
        problems.append(SourceProblem(name, f"{where} ({manager_id}): cik must be up to 10 digits, not {cik!r}"))
        return None
    allowed = _allow_missing(entry.get("allow_missing", []), f"{where} ({manager_id or cik})", name, problems)
    line = lines.get(("copycat.managers", index - 1, "source"))
    source = _source(entry.get("source", ManagerSource.DATASETS.value), f"{where} ({manager_id or cik})", name, line)
    if isinstance(source, SourceProblem):
        problems.append(source)
        return None
    fictional = bool(entry.get("fictional", False))
    return ManagerConfig(manager_id, manager_name.strip(), cik.zfill(10), fictional, allowed, source)


def _source(value: Any, where: str, name: str, line: int | None) -> ManagerSource | SourceProblem:
    """Where the manager's quarters come from: the data sets (the default) or its filing files alone."""
    try:
        return ManagerSource(value)
    except ValueError:
        known = " or ".join(f'"{member.value}"' for member in ManagerSource)
        return SourceProblem(name, f"{where}: source must be {known}, not {value!r}", line)


def _allow_missing(value: Any, where: str, name: str, problems: list[SourceProblem]) -> tuple[date, ...]:
    """The quarter ends a manager may lack inside the window, as dates."""
    quarters = []
    for item in value if isinstance(value, list) else [value]:
        quarter = item if type(item) is date else _date_or_none(item)
        if quarter is None or (quarter.month, quarter.day) not in QUARTER_ENDS:
            problems.append(
                SourceProblem(name, f"{where}: allow_missing lists quarter ends (YYYY-MM-DD), not {item!r}")
            )
            continue
        quarters.append(quarter)
    return tuple(sorted(set(quarters)))


def _date_or_none(value: Any) -> date | None:
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        return None


def _check_unique(managers: list[ManagerConfig], name: str, problems: list[SourceProblem]) -> None:
    for attribute in ("id", "cik"):
        seen: set[str] = set()
        for manager in managers:
            value = getattr(manager, attribute)
            if value and value in seen:  # an id left to the filings is checked once it is made
                problems.append(SourceProblem(name, f"[copycat] manager {attribute} {value!r} appears twice"))
            seen.add(value)


def _as_of(value: Any, name: str, problems: list[SourceProblem]) -> date | None:
    if value is None or isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except ValueError:
        problems.append(SourceProblem(name, f"[source] as_of must be a date (YYYY-MM-DD), not {value!r}"))
        return None


def _toml_error_line(exc: Exception) -> int | None:
    found = re.search(r"line (\d+)", str(exc))
    return int(found.group(1)) if found else None
