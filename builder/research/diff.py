"""Semantic diff of two 13f-copycat versions over one view: what changed, never why (beyond the cited records)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from itertools import compress, count
from operator import itemgetter, not_
from typing import Protocol, TypedDict, TypeVar

from builder.research.caveats import for_managers, warning_changes
from builder.research.caveats.scope import WarningChanges
from builder.research.changes.books import ChangeDetail as ChangeDetail  # the changes' shapes, as diffs name them
from builder.research.changes.books import PositionChange as PositionChange
from builder.research.changes.books import Row, plain_detail
from builder.research.changes.side import Keying
from builder.research.methods.policy import PolicyChange
from builder.research.schema import MeasuredKind, PackArtifact, TickerAsOf
from builder.research.views import CarriedVersion, Census, Mode, Named, ViewRef, census, manager_ids, naming
from builder.research.windows.spans import manager_changes
from builder.research.windows.trades import WindowTrades
from builder.typed import Count, Date

T = TypeVar("T")


class TickerChanges(TypedDict):
    entered: list[str]
    left: list[str]
    unchanged: Count


class SourceChange(TypedDict):
    managerId: str
    fromAccessions: list[str]
    toAccessions: list[str]
    amendments: list[str]


class SecurityName(TypedDict):
    """How a diff names a ticker, once for all its entries."""

    issuer: str
    tickerAsOf: TickerAsOf
    mapped: bool  # False: no ticker in securities.csv, the ticker is the CUSIP (an unmapped-cusip warning)


class KindCounts(TypedDict):
    new: Count
    added: Count
    reduced: Count
    unchanged: Count
    exited: Count
    converted: Count
    undecided: Count


class ChangeColumns(TypedDict):
    """A manager's changes as columns of one length: the i-th item of each list is its i-th change (by ticker)."""

    tickers: list[str]
    kinds: list[MeasuredKind]
    fromShares: list[Count]
    toShares: list[Count]
    fromValues: list[Count]
    toValues: list[Count]


class BookChanges(TypedDict):
    """What a diff says of the managers' books: the same in every mode (each mode's diff keeps its tickers' part)."""

    sources: list[SourceChange]
    warnings: WarningChanges
    changes: dict[str, ChangeColumns]  # each manager's position changes, by ticker (a manager with none: absent)
    counts: dict[str, KindCounts]  # of each manager's changes
    details: list[ChangeDetail]  # of the position changes that are not plain trades, by manager then ticker
    named: dict[str, Named]  # each changed ticker as its change names it


class ManagerChanges(TypedDict):
    managerId: str
    counts: KindCounts
    fromAccessions: list[str]
    toAccessions: list[str]
    amendments: list[str]
    changes: ChangeColumns


# `from` is a keyword: the functional form. What changed between two versions over one view; never why.
VersionDiff = TypedDict(
    "VersionDiff",
    {
        "from": str,
        "to": str,
        "fromQuarter": Date,
        "toQuarter": Date,
        "view": ViewRef,
        "tickers": TickerChanges,
        "names": dict[str, SecurityName],
        "managers": list[ManagerChanges],
        "changeDetails": list[ChangeDetail],
        "windowTrades": list[WindowTrades],
        "warnings": WarningChanges,
        "policy": list[PolicyChange],
    },
)
SHAPES = {
    "VersionDiff": VersionDiff,
    "ManagerChanges": ManagerChanges,
    "ChangeDetail": ChangeDetail,
    "SecurityName": SecurityName,
    "PolicyChange": PolicyChange,
    "WindowTrades": WindowTrades,
}


def diff_versions(
    older: PackArtifact,
    newer: PackArtifact,
    managers: Sequence[str],
    mode: Mode,
    *,
    book: BookChanges | None = None,
    censuses: tuple[Census, Census] | None = None,
    between: Sequence[PackArtifact | CarriedVersion] = (),
    policy: Sequence[PolicyChange] = (),
    window: Sequence[WindowTrades] = (),
    window_names: Mapping[str, Named] | None = None,
) -> VersionDiff:
    """Tickers that entered or left the view, the position changes of the view's tickers (in it on either side) per
    manager, as columns, with the full record of each that is not a plain trade, source changes, and the warnings
    about the view's managers that appeared (in `newer` or a version between) or disappeared. Every ticker it names
    is named once, in `names`: as `newer` names it, else as `older` did.

    `between`: the versions after `older` up to `newer` (newer included), whose corporate actions and undecided
    changes a diff across several quarters carries. A caller diffing one pair in every mode passes what does not
    depend on the mode, computed once: `book` = versions_changes(…) and `censuses` = each side's census.
    `policy`: the checks whose outcome changed (methods.policy.policy_changes). `window`: each manager's trades of
    every quarter inside a window of more than one (windows.trades), whose tickers `window_names` names.
    """
    selected = sorted(managers or manager_ids(newer))
    before, after = censuses or (census(older, managers), census(newer, managers))
    before_tickers, after_tickers = before.tickers(mode), after.tickers(mode)
    book = book or versions_changes(older, newer, managers, between or (newer,))
    shown = before_tickers | after_tickers
    # a key neither end holds changes only between them (carried through a corporate action, or left undecided): the
    # complete dataset shows it, another view where a corporate action links it to one of its tickers
    shown |= book["named"].keys() if mode == "any" else _reached(book["details"], shown)
    entered, left = sorted(after_tickers - before_tickers), sorted(before_tickers - after_tickers)
    traded = {ticker for manager in window for ticker in manager["tickers"]}
    named = sorted({*entered, *left, *(book["named"].keys() & shown), *traded})  # book["named"]: every changed ticker
    return {
        "from": older["versionId"],
        "to": newer["versionId"],
        "fromQuarter": older["quarter"],
        "toQuarter": newer["quarter"],
        "view": {"managers": selected, "mode": mode},
        "tickers": {"entered": entered, "left": left, "unchanged": len(after_tickers & before_tickers)},
        "names": _names(named, after.names, before.names, {**(window_names or {}), **book["named"]}),
        "managers": _managers(book, shown),
        "changeDetails": [detail for detail in book["details"] if detail["ticker"] in shown],
        "windowTrades": list(window),
        "warnings": book["warnings"],
        "policy": list(policy),
    }


def _reached(details: Sequence[ChangeDetail], shown: set[str]) -> set[str]:
    """The changed tickers outside `shown` that a corporate action links to one in it, chain after chain: a change
    citing a record that a shown ticker's change cites too (the shares of a position in the view carried into a key
    that neither end's view holds, such as DirecTV's into AT&T and sold before the later version)."""
    citing: dict[str, set[str]] = {}  # record → the tickers whose change cites it
    for detail in details:
        for action in detail["corporateActions"]:
            citing.setdefault(action["record"], set()).add(detail["ticker"])
    linked: dict[str, set[str]] = {}  # ticker → the tickers a record links it to
    for tickers in citing.values():
        for ticker in tickers:
            linked.setdefault(ticker, set()).update(tickers)
    found: set[str] = set()
    frontier = [ticker for ticker in linked if ticker in shown]
    while frontier:
        for ticker in linked[frontier.pop()] - shown - found:
            found.add(ticker)
            frontier.append(ticker)
    return found


def position_changes(diff: VersionDiff) -> list[PositionChange]:
    """The diff's changes as PositionChange records, in its order (by manager, then ticker): each manager's columns
    named by `names`, completed by its change detail where it has one, else as a plain trade."""
    names, found = diff["names"], []
    details = {(d["managerId"], d["ticker"]): d for d in diff["changeDetails"]}
    for manager in diff["managers"]:
        manager_id, c = manager["managerId"], manager["changes"]
        rows = zip(
            c["tickers"], c["kinds"], c["fromShares"], c["toShares"], c["fromValues"], c["toValues"], strict=True
        )
        for ticker, kind, from_shares, to_shares, from_value, to_value in rows:
            name = names[ticker]
            detail = details.get((manager_id, ticker)) or plain_detail(manager_id, ticker, from_shares, to_shares)
            change: PositionChange = {
                **detail,
                **name,
                "kind": kind,
                "fromShares": from_shares,
                "toShares": to_shares,
                "fromValue": from_value,
                "toValue": to_value,
            }
            found.append(change)
    return found


def _managers(book: BookChanges, shown: set[str]) -> list[ManagerChanges]:
    """Each selected manager's entry: its filings on both sides, its changes of the `shown` tickers, counted by kind
    and as columns: the book's own when it shows them all (as `warnings`, an answer shares what does not change)."""
    found: list[ManagerChanges] = []
    hidden = book["named"].keys() - shown  # the changed tickers it does not show
    for source in book["sources"]:
        own = book["changes"].get(source["managerId"])
        if own is None:
            columns, counts = _no_changes(), _counts([])
        elif not hidden or hidden.isdisjoint(own["tickers"]):
            columns, counts = own, book["counts"][source["managerId"]]
        else:
            columns = _shown(own, list(map(shown.__contains__, own["tickers"])))
            counts = _counts(columns["kinds"])
        found.append({**source, "counts": counts, "changes": columns})
    return found


def _shown(columns: ChangeColumns, shown: list[bool]) -> ChangeColumns:
    """`columns` less the rows `shown` says are not: each copied whole less the few left out, else item by item of
    the few kept."""
    if sum(shown) * 2 < len(shown):
        kept = list(compress(count(), shown))
        return _each(columns, lambda column: list(map(column.__getitem__, kept)))
    dropped = list(compress(count(), map(not_, shown)))[::-1]
    return _each(columns, lambda column: _less(column, dropped))


class _Column(Protocol):
    def __call__(self, column: list[T], /) -> list[T]: ...


def _each(columns: ChangeColumns, made: _Column) -> ChangeColumns:
    """Each column of `columns` made anew by `made`."""
    return {
        "tickers": made(columns["tickers"]),
        "kinds": made(columns["kinds"]),
        "fromShares": made(columns["fromShares"]),
        "toShares": made(columns["toShares"]),
        "fromValues": made(columns["fromValues"]),
        "toValues": made(columns["toValues"]),
    }


def _less(column: list[T], dropped: list[int]) -> list[T]:
    """A copy of `column` less the items at `dropped` (descending)."""
    found = column.copy()
    for index in dropped:
        del found[index]
    return found


def _columns(rows: Iterable[Row]) -> ChangeColumns:
    """One manager's changes (`rows`: by ticker) as columns."""
    _, tickers, kinds, from_shares, to_shares, from_values, to_values = map(list, zip(*rows, strict=True))
    return {
        "tickers": tickers,
        "kinds": kinds,
        "fromShares": from_shares,
        "toShares": to_shares,
        "fromValues": from_values,
        "toValues": to_values,
    }


def _no_changes() -> ChangeColumns:
    return {"tickers": [], "kinds": [], "fromShares": [], "toShares": [], "fromValues": [], "toValues": []}


def _counts(kinds: Sequence[MeasuredKind]) -> KindCounts:
    found = Counter(kinds)
    return {
        "new": found["new"],
        "added": found["added"],
        "reduced": found["reduced"],
        "unchanged": found["unchanged"],
        "exited": found["exited"],
        "converted": found["converted"],
        "undecided": found["undecided"],
    }


def _names(
    tickers: Sequence[str], later: Mapping[str, Named], earlier: Mapping[str, Named], changed: Mapping[str, Named]
) -> dict[str, SecurityName]:
    """Each of `tickers` named by the later version, else by the earlier one, else by the changes (a key carried
    through corporate actions that neither version names)."""
    found: dict[str, SecurityName] = {}
    for ticker in tickers:
        named = later.get(ticker) or earlier.get(ticker) or changed[ticker]
        found[ticker] = {"issuer": named["issuer"], "tickerAsOf": named["tickerAsOf"], "mapped": named["mapped"]}
    return found


def versions_changes(
    older: PackArtifact,
    newer: PackArtifact,
    managers: Sequence[str],
    between: Sequence[PackArtifact | CarriedVersion],
    keyings: tuple[Keying, Keying] | None = None,
) -> BookChanges:
    """The selected managers' position, source and warning changes between two versions: the same in every mode.
    `between` and `keyings`: as research.windows.spans.manager_changes reads them."""
    selected = sorted(managers or manager_ids(newer))
    later = [w for artifact in between for w in artifact["warnings"]]
    warnings = warning_changes(
        *(for_managers(found, selected) for found in (older["warnings"], later, newer["warnings"]))
    )
    changes: dict[str, ChangeColumns] = {}
    named: dict[str, Named] = {}  # each changed ticker's last entry
    details: list[ChangeDetail] = []
    # each manager's changes read while they are at hand (a pair far apart at 500 managers: 110,000 of them)
    for manager, moved in manager_changes(older, newer, selected, between, keyings=keyings):
        if moved:
            changes[manager] = columns = _columns(map(itemgetter(0), moved))
            named.update(zip(columns["tickers"], map(itemgetter(2), moved), strict=True))
            details += [detail for _, detail, _ in moved if detail is not None]
    return {
        "sources": _source_changes(older, newer, selected),
        "warnings": warnings,
        "changes": changes,
        "counts": {manager: _counts(columns["kinds"]) for manager, columns in changes.items()},
        "details": details,
        "named": {ticker: naming(entry) for ticker, entry in named.items()},
    }


def _source_changes(older: PackArtifact, newer: PackArtifact, managers: Sequence[str]) -> list[SourceChange]:
    by_id_old = {m["id"]: m for m in older["managers"]}
    by_id_new = {m["id"]: m for m in newer["managers"]}
    changes: list[SourceChange] = []
    for manager_id in managers:
        old_filings = {f["accession"] for f in by_id_old[manager_id]["filings"]}
        new_filings = by_id_new[manager_id]["filings"]
        changes.append(
            {
                "managerId": manager_id,
                "fromAccessions": sorted(old_filings),
                "toAccessions": sorted(f["accession"] for f in new_filings),
                "amendments": sorted(f["accession"] for f in new_filings if f["amendment"] != "original"),
            }
        )
    return changes
