"""Explain one ticker of a view: each selected manager's change, cited evidence, ethos scores, overlap."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from builder.research.errors import NotInView
from builder.research.methods.ethos import EthosComparison, TickerScores
from builder.research.methods.explained import (
    AsFiled,
    EndedChange,
    EvidenceStatement,
    Explained,
    HeldChange,
    Naming,
    PolicyBrief,
    PositionExplanation,
    SourceRecord,
    TickerEthos,
    TickerOverlap,
    change_citations,
    source_record,
)
from builder.research.methods.policy import PolicyResult
from builder.research.schema import (
    ArtifactFiling,
    ArtifactManager,
    ArtifactWarning,
    Change,
    Ended,
    PackArtifact,
    Position,
)
from builder.research.views import Entry, View, ViewTicker
from builder.research.views import entries as manager_entries
from builder.research.windows.history import Step, position_history
from builder.typed import picked

EXIT_LIMITATION = (
    "A position no longer held is the absence of a row in this quarter's 13F: its statement cites this quarter's filing "
    "with row null, then the previous quarter's rows it ended (the change record's sources)."
)
LEFT_LIMITATION = (
    "{ticker} left the selected view in this quarter (it was in the view a version earlier): the explanation is of "
    "the changes that took it out, and it has no ethos scores here."
)
ACTION_LIMITATION = (
    "Shares are compared on one basis: the previous quarter's book carried through the corporate actions between the "
    "quarter ends (cited with their source in corporateActions); only the shares traded beyond them count as bought or sold."
)
UNDECIDED_LIMITATION = (
    "An undecided change looks like a corporate action that corporate_actions.csv does not record, or borders a filing "
    "that omitted positions under confidential treatment: its candidates say what it may be; it is never counted as "
    "bought or sold."
)
CURRENT_TICKER_LIMITATION = (
    "{ticker} is the CUSIP's ticker today (securities.csv gives no dates for it): at the quarter end the security may "
    "have traded under another ticker, and the ticker may then have belonged to another company."
)


@dataclass(frozen=True, slots=True)
class _Index:
    """Lookups over one view, its artifact and scores, built once so each explanation costs its own rows only."""

    rows: dict[str, ViewTicker]  # ticker → view row
    left: dict[str, ViewTicker]  # ticker → the row of a ticker that left the view this quarter
    # ticker → (manager, its position or ended entry with whether it is held), in artifact order
    entries: dict[str, list[tuple[ArtifactManager, Entry]]]
    managers: dict[str, ArtifactManager]  # manager id → the artifact's manager
    order: dict[str, int]  # manager id → its place in the artifact
    scores: dict[str, TickerScores]  # ticker → its scores entry
    # (manager id, accession) → its source record, made once: a publish explains every ticker of a view, and each
    # cites its holders' filings (at 500 managers, 270,000 records of a few thousand filings)
    records: dict[tuple[str, str], SourceRecord] = field(default_factory=dict)

    @classmethod
    def of(
        cls,
        view: View,
        artifact: PackArtifact,
        scores: EthosComparison,
        every: Sequence[ViewTicker],
        gone: Collection[str],
    ) -> _Index:
        rows: dict[str, ViewTicker] = {}
        for row in view["tickers"]:
            rows.setdefault(row["ticker"], row)
        left = {row["ticker"]: row for row in every if row["ticker"] in gone and row["ticker"] not in rows}
        selected = set(view["managers"])
        entries: dict[str, list[tuple[ArtifactManager, Entry]]] = {}
        for manager in artifact["managers"]:
            if manager["id"] in selected:
                for pair in manager_entries(manager):
                    entries.setdefault(pair[1]["ticker"], []).append((manager, pair))
        managers: dict[str, ArtifactManager] = {}
        for manager in artifact["managers"]:
            managers.setdefault(manager["id"], manager)
        order = {manager_id: place for place, manager_id in enumerate(managers)}
        by_ticker: dict[str, TickerScores] = {}
        for scored in scores.get("scores", []):
            by_ticker.setdefault(scored["ticker"], scored)
        return cls(rows, left, entries, managers, order, by_ticker)


def _row(ticker: str, view: View, index: _Index) -> ViewTicker:
    row = index.rows.get(ticker) or index.left.get(ticker)
    if row is not None:
        return row
    raise NotInView(
        f"{ticker} is not in the selected view",
        {"ticker": ticker, "managers": list(view["managers"]), "mode": view["mode"]},
    )


def _naming(row: ViewTicker, index: _Index) -> Naming:
    """The explanation's name of the security: the view row's, `mapped` from its first entry."""
    first = index.entries.get(row["ticker"])
    mapped = first[0][1][1]["mapped"] if first else row["tickerAsOf"] != "unmapped"
    return {"issuer": row["issuer"], "cusip": row["cusip"], "mapped": mapped, "tickerAsOf": row["tickerAsOf"]}


def _changes(ticker: str, naming: Naming, index: _Index) -> list[Explained]:
    """The artifact's own position or ended entry of `ticker` for each selected manager that has one, without what
    the explanation says once (the ticker, and its naming where the entry's is the same)."""
    changes: list[Explained] = []
    for manager, pair in index.entries.get(ticker, ()):
        who, own = manager["id"], _as_filed(pair[1], naming)
        if pair[0]:
            position = pair[1]
            changes.append(
                {
                    "managerId": who,
                    "managerName": manager["name"],
                    "held": True,
                    **own,
                    "shares": position["shares"],
                    "value": position["value"],
                    "weight": position["weight"],
                    "change": position["change"],
                    "sources": position["sources"],
                }
            )
        else:
            ended, absent = pair[1], [f["accession"] for f in manager["filings"]]
            changes.append(
                {
                    "managerId": who,
                    "managerName": manager["name"],
                    "held": False,
                    **own,
                    "change": ended["change"],
                    "sources": ended["sources"],
                    "absentFrom": absent,
                }
            )
    return changes


def _as_filed(entry: Position | Ended, naming: Naming) -> AsFiled:
    """The entry's name of the security where it differs from the explanation's."""
    own: AsFiled = {}
    if entry["issuer"] != naming["issuer"]:
        own["issuer"] = entry["issuer"]
    if entry["cusip"] != naming["cusip"]:
        own["cusip"] = entry["cusip"]
    if entry["mapped"] != naming["mapped"]:
        own["mapped"] = entry["mapped"]
    if entry["tickerAsOf"] != naming["tickerAsOf"]:
        own["tickerAsOf"] = entry["tickerAsOf"]
    return own


def _held_text(change: HeldChange, ticker: str, artifact: PackArtifact) -> str:
    worth = f"worth ${change['value']:,}, {change['weight']:.2%} of its 13F book"
    record, name, shares = change["change"], change["managerName"], change["shares"]
    kind, delta, carried = record["kind"], record["shareDelta"], record["carriedShares"]
    actions = _actions(record)
    if kind == "unknown":
        return (
            f"{name} held {shares:,} shares, {worth}; the change is unknown (no previous-quarter 13F in the sources)."
        )
    if kind == "undecided":
        return (
            f"{name} reported {shares:,} shares at {artifact['quarter']}, {_before(record)} a quarter earlier; the "
            f"change is undecided and not counted as bought or sold: {_candidates(record)}."
        )
    if kind == "new":
        return f"{name} opened a position of {shares:,} shares, {worth}."
    if kind in ("added", "reduced") and delta is not None:
        verb = "bought" if kind == "added" else "sold"
        basis = (
            f"{record['previousShares']:,} at {artifact['previousQuarter']} became {carried:,} by {actions}; "
            if actions
            else ""
        )
        return f"{name} {verb} {abs(delta):,} shares ({basis}from {carried:,} to {shares:,}), now {worth}."
    if actions:
        return f"{actions}; {name}'s holding is unchanged: {shares:,} {ticker} shares, {worth}."
    return f"{name} held {shares:,} shares, unchanged, {worth}."


def _ended_text(change: EndedChange, ticker: str, artifact: PackArtifact) -> str:
    record, name = change["change"], change["managerName"]
    previous, kind = record["previousShares"], record["kind"]
    if kind == "converted":
        return (
            f"{_actions(record)}; {name} did not sell: its {previous:,} {ticker} shares were converted, and no row "
            f"for {ticker} is in its 13F for {artifact['quarter']}."
        )
    if kind == "undecided":
        return (
            f"{name} reported {previous:,} {ticker} shares at {artifact['previousQuarter']} and none at "
            f"{artifact['quarter']}; the change is undecided and not counted as sold: {_candidates(record)}."
        )
    actions = _actions(record)
    carried = f" ({record['carriedShares']:,} after {actions})" if actions else ""
    return (
        f"{name} exited: {previous:,} shares at {artifact['previousQuarter']}{carried}, no row in its 13F for "
        f"{artifact['quarter']}."
    )


def _actions(record: Change) -> str:
    return "; ".join(action["text"] for action in record["corporateActions"])


def _candidates(record: Change) -> str:
    return "; ".join(candidate["text"] for candidate in record["candidates"])


def _before(record: Change) -> str:
    previous = record["previousShares"]
    return "none" if not previous else f"{previous:,}"


def _statement(change: Explained, ticker: str, artifact: PackArtifact) -> EvidenceStatement:
    text = _held_text(change, ticker, artifact) if change["held"] else _ended_text(change, ticker, artifact)
    return {"text": text, "managerIds": [change["managerId"]]}


def _summary_statement(
    row: ViewTicker, view: View, changes: Sequence[Explained], artifact: PackArtifact, index: _Index
) -> EvidenceStatement:
    undecided = sum(1 for change in changes if change["change"]["kind"] == "undecided")
    moved = sum(1 for change in changes if change["change"]["corporateActions"])
    left = f"{row['ticker']} left the selected view at {artifact['quarter']}: " if row["ticker"] in index.left else ""
    text = (
        f"{left}{row['holderCount']} of {len(view['managers'])} selected managers hold {row['ticker']} at "
        f"{artifact['quarter']}; {len(row['buyers'])} bought and {len(row['sellers'])} sold this quarter"
        + (f"; {moved} changed through corporate actions" if moved else "")
        + (f"; {undecided} undecided, counted as neither" if undecided else "")
        + "."
    )
    return {"text": text, "managerIds": [change["managerId"] for change in changes]}


def _source_records(
    changes: Sequence[Explained], index: _Index, earlier: Mapping[str, list[ArtifactFiling]]
) -> list[SourceRecord]:
    """The filings the statements cite (every change's rows), per manager in artifact order, each once: this
    quarter's, then the previous version's (`earlier`: manager id → its filings there) that an ended position's rows
    cite."""
    cited = {(c["managerId"], c["accession"]) for change in changes for c in change_citations(change)}
    managers = sorted({manager_id for manager_id, _ in cited if manager_id in index.order}, key=index.order.__getitem__)
    found: dict[tuple[str, str], SourceRecord] = {}
    for manager_id in managers:
        for f in (*index.managers[manager_id]["filings"], *earlier.get(manager_id, ())):
            key = (manager_id, f["accession"])
            if key in cited and key not in found:
                found[key] = index.records.get(key) or index.records.setdefault(key, source_record(manager_id, f))
    return list(found.values())


def _ethos(ticker: str, scores: EthosComparison, index: _Index) -> tuple[TickerEthos, TickerOverlap]:
    ids = list(scores.get("ethosIds", []))
    entry = index.scores.get(ticker)
    top_sets = scores.get("topSets", {})
    ranks = {e: top_sets[e].index(ticker) + 1 if ticker in top_sets.get(e, []) else None for e in ids}
    overlap: TickerOverlap = {
        "inEveryTopSet": bool(ids) and ticker in scores.get("overlap", {}).get("tickers", []),
        "topSets": [e for e in ids if ranks[e] is not None],
        "ranks": ranks,
    }
    if entry is None:  # scored in no ethos (a ticker that left the view)
        return {"ethosIds": ids, "scores": {}, "features": {}}, overlap
    return {"ethosIds": ids, "scores": entry["scores"], "features": entry["features"]}, overlap


def _limitations(
    row: ViewTicker,
    changes: Sequence[Explained],
    naming: Naming,
    artifact: PackArtifact,
    policy: PolicyResult | None,
    left: bool,
) -> list[str]:
    notes = [
        f"Positions are as of the quarter end {artifact['quarter']}; 13F filings are due 45 days later, "
        "so holdings may have changed since."
    ]
    if left:
        notes.append(LEFT_LIMITATION.format(ticker=row["ticker"]))
    unknown = [c["managerName"] for c in changes if c["change"]["kind"] == "unknown"]
    if unknown:
        notes.append(f"Change unknown for {', '.join(unknown)}: the previous quarter's 13F is not in the sources.")
    if any(not c["held"] for c in changes):
        notes.append(EXIT_LIMITATION)
    if any(c["change"]["corporateActions"] for c in changes):
        notes.append(ACTION_LIMITATION)
    if any(c["change"]["kind"] == "undecided" for c in changes):
        notes.append(UNDECIDED_LIMITATION)
    if any(not c.get("mapped", naming["mapped"]) for c in changes):
        notes.append(f"{row['ticker']} is a CUSIP with no ticker in securities.csv.")
    elif any(c.get("tickerAsOf", naming["tickerAsOf"]) == "current" for c in changes):
        notes.append(CURRENT_TICKER_LIMITATION.format(ticker=row["ticker"]))
    if artifact["fixture"]:
        notes.append("Fixture data: the managers are fictional; the numbers are not investment data.")
    return notes + (list(policy["warnings"]) if policy else [])


def _warnings(view: View, changes: Sequence[Explained], cusip: str) -> list[ArtifactWarning]:
    """The view's warnings about what this explanation rests on: the pack, the filings of the managers it explains,
    and its securities (a CUSIP without a ticker is an unmapped-cusip warning here too)."""
    managers, cusips = {c["managerId"] for c in changes}, {c.get("cusip", cusip) for c in changes}
    return [
        w
        for w in view["warnings"]
        if w["manager"] is None or (w["manager"] in managers and w["cusip"] in (None, *cusips))
    ]


def explain_position(
    ticker: str, view: View, artifact: PackArtifact, scores: EthosComparison, policy: PolicyResult | None = None
) -> PositionExplanation:
    """Why `ticker` is in `view`: changes, short cited statements, scores, overlap, sources, limitations."""
    return explainer(view, artifact, scores, policy)(ticker)


def explainer(
    view: View,
    artifact: PackArtifact,
    scores: EthosComparison,
    policy: PolicyResult | None = None,
    *,
    rows: Sequence[ViewTicker] = (),
    left: Collection[str] = (),
    earlier: PackArtifact | None = None,
    steps: Sequence[Step] | None = None,
) -> Callable[[str], PositionExplanation]:
    """explain_position over one view for any ticker, its lookups built once (the same answers, in linear time).

    A ticker of `left` (the view held it a version earlier, `earlier`, and no longer does) is explained too, from its
    row among `rows` (ticker_rows of the view's managers): the changes that ended it, with the rows they ended.
    `steps`: every published version's part of a position's history (windows.history.step), oldest first; None: no
    history (null).
    """
    index = _Index.of(view, artifact, scores, rows, left)
    selected = sorted(view["managers"], key=lambda manager_id: index.order.get(manager_id, len(index.order)))
    before = {m["id"]: m["filings"] for m in (earlier["managers"] if earlier else [])}
    whole = set(view["managers"]) == set(index.managers)  # every manager of the version: not listed again
    subset = None if whole else list(view["managers"])

    def explain(ticker: str) -> PositionExplanation:
        row = _row(ticker, view, index)
        naming = _naming(row, index)
        changes = _changes(ticker, naming, index)
        statements = [
            _summary_statement(row, view, changes, artifact, index),
            *(_statement(c, ticker, artifact) for c in changes),
        ]
        ethos, overlap = _ethos(ticker, scores, index)
        return {
            "ticker": ticker,
            "issuer": naming["issuer"],
            "cusip": naming["cusip"],
            "mapped": naming["mapped"],
            "tickerAsOf": naming["tickerAsOf"],
            "versionId": artifact["versionId"],
            "quarter": artifact["quarter"],
            "previousQuarter": artifact["previousQuarter"],
            "view": {"mode": view["mode"], "managerCount": len(view["managers"]), "managers": subset},
            "viewStatus": "left-view" if ticker in index.left else "in-view",
            "summary": {
                "holders": row["holders"],
                "holderCount": row["holderCount"],
                "buyers": row["buyers"],
                "sellers": row["sellers"],
                "value": row["value"],
            },
            "changes": changes,
            "history": None if steps is None else position_history(ticker, steps, selected),
            "evidence": {"statements": statements},
            "ethos": ethos,
            "overlap": overlap,
            "sourceRecords": _source_records(changes, index, before),
            "warnings": _warnings(view, changes, naming["cusip"]),
            "limitations": _limitations(row, changes, naming, artifact, policy, ticker in index.left),
            "policy": None if policy is None else picked(PolicyBrief, policy),
            "executionEnabled": False,
        }

    return explain
