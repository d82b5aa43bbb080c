"""<person>-tracker: a person's estimated holdings from their disclosed transactions (pure)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date

from builder.records import ScopeWarning
from builder.research.previews.artifacts import (
    EstimatedHolding,
    PersonArtifact,
    PersonMethodology,
    PreviewTrade,
    Spelling,
)
from builder.research.previews.disclosures import (
    DUPLICATE_RULE,
    LATE_DISCLOSURE_DAYS,
    Distinct,
    amount_categories,
    before_trade_warnings,
    copy_warnings,
    disclosure_dates,
    disclosure_sources,
    distinct_trades,
    possible,
    trade_json,
)
from builder.research.previews.pack import (
    RESEARCH_ONLY,
    PreviewPack,
    disclosure_clock,
    evaluation_date,
    fixture_notes,
    malformed_notes,
    preview_pack,
    slug,
    warning_briefs,
)
from builder.research.previews.shapes import Concentration, Freshness, PersonPayload, Totals
from builder.sources.congress.instrument import INSTRUMENT_RULE, Instrument
from builder.sources.congress.people import IDENTITY_RULE
from builder.sources.congress.rows import CongressTrade, TradeType
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
    exercised_shares: int = 0  # shares option exercises delivered since the position was last sold out
    trades: list[CongressTrade] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Holding:
    ticker: str
    description: str
    estimate: int  # dollars at cost: purchases' midpoints minus sales'
    low: int
    high: int | None  # None: unbounded above
    exercised_shares: int  # shares option exercises delivered since the position was last sold out
    trades: tuple[CongressTrade, ...]  # in transaction-date order


@dataclass(frozen=True, slots=True)
class Estimate:
    held: tuple[Holding, ...]  # estimate > 0, largest first
    closed: tuple[str, ...]  # tickers bought and sold out within the disclosed transactions
    unmatched_sales: tuple[CongressTrade, ...]  # sales of positions bought before the disclosed transactions
    options: tuple[CongressTrade, ...]  # calls and puts: listed, never part of the stock's position
    untracked: tuple[CongressTrade, ...]  # no ticker, bonds and other instruments, exchanges: not estimated


def person_trades(inputs: PersonSource, day: date, distinct: Distinct | None = None) -> list[CongressTrade]:
    """The person's transactions disclosed on or before `day`, each once across the files, in trade order.

    A row is the person's when its name is one of the configured spellings' by the identity rules
    (builder.sources.congress.people), whatever the chamber or district.
    """
    keys = inputs.keys
    trades = (distinct or distinct_trades(inputs.files)).trades
    found = (t for t in trades if t.disclosed <= day and t.member_key in keys)
    return sorted(found, key=lambda t: (t.traded, t.disclosed, t.source, t.row))


def estimate_holdings(trades: Iterable[CongressTrade]) -> Estimate:
    """Replay transactions in trade order: purchases add their range, sales take it away, never below zero.

    Only stock counts: an option is listed apart, so selling calls leaves the stock position as it was; an
    option exercise is a trade in the stock and adds the shares it delivered.
    """
    positions: dict[str, _Position] = {}
    unmatched: list[CongressTrade] = []
    options: list[CongressTrade] = []
    untracked: list[CongressTrade] = []
    for trade in trades:
        if trade.instrument is Instrument.OPTION:
            options.append(trade)
            continue
        if trade.ticker is None or trade.trade_type is TradeType.EXCHANGE or trade.instrument is not Instrument.STOCK:
            untracked.append(trade)
            continue
        position = positions.setdefault(trade.ticker, _Position(trade.ticker, trade.asset_description))
        if trade.trade_type is not TradeType.PURCHASE and position.high == 0:  # nothing disclosed to sell
            unmatched.append(trade)
            continue
        position.trades.append(trade)
        _apply(position, trade)
    held = sorted(
        (
            Holding(p.ticker, p.description, p.estimate, p.low, p.high, p.exercised_shares, tuple(p.trades))
            for p in positions.values()
            if p.estimate > 0
        ),
        key=lambda h: (-h.estimate, h.ticker),
    )
    closed = sorted(p.ticker for p in positions.values() if p.trades and p.estimate == 0)
    return Estimate(tuple(held), tuple(closed), tuple(unmatched), tuple(options), tuple(untracked))


def _apply(position: _Position, trade: CongressTrade) -> None:
    amount = trade.amount
    if trade.trade_type is TradeType.PURCHASE:
        position.low += amount.low
        position.high = None if position.high is None or amount.high is None else position.high + amount.high
        position.estimate += amount.midpoint
        position.exercised_shares += trade.shares or 0
    elif trade.trade_type is TradeType.SALE_FULL:
        position.low = position.estimate = position.exercised_shares = 0
        position.high = 0
    else:  # a partial sale, or a sale not marked full or partial: take the range away, never below zero
        position.estimate = max(0, position.estimate - amount.midpoint)
        position.low = 0 if amount.high is None else max(0, position.low - amount.high)
        position.high = None if position.high is None else max(0, position.high - amount.low)


def _weights(held: Sequence[Holding]) -> list[float]:
    total = sum(p.estimate for p in held)
    return [p.estimate / total for p in held] if total else []


def concentration(held: Sequence[Holding]) -> Concentration:
    """Weights of the estimates: top weights, top-5 weight, Herfindahl–Hirschman index, effective positions."""
    weights = list(zip((p.ticker for p in held), _weights(held), strict=False))
    hhi = sum(weight * weight for _, weight in weights)
    return {
        "positions": len(held),
        "hhi": hhi,
        "effectivePositions": 1 / hhi if hhi else None,
        "top5Weight": sum(weight for _, weight in weights[:CONCENTRATION_TOP]),
        "top": [
            {"ticker": p.ticker, "name": p.description, "weight": weight}
            for p, (_, weight) in zip(held, weights[:CONCENTRATION_TOP], strict=False)
        ],
    }


def _answer(name: str, trades: Sequence[CongressTrade], estimate: Estimate) -> str:
    """The tracker in one sentence; an empty one says why it is empty."""
    if not trades:
        return (
            f"No disclosed transaction in the configured files names {name} (by the identity rule) by the as-of "
            "date: nothing to estimate. An empty tracker, not an empty portfolio: check the name, its aliases "
            "and the files."
        )
    if not estimate.held:
        return (
            f"{len(trades)} disclosed transaction(s) of {name}, none leaving a stock position held: "
            f"{len(estimate.options)} option, {len(estimate.untracked)} untracked (bonds, crypto, no ticker, "
            f"exchanges), {len(estimate.unmatched_sales)} sale(s) without a disclosed purchase."
        )
    top = estimate.held[0]
    return (
        f"{len(estimate.held)} estimated stock position(s) from {len(trades)} disclosed transaction(s) of {name}; "
        f"largest {top.ticker} at ${top.estimate:,} (range midpoints at cost, not market value)."
    )


def build_person(inputs: PersonSource, *, as_of: date) -> PreviewPack:
    """The <person>-tracker pack: estimated holdings, concentration and freshness as of the evaluation date."""
    day = evaluation_date(inputs.as_of, as_of)
    pack_id = f"{slug(inputs.name)}-tracker"
    distinct = distinct_trades(inputs.files)
    trades = person_trades(inputs, day, distinct)
    estimate = estimate_holdings(trades)
    caveats, warnings = _notes(inputs, trades, estimate, distinct)

    def listed(found: Iterable[CongressTrade]) -> list[PreviewTrade]:
        return [trade_json(t, inputs.name) for t in found]

    mine = [t for copies in distinct.copies for t in copies.trades if t.member_key in inputs.keys]
    artifact: PersonArtifact = {
        "pack": pack_id,
        "label": "data preview",
        "person": inputs.name,
        "asOf": day.isoformat(),
        "fixture": inputs.fixture,
        "totals": _totals(estimate.held),
        "concentration": concentration(estimate.held),
        "freshness": _freshness(trades, day),
        "description": f"Estimated holdings of {inputs.name} from disclosed transactions, with "
        "concentration and freshness; estimates keep their low/high bounds.",
        "holdings": _holdings_json(estimate.held),
        "closed": list(estimate.closed),
        "unmatchedSales": listed(estimate.unmatched_sales),
        "options": listed(estimate.options),
        "untracked": listed(estimate.untracked),
        "transactions": listed(trades),
        "spellings": _spellings(trades),
        "duplicatesDropped": sum(t.disclosed <= day for t in mine),
        "sources": disclosure_sources(inputs.files, distinct),
        "caveats": caveats,
    }
    warning_count, briefs = warning_briefs(warnings)
    payload: PersonPayload = {
        "pack": pack_id,
        "label": "data preview",
        "person": inputs.name,
        "asOf": day.isoformat(),
        "fixture": inputs.fixture,
        "answer": _answer(inputs.name, trades, estimate),
        "totals": artifact["totals"],
        "concentration": artifact["concentration"],
        "freshness": artifact["freshness"],
        "clock": disclosure_clock(day.isoformat(), artifact["freshness"]["latestDisclosureDate"]),
        "topHoldings": [
            {
                "ticker": h.ticker,
                "name": h.description,
                "estimate": h.estimate,
                "low": h.low,
                "high": h.high,
                "weight": weight,
            }
            for h, weight in zip(estimate.held[:TOP_HOLDINGS], _weights(estimate.held), strict=False)
        ],
        "warningCount": warning_count,
        "warnings": briefs,
        "caveats": caveats,
        "executionEnabled": False,
    }
    return preview_pack(
        pack_id=pack_id,
        label="data preview",
        title=f"{inputs.name}: estimated holdings",
        as_of=day,
        artifact=artifact,
        agent_payload=payload,
        warnings=warnings,
        methodology=_methodology(inputs, day, as_of),
    )


def _holdings_json(held: Sequence[Holding]) -> list[EstimatedHolding]:
    """Each holding with its first and last transaction dates, from trades dated no later than their disclosure
    (null when none is)."""
    total = sum(p.estimate for p in held)
    holdings: list[EstimatedHolding] = []
    for p in held:
        dated = sorted(t.traded for t in p.trades if possible(t))
        holdings.append(
            {
                "ticker": p.ticker,
                "assetDescription": p.description,
                "estimate": p.estimate,
                "low": p.low,
                "high": p.high,
                "weight": p.estimate / total,
                "transactions": len(p.trades),
                "exercisedShares": p.exercised_shares,
                "firstTransactionDate": dated[0].isoformat() if dated else None,
                "lastTransactionDate": dated[-1].isoformat() if dated else None,
                "lastDisclosureDate": max(t.disclosed for t in p.trades).isoformat(),
            }
        )
    return holdings


def _spellings(trades: Sequence[CongressTrade]) -> list[Spelling]:
    """Each spelling of the person's name in the counted rows, with its rows, chambers and districts."""
    found: dict[str, list[CongressTrade]] = {}
    for trade in trades:
        found.setdefault(trade.member, []).append(trade)
    return [
        {
            "spelling": spelling,
            "rows": len(rows),
            "chambers": sorted({t.chamber for t in rows}),
            "districts": sorted({t.district for t in rows if t.district}),
        }
        for spelling, rows in sorted(found.items(), key=lambda item: (-len(item[1]), item[0]))
    ]


def _totals(held: Sequence[Holding]) -> Totals:
    highs = [p.high for p in held]
    return {
        "estimate": sum(p.estimate for p in held),
        "low": sum(p.low for p in held),
        "high": None if None in highs else sum(h for h in highs if h is not None),
    }


def _freshness(trades: Sequence[CongressTrade], day: date) -> Freshness:
    latest = max((t.disclosed for t in trades), default=None)
    return {**disclosure_dates(trades), "daysSinceLatestDisclosure": (day - latest).days if latest else None}


def _notes(
    inputs: PersonSource, trades: Sequence[CongressTrade], estimate: Estimate, distinct: Distinct
) -> tuple[list[str], list[ScopeWarning]]:
    fixture_caveats, fixture_warnings = fixture_notes(inputs.fixture, inputs.files[0].source if inputs.files else "")
    malformed_caveats, malformed_warnings = malformed_notes(inputs.files)
    caveats = [*fixture_caveats, *CAVEATS, *malformed_caveats]
    warnings = [*fixture_warnings, *malformed_warnings, *before_trade_warnings(trades), *copy_warnings(distinct)]
    if not trades:
        warnings.append(ScopeWarning("person-not-found", f"no disclosed transaction names {inputs.name}", ""))
    if len(states := {t.state for t in trades if t.state}) > 1:
        warnings.append(
            ScopeWarning(
                "person-ambiguous",
                f"the rows matched for {inputs.name} are House rows of "
                f"{len(states)} states ({', '.join(sorted(states))}): possibly several people "
                "of one name; see artifact.spellings",
                "",
            )
        )
    if estimate.unmatched_sales:
        caveats.append(
            f"{len(estimate.unmatched_sales)} sale(s) of positions bought before the disclosed "
            "transactions: those positions' sizes are unknown and not estimated."
        )
        for source in sorted({t.source for t in estimate.unmatched_sales}):
            rows = [t.row for t in estimate.unmatched_sales if t.source == source]
            warnings.append(
                ScopeWarning(
                    "unmatched-sales",
                    f"{len(rows)} sale(s) without a disclosed purchase before them (rows {', '.join(map(str, rows))})",
                    source,
                )
            )
    if estimate.options:
        caveats.append(
            f"{len(estimate.options)} option trade(s) are listed apart (artifact.options) and change no "
            "stock position: selling calls is not selling the stock."
        )
    return caveats, warnings


def _methodology(inputs: PersonSource, day: date, as_of: date) -> PersonMethodology:
    return {
        "person": inputs.name,
        "namesMatched": sorted({inputs.name, *inputs.aliases}),
        "nameMatching": f"a row is the person's when its name equals a configured spelling's by the identity rule "
        f"({IDENTITY_RULE}), in any chamber or district; the spellings found are in "
        "artifact.spellings",
        "counted": "transactions disclosed on or before the evaluation date, each once across the files, replayed "
        "in transaction-date order",
        "estimate": "purchase: + range midpoint (low + high) // 2, bounds + low / + high; full sale: 0; partial or "
        "unspecified sale: - midpoint, low - high, high - low, never below 0; an open-ended range "
        "counts its lower bound and leaves high unbounded (null); an option exercise is a stock trade "
        "and adds the shares it delivered (exercised_shares, reset by a full sale)",
        "notEstimated": "options (listed as options: they change no stock position); rows without a ticker, bonds, "
        "other instruments and exchanges (listed as untracked); sales of positions without an "
        "earlier disclosed purchase (listed as unmatched_sales)",
        "instrument": INSTRUMENT_RULE,
        "duplicates": DUPLICATE_RULE,
        "concentration": f"weights = estimate / total estimate; hhi = sum of squared weights; effective positions "
        f"= 1 / hhi; top{CONCENTRATION_TOP}_weight = sum of the {CONCENTRATION_TOP} largest weights",
        "lateDisclosureDays": LATE_DISCLOSURE_DAYS,
        "amountCategories": amount_categories(),
        "evaluationDate": day.isoformat(),
        "releaseAsOf": as_of.isoformat(),
        "sources": sorted(f.source for f in inputs.files),
    }
