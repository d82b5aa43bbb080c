"""Corporate-action records as a version writes them: the hand records of corporate_actions.csv and the ones the
holders' evidence derived, each with its source; and the corporate_actions.csv line a candidate offers, to check
against the public record and paste; pure."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from datetime import date
from fractions import Fraction
from typing import TypedDict

from builder.records import CorporateAction
from builder.research.schema import ActionFields, ActionRecord

QuarterActions = tuple[str, list[ActionRecord]]  # a version's quarter and its corporate-action records


class ListedAction(ActionRecord):
    """A record as an operator reviews it: the first version that applies it, and whether the promoted one does not."""

    quarter: str
    new: bool


class ActionListing(TypedDict):
    """Every corporate-action record a set of versions applies, with the counts of each kind (action_listing)."""

    derived: int
    hand: int
    new: int
    records: list[ListedAction]


def action_fields(leg: CorporateAction) -> ActionFields:
    """The fields a record and every citation of it share."""
    return {
        "effective": leg.effective.isoformat(),
        "kind": leg.kind,
        "cusip": leg.cusip or None,
        "newCusip": leg.new_cusip or None,
        "ratio": leg.ratio_text or None,
        "cashPerShare": str(leg.cash_per_share) if leg.cash_per_share is not None else None,
        "source": leg.source,
        "record": leg.record,
        "receivedShares": leg.shares,
    }


def action_records(legs: Iterable[CorporateAction], after: date, through: date) -> list[ActionRecord]:
    """The records in effect in (`after`, `through`], hand records first, each with the evidence of a derived one."""
    return [_record(leg) for leg in legs if after < leg.effective <= through]


def _record(leg: CorporateAction) -> ActionRecord:
    evidence = leg.evidence
    return {
        **action_fields(leg),
        "derived": evidence is not None,
        "effectiveAfter": evidence.after.isoformat() if evidence else None,
        "evidence": {
            "holders": evidence.holders,
            "agreeing": evidence.agreeing,
            "ratios": list(evidence.ratios) if evidence.ratios else None,
            "origin": evidence.origin,
            "sources": list(evidence.sources),
        }
        if evidence
        else None,
    }


def actions_line(versions: Iterable[QuarterActions]) -> str:
    """One progress line: the corporate-action records the versions apply, how many the holders' evidence decided
    (and from whose books), how many are the operator's."""
    listing = action_listing(versions)
    derived = [r for r in listing["records"] if r["derived"]]
    origins = sorted({r["evidence"]["origin"] for r in derived if r["evidence"]})  # a derived record has evidence
    kinds = sorted({r["kind"] for r in derived})
    by_kind = ", ".join(f"{sum(r['kind'] == kind for r in derived)} {kind}" for kind in kinds)
    return (
        f"corporate actions: {len(derived)} decided by the holders' evidence"
        + (f" ({by_kind}; from {' and '.join(origins)})" if derived else "")
        + f", {listing['hand']} from corporate_actions.csv"
    )


def action_listing(versions: Iterable[QuarterActions], promoted: Iterable[QuarterActions] = ()) -> ActionListing:
    """Every corporate-action record the versions apply, derived and hand ones side by side, oldest first, each
    marked `new` when the promoted versions do not apply it: what an operator reviews before promoting."""
    seen = {_key(r) for _, records in promoted for r in records}
    found: dict[tuple[str, str | None, str | None, str], ListedAction] = {}
    for quarter, applied in sorted(versions, key=lambda version: version[0]):
        for record in applied:
            found.setdefault(_key(record), {**record, "quarter": quarter, "new": _key(record) not in seen})
    records = list(found.values())
    derived = sum(r["derived"] for r in records)
    return {
        "derived": derived,
        "hand": len(records) - derived,
        "new": sum(r["new"] for r in records),
        "records": records,
    }


def action_lines(listing: ActionListing) -> list[str]:
    """Terminal lines of `action_listing`: the counts, then each new record with what decided it."""
    lines = [
        f"corporate actions: {listing['derived']} decided by the holders' evidence, {listing['hand']} from "
        f"corporate_actions.csv; {listing['new']} new (not applied by the promoted release)"
    ]
    for record in (r for r in listing["records"] if r["new"]):
        terms = (
            f" {record['ratio']}"
            if record["ratio"]
            else f" ${record['cashPerShare']} a share"
            if record["cashPerShare"]
            else ""
        )
        what = (
            f"{record['kind']} {record['cusip'] or ''}{' → ' + record['newCusip'] if record['newCusip'] else ''}{terms}"
        )
        evidence = record["evidence"]  # a derived record's
        if evidence is not None:
            lines.append(
                f"  derived  {record['effectiveAfter']} … {record['effective']} {what}: {evidence['agreeing']} of "
                f"{evidence['holders']} holders fit ({evidence['origin']})"
            )
        else:
            lines.append(f"  hand     {record['effective']} {what}: {record['record']}")
    return lines


def _key(record: ActionRecord) -> tuple[str, str | None, str | None, str]:
    return record["record"], record["cusip"], record["newCusip"], record["effective"]


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
