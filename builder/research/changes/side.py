"""One quarter end of one manager's book, as the change rules read it; pure data."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date

from builder.research.changes.carry import Lot
from builder.research.evidence import NO_EVIDENCE, Evidence


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
