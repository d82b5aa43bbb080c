"""congress-trades: several members buying one ticker within a window, counted by disclosure date (pure)."""

from __future__ import annotations

import enum
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Final, TypedDict

from builder.canonical import canonical_json
from builder.records import ScopeWarning
from builder.research.previews.artifacts import (
    ClusterRecord,
    CongressArtifact,
    CongressMethodology,
    MergedPerson,
    PreviewTrade,
    SignalDay,
)
from builder.research.previews.disclosures import (
    DUPLICATE_RULE,
    LATE_DISCLOSURE_DAYS,
    Distinct,
    amount_categories,
    before_trade_warnings,
    copy_warnings,
    days_to_disclose,
    disclosure_dates,
    disclosure_sources,
    distinct_trades,
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
    warning_briefs,
)
from builder.research.previews.shapes import ClusterBrief, CongressPayload, ProducedBy, TradeBrief
from builder.research.previews.shapes import ClusterRule as ClusterRuleShape
from builder.research.previews.shapes import Outcome as OutcomeName
from builder.sources.congress.instrument import INSTRUMENT_RULE, Instrument
from builder.sources.congress.people import IDENTITY_RULE, People, Person
from builder.sources.congress.rows import CongressFile, CongressTrade, TradeType
from builder.sources.previews import CongressSource, RuleSettings
from builder.typed import picked

PACK_ID: Final = "congress-trades"
PAYLOAD_BYTES = 8_500  # the agent payload's budget before its version and next calls are added (10 KB served)
CAVEATS = (
    "Disclosure lag: members report trades up to 45 days after them, some much later; a trade counts here "
    "only from its disclosure date, so every signal trails the trades it describes.",
    "Amounts are the disclosed ranges, kept as low/high bounds; no exact size or price is known.",
    "Demo thresholds are relaxed to show the mechanics on small samples; only the strict thresholds are a "
    "research definition, and a strict cluster is still a correlation, not a forecast.",
    "Data preview: stock-watcher transcriptions are not reconciled with the official House Clerk and "
    "Senate eFD reports; check the linked report before relying on any trade (a trade whose row carries no "
    "link is flagged no-report-link).",
    "Only stock counts: option trades (calls and puts, named by the Senate's asset type or by the words of a "
    "House description) and bonds are listed but never make a cluster; an option exercise is a trade in the stock.",
    RESEARCH_ONLY,
)


@dataclass(frozen=True, slots=True)
class ClusterRule:
    window_days: int  # the cluster's trades were disclosed within this many days, ending on the evaluation day
    min_members: int  # distinct members (builder.sources.congress.people: one person however spelled) buying the ticker
    min_amount: int  # dollars: lower bound of a trade's disclosed range

    def as_json(self) -> ClusterRuleShape:
        return {
            "windowDays": self.window_days,
            "minMembers": self.min_members,
            "minAmount": self.min_amount,
            "direction": "purchase",
            "countedBy": "disclosure date",
        }


DEMO_RULE = ClusterRule(30, 2, 1_001)  # relaxed: any two members in a month, any size — small samples show a cluster
STRICT_RULE = ClusterRule(30, 3, 15_001)  # three independent buyers, each above the smallest $1,001–$15,000 category


class Outcome(enum.Enum):
    STRICT_SIGNAL = "strict-signal"
    DEMO_SIGNAL = "demo-signal"  # only the relaxed thresholds find a cluster: strict says stay in cash
    NO_SIGNAL = "no-signal"  # stay in cash


@dataclass(frozen=True, slots=True)
class CongressInput:
    files: tuple[CongressFile, ...]
    demo: ClusterRule = DEMO_RULE
    strict: ClusterRule = STRICT_RULE
    fixture: bool = False
    as_of: date | None = None  # evaluation date from packs.toml; never later than the release's
    aliases: tuple[tuple[str, ...], ...] = ()  # spellings of one member no rule merges, each group led by its name


def congress_input(source: CongressSource) -> CongressInput:
    """The research input of a [congress] source: each rule as configured, DEMO_RULE / STRICT_RULE elsewhere."""
    return CongressInput(
        source.files,
        _rule(source.demo, DEMO_RULE),
        _rule(source.strict, STRICT_RULE),
        source.fixture,
        source.as_of,
        source.aliases,
    )


def _rule(settings: RuleSettings, default: ClusterRule) -> ClusterRule:
    return ClusterRule(
        default.window_days if settings.window_days is None else settings.window_days,
        default.min_members if settings.min_members is None else settings.min_members,
        default.min_amount if settings.min_amount is None else settings.min_amount,
    )


@dataclass(frozen=True, slots=True)
class Cluster:
    ticker: str
    window_start: date
    window_end: date
    members: tuple[str, ...]  # one name per person (builder.sources.congress.people), sorted
    trades: tuple[CongressTrade, ...]  # by disclosure date


def eligible(trade: CongressTrade, rule: ClusterRule) -> bool:
    """A purchase of a ticker's stock (not an option: a bought put is no bet on the stock; not a bond) of rule size."""
    return (
        trade.trade_type is TradeType.PURCHASE
        and trade.ticker is not None
        and trade.instrument is Instrument.STOCK
        and trade.amount.low >= rule.min_amount
    )


def clusters_on(
    trades: Iterable[CongressTrade], rule: ClusterRule, day: date, people: People | None = None
) -> tuple[Cluster, ...]:
    """The clusters a reader could see on `day`: only trades disclosed on or before it count; members are
    persons (`people`, by default the rules alone over `trades`), never spellings."""
    start = day - timedelta(days=rule.window_days - 1)
    by_ticker: dict[str, list[CongressTrade]] = defaultdict(list)
    for trade in trades:
        if start <= trade.disclosed <= day and eligible(trade, rule):
            by_ticker[str(trade.ticker)].append(trade)
    people = people or People(t for found in by_ticker.values() for t in found)
    clusters = []
    for ticker, found in sorted(by_ticker.items()):
        found.sort(key=trade_order)
        members = {people.key(trade): people.of(trade).name for trade in found}
        if len(members) >= rule.min_members:
            clusters.append(Cluster(ticker, start, day, tuple(sorted(members.values())), tuple(found)))
    return tuple(clusters)


def signal_history(
    trades: Iterable[CongressTrade], rule: ClusterRule, day: date, people: People | None = None
) -> list[SignalDay]:
    """Every disclosure day up to `day` on which the rule found a cluster, with its tickers."""
    ordered = sorted((t for t in trades if t.disclosed <= day and eligible(t, rule)), key=lambda t: t.disclosed)
    people = people or People(ordered)
    keys = [trade.disclosed for trade in ordered]
    history: list[SignalDay] = []
    for current in sorted(set(keys)):
        start = current - timedelta(days=rule.window_days - 1)
        window = ordered[bisect_left(keys, start) : bisect_right(keys, current)]
        if found := clusters_on(window, rule, current, people):
            history.append({"date": current.isoformat(), "tickers": [cluster.ticker for cluster in found]})
    return history


def trade_order(trade: CongressTrade) -> tuple[date, date, str, str, int]:
    return (trade.disclosed, trade.traded, trade.member, trade.source, trade.row)


def build_congress(inputs: CongressInput, *, as_of: date) -> PreviewPack:
    """The congress-trades pack as of the evaluation date: strict and demo clusters side by side."""
    day = evaluation_date(inputs.as_of, as_of)
    distinct = distinct_trades(inputs.files)
    visible = sorted((t for t in distinct.trades if t.disclosed <= day), key=trade_order)
    people = People(visible, inputs.aliases)
    demo, strict = clusters_on(visible, inputs.demo, day, people), clusters_on(visible, inputs.strict, day, people)
    outcome = Outcome.STRICT_SIGNAL if strict else Outcome.DEMO_SIGNAL if demo else Outcome.NO_SIGNAL
    produced_by: ProducedBy | None = (
        "strict" if outcome is Outcome.STRICT_SIGNAL else "demo" if outcome is Outcome.DEMO_SIGNAL else None
    )
    stance, answer = _stance(outcome), _answer(outcome, demo, strict)
    verdict: Verdict = {"outcome": outcome.value, "stance": stance, "answer": answer, "producedBy": produced_by}
    caveats, warnings = _notes(inputs, visible, distinct, outcome)
    artifact = _artifact(inputs, _Seen(visible, distinct, people), day, verdict, (demo, strict), caveats)
    warning_count, listed = warning_briefs(warnings)
    payload: CongressPayload = {
        "pack": "congress-trades",
        "label": "data preview",
        "asOf": day.isoformat(),
        "fixture": inputs.fixture,
        "outcome": outcome.value,
        "stance": stance,
        "answer": answer,
        "producedBy": produced_by,
        "definition": {
            "direction": "purchase",
            "countedBy": "disclosure date",
            "demo": inputs.demo.as_json(),
            "strict": inputs.strict.as_json(),
        },
        "signalCount": len(strict or demo),
        "signal": [
            {**_cluster_brief(c), "tradesListed": len(c.trades), "trades": [_trade_brief(t, people) for t in c.trades]}
            for c in strict or demo
        ],
        "strictTickers": [c.ticker for c in strict],
        "demoTickers": [c.ticker for c in demo],
        "latestDisclosureDate": artifact["disclosure"]["latestDisclosureDate"],
        "clock": disclosure_clock(day.isoformat(), artifact["disclosure"]["latestDisclosureDate"]),
        "warningCount": warning_count,
        "warnings": listed,
        "caveats": caveats,
        "executionEnabled": False,
    }
    _fit(payload)
    return preview_pack(
        pack_id=PACK_ID,
        label="data preview",
        title="Congressional trades: cluster signal",
        as_of=day,
        artifact=artifact,
        agent_payload=payload,
        warnings=warnings,
        methodology=_methodology(inputs, day, as_of),
    )


@dataclass(frozen=True, slots=True)
class _Seen:
    """What the evaluation day shows: the distinct trades disclosed by then and the persons they name."""

    trades: Sequence[CongressTrade]
    distinct: Distinct
    people: People

    def json(self, trade: CongressTrade) -> PreviewTrade:
        return trade_json(trade, self.people.of(trade).name)


class Verdict(TypedDict):
    """What the pack answers, in its artifact and its payload alike."""

    outcome: OutcomeName
    stance: str
    answer: str
    producedBy: ProducedBy | None


def _artifact(
    inputs: CongressInput,
    seen: _Seen,
    day: date,
    verdict: Verdict,
    found: tuple[Sequence[Cluster], Sequence[Cluster]],
    caveats: list[str],
) -> CongressArtifact:
    widest = max(inputs.demo.window_days, inputs.strict.window_days)
    recent = [t for t in seen.trades if t.disclosed > day - timedelta(days=widest)]
    return {
        "pack": PACK_ID,
        "label": "data preview",
        "asOf": day.isoformat(),
        "fixture": inputs.fixture,
        "description": "Several members of Congress buying one ticker's stock within a window, counted by disclosure "
        "date; demo and strict thresholds side by side; may answer stay in cash.",
        "outcome": verdict["outcome"],
        "stance": verdict["stance"],
        "answer": verdict["answer"],
        "producedBy": verdict["producedBy"],
        "rules": {"demo": inputs.demo.as_json(), "strict": inputs.strict.as_json()},
        "signals": {
            "demo": [_cluster_json(c, seen) for c in found[0]],
            "strict": [_cluster_json(c, seen) for c in found[1]],
        },
        "history": {
            "demo": signal_history(seen.trades, inputs.demo, day, seen.people),
            "strict": signal_history(seen.trades, inputs.strict, day, seen.people),
        },
        "windowTrades": [seen.json(t) for t in recent if eligible(t, inputs.demo) or eligible(t, inputs.strict)],
        "windowOptions": [seen.json(t) for t in recent if t.instrument is Instrument.OPTION],
        "people": [_person_json(person) for person in seen.people.merged()],
        "duplicatesDropped": sum(len(copies.rows) for copies in seen.distinct.copies),
        "disclosure": disclosure_dates(seen.trades),
        "sources": disclosure_sources(inputs.files, seen.distinct),
        "caveats": caveats,
    }


def _person_json(person: Person) -> MergedPerson:
    chamber, state, _, _ = person.key
    return {
        "person": person.name,
        "chamber": chamber,
        "state": state,
        "spellings": [{"spelling": spelling, "rows": rows} for spelling, rows in person.spellings],
    }


def _notes(
    inputs: CongressInput, visible: Sequence[CongressTrade], distinct: Distinct, outcome: Outcome
) -> tuple[list[str], list[ScopeWarning]]:
    """Caveats and scope warnings: fixture, malformed rows, copies, disclosures dated before the trade, relaxed rule."""
    malformed_caveats, malformed_warnings = malformed_notes(inputs.files)
    fixture_caveats, fixture_warnings = fixture_notes(inputs.fixture, inputs.files[0].source if inputs.files else "")
    caveats = [*fixture_caveats, *CAVEATS, *malformed_caveats]
    if before := sum(days_to_disclose(t) < 0 for t in visible):
        caveats.append(
            f"{before} trade(s) carry a disclosure date before the trade date (a filing quirk); "
            "they are kept as filed, flagged disclosed-before-trade and left out of derived dates."
        )
    if copies := sum(len(c.rows) for c in distinct.copies):
        caveats.append(
            f"{copies} row(s) repeat trades another configured file holds; each trade is counted once "
            "(per-file counts in artifact.sources)."
        )
    warnings = [*fixture_warnings, *malformed_warnings, *before_trade_warnings(visible), *copy_warnings(distinct)]
    if outcome is Outcome.DEMO_SIGNAL:
        warnings.append(
            ScopeWarning(
                "relaxed-thresholds",
                "the cluster signal holds only under the relaxed demo thresholds; strict thresholds find no cluster",
                "",
            )
        )
    return caveats, warnings


def _stance(outcome: Outcome) -> str:
    return {
        Outcome.STRICT_SIGNAL: "cluster signal",
        Outcome.DEMO_SIGNAL: "demo signal only",
        Outcome.NO_SIGNAL: "stay in cash",
    }[outcome]


def _answer(outcome: Outcome, demo: Sequence[Cluster], strict: Sequence[Cluster]) -> str:
    if outcome is Outcome.STRICT_SIGNAL:
        return f"Strict cluster signal on {', '.join(c.ticker for c in strict)}."
    if outcome is Outcome.DEMO_SIGNAL:
        return (
            f"Demo thresholds only: cluster on {', '.join(c.ticker for c in demo)}; strict thresholds find "
            "none, so under strict rules: stay in cash."
        )
    return "No signal: no ticker qualifies under the demo or the strict thresholds. Stay in cash."


def _cluster_json(cluster: Cluster, seen: _Seen) -> ClusterRecord:
    return {
        **_cluster_brief(cluster),
        "windowStart": cluster.window_start.isoformat(),
        "windowEnd": cluster.window_end.isoformat(),
        "trades": [seen.json(t) for t in cluster.trades],
    }


def _fit(payload: CongressPayload) -> None:
    """Cut the payload's listed trades, oldest disclosure first from the cluster listing most, then its last
    clusters, until it fits PAYLOAD_BYTES; the counts beside each list keep the whole (the artifact lists all)."""
    while len(canonical_json(payload)) > PAYLOAD_BYTES:
        listing = [cluster for cluster in payload["signal"] if len(cluster["trades"]) > 1]
        if listing:
            largest = max(listing, key=lambda cluster: len(cluster["trades"]))
            del largest["trades"][0]
            largest["tradesListed"] -= 1
        elif len(payload["signal"]) > 1:
            payload["signal"].pop()
        else:
            return


def _cluster_brief(cluster: Cluster) -> ClusterBrief:
    highs = [t.amount.high for t in cluster.trades]
    return {
        "ticker": cluster.ticker,
        "name": cluster.trades[0].asset_description,
        "members": list(cluster.members),
        "memberCount": len(cluster.members),
        "firstDisclosed": cluster.trades[0].disclosed.isoformat(),
        "lastDisclosed": cluster.trades[-1].disclosed.isoformat(),
        "tradeCount": len(cluster.trades),
        "disclosedWithin45Days": sum(0 <= days_to_disclose(t) <= LATE_DISCLOSURE_DAYS for t in cluster.trades),
        "amountLowTotal": sum(t.amount.low for t in cluster.trades),
        "amountHighTotal": None if None in highs else sum(h for h in highs if h is not None),
    }


def _trade_brief(trade: CongressTrade, people: People) -> TradeBrief:
    """A cluster's trade in the payload: enough to see what it is in and when it was known, without the artifact."""
    return picked(TradeBrief, trade_json(trade, people.of(trade).name))


def _methodology(inputs: CongressInput, day: date, as_of: date) -> CongressMethodology:
    return {
        "cluster": "a ticker is a cluster on day D when at least min_members distinct members (persons, see "
        "member_identity) have an eligible purchase of it disclosed in [D - window_days + 1, D]",
        "countedBy": "disclosure date: a trade counts only from the day it was disclosed (no look-ahead)",
        "eligible": "type purchase of the ticker's stock (instrument stock: not an option, not a bond), a readable "
        "ticker, range lower bound >= min_amount",
        "headline": "strict when it finds a cluster; else demo, labelled relaxed; else no signal (stay in cash)",
        "rules": {"demo": inputs.demo.as_json(), "strict": inputs.strict.as_json()},
        "memberIdentity": f"{IDENTITY_RULE}; merged spellings are listed in artifact.people",
        "memberAliases": [list(group) for group in inputs.aliases],
        "instrument": INSTRUMENT_RULE,
        "duplicates": DUPLICATE_RULE,
        "lateDisclosureDays": LATE_DISCLOSURE_DAYS,
        "amountCategories": amount_categories(),
        "evaluationDate": day.isoformat(),
        "releaseAsOf": as_of.isoformat(),
        "sources": sorted(f.source for f in inputs.files),
    }
