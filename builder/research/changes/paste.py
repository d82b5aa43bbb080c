"""A corporate_actions.csv line a candidate offers, to check against the public record and paste; pure."""

from __future__ import annotations

import csv
import io
from datetime import date
from fractions import Fraction


def todo(earlier: date, later: date, what: str) -> str:
    """The line's source column until the operator cites the record: what to check, and between which dates."""
    return f"CHECK {what}: effective date between {earlier} and {later}, cite the issuer's announcement"


def record_line(
    effective: date, kind: str, cusip: str, new_cusip: str, ratio: str, cash: str, source: str, *receipt: str
) -> str:
    """One corporate_actions.csv line (with `cik`, `shares` for a receipt), quoted as the csv module quotes."""
    buffer = io.StringIO()
    row = [effective.isoformat(), kind, cusip, new_cusip, ratio, cash, source, *receipt]
    csv.writer(buffer, lineterminator="").writerow(row)
    return buffer.getvalue()


def ratio_text(ratio: Fraction) -> str:
    """new:old as corporate_actions.csv writes it: 4:1, 1:20, 3:2, 1.892:1."""
    if ratio.denominator <= 20 and ratio.numerator <= 20:
        return f"{ratio.numerator}:{ratio.denominator}"
    return f"{float(ratio):.6g}:1"
