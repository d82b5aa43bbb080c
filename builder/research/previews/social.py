"""<forum>-social-momentum: attention momentum from mention-count snapshots (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from builder.records import ScopeWarning
from builder.research.previews.artifacts import ExcludedSeen, Momentum, SocialArtifact
from builder.research.previews.pack import (
    RESEARCH_ONLY,
    PreviewPack,
    evaluation_date,
    fixture_notes,
    malformed_notes,
    preview_pack,
    slug,
    source_entries,
    warning_briefs,
)
from builder.research.previews.shapes import MomentumBrief, MomentumDefinition, SocialPayload
from builder.sources.previews import SocialSource
from builder.sources.social import Mention, Snapshot, SocialFile
from builder.typed import picked

# Tickers that are also everyday English or forum words: ApeWisdom counts the upper-case word, so most of
# these "mentions" are not about the company. Published in every artifact; packs.toml can add more.
EXCLUDED_TICKER_WORDS = (
    "A", "ALL", "AM", "AN", "ANY", "ARE", "AS", "AT", "BE", "BIG", "BY", "CAN", "CEO", "DD", "EDIT", "EOD", "EPS",
    "EV", "FOR", "GO", "HAS", "HOLD", "IT", "JUST", "KEY", "LIVE", "LOVE", "LOW", "MAN", "NEW", "NEXT", "NOW",
    "ON", "ONE", "OPEN", "OR", "OUT", "PUMP", "REAL", "RUN", "SAVE", "SEE", "SO", "TV", "UK", "USA", "YOLO", "YOU",
)  # fmt: skip
MIN_MENTIONS = 25  # below this a single thread swings the ratio; such tickers are noise, not momentum
MIN_BASELINE = 10  # mentions 24 h ago needed for a ratio; under it the ticker counts as a new entrant
TOP = 10  # movers, new entrants, leaders and faders listed
STALE_DAYS = 2  # a "24 h" change read from a snapshot older than this says nothing about today
FORUM_ABBREVIATIONS = {"wallstreetbets": "wsb", "all-stocks": "all-stocks", "stocks": "stocks"}
CAVEATS = (
    "Attention is not conviction: mention counts measure how much a forum talks about a ticker, not whether "
    "anyone buys it, why, or whether the talk is for or against it.",
    "Volatile: counts and ranks move within hours; a 24-hour change seen in one snapshot can reverse by the next, "
    "and attention spikes often precede sharp price swings both ways.",
    "Source: ApeWisdom's mention counts, a third-party aggregation of Reddit posts and comments; its ticker "
    "matching confuses common words with tickers (see the published exclusion list) and is not audited.",
    RESEARCH_ONLY,
)


@dataclass(frozen=True, slots=True)
class SocialInput:
    forum: str  # ApeWisdom filter name, e.g. "wallstreetbets"
    files: tuple[SocialFile, ...]
    abbreviation: str = ""  # pack id prefix; "" → FORUM_ABBREVIATIONS or the forum's slug
    excluded: tuple[str, ...] = EXCLUDED_TICKER_WORDS
    min_mentions: int = MIN_MENTIONS
    min_baseline: int = MIN_BASELINE
    top: int = TOP
    fixture: bool = False
    as_of: date | None = None  # evaluation date from packs.toml; never later than the release's


def social_input(source: SocialSource) -> SocialInput:
    """The research input of a [social] source: the published exclusion list plus the operator's words, defaults."""
    return SocialInput(
        source.forum,
        source.files,
        source.abbreviation,
        tuple(sorted({*EXCLUDED_TICKER_WORDS, *source.exclude})),
        MIN_MENTIONS if source.min_mentions is None else source.min_mentions,
        MIN_BASELINE if source.min_baseline is None else source.min_baseline,
        TOP if source.top is None else source.top,
        source.fixture,
        source.as_of,
    )


def pack_id(inputs: SocialInput) -> str:
    prefix = inputs.abbreviation or FORUM_ABBREVIATIONS.get(inputs.forum) or slug(inputs.forum)
    return f"{slug(prefix)}-social-momentum"


def forum_snapshots(inputs: SocialInput, day: date) -> list[Snapshot]:
    """The forum's snapshots taken on or before `day` (UTC), oldest first."""
    found = (s for f in inputs.files for s in f.snapshots if s.forum == inputs.forum and s.taken.date() <= day)
    return sorted(found, key=lambda snapshot: snapshot.taken)


def momentum(mention: Mention, min_baseline: int) -> Momentum:
    """Mentions now against 24 h ago (ratio only above the baseline floor) and the rank change; its path through
    the snapshots is added once the rankings are known (_add_paths)."""
    before = mention.mentions_24h_ago
    return {
        "ticker": mention.ticker,
        "name": mention.name,
        "rank": mention.rank,
        "rank24hAgo": mention.rank_24h_ago,
        "rankChange": None if mention.rank_24h_ago is None else mention.rank_24h_ago - mention.rank,
        "mentions": mention.mentions,
        "mentions24hAgo": before,
        "mentionChange": None if before is None else mention.mentions - before,
        "mentionRatio": mention.mentions / before if before is not None and before >= min_baseline else None,
        "upvotes": mention.upvotes,
        "path": [],
    }


def _ratio(row: Momentum) -> float:
    """The mention ratio of a rated row."""
    assert row["mentionRatio"] is not None and row["mentionChange"] is not None
    return row["mentionRatio"]


def rankings(latest: Snapshot, inputs: SocialInput) -> dict[str, list[Momentum]]:
    """Movers (ratio > 1), faders (ratio < 1), new entrants (no baseline) and leaders, exclusions applied."""
    excluded = set(inputs.excluded)
    rows = [
        momentum(m, inputs.min_baseline)
        for m in latest.mentions
        if m.ticker not in excluded and m.mentions >= inputs.min_mentions
    ]
    rated = [r for r in rows if r["mentionRatio"] is not None]
    return {
        "movers": sorted(
            (r for r in rated if _ratio(r) > 1), key=lambda r: (-_ratio(r), -(r["mentionChange"] or 0), r["ticker"])
        )[: inputs.top],
        "faders": sorted(
            (r for r in rated if _ratio(r) < 1), key=lambda r: (_ratio(r), r["mentionChange"] or 0, r["ticker"])
        )[: inputs.top],
        "newEntrants": sorted(
            (r for r in rows if r["mentionRatio"] is None), key=lambda r: (-r["mentions"], r["ticker"])
        )[: inputs.top],
        "leaders": sorted(rows, key=lambda r: (-r["mentions"], r["ticker"]))[: inputs.top],
    }


def build_social(inputs: SocialInput, *, as_of: date) -> PreviewPack:
    """The <forum>-social-momentum pack from the latest snapshot on or before the evaluation date."""
    day = evaluation_date(inputs.as_of, as_of)
    snapshots = forum_snapshots(inputs, day)
    ranked = (
        rankings(snapshots[-1], inputs) if snapshots else {"movers": [], "faders": [], "newEntrants": [], "leaders": []}
    )
    _add_paths(ranked, snapshots)
    caveats, warnings = _notes(inputs, snapshots, day)
    warning_count, listed = warning_briefs(warnings)
    payload: SocialPayload = {
        "pack": pack_id(inputs),
        "label": "research preview",
        "forum": inputs.forum,
        "asOf": day.isoformat(),
        "fixture": inputs.fixture,
        "signal": "attention momentum" if ranked["movers"] else "no momentum signal",
        "snapshotTime": _time(snapshots[-1]) if snapshots else None,
        "snapshotAgeDays": (day - snapshots[-1].taken.date()).days if snapshots else None,
        "clock": f"Judge freshness by your clock: mentions as of the snapshot {_time(snapshots[-1])}, counted up to "
        f"{day.isoformat()}; attention moves by the hour."
        if snapshots
        else f"Judge freshness by your clock: no snapshot by {day.isoformat()}.",
        "definition": _definition(inputs),
        "topMovers": [_brief(r) for r in ranked["movers"]],
        "newEntrants": [_brief(r) for r in ranked["newEntrants"][:5]],
        "warningCount": warning_count,
        "warnings": listed,
        "caveats": caveats,
        "executionEnabled": False,
    }
    artifact: SocialArtifact = {
        "pack": payload["pack"],
        "label": "research preview",
        "forum": inputs.forum,
        "asOf": payload["asOf"],
        "fixture": inputs.fixture,
        "signal": payload["signal"],
        "snapshotTime": payload["snapshotTime"],
        "description": f"Attention momentum on {inputs.forum}: mentions now against 24 hours ago and "
        "rank changes, ticker-words excluded; attention, not conviction.",
        "movers": ranked["movers"],
        "faders": ranked["faders"],
        "newEntrants": ranked["newEntrants"],
        "leaders": ranked["leaders"],
        "excludedSeen": _excluded_seen(snapshots[-1] if snapshots else None, inputs.excluded),
        "snapshots": [{"time": _time(s), "rows": len(s.mentions)} for s in snapshots],
        "sources": source_entries(inputs.files),
        "caveats": caveats,
    }
    return preview_pack(
        pack_id=pack_id(inputs),
        label="research preview",
        title=f"{inputs.forum}: social attention momentum",
        as_of=day,
        artifact=artifact,
        agent_payload=payload,
        warnings=warnings,
        methodology={
            **_definition(inputs),
            "evaluationDate": day.isoformat(),
            "releaseAsOf": as_of.isoformat(),
            "sources": sorted(f.source for f in inputs.files),
        },
    )


def _add_paths(ranked: dict[str, list[Momentum]], snapshots: Sequence[Snapshot]) -> None:
    """Each listed ticker's rank and mentions in every snapshot (null when unlisted): its volatility."""
    by_time = [(_time(s), {m.ticker: m for m in s.mentions}) for s in snapshots]
    for rows in ranked.values():
        for row in rows:
            found = [(time, listed.get(row["ticker"])) for time, listed in by_time]
            row["path"] = [
                {"time": time, "rank": m.rank if m else None, "mentions": m.mentions if m else None}
                for time, m in found
            ]


def _excluded_seen(latest: Snapshot | None, excluded: Sequence[str]) -> list[ExcludedSeen]:
    """Excluded ticker-words present in the latest snapshot, with their mentions: what the list removed."""
    words = set(excluded)
    listed = latest.mentions if latest else ()
    seen: list[ExcludedSeen] = [{"ticker": m.ticker, "mentions": m.mentions} for m in listed if m.ticker in words]
    return sorted(seen, key=lambda entry: (-entry["mentions"], entry["ticker"]))


def _brief(row: Momentum) -> MomentumBrief:
    return picked(MomentumBrief, row)


def _definition(inputs: SocialInput) -> MomentumDefinition:
    return {
        "momentum": "mention_ratio = mentions / mentions_24h_ago (when mentions_24h_ago >= min_baseline); "
        "movers have ratio > 1, sorted by ratio, then mention change, then ticker",
        "rankChange": "rank_24h_ago - rank (positive = climbed); null when unranked 24 h ago (ApeWisdom sends 0)",
        "newEntrants": "mentions >= min_mentions but no baseline (unranked or under min_baseline 24 h ago)",
        "eligible": "mentions >= min_mentions in the latest snapshot on or before the as-of date, not excluded",
        "minMentions": inputs.min_mentions,
        "minBaseline": inputs.min_baseline,
        "top": inputs.top,
        "excludedTickerWords": sorted(inputs.excluded),
        "forum": inputs.forum,
    }


def _notes(inputs: SocialInput, snapshots: Sequence[Snapshot], day: date) -> tuple[list[str], list[ScopeWarning]]:
    source = inputs.files[0].source if inputs.files else ""
    fixture_caveats, fixture_warnings = fixture_notes(inputs.fixture, source)
    malformed_caveats, malformed_warnings = malformed_notes(inputs.files)
    warnings = [*fixture_warnings, *malformed_warnings]
    if not snapshots:
        warnings.append(ScopeWarning("no-snapshot", f"no {inputs.forum} snapshot on or before the as-of date", source))
    elif (age := (day - snapshots[-1].taken.date()).days) > STALE_DAYS:
        warnings.append(
            ScopeWarning(
                "stale-snapshot",
                f"stale: the latest {inputs.forum} snapshot ({_time(snapshots[-1])}) is {age} days older than the "
                "as-of date; its 24-hour changes describe that day, not this one",
                source,
            )
        )
    return [*fixture_caveats, *CAVEATS, *malformed_caveats], warnings


def _time(snapshot: Snapshot) -> str:
    return snapshot.taken.isoformat(timespec="milliseconds").replace("+00:00", "Z")
