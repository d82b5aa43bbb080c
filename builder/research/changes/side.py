"""One quarter end of one manager's book, as the change rules read it, and how a version's books key their CUSIPs
(each to its position's ticker, or to itself); pure data."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from itertools import chain
from typing import NamedTuple

from builder.research.changes.carry import Lot
from builder.research.evidence import NO_EVIDENCE, Evidence
from builder.research.schema import ArtifactManager, PackArtifact


@dataclass(frozen=True, slots=True)
class Side:
    """One quarter end of one manager's book, as the rules see it."""

    quarter: date
    lots: Mapping[str, Lot]  # long-equity lots by CUSIP
    key: Callable[[str], str]  # CUSIP → its position key at this quarter end (ticker, or the CUSIP when unmapped)
    # a filing of this quarter omits positions under confidential treatment (Form 13F, Special Instructions 7)
    omitted: bool
    previous: Mapping[str, Lot] = field(default_factory=dict)  # the lots a quarter before (for a price's trend)
    alive: frozenset[str] = frozenset()  # CUSIPs some manager of the pack files at this quarter end
    cik: str = ""  # whose book (a receipt line names it)
    # what the holders of its securities decide since the previous quarter end: what they settle (no single-book
    # rule second-guesses it), which securities are new, how many holders were seen, whose books they were
    evidence: Evidence = NO_EVIDENCE


class Keys(dict[str, str]):
    """CUSIP → position key; a CUSIP the version does not name is its own key (asked a million times a publish)."""

    def __missing__(self, cusip: str) -> str:
        return cusip


def one_keyed(before: ArtifactManager, after: ArtifactManager) -> bool:
    """Whether two books of one manager key each CUSIP to one ticker and each ticker to one CUSIP, the same where they
    meet (a CUSIP both name, a ticker both name), and no CUSIP of the earlier one that the later one does not name is
    a later ticker (research.windows.spans takes a shorter way to their changes then)."""
    earlier_key = {e["cusip"]: e["ticker"] for e in chain(before["positions"], before["ended"])}
    later_key = {e["cusip"]: e["ticker"] for e in chain(after["positions"], after["ended"])}
    earlier_cusip = dict(zip(earlier_key.values(), earlier_key.keys(), strict=True))
    later_cusip = dict(zip(later_key.values(), later_key.keys(), strict=True))
    both = earlier_key.items() & later_key.items()
    return (
        len(earlier_cusip) == len(before["positions"]) + len(before["ended"])
        and len(later_cusip) == len(after["positions"]) + len(after["ended"])
        and len(earlier_key.keys() & later_key.keys()) == len(both)
        and len(earlier_cusip.keys() & later_cusip.keys()) == len(both)
        and (earlier_key.keys() - later_key.keys()).isdisjoint(later_cusip)
    )


class Keying(NamedTuple):
    """What `one_keyed` reads of a whole version, gathered once (`keying`), so that most pairs of its books need no
    test of their own (`untested`)."""

    pairs: frozenset[tuple[str, str]]  # each (CUSIP, ticker) some manager's entry names
    repeated: frozenset[str]  # the managers whose entries name a CUSIP twice


def keying(artifact: PackArtifact) -> Keying:
    """The version's `Keying`: one pass over every manager's entries."""
    pairs: set[tuple[str, str]] = set()
    repeated: list[str] = []
    for manager in artifact["managers"]:
        named = [(e["cusip"], e["ticker"]) for e in chain(manager["positions"], manager["ended"])]
        pairs.update(named)
        if len(dict(named)) != len(named):
            repeated.append(manager["id"])
    return Keying(frozenset(pairs), frozenset(repeated))


def untested(earlier: Keying, later: Keying) -> frozenset[str] | None:
    """The managers whose books of two versions `one_keyed` must still test: those whose entries name a CUSIP twice,
    when the versions' entries together key each CUSIP to one ticker and each ticker to one CUSIP and name no CUSIP
    as another CUSIP's ticker (every other manager's two books then pass it); else None (each must be tested)."""
    pairs = earlier.pairs | later.pairs
    cusips, tickers = {c for c, _ in pairs}, {t for _, t in pairs}
    if len(cusips) != len(pairs) or len(tickers) != len(pairs) or any((c, c) not in pairs for c in cusips & tickers):
        return None
    return earlier.repeated | later.repeated
