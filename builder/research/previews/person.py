"""<person>-tracker: a person's estimated holdings from their disclosed transactions (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from builder.records import ScopeWarning
from builder.research.previews.congress import (
    LATE_DISCLOSURE_DAYS,
    before_trade_warnings,
    disclosure_summary,
    trade_json,
)
from builder.research.previews.pack import (
    RESEARCH_ONLY,
    PreviewPack,
    evaluation_date,
    fixture_notes,
    malformed_notes,
    preview_pack,
    slug,
    source_entries,
)
from builder.sources.congress import AMOUNT_BRACKETS, CongressTrade, TradeType
from builder.sources.previews import PersonSource

TOP_HOLDINGS = 10  # the agent payload's top holdings; the artifact lists every one
CONCENTRATION_TOP = 5  # "top-5 weight", the usual headline concentration figure
CAVEATS = (
    "Estimated holdings: built only from disclosed transactions; positions bought before the first disclosed "
    "transaction, reinvestments, splits and price moves are unknown.",
    "Amounts are ranges: each estimate is the midpoint of disclosed purchases minus sales, with low/high bounds "
    "kept; they are transaction amounts at cost, not market values.",
    "Not reconciled with the official filings: check every position against the person's annual financial "
    "disclosure and the original periodic transaction reports before relying on it.",
    "Disclosure lag: transactions are reported up to 45 days after they happen, some later; only transactions "
    "disclosed by the as-of date are counted.",
    RESEARCH_ONLY,
)


@dataclass(slots=True)
class _Position:
    """Running estimate of one ticker while transactions are replayed (mutable, local to the estimate)."""

    ticker: str
    description: str
    low: int = 0
    high: int | None = 0  # None: unbounded above (an open-ended "Over $…" purchase)
    estimate: int = 0
    trades: list[CongressTrade] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Holding:
    ticker: str
    description: str
    estimate: int  # dollars at cost: purchases' midpoints minus sales'
    low: int
    high: int | None  # None: unbounded above
    trades: tuple[CongressTrade, ...]  # in transaction-date order


@dataclass(frozen=True, slots=True)
class Estimate:
    held: tuple[Holding, ...]  # estimate > 0, largest first
    closed: tuple[str, ...]  # tickers bought and sold out within the disclosed transactions
    unmatched_sales: tuple[CongressTrade, ...]  # sales of positions bought before the disclosed transactions
    untracked: tuple[CongressTrade, ...]  # no ticker, options, exchanges: not in the equity estimate


def person_trades(inputs: PersonSource, day: date) -> list[CongressTrade]:
    """The person's transactions disclosed on or before `day`, in trade order."""
    keys = inputs.keys
    found = (t for f in inputs.files for t in f.trades if t.member_key in keys and t.disclosed <= day)
    return sorted(found, key=lambda t: (t.traded, t.disclosed, t.source, t.row))


def estimate_holdings(trades: Iterable[CongressTrade]) -> Estimate:
    """Replay transactions in trade order: purchases add their range, sales take it away, never below zero."""
    positions: dict[str, _Position] = {}
    unmatched: list[CongressTrade] = []
    untracked: list[CongressTrade] = []
    for trade in trades:
        if trade.ticker is None or trade.trade_type is TradeType.EXCHANGE or "option" in trade.asset_type.casefold():
            untracked.append(trade)
            continue
        position = positions.setdefault(trade.ticker, _Position(trade.ticker, trade.asset_description))
        if trade.trade_type is not TradeType.PURCHASE and position.high == 0:  # nothing disclosed to sell
            unmatched.append(trade)
            continue
        position.trades.append(trade)
        _apply(position, trade)
    held = sorted((Holding(p.ticker, p.description, p.estimate, p.low, p.high, tuple(p.trades))
                   for p in positions.values() if p.estimate > 0), key=lambda h: (-h.estimate, h.ticker))
    closed = sorted(p.ticker for p in positions.values() if p.trades and p.estimate == 0)
    return Estimate(tuple(held), tuple(closed), tuple(unmatched), tuple(untracked))


def _apply(position: _Position, trade: CongressTrade) -> None:
    amount = trade.amount
    if trade.trade_type is TradeType.PURCHASE:
        position.low += amount.low
        position.high = None if position.high is None or amount.high is None else position.high + amount.high
        position.estimate += amount.midpoint
    elif trade.trade_type is TradeType.SALE_FULL:
        position.low = position.estimate = 0
        position.high = 0
    else:  # a partial sale, or a sale not marked full or partial: take the range away, never below zero
        position.estimate = max(0, position.estimate - amount.midpoint)
        position.low = 0 if amount.high is None else max(0, position.low - amount.high)
        position.high = None if position.high is None else max(0, position.high - amount.low)


def concentration(held: Sequence[Holding]) -> dict:
    """Weights of the estimates: top weights, top-5 weight, Herfindahl–Hirschman index, effective positions."""
    total = sum(p.estimate for p in held)
    weights = [(p.ticker, p.estimate / total) for p in held] if total else []
    hhi = sum(weight * weight for _, weight in weights)
    return {
        "positions": len(held), "hhi": hhi, "effective_positions": 1 / hhi if hhi else None,
        f"top{CONCENTRATION_TOP}_weight": sum(weight for _, weight in weights[:CONCENTRATION_TOP]),
        "top": [{"ticker": ticker, "weight": weight} for ticker, weight in weights[:CONCENTRATION_TOP]],
    }


def build_person(inputs: PersonSource, *, as_of: date) -> PreviewPack:
    """The <person>-tracker pack: estimated holdings, concentration and freshness as of the evaluation date."""
    day = evaluation_date(inputs.as_of, as_of)
    pack_id = f"{slug(inputs.name)}-tracker"
    trades = person_trades(inputs, day)
    estimate = estimate_holdings(trades)
    holdings = _holdings_json(estimate.held)
    summary = {
        "pack": pack_id, "label": "data preview", "person": inputs.name, "as_of": day.isoformat(),
        "fixture": inputs.fixture, "totals": _totals(estimate.held),
        "concentration": concentration(estimate.held), "freshness": _freshness(trades, day),
    }
    artifact = {
        **summary, "description": f"Estimated holdings of {inputs.name} from disclosed transactions, with "
                                  "concentration and freshness; estimates keep their low/high bounds.",
        "holdings": holdings, "closed": list(estimate.closed),
        "unmatched_sales": [trade_json(t) for t in estimate.unmatched_sales],
        "untracked": [trade_json(t) for t in estimate.untracked],
        "transactions": [trade_json(t) for t in trades], "sources": source_entries(inputs.files),
    }
    payload = {**summary, "top_holdings": [{key: h[key] for key in ("ticker", "estimate", "low", "high", "weight")}
                                           for h in holdings[:TOP_HOLDINGS]]}
    caveats, warnings = _notes(inputs, trades, estimate)
    return preview_pack(
        pack_id=pack_id, label="data preview", title=f"{inputs.name}: estimated holdings", as_of=day,
        artifact=artifact, agent_payload=payload, caveats=caveats, warnings=warnings,
        methodology=_methodology(inputs, day, as_of),
    )


def _holdings_json(held: Sequence[Holding]) -> list[dict]:
    total = sum(p.estimate for p in held)
    return [{
        "ticker": p.ticker, "asset_description": p.description, "estimate": p.estimate, "low": p.low,
        "high": p.high, "weight": p.estimate / total, "transactions": len(p.trades),
        "first_transaction_date": p.trades[0].traded.isoformat(),
        "last_transaction_date": p.trades[-1].traded.isoformat(),
        "last_disclosure_date": max(t.disclosed for t in p.trades).isoformat(),
    } for p in held]


def _totals(held: Sequence[Holding]) -> dict:
    highs = [p.high for p in held]
    return {"estimate": sum(p.estimate for p in held), "low": sum(p.low for p in held),
            "high": None if None in highs else sum(h for h in highs if h is not None)}


def _freshness(trades: Sequence[CongressTrade], day: date) -> dict:
    summary = disclosure_summary(trades)
    latest = summary["latest_disclosure_date"]
    summary["days_since_latest_disclosure"] = (day - latest).days if latest else None
    return {key: value.isoformat() if isinstance(value, date) else value for key, value in summary.items()}


def _notes(inputs: PersonSource, trades: Sequence[CongressTrade],
           estimate: Estimate) -> tuple[list[str], list[ScopeWarning]]:
    source = inputs.files[0].source if inputs.files else ""
    fixture_caveats, fixture_warnings = fixture_notes(inputs.fixture, source)
    malformed_caveats, malformed_warnings = malformed_notes(inputs.files)
    caveats = [*fixture_caveats, *CAVEATS, *malformed_caveats]
    warnings = [*fixture_warnings, *malformed_warnings, *before_trade_warnings(trades)]
    if not trades:
        warnings.append(ScopeWarning("person-not-found", f"no disclosed transaction names {inputs.name}", source))
    if estimate.unmatched_sales:
        caveats.append(f"{len(estimate.unmatched_sales)} sale(s) of positions bought before the disclosed "
                       "transactions: those positions' sizes are unknown and not estimated.")
        warnings.append(ScopeWarning("unmatched-sales", f"{len(estimate.unmatched_sales)} sale(s) without a "
                                     "disclosed purchase before them", source))
    return caveats, warnings


def _methodology(inputs: PersonSource, day: date, as_of: date) -> dict:
    return {
        "person": inputs.name, "names_matched": sorted({inputs.name, *inputs.aliases}),
        "name_matching": "the name's tokens, sorted, without honorifics or parentheses, equal to a configured name's",
        "counted": "transactions disclosed on or before the evaluation date, replayed in transaction-date order",
        "estimate": "purchase: + range midpoint (low + high) // 2, bounds + low / + high; full sale: 0; partial or "
                    "unspecified sale: - midpoint, low - high, high - low, never below 0; an open-ended range "
                    "counts its lower bound and leaves high unbounded (null)",
        "not_estimated": "rows without a ticker, options and exchanges (listed as untracked); sales of positions "
                         "without an earlier disclosed purchase (listed as unmatched_sales)",
        "concentration": f"weights = estimate / total estimate; hhi = sum of squared weights; effective positions "
                         f"= 1 / hhi; top{CONCENTRATION_TOP}_weight = sum of the {CONCENTRATION_TOP} largest weights",
        "late_disclosure_days": LATE_DISCLOSURE_DAYS,
        "amount_categories": [{"low": low, "high": high} for low, high in sorted(AMOUNT_BRACKETS.items())],
        "evaluation_date": day.isoformat(), "release_as_of": as_of.isoformat(),
        "sources": sorted(f.source for f in inputs.files),
    }
