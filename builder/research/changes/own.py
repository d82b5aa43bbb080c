"""Rules about one book itself, which no other holder's books can decide: a position a filing may have omitted
under confidential treatment, shares received through a corporate action and not listed, or listed far beyond
what was received (a stake held outside the 13F book, merged in); pure."""

from __future__ import annotations

import math

from builder.records import ActionKind
from builder.research.changes.actions import record_line, todo
from builder.research.changes.carry import Carried
from builder.research.changes.side import Side
from builder.research.schema import Candidate

# A position delivered by a merger or exchange filed at more than this multiple of what the earlier book gives
# (Berkshire's 192,666 Kraft shares became 325,634,818 Kraft Heinz: its private Heinz stake merged in) is no plain
# purchase beside the action: a receipt from outside the 13F book, or bought, one book cannot tell. A spin-off's child
# is not such a receipt: it goes to the parent's holders alone, and trades from the day it is distributed, so shares
# beyond it were bought (Greenlight's 2,900,000 Quorum Health of 2016: 604,754 received on its Community Health
# Systems, the rest bought after the spin-off).
RECEIVED_MULTIPLE = 3
DELIVERING = frozenset({ActionKind.MERGER, ActionKind.EXCHANGE})


def no_evidence(earlier: Side, later: Side, cusip: str) -> Candidate:
    """The candidate of a change no witness can speak to: no other holder's book, and no data set to show one."""
    name = later.key(cusip) if cusip in later.lots else earlier.key(cusip)
    text = (
        f"{name}: no other holder's book shows what happened to it between {earlier.quarter} and {later.quarter} "
        "(no Form 13F data set covers these quarter ends: `ras fetch` brings every filer's), so nothing decides "
        "whether it was a trade or a corporate action"
    )
    return {"rule": "no-evidence", "text": text, "record": None}


def omission(earlier: Side, later: Side, cusip: str, *, vanished: bool) -> Candidate:
    """A position vanishing into a filing that omits positions (`vanished`), or first appearing after one."""
    if vanished:
        name = earlier.key(cusip) if cusip in earlier.lots else later.key(cusip)
        text = (
            f"{name} is absent from the {later.quarter} filing, which omits positions under confidential treatment: "
            "it may be one of them, not sold"
        )
    else:
        name = later.key(cusip)
        text = (
            f"{name} first appears at {later.quarter}, after the {earlier.quarter} filing that omitted positions under "
            "confidential treatment: it may have been held and omitted, not bought"
        )
    return {"rule": "confidential-omission", "text": text, "record": None}


def unreported(later: Side, carried: Carried, cusip: str) -> Candidate:
    """Shares received through a corporate action, absent from the later filing."""
    shares = math.floor(carried.shares[cusip])
    text = (
        f"{shares:,} shares of {later.key(cusip)} received through a corporate action are absent from the "
        f"{later.quarter} filing: they may not be a Section 13(f) security, or were sold"
    )
    return {"rule": "received-not-reported", "text": text, "record": None}


def received_outside(earlier: Side, later: Side, carried: Carried, cusip: str) -> Candidate | None:
    """A position a corporate action delivered, filed at several times what it delivered."""
    legs = carried.moved.get(cusip, ())
    carried_shares = math.floor(carried.shares.get(cusip, 0))
    filed = later.lots[cusip].shares
    if not any(a.leg.kind in DELIVERING for a in legs) or filed <= RECEIVED_MULTIPLE * max(carried_shares, 1):
        return None
    name, extra = later.key(cusip), filed - carried_shares
    text = (
        f"{name}: {filed:,} shares filed where the corporate action gave {carried_shares:,}: {extra:,} more, received "
        "for holdings outside the 13F book (a private stake merged in), or bought"
    )
    what = f"{extra:,} {name} received for holdings outside the 13F book"
    record = record_line(
        later.quarter, "merger", "", cusip, "", "", todo(earlier.quarter, later.quarter, what), later.cik, str(extra)
    )
    return {"rule": "received-outside-book", "text": text, "record": record}
