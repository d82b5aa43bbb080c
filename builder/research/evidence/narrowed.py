"""The witnesses one version's evidence reads: the two quarter ends that bound it, the securities the pack holds at
either, the data sets behind those ends; and their digest, which names them in the version's fingerprint.

Nothing of another quarter end reaches a version's evidence, so a quarter published later leaves it as it was (and a
publish may take the version from the promoted release instead of building it again).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import date

from builder.canonical import canonical_json
from builder.records import Holders, Witnesses


def narrowed(witnesses: Witnesses | None, ends: tuple[date, date], held: Iterable[str]) -> Witnesses | None:
    """Of `witnesses`, every filer's holding at the two quarter `ends` of each security in `held`, citing the sets
    whose filings make those ends; None when they do not cover both."""
    if witnesses is None or any(end not in witnesses.quarters for end in ends):
        return None
    asked = sorted(set(held))
    return Witnesses(
        witnesses.origin,
        tuple(sorted({path for end in ends for path in witnesses.behind.get(end, ())})),
        {end: _only(witnesses.quarters[end], asked) for end in ends},
        {end: witnesses.filers[end] for end in ends if end in witnesses.filers},
        {end: witnesses.behind[end] for end in ends if end in witnesses.behind},
    )


def _only(held: dict[str, Holders], asked: list[str]) -> dict[str, Holders]:
    return {cusip: held[cusip] for cusip in asked if cusip in held}


def digest(witnesses: Witnesses | None) -> str:
    """sha256 over everything of `witnesses` that evidence reads ("" for none): where they come from, and each quarter
    end's filer count and every CUSIP's holders, shares and values."""
    if witnesses is None:
        return ""
    found = hashlib.sha256(canonical_json([witnesses.origin, list(witnesses.sources)]))
    for end, held in sorted(witnesses.quarters.items()):
        found.update(f"\0{end.isoformat()}\0{witnesses.filers.get(end)}".encode())
        for cusip, holders in held.items():
            found.update(f"\0{cusip}\0{len(holders)}".encode())
            for column in (holders.ciks, holders.shares, holders.values):
                found.update(column.tobytes())
    return found.hexdigest()
