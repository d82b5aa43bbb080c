"""The sum of a release's adjacent diffs, checked against each diff that spans several quarters.

A diff from version i to version j says, per manager and position, the shares the later filing holds against the
earlier book carried through every corporate action between them. The adjacent diffs (i, i+1) … (j-1, j) say the
same one quarter at a time, so the spanning diff's trades are theirs, each carried on to j's basis through the
corporate actions after it: a share bought before a 4:1 split is four shares at j, a share of an issuer merged at
1.892 is 1.892 of its acquirer's, a share of a parent brings its spin-off's child along. This module computes that
sum on its own (its own carry of each adjacent trade through the actions the adjacent diffs cite, and securities.csv's
key of every CUSIP at j) and lists where a spanning diff disagrees with it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from fractions import Fraction

from builder.api import methods
from builder.api.data import ReleaseData
from builder.records import Security
from builder.research.diff import PositionChange, position_changes

CASH_IN_LIEU = 10  # shares a holder may be short per corporate action and account (research.changes.classify)
UNDECIDED = "undecided"


@dataclass
class Book:
    """Amounts per CUSIP at some version, carried on version by version; `flagged`: CUSIPs an undecided change touched,
    `legs`: how many corporate actions moved each CUSIP's amount (each may round a few shares away)."""

    amounts: dict[str, Fraction] = field(default_factory=dict)
    flagged: set[str] = field(default_factory=set)
    legs: dict[str, int] = field(default_factory=dict)

    def add(self, cusip: str, amount: Fraction, legs: int = 0) -> None:
        self.amounts[cusip] = self.amounts.get(cusip, Fraction(0)) + amount
        self.legs[cusip] = max(self.legs.get(cusip, 0), legs)


def ratio(text: str | None) -> Fraction:
    new, _, old = (text or "1:1").partition(":")
    return Fraction(Decimal(new)) / Fraction(Decimal(old))


def carried(book: Book, actions: Iterable[Mapping]) -> Book:
    """Trades `book` carried through `actions` (cited records, any order): a split or an exchange moves them to the
    new CUSIP at the ratio (every leg of one event takes all of them), a cash merger ends them, a spin-off leaves them
    with the parent (a child received is no trade of the child), and so does a receipt."""
    events: dict[tuple[str, str], list[Mapping]] = {}
    for action in sorted(actions, key=lambda a: (a["effective"], a["record"])):
        if action["receivedShares"] is None:
            events.setdefault((action["effective"], action["cusip"] or ""), []).append(action)
    found = Book(dict(book.amounts), set(book.flagged), dict(book.legs))
    for (_, cusip), legs in sorted(events.items()):
        held, flagged = found.amounts.get(cusip), cusip in found.flagged
        if held is None and not flagged:
            continue
        moved = found.legs.get(cusip, 0) + 1
        if legs[0]["kind"] == "spin-off":
            found.legs[cusip] = moved
            continue
        found.amounts.pop(cusip, None)
        found.flagged.discard(cusip)  # an undecided change's flag travels with its shares, and ends with a cash merger
        for leg in legs:
            if leg["kind"] == "cash-merger":
                continue
            target = leg["newCusip"] or cusip
            if held is not None:
                found.add(target, held * ratio(leg["ratio"]), moved)
            if flagged:
                found.flagged.add(target)
    return found


@dataclass(frozen=True)
class Mismatch:
    manager: str
    older: str
    newer: str
    ticker: str
    said: str
    expected: str


def key_at(securities: Mapping[str, Security], cusip: str, day: date) -> str:
    """securities.csv's key of a CUSIP at a quarter end: its ticker then, or the CUSIP when unmapped."""
    security = securities.get(cusip)
    return security.at(day)[0].ticker if security else cusip


class Sums:
    """Every adjacent diff of a release, read once, and the sums over any span of them."""

    def __init__(self, data: ReleaseData, securities: Mapping[str, Security]) -> None:
        self.data, self.securities, self.versions = data, securities, data.versions
        self.adjacent = [
            self.diff(older, newer) for older, newer in zip(self.versions, self.versions[1:], strict=False)
        ]
        self.cusips = [self._cusips(version) for version in self.versions]

    def diff(self, older: str, newer: str) -> list[PositionChange]:
        return position_changes(
            methods.compare_versions(self.data, {"packId": "13f-copycat", "from": older, "to": newer})
        )

    def _cusips(self, version: str) -> dict[tuple[str, str], str]:
        """(manager, ticker) → the CUSIP its entry names at the version (a position's first)."""
        return {
            (manager["id"], entry["ticker"]): entry["cusip"]
            for manager in self.data.artifacts[version]["managers"]
            for group in ("positions", "ended")
            for entry in manager[group]
        }

    def check(self, older: int, newer: int) -> list[Mismatch]:
        """Where the diff from version `older` to `newer` disagrees with the sum of the adjacent diffs between."""
        spanning = self.diff(self.versions[older], self.versions[newer])
        day = date.fromisoformat(self.data.artifacts[self.versions[newer]]["quarter"])
        found: list[Mismatch] = []
        for manager in sorted({m["id"] for m in self.data.artifacts[self.versions[newer]]["managers"]}):
            found += self._manager(manager, older, newer, [c for c in spanning if c["managerId"] == manager], day)
        return found

    def _manager(
        self, manager: str, older: int, newer: int, spanning: list[PositionChange], day: date
    ) -> list[Mismatch]:
        traded = Book()
        touched: dict[str, int] = {}  # key at the later version → the corporate actions of the window touching it
        for step in range(older + 1, newer + 1):
            changes = [c for c in self.adjacent[step - 1] if c["managerId"] == manager]
            actions = {(a["record"], a["cusip"], a["newCusip"]): a for c in changes for a in c["corporateActions"]}
            traded = carried(traded, actions.values())
            for action in actions.values():
                for cusip in {action["cusip"], action["newCusip"]} - {None}:
                    key = key_at(self.securities, cusip, day)
                    touched[key] = touched.get(key, 0) + 1
            for change in changes:
                cusip = self.cusips[step].get((manager, change["ticker"]), change["ticker"])
                if change["kind"] == UNDECIDED:
                    traded.flagged.add(cusip)
                elif change["shareDelta"]:
                    traded.add(cusip, Fraction(change["shareDelta"]))
        return self._compare(manager, older, newer, spanning, traded, day, touched)

    def _compare(
        self,
        manager: str,
        older: int,
        newer: int,
        spanning: list[PositionChange],
        traded: Book,
        day: date,
        touched: dict[str, int],
    ) -> list[Mismatch]:
        names = (manager, self.versions[older], self.versions[newer])
        by_key: dict[str, list[PositionChange]] = {}
        for change in spanning:
            by_key.setdefault(change["ticker"], []).append(change)
        sums: dict[str, Sum] = {}
        for cusip, amount in traded.amounts.items():
            found = sums.setdefault(key_at(self.securities, cusip, day), Sum())
            found.add(amount, cusip in traded.flagged, traded.legs.get(cusip, 0))
        for cusip in traded.flagged - traded.amounts.keys():
            sums.setdefault(key_at(self.securities, cusip, day), Sum()).flagged = True
        found: list[Mismatch] = []
        for key in sorted(by_key.keys() | {k for k, s in sums.items() if s.delta or s.flagged}):
            changes, expected = by_key.get(key, []), sums.get(key, Sum())
            expected.legs = max(expected.legs, touched.get(key, 0))
            said = ", ".join(f"{c['kind']} {c['shareDelta']} ({c['fromShares']} → {c['toShares']})" for c in changes)
            if not expected.agrees(changes[0] if len(changes) == 1 else None, len(changes)):
                found.append(Mismatch(*names, key, said or "absent", str(expected)))
        return found


@dataclass
class Sum:
    """The adjacent trades of one position carried to the later version: their sum, whether an undecided change
    touched it, and how many corporate actions moved them."""

    delta: Fraction = Fraction(0)
    flagged: bool = False
    legs: int = 0

    def add(self, amount: Fraction, flagged: bool, legs: int) -> None:
        self.delta += amount
        self.flagged = self.flagged or flagged
        self.legs = max(self.legs, legs)

    def __str__(self) -> str:
        return f"{'undecided ' if self.flagged else ''}{float(self.delta):,.1f} ({self.legs} actions)"

    def agrees(self, change: PositionChange | None, entries: int) -> bool:
        """Whether a spanning diff's entries of the position (`change`: its one entry) say what the sum says."""
        if entries > 1:
            return False
        if self.flagged:
            return change is not None and change["kind"] == UNDECIDED
        if change is None:
            return abs(self.delta) <= self.tolerance(0)
        shares = change["shareDelta"]
        if shares is None or abs(shares - self.delta) > self.tolerance(change["toShares"]):
            return False
        carried_shares = change["toShares"] - shares
        if shares == 0:
            return change["kind"] in ("unchanged", "converted")
        if shares > 0:
            return change["kind"] == ("new" if carried_shares == 0 else "added")
        return change["kind"] == ("exited" if change["toShares"] == 0 else "reduced")

    def tolerance(self, shares: int) -> Fraction:
        """How far carrying once and carrying quarter by quarter may round apart: a few shares per action."""
        return Fraction(CASH_IN_LIEU * self.legs + math.ceil(shares / 1_000_000) * self.legs)
