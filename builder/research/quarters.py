"""Calendar quarters as 13F reports them: periods end on Mar 31, Jun 30, Sep 30 and Dec 31."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Annotated, TypedDict

from builder.typed import KEY, Date

FILING_DEADLINE_DAYS = 45  # 17 CFR 240.13f-1(a)(1): within 45 days after the end of each calendar quarter
QUARTER_ENDS = ((3, 31), (6, 30), (9, 30), (12, 31))


def is_quarter_end(day: date) -> bool:
    return (day.month, day.day) in QUARTER_ENDS


def previous_quarter(quarter: date) -> date:
    """The quarter end before `quarter` (itself a quarter end)."""
    month, day = QUARTER_ENDS[(quarter.month // 3 - 2) % 4]
    return date(quarter.year - (quarter.month == 3), month, day)


def filing_deadline(quarter: date) -> date:
    return quarter + timedelta(days=FILING_DEADLINE_DAYS)


def next_quarter(quarter: date) -> date:
    """The quarter end after `quarter` (itself a quarter end)."""
    month, day = QUARTER_ENDS[(quarter.month // 3) % 4]
    return date(quarter.year + (quarter.month == 12), month, day)


class Freshness(TypedDict):  # KEY: what get_latest_pack's compact answer promises of it
    """How recent a quarter's data is, as dates a reader compares with its own clock: precomputed bytes cannot know
    the day they are read, so they carry no verdict (no "stale", no days since)."""

    filingDeadline: Annotated[Date, KEY]
    supersededAfter: Annotated[Date, KEY]
    nextFilingDeadline: Annotated[Date, KEY]


def freshness(quarter: str) -> Freshness:
    """The quarter's filing deadline; the next quarter end, after which a newer quarter's 13F may be filed and this
    version superseded; and that quarter's filing deadline, by when every manager's next 13F is due."""
    end = date.fromisoformat(quarter)
    after = next_quarter(end)
    return {
        "filingDeadline": filing_deadline(end).isoformat(),
        "supersededAfter": after.isoformat(),
        "nextFilingDeadline": filing_deadline(after).isoformat(),
    }


def clock(quarter: str) -> str:
    """How to judge a quarter's data against the reader's own clock, in one line (the bytes cannot know today)."""
    found = freshness(quarter)
    return (
        f"Judge by your clock: a newer quarter's 13F may exist after {found['supersededAfter']}; all are due by "
        f"{found['nextFilingDeadline']}."
    )
