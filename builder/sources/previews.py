"""The preview packs' sources: packs.toml `[person]`, `[congress]`, `[social]` → files read → source records.

A pack whose section is absent is absent. Paths are relative to the source root; a directory stands for
every `*.json` file under it. Every section takes `as_of` (evaluate on that date; never later than the
release's as-of: no look-ahead) and `fixture` (fictional data; default `[source] fixture`). Example:

    [person]
    name = "Jane Roe"                           # required; pack id "jane-roe-tracker"
    aliases = ["Roe, Jane"]                     # other spellings of the name in the disclosures
    files = ["previews/person"]                 # stock-watcher JSON: House, Senate or daily-report shape

    [congress]
    files = ["previews/congress/house.json", "previews/congress/senate.json"]
    unused = []                                 # optional, [person] too: files under `files` the pack does not read
    [congress.aliases]                          # optional: spellings of one member no rule can merge
    "Christopher L. Jacobs" = ["Chris Jacobs"]
    [congress.demo]                             # optional; research's defaults shown
    window_days = 30
    min_members = 2
    min_amount = 1001                           # dollars: lower bound of a trade's disclosed range
    [congress.strict]
    window_days = 30
    min_members = 3
    min_amount = 15001

    [social]
    forum = "wallstreetbets"                    # required: the ApeWisdom filter
    abbreviation = "wsb"                        # optional id prefix: "wsb-social-momentum"
    files = ["previews/social/apewisdom.json"]  # ApeWisdom-shaped snapshots
    min_mentions = 25                           # optional, with min_baseline = 10 and top = 10
    exclude = ["DD"]                            # ticker-words added to the published exclusion list

Missing files, invalid JSON and bad settings are fatal `SourceProblem`s naming the file, and so is a
disclosure file whose shape cannot answer the pack: one without a disclosure date on any row (the Senate
aggregate shape), as both packs count a trade from the day it was disclosed; an operator who keeps such a file
beside the others lists it in `unused`, and the pack does not read it. Malformed rows are not fatal: they are counted in the parsed files and in one report line per file. Settings left out stay
None in the records: the research side applies its defaults (the values shown above).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from builder.records import SourceFile, SourceProblem
from builder.sources.congress.people import NameKey, name_key
from builder.sources.congress.rows import CongressFile, RowOutcome, parse_congress
from builder.sources.files import DEFAULT_LIMITS, Limit, read_bounded
from builder.sources.provenance import source_file
from builder.sources.social import SocialFile, parse_social

CONFIG = "packs.toml"
MAX_MEMBERS = 535  # seats in Congress: a cluster cannot need more distinct members


@dataclass(frozen=True, slots=True)
class PersonSource:
    """[person]: whose disclosures to track, and the files they are in."""

    name: str  # as shown; the pack id is "<slug of name>-tracker"
    files: tuple[CongressFile, ...]
    aliases: tuple[str, ...] = ()  # other spellings in the disclosures ("Roe, Jane")
    fixture: bool = False
    as_of: date | None = None  # evaluation date; research never evaluates later than the release's as-of

    @property
    def keys(self) -> frozenset[NameKey]:
        """Every configured spelling as a name key (builder.sources.congress.people): the rows that name this person."""
        return frozenset(name_key(name) for name in (self.name, *self.aliases))


@dataclass(frozen=True, slots=True)
class RuleSettings:
    """One cluster rule as packs.toml sets it: None where it leaves research's default."""

    window_days: int | None = None
    min_members: int | None = None
    min_amount: int | None = None


@dataclass(frozen=True, slots=True)
class CongressSource:
    """[congress]: the disclosure files and the operator's cluster settings."""

    files: tuple[CongressFile, ...]
    demo: RuleSettings = RuleSettings()
    strict: RuleSettings = RuleSettings()
    fixture: bool = False
    as_of: date | None = None
    aliases: tuple[tuple[str, ...], ...] = ()  # groups of spellings of one member, each led by its shown name


@dataclass(frozen=True, slots=True)
class SocialSource:
    """[social]: the forum, its snapshot files and the operator's settings (None: research's default)."""

    forum: str  # ApeWisdom filter name, e.g. "wallstreetbets"
    files: tuple[SocialFile, ...]
    abbreviation: str = ""
    exclude: tuple[str, ...] = ()  # ticker-words added to research's published exclusion list, upper-case
    min_mentions: int | None = None
    min_baseline: int | None = None
    top: int | None = None
    fixture: bool = False
    as_of: date | None = None


@dataclass(frozen=True, slots=True)
class PreviewsRead:
    sources: Mapping[str, object]  # PersonSource, CongressSource, SocialSource by section name
    problems: tuple[SourceProblem, ...]  # fatal: missing file, invalid JSON, bad setting
    files: tuple[SourceFile, ...]  # provenance, by path
    reports: tuple[str, ...]  # one line per file read: rows read, malformed rows


class _Reader:
    """Reads each configured file once, collecting problems, provenance and report lines."""

    def __init__(self, root: Path, limit: Limit) -> None:
        self.root = root
        self.limit = limit  # the bytes one file may hold
        self.problems: list[SourceProblem] = []
        self.files: dict[str, SourceFile] = {}
        self.parsed: dict[tuple[str, str], CongressFile | SocialFile] = {}  # by path and parser
        self.unreadable: set[tuple[str, str]] = set()  # reported once, however many sections list the file
        self.notes: dict[str, list[str]] = {}  # extra report notes per path (which person, which sections)

    def problem(self, message: str, source: str = CONFIG, line: int | None = None) -> None:
        self.problems.append(SourceProblem(source, message, line))

    def paths(self, kind: str, section: Mapping[str, Any]) -> list[str]:
        """The section's `files`, directories expanded to their *.json files, every one checked to exist."""
        entries = section.get("files")
        entries = [entries] if isinstance(entries, str) else entries
        if not isinstance(entries, list) or not entries or not all(isinstance(e, str) for e in entries):
            self.problem(f"[{kind}] files must be a non-empty list of paths relative to the source root")
            return []
        found: list[str] = []
        unused = section.get("unused", [])
        if not isinstance(unused, list) or not all(isinstance(e, str) for e in unused):
            self.problem(f"[{kind}] unused must be a list of paths relative to the source root")
            unused = []
        for entry in entries:
            target = (self.root / entry).resolve()
            if Path(entry).is_absolute() or not target.is_relative_to(self.root):
                self.problem(f"[{kind}] files: {entry!r} is not inside the source root")
            elif target.is_dir():
                listed = sorted(
                    p.relative_to(self.root).as_posix()
                    for p in target.rglob("*.json")
                    if p.is_file() and p.resolve().is_relative_to(self.root)
                )
                if not listed:
                    self.problem(f"[{kind}] files: {entry!r} holds no .json file")
                found += listed
            elif target.is_file():
                found.append(target.relative_to(self.root).as_posix())
            else:
                self.problem(f"missing: configured in [{kind}] files", target.relative_to(self.root).as_posix())
        for entry in unused:
            if entry not in found:
                self.problem(f"[{kind}] unused: {entry!r} is not one of the files [{kind}] files names")
        return [path for path in dict.fromkeys(found) if path not in unused]

    def read(self, path: str, section: str, parse: Callable[[bytes, str], Any]) -> Any:
        """The parsed file (cached), or None after recording why it cannot be read."""
        self.notes.setdefault(path, [])
        if section not in self.notes[path]:
            self.notes[path].append(section)
        key = (path, parse.__name__)
        if key in self.parsed or key in self.unreadable:
            return self.parsed.get(key)
        full = self.root / path
        data = read_bounded(full, path, self.limit)
        if isinstance(data, SourceProblem):
            self.unreadable.add(key)
            self.problems.append(data)
            return None
        self.files[path] = source_file(full, self.root, data)
        try:
            self.parsed[key] = parse(data, path)
        except json.JSONDecodeError as exc:
            self.unreadable.add(key)
            self.problem(f"not valid JSON: {exc.msg} (column {exc.colno})", path, exc.lineno)
        except (ValueError, RecursionError) as exc:
            self.unreadable.add(key)
            self.problem(f"not a [{section}] source: {exc}", path)
        return self.parsed.get(key)

    def reports(self) -> tuple[str, ...]:
        return tuple(_report(path, self.parsed[path, parser], self.notes[path]) for path, parser in sorted(self.parsed))


def read_previews(root: Path, sections: Mapping[str, Any], limit: Limit = DEFAULT_LIMITS.file) -> PreviewsRead:
    """Every configured preview pack's input (each file read up to `limit`), or the problems that stop the build."""
    reader = _Reader(root.resolve(), limit)
    source = sections.get("source")
    default_fixture = bool(source.get("fixture", False)) if isinstance(source, Mapping) else False
    found: dict[str, object] = {}
    for kind, build in (("person", _person), ("congress", _congress), ("social", _social)):
        section = sections.get(kind)
        if section is None:
            continue
        if not isinstance(section, Mapping):
            reader.problem(f"[{kind}] must be a table")
            continue
        settings = _Settings(kind, section, reader)
        built = build(settings, reader, settings.flag("fixture", default_fixture))
        if not settings.failed:
            found[kind] = built
    files = tuple(sorted(reader.files.values(), key=lambda f: f.path))
    return PreviewsRead(found, tuple(reader.problems), files, reader.reports())


class _Settings:
    """Typed access to one section's keys; a bad value is a problem naming the section and the key."""

    def __init__(self, kind: str, section: Mapping[str, Any], reader: _Reader) -> None:
        self.kind, self.section, self.reader, self.failed = kind, section, reader, False

    def fail(self, message: str) -> None:
        self.failed = True
        self.reader.problem(f"[{self.kind}] {message}")

    def text(self, key: str) -> str:
        value = self.section.get(key)
        if not isinstance(value, str) or not value.strip():
            self.fail(f"{key} must be a non-empty string, not {value!r}")
            return ""
        return value.strip()

    def texts(self, key: str) -> tuple[str, ...]:
        value = self.section.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
            self.fail(f"{key} must be a list of strings, not {value!r}")
            return ()
        return tuple(item.strip() for item in value)

    def integer(self, key: str, low: int, high: int, table: str = "") -> int | None:
        """The key's value, or None when absent (research applies its default)."""
        value = (self.section.get(table, {}) if table else self.section).get(key)
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
            self.fail(f"{table + '.' if table else ''}{key} must be an integer {low}–{high}, not {value!r}")
            return None
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.section.get(key, default)
        if not isinstance(value, bool):
            self.fail(f"{key} must be true or false, not {value!r}")
            return default
        return value

    def day(self) -> date | None:
        value = self.section.get("as_of")
        if value is None or type(value) is date:
            return value
        try:
            return date.fromisoformat(str(value))
        except ValueError:
            self.fail(f"as_of must be a date (YYYY-MM-DD), not {value!r}")
            return None


def _person(settings: _Settings, reader: _Reader, fixture: bool) -> PersonSource:
    source = PersonSource(
        settings.text("name"),
        _files(settings, reader, parse_congress),
        settings.texts("aliases"),
        fixture,
        settings.day(),
    )
    for file in source.files:
        rows = sum(trade.member_key in source.keys for trade in file.trades)
        notes = reader.notes[file.source]
        notes[notes.index("person")] = f"person: {rows} rows of {source.name}"
    return source


def _congress(settings: _Settings, reader: _Reader, fixture: bool) -> CongressSource:
    files = _files(settings, reader, parse_congress)
    return CongressSource(
        files, _rule(settings, "demo"), _rule(settings, "strict"), fixture, settings.day(), _aliases(settings)
    )


def _aliases(settings: _Settings) -> tuple[tuple[str, ...], ...]:
    """[congress.aliases] `"Shown Name" = ["other spelling", …]` as groups led by the shown name."""
    table = settings.section.get("aliases", {})
    if not isinstance(table, Mapping) or not all(
        isinstance(others, list) and others and all(isinstance(o, str) and o.strip() for o in others)
        for others in table.values()
    ):
        settings.fail(f'aliases must be a table of "name" = ["other spelling", …], not {table!r}')
        return ()
    return tuple((name.strip(), *(o.strip() for o in others)) for name, others in sorted(table.items()))


def _social(settings: _Settings, reader: _Reader, fixture: bool) -> SocialSource:
    forum, abbreviation = settings.text("forum"), settings.section.get("abbreviation", "")
    if not isinstance(abbreviation, str):
        settings.fail(f"abbreviation must be a string, not {abbreviation!r}")
        abbreviation = ""
    return SocialSource(
        forum,
        _files(settings, reader, parse_social),
        abbreviation.strip(),
        tuple(sorted({word.upper() for word in settings.texts("exclude")})),
        settings.integer("min_mentions", 0, 1_000_000),
        settings.integer("min_baseline", 1, 1_000_000),
        settings.integer("top", 1, 100),
        fixture,
        settings.day(),
    )


def _files(settings: _Settings, reader: _Reader, parse: Callable[[bytes, str], Any]) -> tuple[Any, ...]:
    """The section's files parsed; one that cannot be read, or cannot answer the pack, fails the section."""
    found = [reader.read(path, settings.kind, parse) for path in reader.paths(settings.kind, settings.section)]
    for file in found:
        if isinstance(file, CongressFile) and file.rows and not file.disclosure_dates:
            lacks = SourceProblem(
                file.source,
                f"no disclosure date on any of its {file.rows} rows (the Senate aggregate shape): the [person] and "
                "[congress] packs count a trade from the day it was disclosed; give the daily or per-report files "
                "instead, or list this file in the section's `unused`",
            )
            if lacks not in reader.problems:
                reader.problems.append(lacks)
            settings.failed = True
    if any(file is None for file in found):
        settings.failed = True
    return tuple(file for file in found if file is not None)


def _rule(settings: _Settings, name: str) -> RuleSettings:
    if not isinstance(settings.section.get(name, {}), Mapping):
        settings.fail(f"{name} must be a table ([{settings.kind}.{name}])")
        return RuleSettings()
    return RuleSettings(
        settings.integer("window_days", 1, 3_650, name),
        settings.integer("min_members", 1, MAX_MEMBERS, name),
        settings.integer("min_amount", 0, 1_000_000_000, name),
    )


def _report(path: str, parsed: CongressFile | SocialFile, notes: list[str]) -> str:
    rows_with_issues = {issue.row for issue in parsed.issues}
    excluded = {issue.row for issue in parsed.issues if issue.outcome is RowOutcome.EXCLUDED}
    reasons = sorted({issue.code for issue in parsed.issues})
    counts = ", ".join(f"{code} ×{sum(i.code == code for i in parsed.issues)}" for code in reasons)
    line = (
        f"{path} [{', '.join(notes)}]: {parsed.rows} rows read, {len(rows_with_issues)} malformed "
        f"({len(rows_with_issues - excluded)} kept, {len(excluded)} excluded{': ' + counts if counts else ''})"
    )
    if isinstance(parsed, SocialFile):
        return f"{line}, {len({s.taken for s in parsed.snapshots})} snapshots"
    before = sum(trade.disclosed < trade.traded for trade in parsed.trades)
    unlinked = sum(not trade.ptr_link for trade in parsed.trades)
    instruments = Counter(trade.instrument.value for trade in parsed.trades)
    return "".join(
        (
            line,
            f", {before} disclosed before the trade" if before else "",
            f", {unlinked} without a report link" if unlinked else "",
            ", instruments: " + ", ".join(f"{kind} {n}" for kind, n in sorted(instruments.items()))
            if instruments
            else "",
        )
    )
