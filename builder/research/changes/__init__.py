"""Changes of shares between two quarter ends, measured on one basis: the earlier book carried through the corporate
actions between them (`carry`), the later filing classified against it with its cause (`classify`), and the
changes no record decides flagged with their candidate explanations (`undecided`)."""

from builder.research.changes.classify import (
    BOUGHT,
    CHANGE_KINDS,
    SOLD,
    TRADED,
    Changes,
    Ended,
    book_changes,
    is_trade,
    unknown_changes,
)

__all__ = [
    "BOUGHT",
    "CHANGE_KINDS",
    "SOLD",
    "TRADED",
    "Changes",
    "Ended",
    "book_changes",
    "is_trade",
    "unknown_changes",
]
