"""Views of a 13f-copycat version: a manager selection and a mode pick the tickers an agent looks at."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict, get_args

from builder.research.caveats import for_managers
from builder.research.changes import BOUGHT, SOLD
from builder.research.schema import (
    ArtifactManager,
    ArtifactWarning,
    Cause,
    ChangeKind,
    Ended,
    PackArtifact,
    Position,
    TickerAsOf,
)
from builder.typed import Count, Fraction

Mode = Literal["any", "overlap", "exclusive", "disagreement"]
MODES: tuple[Mode, ...] = get_args(Mode)
DEFAULT_MODE: Mode = "any"  # contract 4.3: a request without mode returns the complete dataset


class ViewRef(TypedDict):
    """The canonical view a payload is about: managers sorted, mode."""

    managers: list[str]
    mode: Mode


class ViewPosition(TypedDict):
    managerId: str
    held: bool
    shares: Count
    value: Count
    weight: Fraction
    change: ChangeKind
    cause: Cause
    shareDelta: int | None


class ViewTicker(TypedDict):
    ticker: str
    tickerAsOf: TickerAsOf
    cusip: str
    issuer: str
    managers: list[ViewPosition]
    holders: list[str]
    holderCount: Count
    value: Count
    buyers: list[str]
    sellers: list[str]


class Named(TypedDict):
    """What names a position in a diff entry: the part of an artifact's position or ended entry it reads."""

    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf
    mapped: bool


class View(TypedDict):
    managers: list[str]
    mode: Mode
    tickerCount: Count
    tickers: list[ViewTicker]
    warnings: list[ArtifactWarning]


class ViewArguments(TypedDict, total=False):
    """A view as a call's arguments: the managers where a subset is selected, the mode unless `any`."""

    managers: list[str]
    mode: Mode


class SummaryRow(TypedDict):
    ticker: str
    value: int
    holderCount: int


class SummaryView(TypedDict):
    """A view's rows cut to what the policy checks read (Census.summary_view)."""

    managers: list[str]
    mode: Mode
    tickerCount: int
    tickers: list[SummaryRow]


SHAPES = {"View": View, "ViewTicker": ViewTicker, "ViewPosition": ViewPosition}


def manager_ids(artifact: PackArtifact) -> list[str]:
    return [m["id"] for m in artifact["managers"]]


def select_view(
    artifact: PackArtifact, managers: Sequence[str], mode: Mode, rows: list[ViewTicker] | None = None
) -> View:
    """The tickers of `mode` among the selected managers (canonical: sorted, all managers when empty), and the
    version's warnings about the pack and those managers (nothing about the managers left out).

    `rows`: ticker_rows(artifact, managers) when the caller has them (they are the same in every mode).
    """
    selected = sorted(managers or manager_ids(artifact))
    rows = ticker_rows(artifact, selected) if rows is None else rows
    chosen = [row for row in rows if _in_mode(row, mode, len(selected))]
    return {
        "managers": selected,
        "mode": mode,
        "tickerCount": len(chosen),
        "tickers": chosen,
        "warnings": for_managers(artifact["warnings"], selected),
    }


def ticker_rows(artifact: PackArtifact, managers: Sequence[str]) -> list[ViewTicker]:
    """Every ticker the selected managers hold or no longer hold, with each one's position: a view before its mode."""
    return _ticker_rows(artifact, sorted(managers or manager_ids(artifact)))


@dataclass(frozen=True, slots=True)
class Census:
    """Per ticker, how many selected managers hold it, its value, and whether it was bought or sold: what every
    mode's view tickers, and the policy checks of a view, need of its rows."""

    managers: list[str]  # the selected managers, sorted
    holders: dict[str, int]
    values: dict[str, int]
    bought: set[str]
    sold: set[str]
    names: dict[str, Named]  # each ticker as the entry that names it does: a held one when any manager holds it

    def tickers(self, mode: Mode) -> set[str]:
        if mode == "disagreement":
            return self.bought & self.sold
        selected = len(self.managers)
        return {ticker for ticker, count in self.holders.items() if _holders_in_mode(count, mode, selected)}

    def summary_view(self, mode: Mode) -> SummaryView:
        """select_view's answer with each row cut to its ticker, value and holderCount (what the policy reads)."""
        rows: list[SummaryRow] = [
            {"ticker": t, "value": self.values[t], "holderCount": self.holders[t]} for t in sorted(self.tickers(mode))
        ]
        return {"managers": self.managers, "mode": mode, "tickerCount": len(rows), "tickers": rows}


def census(artifact: PackArtifact, managers: Sequence[str]) -> Census:
    selected = sorted(set(managers or manager_ids(artifact)))
    chosen = set(selected)
    holders: dict[str, int] = {}
    values: dict[str, int] = {}
    bought: set[str] = set()
    sold: set[str] = set()
    names: dict[str, Named] = {}
    for manager in artifact["managers"]:
        if manager["id"] not in chosen:
            continue
        for pair in entries(manager):
            held, entry = pair
            ticker, kind = entry["ticker"], entry["change"]["kind"]
            if (held and not holders.get(ticker)) or ticker not in names:  # the first holder's, else the first ender's
                names[ticker] = naming(entry)  # a census outlives the artifact (and travels pickled from a worker)
            holders[ticker] = holders.get(ticker, 0) + held
            values[ticker] = values.get(ticker, 0) + held_amounts(pair)[1]
            if kind in BOUGHT:
                bought.add(ticker)
            elif kind in SOLD:
                sold.add(ticker)
    return Census(selected, holders, values, bought, sold, names)


def naming(entry: Named) -> Named:
    """An entry's naming fields only, for what outlives its artifact (a census, a pair's changes)."""
    return {
        "ticker": entry["ticker"],
        "issuer": entry["issuer"],
        "tickerAsOf": entry["tickerAsOf"],
        "mapped": entry["mapped"],
    }


class CarriedManager(TypedDict):
    """A manager's part of a version after a diff's older one, as far as the diff reads it: its entries whose change
    cites a corporate action or was left undecided (api.methods.carried_through)."""

    id: str
    cik: str
    positions: list[Position]
    ended: list[Ended]


class CarriedVersion(TypedDict):
    """What a diff further apart than one quarter reads of a version between (its quarter, warnings and managers'
    carried entries): a whole PackArtifact will do."""

    quarter: str
    warnings: list[ArtifactWarning]
    managers: list[CarriedManager]


Entry = tuple[Literal[True], Position] | tuple[Literal[False], Ended]  # an entry and whether it is held


def entries(manager: ArtifactManager | CarriedManager) -> Iterator[Entry]:
    """A manager's positions (held) and then its ended entries (no longer held), each with whether it is held."""
    for position in manager["positions"]:
        yield True, position
    for ended in manager["ended"]:
        yield False, ended


def held_amounts(entry: Entry) -> tuple[int, int, float]:
    """The shares, value and weight of an entry `entries` yields: its own when held, none when ended."""
    if entry[0]:
        position = entry[1]
        return position["shares"], position["value"], position["weight"]
    return 0, 0, 0.0


def view_tickers(artifact: PackArtifact, managers: Sequence[str], mode: Mode) -> set[str]:
    """The tickers of `select_view(artifact, managers, mode)`, counted without building its rows (for diffs)."""
    return census(artifact, managers).tickers(mode)


def _ticker_rows(artifact: PackArtifact, selected: Sequence[str]) -> list[ViewTicker]:
    # ticker → its first entry, every selected position
    found: dict[str, tuple[Position | Ended, list[ViewPosition]]] = {}
    chosen = set(selected)
    for manager in artifact["managers"]:
        if manager["id"] not in chosen:
            continue
        for pair in entries(manager):
            entry = pair[1]
            first = found.get(entry["ticker"])
            if first is None:
                first = found[entry["ticker"]] = (entry, [])
            first[1].append(_manager_position(manager["id"], pair))
    return [_row(*found[ticker]) for ticker in sorted(found)]


def _row(entry: Position | Ended, positions: list[ViewPosition]) -> ViewTicker:
    holders = [p["managerId"] for p in positions if p["held"]]
    return {
        "ticker": entry["ticker"],
        "tickerAsOf": entry["tickerAsOf"],
        "cusip": entry["cusip"],
        "issuer": entry["issuer"],
        "managers": positions,
        "holders": holders,
        "holderCount": len(holders),
        "value": sum(p["value"] for p in positions),
        "buyers": [p["managerId"] for p in positions if p["change"] in BOUGHT],
        "sellers": [p["managerId"] for p in positions if p["change"] in SOLD],
    }


def _manager_position(manager_id: str, pair: Entry) -> ViewPosition:
    shares, value, weight = held_amounts(pair)
    held, entry = pair
    return {
        "managerId": manager_id,
        "held": held,
        "shares": shares,
        "value": value,
        "weight": weight,
        "change": entry["change"]["kind"],
        "cause": entry["change"]["cause"],
        "shareDelta": entry["change"]["shareDelta"],
    }


def _in_mode(row: ViewTicker, mode: str, selected_count: int) -> bool:
    if mode == "disagreement":
        return bool(row["buyers"]) and bool(row["sellers"])
    return _holders_in_mode(row["holderCount"], mode, selected_count)


def _holders_in_mode(holders: int, mode: str, selected_count: int) -> bool:
    if mode == "any":
        return holders >= 1
    if mode == "overlap":
        return holders >= min(2, selected_count)  # DESIGN: held by the one, if only one is selected
    if mode == "exclusive":
        return holders == 1
    raise ValueError(f"unknown mode {mode!r}")
