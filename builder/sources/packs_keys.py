"""The sections and keys packs.toml may hold; any other is a problem naming its line and the nearest known name.

A misspelt key must not be ignored: `verisons = 4` read as "no versions given" publishes eight versions, and
`asof =` publishes as of today. tomllib keeps no positions, so the lines are found again in the text.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from builder.records import SourceProblem
from builder.sources.files import LIMIT_KEYS

_RULE = frozenset({"window_days", "min_members", "min_amount"})
_PREVIEW = frozenset({"files", "as_of", "fixture"})
KNOWN: dict[str, frozenset[str]] = {  # table path → its keys (subtables are listed as keys too)
    "": frozenset({"source", "copycat", "person", "congress", "social", "limits"}),
    "limits": frozenset(LIMIT_KEYS),
    "source": frozenset({"fixture", "as_of", "user_agent"}),
    "copycat": frozenset({"versions", "managers", "largest"}),
    "copycat.managers": frozenset({"id", "name", "cik", "fictional", "allow_missing", "source"}),
    "person": _PREVIEW | {"name", "aliases", "unused"},
    "congress": _PREVIEW | {"demo", "strict", "aliases", "unused"},  # aliases: a free table of names, not checked
    "congress.demo": _RULE,
    "congress.strict": _RULE,
    "social": _PREVIEW | {"forum", "abbreviation", "min_mentions", "min_baseline", "top", "exclude"},
}
KeyLines = dict[tuple[str, int, str], int]  # (table path, array index, key) → its line
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?")
_KEY = re.compile(r"""^\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*[.=]""")


def unknown_keys(sections: Mapping[str, Any], lines: KeyLines, name: str) -> list[SourceProblem]:
    """A problem for every section or key packs.toml does not define, in file order."""
    found: list[SourceProblem] = []
    _check_table("", 0, sections, lines, name, found)
    return sorted(found, key=lambda p: p.line or 0)


def _check_table(
    path: str, index: int, table: Mapping[str, Any], lines: KeyLines, name: str, found: list[SourceProblem]
) -> None:
    for key, value in table.items():
        child = f"{path}.{key}" if path else key
        if key not in KNOWN[path]:
            found.append(SourceProblem(name, _unknown(path, key), lines.get((path, index, key))))
        elif child in KNOWN and isinstance(value, Mapping):
            _check_table(child, 0, value, lines, name, found)
        elif child in KNOWN and isinstance(value, list):
            for position, entry in enumerate(value):
                if isinstance(entry, Mapping):
                    _check_table(child, position, entry, lines, name, found)


def _unknown(path: str, key: str) -> str:
    known = sorted(KNOWN[path])
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if path == "":
        what, hint = f"unknown section [{key}]", f"; did you mean [{close[0]}]?" if close else ""
        return f"{what}{hint or '; known sections: ' + ', '.join(f'[{k}]' for k in known)}"
    hint = f"; did you mean {close[0]}?" if close else f"; known keys: {', '.join(known)}"
    return f"unknown key {key!r} in [{path}]{hint}"


def key_lines(text: str) -> KeyLines:
    """(table path, array index, key) → the 1-based line that defines it, headers included."""
    lines: KeyLines = {}
    table, index, arrays = "", 0, dict[str, int]()
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header:
            parts = [part.strip().strip("\"'") for part in header[2].split(".")]
            table = ".".join(parts)
            index = arrays[table] = arrays.get(table, -1) + 1 if header[1] == "[[" else 0
            parent = ".".join(parts[:-1])
            lines.setdefault((parent, arrays.get(parent, 0), parts[-1]), number)
            continue
        key = _KEY.match(line)
        if key:
            lines.setdefault((table, index, key[1].strip("\"'")), number)
    return lines
