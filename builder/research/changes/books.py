"""Each manager's changes of shares between two versions of the pack, read from their artifacts: a consecutive
pair's as the newer artifact states them, a pair further apart classified again (changes.classify) on the older book
carried through the corporate actions the versions between cite."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import Literal, TypedDict, cast

from builder.records import ActionKind, CorporateAction
from builder.research.changes.carry import Lot
from builder.research.changes.classify import BOUGHT, SOLD, by_key, unique_candidates
from builder.research.changes.classify import book_changes as classify
from builder.research.changes.side import Keying, Keys, Side, one_keyed, untested
from builder.research.schema import (
    ArtifactManager,
    Candidate,
    Cause,
    CitedAction,
    ConvertedChange,
    PackArtifact,
    Position,
    TickerAsOf,
    TradeChange,
    UndecidedChange,
)
from builder.research.views import Named, entries
from builder.typed import Count

# A diff lists moves, corporate actions and undecided changes; never an unknown one (no filing to compare).
ShareChange = Literal["new", "added", "reduced", "unchanged", "exited", "converted", "undecided"]


class PositionChange(TypedDict):
    managerId: str
    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf
    mapped: bool  # False: no ticker in securities.csv, `ticker` is the CUSIP (an unmapped-cusip warning)
    kind: ShareChange
    fromShares: Count
    toShares: Count
    carriedShares: Count | None
    shareDelta: int | None
    fromValue: Count
    toValue: Count
    cause: Cause
    corporateActions: list[CitedAction]
    candidates: list[Candidate]


KnownChange = TradeChange | ConvertedChange | UndecidedChange  # a change a diff entry can be: never 'unknown'
TRADES = BOUGHT | SOLD  # the kinds a plain trade can be
# managerId, ticker, kind, fromShares, toShares, fromValue, toValue
Row = tuple[str, str, ShareChange, int, int, int, int]


class ChangeDetail(TypedDict):
    """The rest of a change that is not a plain trade (a plain one: cause trade, carried shares = fromShares,
    shareDelta = toShares - fromShares, no corporate action or candidate)."""

    managerId: str
    ticker: str
    carriedShares: Count | None
    shareDelta: int | None
    cause: Cause
    corporateActions: list[CitedAction]
    candidates: list[Candidate]


# One position change, compactly: its row, its detail (None for a plain trade: what the row says is all of it) and
# the entry that names it. A pair of versions at 2,000 managers has about 370,000 of them (`record`: the whole one).
Moved = tuple[Row, ChangeDetail | None, Named]


def record(moved: Moved) -> PositionChange:
    """The whole PositionChange a compact change stands for."""
    (manager_id, ticker, kind, from_shares, to_shares, from_value, to_value), detail, named = moved
    rest = detail or plain_detail(manager_id, ticker, from_shares, to_shares)
    return {
        "managerId": manager_id,
        "ticker": ticker,
        "issuer": named["issuer"],
        "tickerAsOf": named["tickerAsOf"],
        "mapped": named["mapped"],
        "kind": kind,
        "fromShares": from_shares,
        "toShares": to_shares,
        "carriedShares": rest["carriedShares"],
        "shareDelta": rest["shareDelta"],
        "fromValue": from_value,
        "toValue": to_value,
        "cause": rest["cause"],
        "corporateActions": rest["corporateActions"],
        "candidates": rest["candidates"],
    }


def plain_detail(manager_id: str, ticker: str, from_shares: int, to_shares: int) -> ChangeDetail:
    """What a plain trade's detail would say: all of it follows from its row."""
    return {
        "managerId": manager_id,
        "ticker": ticker,
        "carriedShares": from_shares,
        "shareDelta": to_shares - from_shares,
        "cause": "trade",
        "corporateActions": [],
        "candidates": [],
    }


def moved_positions(
    older: PackArtifact, newer: PackArtifact, managers: Sequence[str], between: Sequence[PackArtifact]
) -> list[Moved]:
    """Each selected manager's changes of shares, by manager then ticker (`manager_changes`, one after the other)."""
    return [change for _, found in manager_changes(older, newer, managers, between) for change in found]


def manager_changes(
    older: PackArtifact,
    newer: PackArtifact,
    managers: Sequence[str],
    between: Sequence[PackArtifact],
    keyings: tuple[Keying, Keying] | None = None,
) -> Iterator[tuple[str, list[Moved]]]:
    """Each selected manager and its changes of shares, by ticker. Consecutive versions: the newer artifact's own
    changes. Further apart: the older book carried through every corporate action the versions between cite, the
    later filing against it, and undecided wherever a quarter between left it undecided; where they cite none for the
    manager (most managers, most pairs), the same changes read from the two books directly (`_untouched`).

    `between` is read for what the versions between carry (their corporate actions, undecided changes and warnings,
    so api.methods.carried_through of each will do, the newer one's included); `keyings`: each side's side.keying, which
    spares most managers' books the one-to-one test (`_one_to_one`)."""
    adjacent = len(between) == 1 and newer["previousQuarter"] == older["quarter"]
    by_id_old = {m["id"]: m for m in older["managers"]}
    by_id_new = {m["id"]: m for m in newer["managers"]}
    by_id_between = [] if adjacent else [{m["id"]: m for m in artifact["managers"]} for artifact in between]
    tested = untested(*keyings) if keyings and not adjacent else None
    for manager_id in managers:
        before, after = by_id_old[manager_id], by_id_new[manager_id]
        if adjacent:
            yield manager_id, _own(manager_id, before, after)
            continue
        own = [by_id[manager_id] for by_id in by_id_between]
        cites, flagged = _flagged(own)
        if cites:
            found = _carried(manager_id, before, after, older, newer, own, flagged)
            yield manager_id, [change for change in found if _moved(change)]
        else:  # what `_untouched` gives is all moved
            known = tested is not None and manager_id not in tested
            yield manager_id, _untouched(manager_id, before, after, flagged, known)


def _moved(change: Moved) -> bool:
    (_, _, kind, from_shares, to_shares, _, _), detail, _ = change
    return _moves(kind, from_shares, to_shares, detail["corporateActions"] if detail else [])


def _moves(kind: str, from_shares: int, to_shares: int, actions: list[CitedAction]) -> bool:
    """Whether a diff lists a change: its shares moved, it is undecided or converted, or it cites a corporate action."""
    return from_shares != to_shares or kind in ("undecided", "converted") or bool(actions)


def _own(manager_id: str, before: ArtifactManager, after: ArtifactManager) -> list[Moved]:
    """The newer artifact's changes of one manager that `_moved` keeps, as diff entries (sorted by ticker); a plain
    trade (`_change`) straight to its row."""
    old = {p["ticker"]: p for p in before["positions"]}
    found: list[Moved] = []
    for held, group in ((True, after["positions"]), (False, after["ended"])):  # views.entries
        for entry in group:
            change, ticker = entry["change"], entry["ticker"]
            kind, was = change["kind"], old.get(ticker)
            from_shares, from_value = (was["shares"], was["value"]) if was is not None else (0, 0)
            to_shares, to_value = (cast(Position, entry)["shares"], cast(Position, entry)["value"]) if held else (0, 0)
            actions = change["corporateActions"]
            if _plain(
                kind,
                (from_shares, to_shares),
                change["carriedShares"],
                change["shareDelta"],
                change["cause"],
                actions,
                change["candidates"],
            ):
                if from_shares != to_shares:
                    row: Row = (
                        manager_id,
                        ticker,
                        cast(ShareChange, kind),
                        from_shares,
                        to_shares,
                        from_value,
                        to_value,
                    )
                    found.append((row, None, entry))
            elif kind != "unknown" and _moves(kind, from_shares, to_shares, actions):
                known = cast(KnownChange, change)
                found.append(_entry(manager_id, entry, known, from_shares, to_shares, from_value, to_value))
    return sorted(found, key=_ticker)


def _entry(
    manager_id: str, named: Named, change: KnownChange, from_shares: int, to_shares: int, from_value: int, to_value: int
) -> Moved:
    """`named`: the version's entry that names the position (ticker, issuer, tickerAsOf, mapped)."""
    return _change(
        manager_id,
        named,
        change["kind"],
        (from_shares, to_shares, from_value, to_value),
        change["carriedShares"],
        change["shareDelta"],
        change["cause"],
        change["corporateActions"],
        change["candidates"],
    )


def _change(
    manager_id: str,
    named: Named,
    kind: ShareChange,
    amounts: tuple[int, int, int, int],
    carried: int | None,
    delta: int | None,
    cause: Cause,
    actions: list[CitedAction],
    candidates: list[Candidate],
) -> Moved:
    """A change as `Moved`: `amounts` are its shares and values, from and to; a detail only when not a plain trade."""
    ticker, (from_shares, to_shares, from_value, to_value) = named["ticker"], amounts
    row: Row = (manager_id, ticker, kind, from_shares, to_shares, from_value, to_value)
    if _plain(kind, (from_shares, to_shares), carried, delta, cause, actions, candidates):
        return row, None, named
    detail: ChangeDetail = {
        "managerId": manager_id,
        "ticker": ticker,
        "carriedShares": carried,
        "shareDelta": delta,
        "cause": cause,
        "corporateActions": actions,
        "candidates": candidates,
    }
    return row, detail, named


def _plain(
    kind: str,
    shares: tuple[int, int],
    carried: int | None,
    delta: int | None,
    cause: str,
    actions: list[CitedAction],
    candidates: list[Candidate],
) -> bool:
    """Whether a change is a plain trade (`shares`: from and to): all of it follows from its row (plain_detail)."""
    from_shares, to_shares = shares
    return (
        kind in TRADES
        and cause == "trade"
        and carried == from_shares
        and delta == to_shares - from_shares
        and not actions
        and not candidates
    )


def _ticker(change: Moved) -> str:
    return change[0][1]


def _carried(
    manager_id: str,
    before: ArtifactManager,
    after: ArtifactManager,
    older: PackArtifact,
    newer: PackArtifact,
    between: Sequence[ArtifactManager],
    flagged: Mapping[str, list[Candidate]],
) -> list[Moved]:
    """One manager's changes across several quarters; `between`: the manager's part of each version between,
    `flagged`: what they left undecided (`_flagged`)."""
    earlier, later = _side(before, older), _side(after, newer)
    # changes.classify (not typed yet) takes and gives plain dicts: the candidates are Candidate records, and its
    # changes Change records, never 'unknown' (that needs an earlier side missing, and `earlier` is always given).
    undecided = cast(dict[str, list[dict]], flagged)
    changes = classify(earlier, later, _legs(between), rules=lambda *_: undecided)
    old = {p["ticker"]: p for p in before["positions"]}
    new = {p["ticker"]: p for p in after["positions"]}
    found: list[Moved] = []
    named: dict[str, Named] = {e["ticker"]: e for m in (before, after) for _, e in entries(m)}
    for ticker, change in changes.held.items():
        position = new[ticker]
        found.append(
            _entry(
                manager_id,
                position,
                cast(KnownChange, change),
                old[ticker]["shares"] if ticker in old else 0,
                position["shares"],
                old[ticker]["value"] if ticker in old else 0,
                position["value"],
            )
        )
    for ended in changes.ended:
        found.append(
            _entry(
                manager_id,
                named.get(ended.key) or _unnamed(ended.key),
                cast(KnownChange, ended.change),
                old[ended.key]["shares"] if ended.key in old else 0,
                0,
                old[ended.key]["value"] if ended.key in old else 0,
                0,
            )
        )
    return sorted(found, key=_ticker)


def _untouched(
    manager_id: str,
    before: ArtifactManager,
    after: ArtifactManager,
    flagged: Mapping[str, list[Candidate]],
    known: bool = False,
) -> list[Moved]:
    """What `_carried` gives when the versions between cite no corporate action (`_flagged`), less the entries `_moved`
    drops; without the lots, the carry and the rules. With no legs, carry() leaves each earlier lot whole under its
    CUSIP (nothing moved, ended or received, no parent, no rounding) and the rules are `flagged`. So each later key's
    change is undecided when `flagged` names one of its CUSIPs or of the earlier CUSIPs the later version keys the
    same, else its filed shares against those earlier ones' (new, added, reduced or unchanged by the difference;
    cause trade, or none when it is 0); and each earlier CUSIP of a share or more whose later key no later position
    has ended, grouped by its earlier key: undecided when `flagged` names one, else exited whole. None cites an
    action, none is converted: `_moved` keeps the undecided ones and those whose shares moved, the only ones built.
    Most books key each CUSIP to one ticker: with nothing flagged, those take a shorter way still (`_one_to_one`;
    `known`: these two books are known to pass its test)."""
    found = None if flagged else _one_to_one(manager_id, before, after, known)
    return _by_keys(manager_id, before, after, flagged) if found is None else found


def _by_keys(
    manager_id: str, before: ArtifactManager, after: ArtifactManager, flagged: Mapping[str, list[Candidate]]
) -> list[Moved]:
    """`_untouched` of any two books: each later key's CUSIPs against the earlier ones it keys."""
    earlier_key = Keys({e["cusip"]: e["ticker"] for _, e in entries(before)})
    later_key = Keys({e["cusip"]: e["ticker"] for _, e in entries(after)})
    earlier = {p["cusip"]: p["shares"] for p in before["positions"]}
    later = {p["cusip"]: p["shares"] for p in after["positions"]}
    sources, held = by_key(earlier, later_key.__getitem__), by_key(later, later_key.__getitem__)
    old = {p["ticker"]: p for p in before["positions"]}
    new = {p["ticker"]: p for p in after["positions"]}
    found: list[Moved] = []
    for key, cusips in held.items():
        position = new[key]
        from_shares, from_value = (old[key]["shares"], old[key]["value"]) if key in old else (0, 0)
        carried = sources.get(key, [])
        candidates = _candidates(flagged, cusips, carried)
        if candidates or from_shares != position["shares"]:
            shares = sum([earlier[c] for c in carried])
            delta = sum([later[c] for c in cusips]) - shares
            kind: ShareChange = (
                "new" if shares == 0 else "added" if delta > 0 else "reduced" if delta < 0 else "unchanged"
            )
            amounts = (from_shares, position["shares"], from_value, position["value"])
            found.append(_untouched_change(manager_id, position, kind, amounts, shares, delta, candidates))
    gone: dict[str, list[str]] = {}
    for cusip in sorted(earlier):
        if earlier[cusip] >= 1 and later_key[cusip] not in held:
            gone.setdefault(earlier_key[cusip], []).append(cusip)
    named: dict[str, Named] = {}
    for key, cusips in sorted(gone.items()):
        from_shares, from_value = (old[key]["shares"], old[key]["value"]) if key in old else (0, 0)
        candidates = _candidates(flagged, cusips)
        if candidates or from_shares:
            named = named or {e["ticker"]: e for m in (before, after) for _, e in entries(m)}
            shares = sum([earlier[c] for c in cusips])
            name, amounts = named.get(key) or _unnamed(key), (from_shares, 0, from_value, 0)
            found.append(_untouched_change(manager_id, name, "exited", amounts, shares, -shares, candidates))
    return sorted(found, key=_ticker)


def _one_to_one(
    manager_id: str, before: ArtifactManager, after: ArtifactManager, known: bool = False
) -> list[Moved] | None:
    """`_untouched` with nothing flagged, for two books whose entries each key one CUSIP to one ticker, the same
    where they meet (a CUSIP both name, a ticker both name) and no earlier CUSIP that the later version does not name
    being a later ticker (side.one_keyed, unless `known`); else None. Then each key is its one CUSIP on either side, and
    a CUSIP is held later when its ticker is: a later position's change is its filed shares against the earlier
    position of its ticker (new when that held none or was not held), a trade as the row says; an earlier position of
    a share or more whose ticker no later position holds exited whole, named as the later version names it, else as
    the earlier one. Every such change moved, each ticker once, by ticker."""
    if not known and not one_keyed(before, after):
        return None
    old = {p["ticker"]: p for p in before["positions"]}
    taken = old.pop  # what no later position takes is left in `old`
    found: dict[str, Moved] = {}
    for position in after["positions"]:
        ticker, shares = position["ticker"], position["shares"]
        if (was := taken(ticker, None)) is None:
            if shares:
                found[ticker] = ((manager_id, ticker, "new", 0, shares, 0, position["value"]), None, position)
        elif (from_shares := was["shares"]) != shares:
            kind: ShareChange = "new" if from_shares == 0 else "added" if shares > from_shares else "reduced"
            row: Row = (manager_id, ticker, kind, from_shares, shares, was["value"], position["value"])
            found[ticker] = (row, None, position)
    gone = [position for position in old.values() if position["shares"] >= 1]  # each earlier one no later one holds
    named: dict[str, Named] = {e["ticker"]: e for e in after["ended"]} if gone else {}
    for position in gone:
        ticker, shares = position["ticker"], position["shares"]
        row = (manager_id, ticker, "exited", shares, 0, position["value"], 0)
        found[ticker] = (row, None, named.get(ticker, position))
    return [found[ticker] for ticker in sorted(found)]


def _candidates(flagged: Mapping[str, list[Candidate]], *groups: list[str]) -> list[Candidate]:
    """The candidates `flagged` lists for any CUSIP of `groups`, each once (as changes.classify gathers them)."""
    if not flagged or all(flagged.keys().isdisjoint(group) for group in groups):
        return []
    found = cast(Mapping[str, list[dict]], flagged)  # changes.classify (not typed yet) takes plain dicts
    return cast(list[Candidate], unique_candidates(found[c] for group in groups for c in group if c in found))


def _untouched_change(
    manager_id: str,
    named: Named,
    kind: ShareChange,
    amounts: tuple[int, int, int, int],
    shares: int,
    delta: int,
    candidates: list[Candidate],
) -> Moved:
    """A change no corporate action touched, as changes.classify records it: undecided when a version between left
    it so (`candidates`), else `kind` by `delta`, the shares traded against the `shares` carried."""
    if candidates:
        return _change(manager_id, named, "undecided", amounts, shares, None, "undecided", [], candidates)
    return _change(manager_id, named, kind, amounts, shares, delta, "trade" if delta else "none", [], [])


def _unnamed(key: str) -> Named:
    """A key neither version names (a position carried through corporate actions only): the key, no issuer known."""
    return {"ticker": key, "issuer": "", "tickerAsOf": "current", "mapped": True}


def _side(manager: ArtifactManager, artifact: PackArtifact) -> Side:
    """A version's book of one manager at the key level (each position one lot under its first CUSIP)."""
    lots = {
        p["cusip"]: Lot(p["cusip"], p["shares"], p["value"], len(p["sources"]), p["issuer"])
        for p in manager["positions"]
    }
    keys = Keys({e["cusip"]: e["ticker"] for _, e in entries(manager)})
    # omissions need no flag here: the versions between already left what they touch undecided
    return Side(date.fromisoformat(artifact["quarter"]), lots, keys.__getitem__, False)


def _legs(between: Sequence[ArtifactManager]) -> list[CorporateAction]:
    """The corporate actions the versions between cite for the manager, as records again, in effect order."""
    legs: dict[tuple[str, str], CorporateAction] = {}
    for manager in between:
        for _, entry in entries(manager):
            for action in entry["change"]["corporateActions"]:
                legs.setdefault((action["record"], action["cusip"] or ""), _leg(action, manager["cik"]))
    return sorted(legs.values(), key=lambda leg: (leg.effective, leg.record))


def _leg(action: CitedAction, cik: str) -> CorporateAction:
    new, _, old = (action["ratio"] or "1:1").partition(":")
    cash = Decimal(action["cashPerShare"]) if action["cashPerShare"] is not None else None
    shares = action["receivedShares"]
    return CorporateAction(
        date.fromisoformat(action["effective"]),
        ActionKind(action["kind"]),
        action["cusip"] or "",
        action["newCusip"] or "",
        Fraction(Decimal(new)) / Fraction(Decimal(old)),
        action["ratio"] or "",
        cash,
        action["source"],
        action["record"],
        cik if shares is not None else "",
        shares,
    )


def _flagged(between: Sequence[ArtifactManager]) -> tuple[bool, dict[str, list[Candidate]]]:
    """Whether a version between cites a corporate action for the manager (else `_legs` of them is empty), and CUSIP
    → the candidates of every change a version between left undecided for it: one pass over their entries."""
    cites, flagged = False, cast(dict[str, list[Candidate]], {})
    for manager in between:
        for group in (manager["positions"], manager["ended"]):  # views.entries
            for entry in group:
                change = entry["change"]
                if change["corporateActions"]:
                    cites = True
                if change["kind"] == "undecided":
                    flagged.setdefault(entry["cusip"], []).extend(change["candidates"])
    return cites, flagged
