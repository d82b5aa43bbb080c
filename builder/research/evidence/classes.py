"""Several share classes of one issuer recapitalised at once, told apart by the ratios an issuer states; pure.

Holders of both classes fit every pairing of old class and new security (Liberty Media's Series A and C of 2016
became SiriusXM, Media and Braves shares of each series: a holder of 10,000,000 A and 20,000,000 C fits A → C
SiriusXM at 2:1 as well as A → A SiriusXM at 1:1). An issuer states one set of ratios for every class it
recapitalises: each old class became the same numbers of new shares per share. When exactly one pairing gives
every old class the same ratios, that pairing is the event; with none, or two, the securities stay open.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from itertools import product

from builder.records import CorporateAction

MAX_PAIRINGS = 4096  # more ways to pair than this (a recapitalisation of many classes at once) is left open


def paired_classes(
    contested: dict[str, list[CorporateAction]], kin: Callable[[str, str], bool]
) -> dict[str, list[CorporateAction]]:
    """The legs of `contested` (old CUSIP → the legs several old classes claim) that the one pairing of equal
    ratios keeps, per old CUSIP; the olds of a group with no such single pairing are absent."""
    kept: dict[str, list[CorporateAction]] = {}
    for group in _groups(contested):
        olds = sorted(group)
        if not all(kin(olds[0], leg.new_cusip) for old in olds for leg in contested[old]):
            continue  # classes of one issuer only: another issuer states its own ratios
        claims: dict[str, list[CorporateAction]] = {}
        for old in olds:
            for leg in contested[old]:
                claims.setdefault(leg.new_cusip, []).append(leg)
        news = sorted(claims)
        if math.prod(len(legs) for legs in claims.values()) > MAX_PAIRINGS:
            continue
        even = [legs for legs in product(*(claims[new] for new in news)) if _even(olds, legs)]
        if len(even) == 1:
            for leg in even[0]:
                why = f"; of the pairings of {', '.join(olds)} with {', '.join(news)}, the one of equal ratios"
                kept.setdefault(leg.cusip, []).append(replace(leg, source=leg.source + why))
    return kept


def _groups(contested: dict[str, list[CorporateAction]]) -> list[set[str]]:
    """The old CUSIPs linked by a new security two of them claim."""
    groups: list[tuple[set[str], set[str]]] = []  # (old CUSIPs, the new ones they claim)
    for old, legs in sorted(contested.items()):
        olds, news = {old}, {leg.new_cusip for leg in legs}
        for group in [g for g in groups if g[1] & news]:
            groups.remove(group)
            olds, news = olds | group[0], news | group[1]
        groups.append((olds, news))
    return [olds for olds, _ in groups]


def _even(olds: list[str], legs: tuple[CorporateAction, ...]) -> bool:
    """Whether every old class gets at least one new security and all get the same ratios."""
    ratios: dict[str, list[Fraction]] = {old: [] for old in olds}
    for leg in legs:
        ratios[leg.cusip].append(leg.ratio)
    first = sorted(ratios[olds[0]])
    return all(ratios[old] and sorted(ratios[old]) == first for old in olds)
