"""A position's history: each selected manager's shares, value, weight, change and cited filing rows of one ticker at
every published version, the versions where it held none included; pure.

A version's part is read once from its artifact (`steps`: small, interned, kept for the release's life), so an
explanation of any version reads its ticker's rows of every version without decoding one artifact again.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, TypedDict, get_args

from builder.research.changes import CHANGE_KINDS
from builder.research.schema import Cause, ChangeKind, PackArtifact, SourceRow
from builder.research.views import Named, entries, held_amounts, naming
from builder.typed import KEY, Count, Date, Fraction

NO_ACTIONS: tuple[str, ...] = ()
# Each kind and cause as one string object of its declared type (sys.intern would forget the type): an entry keeps the
# table's, so the steps a release keeps share one string for each
_KINDS: dict[str, ChangeKind] = {kind: kind for kind in CHANGE_KINDS}
_CAUSES: dict[str, Cause] = {cause: cause for cause in get_args(Cause)}


class ManagerHistory(TypedDict):
    """One selected manager's position in the ticker at every published version, as columns: the i-th item of each is
    its position at the i-th of the history's versions (oldest first)."""

    managerId: str
    shares: list[Count]  # 0 where it held none at that quarter end
    values: list[Count]
    weights: list[Fraction]
    kinds: list[ChangeKind | None]  # its change into the version; null where it held the ticker neither then nor before
    causes: list[Cause | None]
    shareDeltas: list[int | None]  # the shares traded (null: not held either side, or undecided or unknown)
    corporateActions: list[list[str]]  # the corporate actions each change cites, named by their record's text
    sources: list[list[SourceRow]]  # the rows cited: the version's own where held, the rows an exit ended


class PositionHistory(TypedDict):
    """The ticker at every published version, oldest first, for each selected manager that held it at one of them."""

    versions: list[str]
    quarters: list[Date]
    previousQuarters: list[Date]  # what each version's change is measured against (a quarter between versions, when
    # not every manager filed for it: the change into a version may then be one the version before does not show)
    managers: list[ManagerHistory]


# One manager's entry of a ticker at one version: (manager id, shares, value, weight, kind, cause, share delta,
# cited actions' texts, cited rows as (accession, row) pairs); every string interned.
Entry = tuple[str, int, int, float, ChangeKind, Cause, int | None, tuple[str, ...], tuple[tuple[str, int], ...]]


@dataclass(frozen=True, slots=True)
class Step:
    """What a position's history reads of one version: its id and quarter, and each ticker's entries by manager."""

    version: str
    quarter: str
    previous_quarter: str
    tickers: dict[str, tuple[Entry, ...]]
    names: dict[str, Named]  # each ticker as its first entry names it


def step(artifact: PackArtifact) -> Step:
    """A version's part of every history: each manager's position or ended entry of each ticker, in artifact order."""
    found: dict[str, list[Entry]] = {}
    names: dict[str, Named] = {}
    intern = sys.intern
    for manager in artifact["managers"]:
        manager_id = intern(manager["id"])
        for pair in entries(manager):
            entry, change = pair[1], pair[1]["change"]
            shares, value, weight = held_amounts(pair)
            actions = tuple(action["text"] for action in change["corporateActions"]) or NO_ACTIONS
            if entry["ticker"] not in names:
                names[intern(entry["ticker"])] = naming(entry)
            rows = tuple((intern(s["accession"]), s["row"]) for s in entry["sources"])
            found.setdefault(intern(entry["ticker"]), []).append(
                (
                    manager_id,
                    shares,
                    value,
                    weight,
                    _KINDS[change["kind"]],
                    _CAUSES[change["cause"]],
                    change["shareDelta"],
                    actions,
                    rows,
                )
            )
    tickers = {ticker: tuple(rows) for ticker, rows in found.items()}
    return Step(artifact["versionId"], artifact["quarter"], artifact["previousQuarter"], tickers, names)


def position_history(ticker: str, steps: Sequence[Step], managers: Sequence[str]) -> PositionHistory:
    """`ticker` at every version of `steps` (oldest first) for each of `managers` (in that order) that has an entry of
    it in one of them: not held where it has none."""
    selected = set(managers)
    by_manager: dict[str, list[Entry | None]] = {}
    for index, version in enumerate(steps):
        for entry in version.tickers.get(ticker, ()):
            if entry[0] in selected:
                by_manager.setdefault(entry[0], [None] * len(steps))[index] = entry
    return {
        "versions": [version.version for version in steps],
        "quarters": [version.quarter for version in steps],
        "previousQuarters": [version.previous_quarter for version in steps],
        "managers": [
            _columns(manager_id, by_manager[manager_id]) for manager_id in managers if manager_id in by_manager
        ],
    }


def _columns(manager_id: str, found: list[Entry | None]) -> ManagerHistory:
    history: ManagerHistory = {
        "managerId": manager_id,
        "shares": [],
        "values": [],
        "weights": [],
        "kinds": [],
        "causes": [],
        "shareDeltas": [],
        "corporateActions": [],
        "sources": [],
    }
    for entry in found:
        _, shares, value, weight, kind, cause, delta, actions, rows = entry or _NONE
        history["shares"].append(shares)
        history["values"].append(value)
        history["weights"].append(weight)
        history["kinds"].append(kind)
        history["causes"].append(cause)
        history["shareDeltas"].append(delta)
        history["corporateActions"].append(list(actions))
        history["sources"].append([{"accession": accession, "row": row} for accession, row in rows])
    return history


_NONE: tuple[str, int, int, float, None, None, None, tuple[str, ...], tuple[tuple[str, int], ...]]
_NONE = ("", 0, 0, 0.0, None, None, None, NO_ACTIONS, ())  # a version with no entry of the ticker


class BuildUp(TypedDict):
    """One manager's position at every version of the history (oldest first): shares, shares traded, kind and value,
    and the first filing row each cites (null where none)."""

    managerId: Annotated[str, KEY]
    shares: list[Count]
    shareDeltas: list[int | None]
    kinds: list[ChangeKind | None]
    values: list[Count]
    rows: list[SourceRow | None]


class HistoryBrief(TypedDict):
    """The position's history in brief (explain_position's compact answer): the managers with the largest positions
    in the version explained first (then at their peak), their count; the REST answer has every manager, weight,
    cause, corporate action and row."""

    versions: list[str]
    quarters: list[Date]
    managerCount: Count
    managers: list[BuildUp]


def history_brief(history: PositionHistory, version: str, listed: int) -> HistoryBrief:
    """`history` in brief: its managers ranked by their position's value at `version`, then at its peak, the first
    `listed` of them."""
    at = history["versions"].index(version) if version in history["versions"] else -1
    ranked = sorted(history["managers"], key=lambda m: (-m["values"][at], -max(m["values"]), m["managerId"]))
    return {
        "versions": history["versions"],
        "quarters": history["quarters"],
        "managerCount": len(ranked),
        "managers": [
            {
                "managerId": m["managerId"],
                "shares": m["shares"],
                "shareDeltas": m["shareDeltas"],
                "kinds": m["kinds"],
                "values": m["values"],
                "rows": [rows[0] if rows else None for rows in m["sources"]],
            }
            for m in ranked[:listed]
        ],
    }
