"""Scope warnings of a 13f-copycat version: each names its pack and what it is about (manager, quarter, accession,
CUSIP), so that it reaches exactly the views that contain it, and a diff can say which appeared and disappeared.

A warning is `{code, message, source, pack, manager, quarter, accession, cusip}`: `manager` is the manager id (null
for a warning about the whole pack, such as fixture data), `quarter` the quarter end of the filing or book it is
about, `accession` the filing's, `cusip` the security's, each null when the warning has none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, TypedDict

from builder.records import ScopeWarning, Sources
from builder.research.holdings import QuarterBook
from builder.research.schema import ArtifactManager, ArtifactWarning
from builder.research.versions import PACK_ID

SCOPE = ("pack", "manager", "quarter", "accession", "cusip")
LISTED = 5  # tickers an undecided-changes warning names; its count covers the rest


@dataclass(frozen=True, slots=True)
class ManagerQuarter:
    """What one manager's warnings of a version are made from: its book of the quarter, the book of the quarter before
    when that one omits positions under confidential treatment, and its artifact entry (its id, positions, ended
    positions, other holdings)."""

    book: QuarterBook
    omitting: QuarterBook | None
    entry: ArtifactManager


def warning(
    code: str,
    message: str,
    source: str,
    *,
    manager: str | None = None,
    quarter: date | str | None = None,
    accession: str | None = None,
    cusip: str | None = None,
) -> ArtifactWarning:
    """One warning as published; `quarter` as a date or its ISO text."""
    day = quarter.isoformat() if isinstance(quarter, date) else quarter
    return {
        "code": code,
        "message": message,
        "source": source,
        "pack": PACK_ID,
        "manager": manager,
        "quarter": day,
        "accession": accession,
        "cusip": cusip,
    }


def version_warnings(sources: Sources, managers: Sequence[ManagerQuarter]) -> list[ArtifactWarning]:
    """Every warning of one version: the fixture label (the pack's), then per manager the scope warnings of its
    filings of the quarter, its securities without a ticker, the omission of the quarter before (a position first
    reported now may have been held then), and its undecided changes."""
    found = [warning(w.code, w.message, w.source) for w in sources.warnings if w.code == "fixture-data"]
    for part in managers:
        manager_id, quarter = part.entry["id"], part.book.period
        found += [_filing_warning(w, manager_id, quarter, f.accession) for f in part.book.filings for w in f.warnings]
        found += _unmapped(part.entry, quarter)
        found += [_omission(part.omitting, manager_id)] if part.omitting else []
        found += _undecided(part.entry, quarter)
    return sorted({identity(w): w for w in found}.values(), key=_order)


def identity(item: Mapping[str, Any]) -> tuple[str | None, ...]:
    """What a warning is: its code, its scope and its message (two equal keys are one warning)."""
    return (item["code"], *(item.get(field) for field in SCOPE), item["message"])


def about(item: Mapping[str, Any]) -> tuple[str | None, ...]:
    """What a warning is about, whichever version says it: its code, pack, manager, accession, CUSIP and source file.
    Its quarter and message move with the version (an unmapped CUSIP held on, worth more), so a warning that only
    moved is the same warning to a diff or a review; a new filing's warning (a new accession) is a new one."""
    return (
        item["code"],
        item.get("pack"),
        item.get("manager"),
        item.get("accession"),
        item.get("cusip"),
        item.get("source"),
    )


def sortable(key: tuple[str | None, ...]) -> tuple[str, ...]:
    """A warning key that sorts: None (no manager, no accession) as the empty string, first."""
    return tuple("" if part is None else part for part in key)


def _order(item: Mapping[str, Any]) -> tuple[str, ...]:
    return sortable(tuple(item[field] for field in ("manager", "quarter", "code", "accession", "cusip", "message")))


def for_managers(warnings: Iterable[ArtifactWarning], managers: Iterable[str]) -> list[ArtifactWarning]:
    """The warnings a view of `managers` sees: the pack's own and those of its managers, nothing else (a version's
    warnings are all about its quarter or the quarter before, which its changes are measured against)."""
    chosen = set(managers)
    return [w for w in warnings if w.get("manager") is None or w["manager"] in chosen]


class WarningChanges(TypedDict):
    appeared: list[ArtifactWarning]
    disappeared: list[ArtifactWarning]


def warning_changes(
    older: Iterable[ArtifactWarning], later: Iterable[ArtifactWarning], newer: Iterable[ArtifactWarning]
) -> WarningChanges:
    """The warnings that appeared since `older` (in `newer` or in `later`, the versions between whose changes a diff
    carries) and those of `older` that `newer` no longer has; each sorted, each once.

    Warnings are compared by what they are `about`, not by their quarter and message, which move with the version."""
    before, after = {about(w) for w in older}, {about(w) for w in newer}
    appeared: dict[tuple[str | None, ...], ArtifactWarning] = {}
    for item in (*newer, *later):
        if about(item) not in before:
            appeared.setdefault(about(item), item)
    return {
        "appeared": sorted(appeared.values(), key=_order),
        "disappeared": sorted((w for w in older if about(w) not in after), key=_order),
    }


def _filing_warning(found: ScopeWarning, manager: str, quarter: date, accession: str) -> ArtifactWarning:
    return warning(found.code, found.message, found.source, manager=manager, quarter=quarter, accession=accession)


def _omission(previous: QuarterBook, manager: str) -> ArtifactWarning:
    omitting = next(f for f in reversed(previous.filings) if f.confidential_omitted)
    message = (
        f"the previous quarter's filing {omitting.accession} ({previous.period}) omits positions under "
        "confidential treatment: a position first reported this quarter may have been held then"
    )
    return warning(
        "confidential-omitted-previous",
        message,
        omitting.source,
        manager=manager,
        quarter=previous.period,
        accession=omitting.accession,
    )


def _unmapped(entry: ArtifactManager, quarter: date) -> list[ArtifactWarning]:
    """One unmapped-cusip warning per CUSIP without a ticker, wherever it surfaces: a position, a position no longer
    held (named by the previous quarter's rows) or an option or PRN row."""
    where: dict[str, tuple[str, str, int]] = {}  # CUSIP → where it first surfaced, its issuer, the value it holds
    unmapped = (
        *(("position", p["cusip"], p["issuer"], p["value"]) for p in entry["positions"] if not p["mapped"]),
        *(("position no longer held", e["cusip"], e["issuer"], 0) for e in entry["ended"] if not e["mapped"]),
        *(
            ("option or PRN row", o["cusip"], o["issuer"], o["value"])
            for o in entry["otherHoldings"]
            if not o["mapped"]
        ),
    )
    for kind, cusip, named, worth in unmapped:
        first, issuer, value = where.get(cusip, (kind, named, 0))
        where[cusip] = (first, issuer, value + worth)
    # about securities.csv and a CUSIP, not about one filing: no accession, so a CUSIP held on is the same warning
    return [
        warning(
            "unmapped-cusip",
            f"CUSIP {cusip} ({issuer}) has no ticker in securities.csv: a {kind} of "
            f"{entry['id']}{f' worth ${value:,}' if value else ''} is shown under its CUSIP; run `ras securities` "
            "or add the CUSIP",
            "securities.csv",
            manager=entry["id"],
            quarter=quarter,
            cusip=cusip,
        )
        for cusip, (kind, issuer, value) in sorted(where.items())
    ]


def _undecided(entry: ArtifactManager, quarter: date) -> list[ArtifactWarning]:
    tickers = [e["ticker"] for e in (*entry["positions"], *entry["ended"]) if e["change"]["kind"] == "undecided"]
    if not tickers:
        return []
    listed = ", ".join(tickers[:LISTED]) + (f" and {len(tickers) - LISTED} more" if len(tickers) > LISTED else "")
    message = (
        f"{len(tickers)} change(s) of {entry['id']} undecided ({listed}): they look like corporate actions (or "
        "border a confidential omission) that neither the holders' evidence nor corporate_actions.csv decides; "
        "none is counted as bought or sold"
    )
    return [warning("undecided-changes", message, "corporate_actions.csv", manager=entry["id"], quarter=quarter)]
