"""Semantic diff of two 13f-copycat versions over one view: what changed, never why."""

from __future__ import annotations

from collections.abc import Sequence

from builder.research.artifact import change_kind
from builder.research.views import manager_ids, view_tickers


def diff_versions(
    older: dict, newer: dict, managers: Sequence[str], mode: str,
    *, book: dict | None = None, tickers: tuple[set[str], set[str]] | None = None,
) -> dict:
    """Tickers that entered or left the view, per-manager position changes and source changes.

    A caller diffing one pair in every mode passes what does not depend on the mode, computed once:
    `book` = book_changes(older, newer, managers) and `tickers` = each side's view_tickers.
    """
    selected = sorted(managers or manager_ids(newer))
    before_tickers, after_tickers = tickers or (view_tickers(older, managers, mode), view_tickers(newer, managers, mode))
    return {
        "from": older["versionId"],
        "to": newer["versionId"],
        "fromQuarter": older["quarter"],
        "toQuarter": newer["quarter"],
        "view": {"managers": selected, "mode": mode},
        "tickers": {
            "entered": sorted(after_tickers - before_tickers),
            "left": sorted(before_tickers - after_tickers),
            "unchanged": len(after_tickers & before_tickers),
        },
        **(book or book_changes(older, newer, managers)),
    }


def book_changes(older: dict, newer: dict, managers: Sequence[str]) -> dict:
    """The selected managers' position and source changes between two versions: the same in every mode."""
    selected = sorted(managers or manager_ids(newer))
    return {"positions": _position_changes(older, newer, selected), "sources": _source_changes(older, newer, selected)}


def _holdings(manager: dict) -> dict[str, dict]:
    return {p["ticker"]: p for p in manager["positions"]}


def _position_changes(older: dict, newer: dict, managers: Sequence[str]) -> list[dict]:
    changes = []
    by_id_old = {m["id"]: m for m in older["managers"]}
    by_id_new = {m["id"]: m for m in newer["managers"]}
    for manager_id in managers:
        before, after = _holdings(by_id_old[manager_id]), _holdings(by_id_new[manager_id])
        for ticker in sorted(before.keys() | after.keys()):
            shares_before = before[ticker]["shares"] if ticker in before else 0
            shares_after = after[ticker]["shares"] if ticker in after else 0
            if shares_before == shares_after:
                continue
            changes.append(
                {
                    "managerId": manager_id,
                    "ticker": ticker,
                    "kind": change_kind(before[ticker]["shares"] if ticker in before else None,
                                        after[ticker]["shares"] if ticker in after else None),
                    "fromShares": shares_before,
                    "toShares": shares_after,
                    "shareDelta": shares_after - shares_before,
                    "fromValue": before[ticker]["value"] if ticker in before else 0,
                    "toValue": after[ticker]["value"] if ticker in after else 0,
                }
            )
    return changes


def _source_changes(older: dict, newer: dict, managers: Sequence[str]) -> list[dict]:
    by_id_old = {m["id"]: m for m in older["managers"]}
    by_id_new = {m["id"]: m for m in newer["managers"]}
    changes = []
    for manager_id in managers:
        old_filings = {f["accession"] for f in by_id_old[manager_id]["filings"]}
        new_filings = by_id_new[manager_id]["filings"]
        changes.append(
            {
                "managerId": manager_id,
                "fromAccessions": sorted(old_filings),
                "toAccessions": sorted(f["accession"] for f in new_filings),
                "amendments": sorted(f["accession"] for f in new_filings if f["amendment"] != "original"),
            }
        )
    return changes
