"""Each manager's changes of shares between two versions of the pack, read from their artifacts: a consecutive
pair's as the newer artifact states them (changes.books), a pair further apart classified again (changes.classify) on
the older book carried through the corporate actions the versions between cite."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import cast

from builder.records import ActionKind, CorporateAction
from builder.research.changes import books
from builder.research.changes.books import KnownChange, Moved, Row, ShareChange
from builder.research.changes.carry import Lot
from builder.research.changes.classify import book_changes as classify
from builder.research.changes.classify import by_key, unique_candidates
from builder.research.changes.side import Keying, Keys, Side, one_keyed, untested
from builder.research.schema import ArtifactManager, Candidate, CitedAction, PackArtifact
from builder.research.views import Named, entries


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
            yield manager_id, books.own_changes(manager_id, before, after)
            continue
        own = [by_id[manager_id] for by_id in by_id_between]
        cites, flagged = _flagged(own)
        if cites:
            found = _carried(manager_id, before, after, older, newer, own, flagged)
            yield manager_id, [change for change in found if books.listed(change)]
        else:  # what `_untouched` gives is all moved
            known = tested is not None and manager_id not in tested
            yield manager_id, _untouched(manager_id, before, after, flagged, known)


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
            books.as_entry(
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
            books.as_entry(
                manager_id,
                named.get(ended.key) or books.unnamed(ended.key),
                cast(KnownChange, ended.change),
                old[ended.key]["shares"] if ended.key in old else 0,
                0,
                old[ended.key]["value"] if ended.key in old else 0,
                0,
            )
        )
    return sorted(found, key=books.by_ticker)


def _untouched(
    manager_id: str,
    before: ArtifactManager,
    after: ArtifactManager,
    flagged: Mapping[str, list[Candidate]],
    known: bool = False,
) -> list[Moved]:
    """What `_carried` gives when the versions between cite no corporate action (`_flagged`), less the entries `books.listed`
    drops; without the lots, the carry and the rules. With no legs, carry() leaves each earlier lot whole under its
    CUSIP (nothing moved, ended or received, no parent, no rounding) and the rules are `flagged`. So each later key's
    change is undecided when `flagged` names one of its CUSIPs or of the earlier CUSIPs the later version keys the
    same, else its filed shares against those earlier ones' (new, added, reduced or unchanged by the difference;
    cause trade, or none when it is 0); and each earlier CUSIP of a share or more whose later key no later position
    has ended, grouped by its earlier key: undecided when `flagged` names one, else exited whole. None cites an
    action, none is converted: `books.listed` keeps the undecided ones and those whose shares moved, the only ones built.
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
            name, amounts = named.get(key) or books.unnamed(key), (from_shares, 0, from_value, 0)
            found.append(_untouched_change(manager_id, name, "exited", amounts, shares, -shares, candidates))
    return sorted(found, key=books.by_ticker)


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
        return books.as_moved(manager_id, named, "undecided", amounts, shares, None, "undecided", [], candidates)
    return books.as_moved(manager_id, named, kind, amounts, shares, delta, "trade" if delta else "none", [], [])


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
