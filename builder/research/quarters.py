"""Calendar quarters as 13F reports them: periods end on Mar 31, Jun 30, Sep 30 and Dec 31."""

from __future__ import annotations

from datetime import date, timedelta

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
