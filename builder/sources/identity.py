"""One security across a CUSIP or ticker change: CUSIPs sharing a share-class FIGI take one ticker; pure."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from datetime import date

from builder.records import Filing, Security


def link_by_figi(securities: Mapping[str, Security], filings: Iterable[Filing]) -> dict[str, Security]:
    """CUSIPs of one share class (same `figi`) all map to the ticker and name of the one filed most recently.

    A renamed security (Torchmark 891027104 → Globe Life 37959E102 in 2019) then keeps one key, so its
    position continues instead of showing as a close plus an open.
    """
    last_filed: dict[str, date] = {}
    for filing in filings:
        for row in filing.rows:
            last_filed[row.cusip] = max(filing.period, last_filed.get(row.cusip, filing.period))
    classes: dict[str, list[Security]] = {}
    for security in securities.values():
        if security.figi:
            classes.setdefault(security.figi, []).append(security)
    linked = dict(securities)
    for members in classes.values():
        newest = max(members, key=lambda s: (last_filed.get(s.cusip, date.min), s.cusip))
        for member in members:
            linked[member.cusip] = dataclasses.replace(member, ticker=newest.ticker, name=newest.name)
    return linked


def linked_tickers(before: Mapping[str, Security], after: Mapping[str, Security]) -> list[str]:
    """One report line per CUSIP whose ticker a link changed."""
    return [
        f"linked {cusip} ({before[cusip].ticker}) to {after[cusip].ticker} by share-class FIGI {after[cusip].figi}"
        for cusip in sorted(before)
        if before[cusip].ticker != after[cusip].ticker
    ]
