"""Which quarters a fetch covers, and when each quarter's 13F is due; pure."""

from __future__ import annotations

from datetime import date, timedelta

FILING_DEADLINE_DAYS = 45  # 17 CFR 240.13f-1(a)(1): within 45 days after the end of each calendar quarter
_QUARTER_ENDS = ((3, 31), (6, 30), (9, 30), (12, 31))


def quarter_end(day: date) -> date:
    """The last day of the calendar quarter holding `day`."""
    month, last = _QUARTER_ENDS[(day.month - 1) // 3]
    return date(day.year, month, last)


def previous_quarter_end(end: date) -> date:
    """The quarter end before quarter end `end`: the day before its quarter's first day."""
    return date(end.year, end.month - 2, 1) - timedelta(days=1)


def last_ended_quarter(today: date) -> date:
    """The newest quarter end strictly before `today`."""
    end = quarter_end(today)
    return end if end < today else previous_quarter_end(end)


def window_quarters(today: date, versions: int, since: date | None) -> tuple[date, ...]:
    """Quarter ends of the window, oldest first: `versions` + 1 (the first diff's base) or back to `since`."""
    ends = [last_ended_quarter(today)]
    while (len(ends) < versions + 1) if since is None else (previous_quarter_end(ends[-1]) >= since):
        ends.append(previous_quarter_end(ends[-1]))
    return tuple(reversed(ends))


def deadline(period: date) -> date:
    """The day a quarter's 13F is due."""
    return period + timedelta(days=FILING_DEADLINE_DAYS)
