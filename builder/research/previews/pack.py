"""What the preview packs share: the PreviewPack shape and the helpers for caveats, rows and floats."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol

from builder.records import ScopeWarning
from builder.research.previews.shapes import PreviewWarning
from builder.sources.congress.rows import RowIssue, RowOutcome

FLOAT_PLACES = 6  # payload floats are rounded so equal inputs give equal bytes
SNAKE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")  # a field name in snake_case
LISTED_ISSUES = 50  # malformed rows listed per file in an artifact; the counts always cover all
FIXTURE_CAVEAT = (
    "Fictional fixture data: every person, member and count here is invented (the tickers are real); "
    "nothing describes a real disclosure, a real forum or a real holding."
)
RESEARCH_ONLY = "Research only: no execution, no recommendation; executionEnabled is always false."
PAYLOAD_WARNINGS = 6  # scope warnings listed in an agent payload; warningCount covers all (health lists every one)
WARNING_CHARS = 300  # a listed warning's message is cut past this many characters (health has it whole)


@dataclass(frozen=True, slots=True)
class PreviewPack:
    id: str  # e.g. "jane-roe-tracker", "congress-trades", "wsb-social-momentum"
    label: str  # "data preview" or "research preview"
    title: str
    version: str  # f"{id}-{as_of.isoformat()}-v1.0"
    as_of: date
    artifact: dict  # JSON-ready: the pack's full generated artifact
    agent_payload: dict  # compact agent-ready summary, caveats included
    caveats: tuple[str, ...]  # stay attached to every response
    warnings: tuple[ScopeWarning, ...]
    methodology: dict  # definitions, thresholds, exclusion lists: what an auditor needs to recompute it


class SourceRows(Protocol):
    """A parsed source file: what the malformed-row report needs (read-only, as the frozen records are)."""

    @property
    def source(self) -> str: ...
    @property
    def rows(self) -> int: ...
    @property
    def issues(self) -> tuple[RowIssue, ...]: ...


def preview_pack(
    *,
    pack_id: str,
    label: str,
    title: str,
    as_of: date,
    artifact: dict,
    agent_payload: Mapping[str, Any],
    caveats: Iterable[str],
    warnings: Iterable[ScopeWarning],
    methodology: dict,
) -> PreviewPack:
    """A PreviewPack with its caveats attached to artifact and payload, every float rounded and finite."""
    attached = tuple(caveats)
    return PreviewPack(
        id=pack_id,
        label=label,
        title=title,
        version=f"{pack_id}-{as_of.isoformat()}-v1.0",
        as_of=as_of,
        artifact=json_ready({**artifact, "caveats": list(attached)}),
        agent_payload=json_ready({**agent_payload, "caveats": list(attached), "execution_enabled": False}),
        caveats=attached,
        warnings=ordered(warnings),
        methodology=json_ready(methodology),
    )


def ordered(warnings: Iterable[ScopeWarning]) -> tuple[ScopeWarning, ...]:
    """A pack's scope warnings, each once, by code, file and message: the order health and the payload list."""
    return tuple(sorted(set(warnings), key=lambda w: (w.code, w.source, w.message)))


def warning_briefs(warnings: Iterable[ScopeWarning]) -> tuple[int, list[PreviewWarning]]:
    """The pack's warnings as its payload carries them: how many, and the first PAYLOAD_WARNINGS (long messages
    cut to WARNING_CHARS; health lists each whole)."""
    found = ordered(warnings)
    listed: list[PreviewWarning] = [
        {"code": w.code, "message": _cut(w.message), "source": w.source} for w in found[:PAYLOAD_WARNINGS]
    ]
    return len(found), listed


def _cut(message: str) -> str:
    return message if len(message) <= WARNING_CHARS else message[: WARNING_CHARS - 1].rstrip() + "…"


def camel(key: str) -> str:
    """A snake_case field name in the camelCase of every other payload (days_to_disclose → daysToDisclose).

    Only names made of lower-case words and underscores change: tickers, dates and hyphenated codes
    used as keys (rank_24h_ago-unreadable) stay as they are.
    """
    if not SNAKE.fullmatch(key):
        return key
    head, *rest = key.split("_")
    return head + "".join(word[:1].upper() + word[1:] for word in rest)


def json_ready(value: Any) -> Any:
    """`value` with camelCase field names and floats rounded to FLOAT_PLACES; ValueError for NaN or infinity."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"non-finite number {value!r} in a preview payload")
        return round(value, FLOAT_PLACES)
    if isinstance(value, dict):
        return {camel(str(key)): json_ready(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(item) for item in value]
    return value


def slug(text: str) -> str:
    """Lower-case ASCII words joined by hyphens: "Jane Roe" → "jane-roe"."""
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-") or "unnamed"


def evaluation_date(configured: date | None, as_of: date) -> date:
    """The configured evaluation date, never later than the release's: no look-ahead."""
    return as_of if configured is None else min(configured, as_of)


def source_entries(files: Iterable[SourceRows]) -> list[dict]:
    """Per file: rows read and malformed rows (kept, excluded, by reason), the first LISTED_ISSUES listed."""
    entries = []
    for file in sorted(files, key=lambda f: f.source):
        rows_with_issues = {issue.row for issue in file.issues}
        excluded = {issue.row for issue in file.issues if issue.outcome is RowOutcome.EXCLUDED}
        entries.append(
            {
                "path": file.source,
                "rows": file.rows,
                "malformed": len(rows_with_issues),
                "kept": len(rows_with_issues - excluded),
                "excluded": len(excluded),
                "reasons": dict(sorted(Counter(issue.code for issue in file.issues).items())),
                "issues": [issue_json(issue) for issue in file.issues[:LISTED_ISSUES]],
            }
        )
    return entries


def issue_json(issue: RowIssue) -> dict:
    return {"row": issue.row, "code": issue.code, "message": issue.message, "outcome": issue.outcome.value}


def malformed_notes(files: Iterable[SourceRows]) -> tuple[list[str], list[ScopeWarning]]:
    """The caveat (when any row is malformed) and one scope warning per file with malformed rows."""
    entries = source_entries(files)
    warnings = [
        ScopeWarning(
            "malformed-rows",
            f"{e['malformed']} of {e['rows']} rows malformed ({e['kept']} kept, repaired or "
            f"with the field left empty; {e['excluded']} excluded): "
            + ", ".join(f"{code} ×{count}" for code, count in e["reasons"].items()),
            e["path"],
        )
        for e in entries
        if e["malformed"]
    ]
    malformed = sum(e["malformed"] for e in entries)
    if not malformed:
        return [], warnings
    caveat = (
        f"{malformed} malformed source rows of {sum(e['rows'] for e in entries)} read: "
        f"{sum(e['kept'] for e in entries)} kept (repaired by a documented rule or with the field left empty), "
        f"{sum(e['excluded'] for e in entries)} excluded; per-file counts and reasons in artifact.sources."
    )
    return [caveat], warnings


def fixture_notes(fixture: bool, source: str) -> tuple[list[str], list[ScopeWarning]]:
    if not fixture:
        return [], []
    return [FIXTURE_CAVEAT], [ScopeWarning("fixture-data", FIXTURE_CAVEAT, source)]
