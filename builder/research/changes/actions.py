"""Corporate-action records as a version writes them: the hand records of corporate_actions.csv and the ones the
holders' evidence derived, each with its source; pure."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from builder.records import CorporateAction


def action_fields(leg: CorporateAction) -> dict:
    """The fields a record and every citation of it share."""
    return {
        "effective": leg.effective.isoformat(),
        "kind": leg.kind.value,
        "cusip": leg.cusip or None,
        "newCusip": leg.new_cusip or None,
        "ratio": leg.ratio_text or None,
        "cashPerShare": str(leg.cash_per_share) if leg.cash_per_share is not None else None,
        "source": leg.source,
        "record": leg.record,
        "receivedShares": leg.shares,
    }


def action_records(legs: Iterable[CorporateAction], after: date, through: date) -> list[dict]:
    """The records in effect in (`after`, `through`], hand records first, each with the evidence of a derived one."""
    return [_record(leg) for leg in legs if after < leg.effective <= through]


def _record(leg: CorporateAction) -> dict:
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


def actions_line(artifacts: Iterable[dict]) -> str:
    """One progress line: the corporate-action records the versions apply, how many the holders' evidence decided
    (and from whose books), how many are the operator's."""
    records = {r["record"]: r for artifact in artifacts for r in artifact["corporateActions"]}
    derived = [r for r in records.values() if r["derived"]]
    origins = sorted({r["evidence"]["origin"] for r in derived})
    kinds = sorted({r["kind"] for r in derived})
    by_kind = ", ".join(f"{sum(r['kind'] == kind for r in derived)} {kind}" for kind in kinds)
    return (
        f"corporate actions: {len(derived)} decided by the holders' evidence"
        + (f" ({by_kind}; from {' and '.join(origins)})" if derived else "")
        + f", {len(records) - len(derived)} from corporate_actions.csv"
    )
