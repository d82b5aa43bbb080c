"""Explain one ticker of a view: each selected manager's change, cited evidence, ethos scores, overlap."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from builder.research.errors import NotInView

EXIT_LIMITATION = (
    "An exit is the absence of a row in this quarter's 13F: its statement cites this quarter's filing with row null; "
    "the previous quarter's rows are the change record's sources."
)


@dataclass(frozen=True, slots=True)
class _Index:
    """Lookups over one view, its artifact and scores, built once so each explanation costs its own rows only."""

    rows: dict[str, dict]  # ticker → view row
    entries: dict[str, list[tuple[dict, dict]]]  # ticker → (manager, position or exit) of the selected, artifact order
    managers: dict[str, dict]  # manager id → the artifact's manager
    order: dict[str, int]  # manager id → its place in the artifact
    scores: dict[str, dict]  # ticker → its scores entry

    @classmethod
    def of(cls, view: dict, artifact: dict, scores: dict) -> _Index:
        rows: dict[str, dict] = {}
        for row in view["tickers"]:
            rows.setdefault(row["ticker"], row)
        selected = set(view["managers"])
        entries: dict[str, list[tuple[dict, dict]]] = {}
        for manager in artifact["managers"]:
            if manager["id"] in selected:
                for entry in (*manager["positions"], *manager["exited"]):
                    entries.setdefault(entry["ticker"], []).append((manager, entry))
        managers: dict[str, dict] = {}
        for manager in artifact["managers"]:
            managers.setdefault(manager["id"], manager)
        order = {manager_id: place for place, manager_id in enumerate(managers)}
        by_ticker: dict[str, dict] = {}
        for entry in scores.get("scores", []):
            by_ticker.setdefault(entry["ticker"], entry)
        return cls(rows, entries, managers, order, by_ticker)


def _row(ticker: str, view: dict, index: _Index) -> dict:
    row = index.rows.get(ticker)
    if row is not None:
        return row
    raise NotInView(
        f"{ticker} is not in the selected view", {"ticker": ticker, "managers": list(view["managers"]), "mode": view["mode"]}
    )


def _changes(ticker: str, artifact: dict, index: _Index) -> list[dict]:
    """The artifact's own position or exit of `ticker` for each selected manager that has one."""
    changes = []
    for manager, entry in index.entries.get(ticker, ()):
        exited = entry["change"]["kind"] == "exited"
        quarter = artifact["previousQuarter"] if exited else artifact["quarter"]
        changes.append({"managerId": manager["id"], "managerName": manager["name"], "held": not exited,
                        "sourcesQuarter": quarter, **entry})
    return changes


def _citations(change: dict, index: _Index) -> list[dict]:
    """Held: the rows the position came from. Exited: this quarter's filings of the manager, row null."""
    if change["held"]:
        return [{"accession": s["accession"], "row": s["row"], "managerId": change["managerId"]}
                for s in change["sources"]]
    manager = index.managers[change["managerId"]]
    return [{"accession": f["accession"], "row": None, "managerId": change["managerId"]} for f in manager["filings"]]


def _held_text(change: dict) -> str:
    worth = f"worth ${change['value']:,}, {change['weight']:.2%} of its 13F book"
    delta, before = change["change"]["shareDelta"], change["change"]["previousShares"]
    kind, name, shares = change["change"]["kind"], change["managerName"], change["shares"]
    if kind == "new":
        return f"{name} opened a position of {shares:,} shares, {worth}."
    if kind in ("added", "reduced"):
        return f"{name} {kind} {abs(delta):,} shares (from {before:,} to {shares:,}), now {worth}."
    if kind == "unchanged":
        return f"{name} held {shares:,} shares, unchanged, {worth}."
    return f"{name} held {shares:,} shares, {worth}; the change is unknown (no previous-quarter 13F in the sources)."


def _statement(change: dict, artifact: dict, index: _Index) -> dict:
    if change["held"]:
        text = _held_text(change)
    else:
        text = (f"{change['managerName']} exited: {change['change']['previousShares']:,} shares at "
                f"{artifact['previousQuarter']}, no row in its 13F for {artifact['quarter']}.")
    return {"text": text, "citations": _citations(change, index)}


def _summary_statement(row: dict, view: dict, changes: Sequence[dict], artifact: dict, index: _Index) -> dict:
    text = (f"{row['holderCount']} of {len(view['managers'])} selected managers hold {row['ticker']} at "
            f"{artifact['quarter']}; {len(row['buyers'])} bought and {len(row['sellers'])} sold this quarter.")
    return {"text": text, "citations": [c for change in changes for c in _citations(change, index)]}


def _source_records(statements: Sequence[dict], index: _Index) -> list[dict]:
    """The filings the statements cite, per manager in artifact order, each once."""
    cited = {(c["managerId"], c["accession"]) for s in statements for c in s["citations"]}
    managers = sorted({manager_id for manager_id, _ in cited if manager_id in index.order}, key=index.order.__getitem__)
    filings = [(manager_id, f) for manager_id in managers for f in index.managers[manager_id]["filings"]]
    return [{"managerId": manager_id, **f} for manager_id, f in filings if (manager_id, f["accession"]) in cited]


def _ethos(ticker: str, scores: dict, index: _Index) -> tuple[dict, dict]:
    ids = list(scores.get("ethosIds", []))
    entry = index.scores.get(ticker, {"scores": {}, "features": {}})
    top_sets = scores.get("topSets", {})
    ranks = {e: top_sets[e].index(ticker) + 1 if ticker in top_sets.get(e, []) else None for e in ids}
    overlap = {
        "inEveryTopSet": bool(ids) and ticker in scores.get("overlap", {}).get("tickers", []),
        "topSets": [e for e in ids if ranks[e] is not None],
        "ranks": ranks,
    }
    return {"ethosIds": ids, "scores": entry["scores"], "features": entry["features"]}, overlap


def _limitations(row: dict, changes: Sequence[dict], artifact: dict, policy: dict | None) -> list[str]:
    notes = [f"Positions are as of the quarter end {artifact['quarter']}; 13F filings are due 45 days later, "
             "so holdings may have changed since."]
    unknown = [c["managerName"] for c in changes if c["change"]["kind"] == "unknown"]
    if unknown:
        notes.append(f"Change unknown for {', '.join(unknown)}: the previous quarter's 13F is not in the sources.")
    if any(not c["held"] for c in changes):
        notes.append(EXIT_LIMITATION)
    if any(not c["mapped"] for c in changes):
        notes.append(f"{row['ticker']} is a CUSIP with no ticker in securities.csv.")
    if artifact["fixture"]:
        notes.append("Fixture data: the managers are fictional; the numbers are not investment data.")
    return notes + (list(policy["warnings"]) if policy else [])


def explain_position(ticker: str, view: dict, artifact: dict, scores: dict, policy: dict | None = None) -> dict:
    """Why `ticker` is in `view`: changes, short cited statements, scores, overlap, sources, limitations."""
    return explainer(view, artifact, scores, policy)(ticker)


def explainer(view: dict, artifact: dict, scores: dict, policy: dict | None = None) -> Callable[[str], dict]:
    """explain_position over one view for any ticker, its lookups built once (the same answers, in linear time)."""
    index = _Index.of(view, artifact, scores)

    def explain(ticker: str) -> dict:
        row = _row(ticker, view, index)
        changes = _changes(ticker, artifact, index)
        statements = [_summary_statement(row, view, changes, artifact, index),
                      *(_statement(c, artifact, index) for c in changes)]
        ethos, overlap = _ethos(ticker, scores, index)
        return {
            "ticker": ticker,
            "issuer": row["issuer"],
            "cusip": row["cusip"],
            "versionId": artifact["versionId"],
            "quarter": artifact["quarter"],
            "view": {"managers": list(view["managers"]), "mode": view["mode"]},
            "summary": {key: row[key] for key in ("holders", "holderCount", "buyers", "sellers", "value")},
            "changes": changes,
            "evidence": {"statements": statements},
            "ethos": ethos,
            "overlap": overlap,
            "sourceRecords": _source_records(statements, index),
            "limitations": _limitations(row, changes, artifact, policy),
            "policy": None if policy is None else {
                key: policy[key] for key in ("signal", "executionEnabled", "blockingReasons", "warnings")
            },
            "executionEnabled": False,
        }

    return explain
