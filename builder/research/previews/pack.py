"""What the preview packs share: the PreviewPack shape and the helpers for caveats, rows and floats."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, Protocol, TypeVar, cast

from builder.records import ScopeWarning
from builder.research.previews.artifacts import PreviewArtifact, PreviewMethodology, PreviewSourceFile, RowIssueRecord
from builder.research.previews.shapes import PreviewPayload, PreviewWarning
from builder.sources.congress.rows import RowIssue, RowOutcome

FLOAT_PLACES = 6  # payload floats are rounded so equal inputs give equal bytes
LISTED_ISSUES = 50  # malformed rows listed per file in an artifact; the counts always cover all
FIXTURE_CAVEAT = (
    "Fictional fixture data: every person, member and count here is invented (the tickers are real); "
    "nothing describes a real disclosure, a real forum or a real holding."
)
RESEARCH_ONLY = "Research only: no execution, no recommendation; executionEnabled is always false."
PAYLOAD_WARNINGS = 6  # scope warnings listed in an agent payload; warningCount covers all (health lists every one)
WARNING_CHARS = 300  # a listed warning's message is cut past this many characters (health has it whole)
Payload = TypeVar("Payload")

PackLabel = Literal["launch pack", "data preview", "research preview"]  # the catalog's label (contract section 1)


@dataclass(frozen=True, slots=True)
class PreviewPack:
    id: str  # e.g. "jane-roe-tracker", "congress-trades", "wsb-social-momentum"
    label: PackLabel  # "data preview" or "research preview"
    title: str
    version: str  # f"{id}-{as_of.isoformat()}-v1.0"
    as_of: date
    artifact: PreviewArtifact  # JSON-ready: the pack's full generated artifact
    agent_payload: PreviewPayload  # compact agent-ready summary, caveats included
    caveats: tuple[str, ...]  # stay attached to every response
    warnings: tuple[ScopeWarning, ...]
    methodology: PreviewMethodology  # definitions, thresholds, exclusion lists: what an auditor needs to recompute it


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
    label: PackLabel,
    title: str,
    as_of: date,
    artifact: PreviewArtifact,
    agent_payload: PreviewPayload,
    warnings: Iterable[ScopeWarning],
    methodology: PreviewMethodology,
) -> PreviewPack:
    """A PreviewPack, every float rounded and finite; its caveats are the artifact's (and the payload's)."""
    return PreviewPack(
        id=pack_id,
        label=label,
        title=title,
        version=f"{pack_id}-{as_of.isoformat()}-v1.0",
        as_of=as_of,
        artifact=json_ready(artifact),
        agent_payload=json_ready(agent_payload),
        caveats=tuple(artifact["caveats"]),
        warnings=ordered(warnings),
        methodology=json_ready(methodology),
    )


def ordered(warnings: Iterable[ScopeWarning]) -> tuple[ScopeWarning, ...]:
    """A pack's scope warnings, each once, by code, file and message: the order health and the payload list."""
    return tuple(sorted(set(warnings), key=lambda w: (w.code, w.source, w.message)))


def warning_briefs(warnings: Iterable[ScopeWarning]) -> tuple[int, list[PreviewWarning]]:
    """The pack's warnings as its payload carries them: how many, and PAYLOAD_WARNINGS of them in health's order
    (long messages cut to WARNING_CHARS; health lists each whole): the first of every kind (code), then the first of
    the rest, so a kind health lists is never cut away by many of another (the fixture's first six were two kinds,
    and its relaxed-thresholds and unmatched-sales warnings reached no agent)."""
    found = ordered(warnings)
    firsts = list({w.code: w for w in reversed(found)}.values())  # each code's first, in reverse
    kept = set(firsts) | set([w for w in found if w not in set(firsts)][: max(0, PAYLOAD_WARNINGS - len(firsts))])
    listed: list[PreviewWarning] = [
        {"code": w.code, "message": _cut(w.message), "source": w.source} for w in found if w in kept
    ]
    return len(found), listed


def disclosure_clock(as_of: str, latest: str | None) -> str:
    """How to judge a disclosure pack's dates against the reader's own clock, in one line."""
    seen = f", the latest disclosed {latest}" if latest else ""
    return (
        f"Judge freshness by your clock: disclosures counted up to {as_of}{seen}; a trade may be disclosed up to 45 "
        "days after it is made."
    )


def _cut(message: str) -> str:
    return message if len(message) <= WARNING_CHARS else message[: WARNING_CHARS - 1].rstrip() + "…"


def json_ready(value: Payload) -> Payload:
    """`value` with floats rounded to FLOAT_PLACES and tuples as lists; ValueError for NaN or infinity."""
    # cast: _rounded rebuilds any JSON value in its own shape (floats rounded, tuples as lists), which its type cannot say
    return cast(Payload, _rounded(value))


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"non-finite number {value!r} in a preview payload")
        return round(value, FLOAT_PLACES)
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(item) for item in value]
    return value


def slug(text: str) -> str:
    """Lower-case ASCII words joined by hyphens: "Jane Roe" → "jane-roe"."""
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-") or "unnamed"


def evaluation_date(configured: date | None, as_of: date) -> date:
    """The configured evaluation date, never later than the release's: no look-ahead."""
    return as_of if configured is None else min(configured, as_of)


def source_entries(files: Iterable[SourceRows]) -> list[PreviewSourceFile]:
    """Per file: rows read and malformed rows (kept, excluded, by reason), the first LISTED_ISSUES listed."""
    entries: list[PreviewSourceFile] = []
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


def issue_json(issue: RowIssue) -> RowIssueRecord:
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
