"""Each manager's changes of shares between two versions of the pack, read from their artifacts: a consecutive
pair's as the newer artifact states them (changes.books), a pair further apart classified again (changes.classify) on
the older book carried through the corporate actions the versions between cite."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import date
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

from builder.records import ActionKind, CorporateAction
from builder.research.changes import books
from builder.research.changes.books import Moved, Row
from builder.research.changes.carry import Lot
from builder.research.changes.classify import book_changes as classify
from builder.research.changes.classify import by_key, unique_candidates
from builder.research.changes.side import Keying, Keys, Side, one_keyed, untested
from builder.research.schema import ArtifactManager, Candidate, CitedAction, MeasuredKind, PackArtifact
from builder.research.views import CarriedManager, CarriedVersion, Entry, Named, entries, held_amounts


def moved_positions(
    older: PackArtifact, newer: PackArtifact, managers: Sequence[str], between: Sequence[PackArtifact | CarriedVersion]
) -> list[Moved]:
    """Each selected manager's changes of shares, by manager then ticker (`manager_changes`, one after the other)."""
    return [change for _, found in manager_changes(older, newer, managers, between) for change in found]


def manager_changes(
    older: PackArtifact,
    newer: PackArtifact,
    managers: Sequence[str],
    between: Sequence[PackArtifact | CarriedVersion],
    *,
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
    quarters = [artifact["quarter"] for artifact in between]
    tested = untested(*keyings) if keyings and not adjacent else None
    for manager_id in managers:
        before, after = by_id_old[manager_id], by_id_new[manager_id]
        if adjacent:
            yield manager_id, books.own_changes(manager_id, before, after)
            continue
        seen = _between([by_id[manager_id] for by_id in by_id_between], quarters)
        if seen.cites:
            found = _carried(manager_id, before, after, older, newer, seen)
            yield manager_id, [change for change in found if books.listed(change)]
        else:  # what `_untouched` gives is all moved
            known = tested is not None and manager_id not in tested
            yield manager_id, _untouched(manager_id, before, after, seen, known)


class Between(NamedTuple):
    """What the versions after a diff's older one carry for one manager (`_between`): the entries whose change cites a
    corporate action or was left undecided, all api.methods.carried_through keeps of them."""

    cites: bool  # some version cites a corporate action for the manager (else `_legs` of them is empty)
    flagged: dict[str, list[Candidate]]  # CUSIP → the candidates of every change a version left undecided for it
    legs: list[CorporateAction]  # the corporate actions they cite, as records again, in effect order (`_legs`)
    keys: dict[str, str]  # CUSIP → its key, as the last version that names it in such an entry keys it
    named: dict[str, Named]  # key → the last such entry that names it


def _between(between: Sequence[ArtifactManager | CarriedManager], quarters: Sequence[str]) -> Between:
    """What `between` (the manager's part of each version after the older one, oldest first, of `quarters`)
    carries: one pass over their entries."""
    cites = False
    raised: list[Raised] = []
    keys: dict[str, str] = {}
    named: dict[str, Named] = {}
    for version, manager in zip(quarters, between, strict=True):
        for group in (manager["positions"], manager["ended"]):  # views.entries
            for entry in group:
                change = entry["change"]
                if change["corporateActions"]:
                    cites = True
                elif change["kind"] != "undecided":
                    continue
                keys[entry["cusip"]], named[entry["ticker"]] = entry["ticker"], entry
                if change["kind"] == "undecided":
                    raised.append((date.fromisoformat(version), entry["cusip"], change["candidates"]))
    legs = _legs(between) if cites else []
    return Between(cites, _followed(raised, legs), legs, keys, named)


Raised = tuple[date, str, list[Candidate]]  # a version's quarter end, a CUSIP it left undecided, their candidates


def _followed(raised: Sequence[Raised], legs: Sequence[CorporateAction]) -> dict[str, list[Candidate]]:
    """CUSIP → the candidates of the undecided changes `raised`, each flag carried through the legs effective after
    its quarter end: handed on to the CUSIPs a merger, exchange or split moves its shares to, ended by a cash merger
    (the position converted), as each consecutive diff carries the shares; a spin-off leaves it with the parent (the
    child's shares are the ones its quarter received)."""
    found: dict[str, list[Candidate]] = {}
    for quarter, cusip, candidates in raised:
        for leg in legs:
            if leg.effective <= quarter or leg.cusip != cusip or leg.shares is not None:
                continue
            if leg.kind is ActionKind.CASH_MERGER:
                cusip = ""
            elif leg.kind is not ActionKind.SPIN_OFF and leg.new_cusip and leg.new_cusip != leg.cusip:
                cusip = leg.new_cusip  # the event's other legs, on the same CUSIP, are handed their part below
                for other in legs:
                    if (
                        other is not leg
                        and other.effective == leg.effective
                        and other.cusip == leg.cusip
                        and other.new_cusip
                    ):
                        found.setdefault(other.new_cusip, []).extend(candidates)
        if cusip:
            found.setdefault(cusip, []).extend(candidates)
    return found


def _later_keys(before: ArtifactManager, seen: Between, after: ArtifactManager) -> Keys:
    """CUSIP → its key at the later version of a diff: as that version's entries key it, else as the last version
    between that names it (`seen`), else as the earlier version did. A CUSIP the later version no longer names keeps
    the key it had: the versions between keyed it so, and a later CUSIP of the same key (a new CUSIP securities.csv
    keys as the same position: Media General's of 2014) is its continuation, as each consecutive diff measured it."""
    keys = {e["cusip"]: e["ticker"] for _, e in entries(before)}
    keys.update(seen.keys)
    keys.update((e["cusip"], e["ticker"]) for _, e in entries(after))
    return Keys(keys)


def _flagged_keys(
    manager_id: str, found: list[Moved], seen: Between, keys: Keys, ends: Sequence[ArtifactManager]
) -> list[Moved]:
    """`found` with every key a version between left undecided undecided: a change of such a key that the carry
    decided becomes undecided (a new CUSIP of the same position, as Media General's, carries no flag of its own), and
    a key no change lists gets an undecided change of its own (a position neither end holds as filed: held only
    between, or omitted under confidential treatment at one end), so that what the quarters between could not
    decide is never read as a trade or as no change."""
    if not seen.flagged:
        return found
    flagged: dict[str, list[str]] = {}
    for cusip in seen.flagged:
        flagged.setdefault(keys[cusip], []).append(cusip)
    before, after = ({p["ticker"]: p for p in end["positions"]} for end in ends)
    made: list[Moved] = []
    for change in found:
        (_, key, kind, from_shares, to_shares, from_value, to_value), detail, named = change
        if key not in flagged or kind == "undecided":
            made.append(change)
            continue
        carried = detail["carriedShares"] if detail else from_shares
        actions = detail["corporateActions"] if detail else []
        candidates = _candidates(seen.flagged, flagged.pop(key))
        amounts = (from_shares, to_shares, from_value, to_value)
        made.append(
            books.as_moved(manager_id, named, "undecided", amounts, carried, None, "undecided", actions, candidates)
        )
    for key, cusips in sorted(flagged.items()):
        if key in {change[0][1] for change in found}:
            continue  # listed, and undecided already
        was, now = before.get(key), after.get(key)
        amounts = (
            was["shares"] if was else 0,
            now["shares"] if now else 0,
            was["value"] if was else 0,
            now["value"] if now else 0,
        )
        named = now or was or seen.named.get(key) or books.unnamed(key)
        candidates = _candidates(seen.flagged, cusips)
        made.append(books.as_moved(manager_id, named, "undecided", amounts, None, None, "undecided", [], candidates))
    return made


def _carried(
    manager_id: str,
    before: ArtifactManager,
    after: ArtifactManager,
    older: PackArtifact,
    newer: PackArtifact,
    seen: Between,
) -> list[Moved]:
    """One manager's changes across several quarters; `seen`: what the versions after the older one carry for it."""
    keys = _later_keys(before, seen, after)
    earlier, later = _side(before, older), _side(after, newer, keys)
    changes = classify(earlier, later, seen.legs, rules=lambda *_: seen.flagged)
    old = {p["ticker"]: p for p in before["positions"]}
    new = {p["ticker"]: p for p in after["positions"]}
    found: list[Moved] = []
    named: dict[str, Named] = {**seen.named, **{e["ticker"]: e for m in (before, after) for _, e in entries(m)}}
    for ticker, change in changes.held.items():
        position = new[ticker]
        found.append(
            books.as_entry(
                manager_id,
                position,
                change,
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
                ended.change,
                old[ended.key]["shares"] if ended.key in old else 0,
                0,
                old[ended.key]["value"] if ended.key in old else 0,
                0,
            )
        )
    return sorted(_flagged_keys(manager_id, found, seen, keys, (before, after)), key=books.by_ticker)


def _untouched(
    manager_id: str, before: ArtifactManager, after: ArtifactManager, seen: Between, known: bool = False
) -> list[Moved]:
    """What `_carried` gives when the versions between cite no corporate action (`_between`), less the entries
    `books.listed` drops; without the lots, the carry and the rules. With no legs, carry() leaves each earlier lot
    whole under its CUSIP (nothing moved, ended or received, no parent, no rounding) and the rules are `seen.flagged`.
    So each later key's change (CUSIPs keyed as `_later_keys` keys them) is undecided when `flagged` names one of its
    CUSIPs or of the earlier CUSIPs the later version keys the same, else its filed shares against those earlier
    ones' (new, added, reduced or unchanged by the difference; cause trade, or none when it is 0); each earlier CUSIP
    of a share or more whose later key no later position has ended, grouped by its earlier key: undecided when
    `flagged` names one, else exited whole; and each other key `flagged` names is undecided (`_flagged_keys`). None cites
    an action, none is converted: `books.listed` keeps the undecided ones and those whose shares moved, the only ones
    built. Most books key each CUSIP to one ticker: with nothing flagged, those take a shorter way still
    (`_one_to_one`; `known`: these two books are known to pass its test)."""
    found = None if seen.flagged else _one_to_one(manager_id, before, after, known)
    return _by_keys(manager_id, before, after, seen) if found is None else found


def _by_keys(manager_id: str, before: ArtifactManager, after: ArtifactManager, seen: Between) -> list[Moved]:
    """`_untouched` of any two books: each later key's CUSIPs against the earlier ones it keys."""
    flagged = seen.flagged
    earlier_key = Keys({e["cusip"]: e["ticker"] for _, e in entries(before)})
    later_key = _later_keys(before, seen, after)
    earlier = {p["cusip"]: p["shares"] for p in before["positions"]}
    later = {p["cusip"]: p["shares"] for p in after["positions"]}
    sources, held = by_key(earlier, later_key.__getitem__), by_key(later, later_key.__getitem__)
    old = {p["ticker"]: p for p in before["positions"]}
    new = {p["ticker"]: p for p in after["positions"]}
    flagged_at = by_key(flagged, later_key.__getitem__)  # a CUSIP a version between left undecided, by its later key
    found: list[Moved] = []
    for key, cusips in held.items():
        position = new[key]
        from_shares, from_value = (old[key]["shares"], old[key]["value"]) if key in old else (0, 0)
        carried = sources.get(key, [])
        # undecided also when a version between left it undecided under an earlier CUSIP of the key (LiLAC's of 2015,
        # renamed Liberty Latin America under a new CUSIP in 2018: securities.csv keys both as LILA)
        candidates = _candidates(flagged, cusips, carried, flagged_at.get(key, []))
        if candidates or from_shares != position["shares"]:
            shares = sum([earlier[c] for c in carried])
            delta = sum([later[c] for c in cusips]) - shares
            kind: MeasuredKind = (
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
    return sorted(_flagged_keys(manager_id, found, seen, later_key, (before, after)), key=books.by_ticker)


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
            kind: MeasuredKind = "new" if from_shares == 0 else "added" if shares > from_shares else "reduced"
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
    return unique_candidates(flagged[c] for group in groups for c in group if c in flagged)


def _untouched_change(
    manager_id: str,
    named: Named,
    kind: MeasuredKind,
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


def _side(manager: ArtifactManager, artifact: PackArtifact, keys: Keys | None = None) -> Side:
    """A version's book of one manager at the key level (each position one lot under its first CUSIP), its CUSIPs
    keyed by `keys`, else as its entries key them."""
    lots = {
        p["cusip"]: Lot(p["cusip"], p["shares"], p["value"], len(p["sources"]), p["issuer"])
        for p in manager["positions"]
    }
    keys = keys if keys is not None else Keys({e["cusip"]: e["ticker"] for _, e in entries(manager)})
    # omissions need no flag here: the versions between already left what they touch undecided
    return Side(date.fromisoformat(artifact["quarter"]), lots, keys.__getitem__, False)


def _legs(between: Sequence[ArtifactManager | CarriedManager]) -> list[CorporateAction]:
    """The corporate actions the versions between cite for the manager, as records again, in effect order; a spin-off
    as the shares of the child its quarter's change received (`_received`)."""
    legs: dict[tuple[str, str], CorporateAction] = {}
    for manager in between:
        for pair in entries(manager):
            for action in pair[1]["change"]["corporateActions"]:
                leg = _leg(action, manager["cik"], _received(pair, action))
                if leg.shares is not None or (leg.record, leg.cusip) not in legs:
                    legs[leg.record, leg.cusip] = leg
    return sorted(legs.values(), key=lambda leg: (leg.effective, leg.record))


def _received(pair: Entry, action: CitedAction) -> int | None:
    """The shares of a spin-off's child that the change of its quarter took as received, not traded (`entry`: the
    child's, citing the spin-off `action`): its shares less those traded and those held a quarter before; else None.
    They were received on the parent shares held at the record date, as filed a quarter before and traded within the
    quarter (changes.classify), so a diff from further back receives these, not the ratio times the parent shares
    it held then: parent shares it bought or sold later are the parent's trades, never the child's (Liberty Global's
    Class C dividend of 2014 on the LBTYA bought in the two quarters before it)."""
    entry = pair[1]
    change = entry["change"]
    if action["kind"] != "spin-off" or action["receivedShares"] is not None or action["newCusip"] != entry["cusip"]:
        return None
    held = held_amounts(pair)[0]
    kept = held - change["shareDelta"] if change["shareDelta"] is not None else change["carriedShares"]
    return None if kept is None else max(kept - (change["previousShares"] or 0), 0)


def _leg(action: CitedAction, cik: str, received: int | None = None) -> CorporateAction:
    """A cited action as its record; with `received`, a receipt of that many of its new CUSIP's shares (carry)."""
    new, _, old = (action["ratio"] or "1:1").partition(":")
    cash = Decimal(action["cashPerShare"]) if action["cashPerShare"] is not None else None
    shares = action["receivedShares"] if received is None else received
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
