"""Ethos: investing methodologies that score every ticker of a view 0–100 from 13F filing data only."""

from __future__ import annotations

import copy
import sys
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Annotated, Literal, TypedDict

from builder.research.errors import NotInView, UnknownEthos
from builder.research.schema import Change, PackArtifact, Position, TickerAsOf
from builder.research.views import Mode, View, ViewPosition, ViewTicker
from builder.typed import KEY, TYPE_LIST, Count, Date, Fraction, Keywords

TOP_SET_SIZE = 10  # the agent payload's short list is 10 long too: what an agent reads first
FEATURE_DIGITS = 6  # features are fractions; 6 places match the artifact's weights (1 dollar in $1m)
SCORE_DIGITS = 2  # hundredths of a point on 0–100 separate any two tickers a reader would compare
AGREEMENT_DIGITS = 4  # Jaccard of two sets of at most TOP_SET_SIZE tickers needs no more
UNDEFINED = "undefined (no current holder in the selection, or no known change): null in features, normalised to 0"


@dataclass(frozen=True, slots=True)
class _Context:
    """What features read beyond the view row: the artifact's entries, books and the holding history."""

    selected: tuple[str, ...]
    positions: dict[tuple[str, str], Position]  # (managerId, ticker) → the artifact's position
    changes: dict[tuple[str, str], Change]  # (managerId, ticker) → the change of its position or exit
    books: dict[str, int]  # managerId → bookValue (dollars)
    streaks: dict[str, dict[str, int]]  # managerId → ticker → contiguous older quarters (newest first) holding it
    quarters: tuple[str, ...]  # the quarters of the persistence window, newest first


@dataclass(frozen=True, slots=True)
class _Feature:
    formula: str
    denominator: str
    compute: Callable[[ViewTicker, _Context], float | int | None]


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def _round(value: float, digits: int) -> float:
    return round(value, digits) + 0.0  # + 0.0 turns -0.0 into 0.0


def _weights(row: ViewTicker, ctx: _Context) -> list[float]:
    return [_ratio(ctx.positions[(m, row["ticker"])]["value"], ctx.books[m]) for m in row["holders"]]


def _mean_weight(row: ViewTicker, ctx: _Context) -> float | None:
    weights = _weights(row, ctx)
    return sum(weights) / len(weights) if weights else None


def _net_share_change(row: ViewTicker, ctx: _Context) -> float | None:
    changes = [ctx.changes[(p["managerId"], row["ticker"])] for p in row["managers"]]
    known = [c for c in changes if c["shareDelta"] is not None]  # undecided and unknown changes are left out
    if not known:
        return None
    delta: int = sum(c["shareDelta"] for c in known)
    before: int = sum(c["carriedShares"] for c in known)
    if before == 0:
        return 1.0 if delta > 0 else 0.0
    return max(-1.0, min(1.0, delta / before))


def _quarters_held(manager_id: str, ticker: str, ctx: _Context) -> int:
    return 1 + ctx.streaks.get(manager_id, {}).get(ticker, 0)


def _held_share_of_window(row: ViewTicker, ctx: _Context) -> float | None:
    if not row["holders"]:
        return None
    held = sum(_quarters_held(m, row["ticker"], ctx) for m in row["holders"])
    return held / (len(row["holders"]) * len(ctx.quarters))


def _opened(row: ViewTicker) -> list[ViewPosition]:
    return [p for p in row["managers"] if p["change"] == "new"]


FEATURES: dict[str, _Feature] = {
    "holderShare": _Feature(
        "holderCount / selectedManagers",
        "selectedManagers: the managers selected for the view",
        lambda row, ctx: _ratio(len(row["holders"]), len(ctx.selected)),
    ),
    "meanWeight": _Feature(
        "(sum over current holders h of value_h / bookValue_h) / holderCount",
        "bookValue_h, the holder's long-equity 13F book in dollars (a weight is 0 when it is 0); then holderCount",
        _mean_weight,
    ),
    "maxWeight": _Feature(
        "max over current holders h of value_h / bookValue_h",
        "bookValue_h (a weight is 0 when it is 0)",
        lambda row, ctx: max(_weights(row, ctx), default=None),
    ),
    "netShareChange": _Feature(
        "clamp(sum of shareDelta_m / sum of carriedShares_m, -1, +1) over the selected managers m whose change of the "
        "ticker is decided (new, added, reduced, unchanged, exited, converted); shareDelta counts traded shares only, "
        "measured against the previous book carried through corporate actions (a split or merger trades nothing); "
        "changes of kind 'undecided' or 'unknown' are left out",
        "sum of carriedShares_m of those managers (the previous quarter's shares on this quarter's basis); when it is "
        "0 (only new positions) the value is +1 if the sum of shareDelta_m is positive, else 0",
        _net_share_change,
    ),
    "heldShareOfWindow": _Feature(
        "(sum over current holders h of quartersHeld_h) / (holderCount * window); quartersHeld_h counts this "
        "quarter and each directly preceding older version whose book of h lists the ticker, up to the first "
        "that does not",
        "holderCount * window; window = 1 + the number of older versions running back from this quarter "
        "without a gap (basis.persistenceWindow lists them)",
        _held_share_of_window,
    ),
    "newHolderShare": _Feature(
        "newHolders / selectedManagers; newHolders = selected managers whose change of the ticker is 'new' (bought "
        "without holding it, or anything it came from through a corporate action, a quarter earlier)",
        "selectedManagers",
        lambda row, ctx: _ratio(len(_opened(row)), len(ctx.selected)),
    ),
    "newMoneyValue": _Feature(
        "sum of value (dollars) of the positions of kind 'new' of the selected managers",
        "none: a whole-dollar amount, scaled by the min-max normalisation",
        lambda row, ctx: sum(p["value"] for p in _opened(row)),
    ),
}


def _absolute(values: list[float | None]) -> list[float]:
    return [0.0 if v is None else v for v in values]


def _signed(values: list[float | None]) -> list[float]:
    return [0.0 if v is None else (v + 1) / 2 for v in values]


def _rank_percentile(values: list[float | None]) -> list[float]:
    defined = sorted(v for v in values if v is not None)
    return [0.0 if v is None else bisect_right(defined, v) / len(defined) for v in values]


def _min_max(values: list[float | None]) -> list[float]:
    defined = [v for v in values if v is not None]
    low, high = min(defined, default=0), max(defined, default=0)
    if high == low:
        return [0.0 if v is None or v <= 0 else 1.0 for v in values]
    return [0.0 if v is None else (v - low) / (high - low) for v in values]


Normalisation = Literal["absolute", "signed-absolute", "rank-percentile", "min-max"]
NORMALISATIONS: dict[Normalisation, tuple[str, Callable[[list[float | None]], list[float]]]] = {
    "absolute": (
        "n = x: the feature is already a fraction in [0, 1]; ties and all-equal views need no rule",
        _absolute,
    ),
    "signed-absolute": ("n = (x + 1) / 2 maps -1..+1 to 0..1 (0.5 = no net change); ties need no rule", _signed),
    "rank-percentile": (
        "n = (tickers of the view whose feature is defined and <= x) / (tickers whose feature is defined); tied "
        "tickers share the top of their tie group; when all are equal every ticker gets 1",
        _rank_percentile,
    ),
    "min-max": (
        "n = (x - min) / (max - min) over the view's tickers whose feature is defined; tied tickers get the same n; "
        "when all are equal (max = min) n = 1 if the value is above 0, else 0",
        _min_max,
    ),
}

_ETHOS: tuple[tuple[str, str, tuple[str, ...], dict[str, float], Normalisation], ...] = (
    (
        "breadth",
        "Breadth of holders",
        (
            "A stock that many of the chosen managers hold is a shared idea, not one manager's bet.",
            "Only the number of holders counts; position size does not.",
        ),
        {"holderShare": 1.0},
        "absolute",
    ),
    (
        "conviction",
        "Conviction (portfolio weight)",
        (
            "A manager shows conviction by putting a large part of its 13F book into one stock.",
            "The average weight across holders counts most; the single largest weight adds the strongest believer.",
        ),
        {"meanWeight": 0.7, "maxWeight": 0.3},
        "rank-percentile",
    ),
    (
        "accumulation",
        "Accumulation (net share change)",
        (
            "Managers buying more shares than they sell this quarter are accumulating the stock.",
            "Share counts, not dollars, so price moves do not look like buying.",
            "Only traded shares count: a split, merger or spin-off between the quarters moves shares without a trade.",
            "A change the filings cannot decide (undecided, or unknown without a previous filing) is left out, not guessed.",
        ),
        {"netShareChange": 1.0},
        "signed-absolute",
    ),
    (
        "persistence",
        "Persistence (quarters held)",
        (
            "A stock held quarter after quarter is a lasting view, not a trade.",
            "Counts consecutive quarters in the published versions; a gap in the versions ends the count.",
        ),
        {"heldShareOfWindow": 1.0},
        "absolute",
    ),
    (
        "new-money",
        "New money (opened positions)",
        (
            "A manager opening a position this quarter commits fresh money to a new idea.",
            "How many managers opened it counts half, the dollars they put in count half.",
        ),
        {"newHolderShare": 0.5, "newMoneyValue": 0.5},
        "min-max",
    ),
)
ETHOS_IDS: tuple[str, ...] = tuple(entry[0] for entry in _ETHOS)
# Ethos and feature names are ids of sets that grow: any string, the known ones as examples, so a client generated
# today still parses an answer that names one published later.
EthosId = Annotated[str, Keywords(examples=list(ETHOS_IDS))]
FeatureName = Annotated[str, Keywords(examples=list(FEATURES))]
Score = Annotated[float, Keywords(minimum=0, maximum=100)]
# The values of a map have no field name to take a description from the glossary by: it is written here.
FeatureValue = Annotated[
    float | None, TYPE_LIST, Keywords(description="null when undefined for the ticker (normalised to 0).")
]


class FeatureRule(TypedDict):
    name: FeatureName
    formula: str
    denominator: str


class NormalisationRule(TypedDict):
    method: Normalisation
    rule: str
    undefined: str


class EthosScoring(TypedDict):
    features: list[FeatureRule]
    weights: dict[FeatureName, Fraction]
    normalisation: NormalisationRule
    score: str
    topSetSize: Count
    topSet: str


class EthosDefinition(TypedDict):
    id: EthosId
    name: str
    principles: list[str]
    dataUsed: str
    scoring: EthosScoring


class EthosList(TypedDict):
    ethos: list[EthosDefinition]


class ScoreBasis(TypedDict):
    versionId: str
    quarter: Date
    managers: list[str]
    mode: Mode
    tickerCount: Count
    persistenceWindow: list[Date]


class TickerScores(TypedDict):
    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf
    scores: dict[EthosId, Score]
    features: dict[FeatureName, FeatureValue]


class Agreement(TypedDict):
    a: Annotated[EthosId, KEY]  # KEY: what compare_ethos's compact answer promises of each pair
    b: Annotated[EthosId, KEY]
    agreement: Annotated[Fraction, KEY]
    shared: list[str]


class Overlap(TypedDict):
    tickers: list[str]
    pairwise: list[Agreement]


class TickerName(TypedDict):
    issuer: str
    tickerAsOf: TickerAsOf


class EthosComparison(TypedDict):
    ethosIds: Annotated[list[EthosId], Keywords(minItems=1)]
    basis: ScoreBasis
    scores: list[TickerScores]
    topSets: dict[EthosId, list[str]]
    overlap: Overlap
    names: dict[str, TickerName]


SHAPES = {  # listEthos and compareEthos, the OpenAPI components generated from them (builder.typed)
    "EthosList": EthosList,
    "EthosDefinition": EthosDefinition,
    "EthosScoring": EthosScoring,
    "EthosComparison": EthosComparison,
}
TOP_SET_RULE = (
    f"the {TOP_SET_SIZE} tickers with the highest score above 0, best first; ties broken by the ticker's total value "
    "in the view (larger first), then by ticker (A to Z)"
)
SCORE_RULE = (
    f"score = round(100 * sum over features f of weight_f * n_f, {SCORE_DIGITS}); features are rounded to "
    f"{FEATURE_DIGITS} places (dollar features stay whole) before they are normalised; normalisation is over the "
    "tickers of the view being compared"
)


def _definition(
    ethos_id: str, name: str, principles: Sequence[str], weights: dict[str, float], method: Normalisation
) -> EthosDefinition:
    features: list[FeatureRule] = [
        {"name": f, "formula": FEATURES[f].formula, "denominator": FEATURES[f].denominator} for f in weights
    ]
    return {
        "id": ethos_id,
        "name": name,
        "principles": list(principles),
        "dataUsed": "13F long-equity positions, their quarter-over-quarter changes and the older published versions",
        "scoring": {
            "features": features,
            "weights": dict(weights),
            "normalisation": {"method": method, "rule": NORMALISATIONS[method][0], "undefined": UNDEFINED},
            "score": SCORE_RULE,
            "topSetSize": TOP_SET_SIZE,
            "topSet": TOP_SET_RULE,
        },
    }


_DEFINITIONS = tuple(_definition(*entry) for entry in _ETHOS)


def ethos_definitions() -> list[EthosDefinition]:
    """The listEthos items: id, public name, principles and the scoring configuration that fixes every score."""
    return copy.deepcopy(list(_DEFINITIONS))


def canonical_ethos_ids(ethos_ids: Sequence[str]) -> list[str]:
    """Requested ids de-duplicated in ETHOS_IDS order (all when empty); UnknownEthos for an unknown id."""
    unknown = sorted(set(ethos_ids) - set(ETHOS_IDS))
    if unknown:
        message = f"unknown ethos id(s): {', '.join(unknown)}"
        raise UnknownEthos(message, {"unknown": unknown, "known": list(ETHOS_IDS)})
    return [e for e in ETHOS_IDS if e in set(ethos_ids)] or list(ETHOS_IDS)


@dataclass(frozen=True, slots=True)
class Holdings:
    """What the holding streaks read of a version older than the scored one: its quarter ends and, per manager id,
    the tickers its book holds, de-duplicated and sorted, every string interned. Kept for the release's life for
    each version (and pickled from each publish worker to its parent), so no dict per position: at 500 managers a
    version's holdings are 0.9 MB, not the 18.8 MB of one {"ticker": …} per position."""

    quarter: str
    previous_quarter: str
    held: dict[str, tuple[str, ...]]  # manager id → the tickers of its positions


def holdings(artifact: PackArtifact) -> Holdings:
    """The holdings of a version (a few hundred kilobytes of a megabytes artifact)."""
    held = {
        sys.intern(m["id"]): tuple(sorted({sys.intern(p["ticker"]) for p in m["positions"]}))
        for m in artifact["managers"]
    }
    return Holdings(artifact["quarter"], artifact["previousQuarter"], held)


def _context(view: View, artifact: PackArtifact, history: Sequence[Holdings]) -> _Context:
    """Lookups for the view's features, over the selected managers only (the only ones a feature reads)."""
    selected = set(view["managers"])
    chosen = [m for m in artifact["managers"] if m["id"] in selected]
    positions = {(m["id"], p["ticker"]): p for m in chosen for p in m["positions"]}
    changes = {(m["id"], e["ticker"]): e["change"] for m in chosen for e in (*m["positions"], *m["ended"])}
    chain, expected = [], artifact["previousQuarter"]
    older_first = sorted((h for h in history if h.quarter < artifact["quarter"]), key=lambda h: h.quarter)
    for older in reversed(older_first):
        if older.quarter != expected:
            break  # a gap in the versions ends every streak
        chain.append(older)
        expected = older.previous_quarter
    books = {m["id"]: m["bookValue"] for m in chosen}
    quarters = (artifact["quarter"], *(h.quarter for h in chain))
    return _Context(tuple(view["managers"]), positions, changes, books, _streaks(chain, selected), quarters)


def _streaks(chain: Sequence[Holdings], selected: set[str]) -> dict[str, dict[str, int]]:
    """For each manager and ticker, how many of the older versions in `chain` (newest first) in a row hold it."""
    streaks: dict[str, dict[str, int]] = {manager_id: {} for manager_id in selected}
    for depth, older in enumerate(chain):
        for manager_id, counts in streaks.items():
            for ticker in older.held.get(manager_id, ()):
                if counts.get(ticker, 0) == depth:  # held in every newer version of the chain too
                    counts[ticker] = depth + 1
    return streaks


def _feature_values(name: str, rows: Sequence[ViewTicker], ctx: _Context) -> list[float | int | None]:
    values = [FEATURES[name].compute(row, ctx) for row in rows]
    return [v if v is None or isinstance(v, int) else _round(v, FEATURE_DIGITS) for v in values]


def _ethos_scores(definition: EthosDefinition, features: dict[str, list[float | None]], count: int) -> list[float]:
    scoring = definition["scoring"]
    normalise = NORMALISATIONS[scoring["normalisation"]["method"]][1]
    total = [0.0] * count
    for name, weight in scoring["weights"].items():
        total = [t + weight * n for t, n in zip(total, normalise(features[name]), strict=True)]
    return [_round(100 * t, SCORE_DIGITS) for t in total]


def _top_set(scores: list[float], rows: Sequence[ViewTicker]) -> list[str]:
    ranked = sorted(range(len(rows)), key=lambda i: (-scores[i], -rows[i]["value"], rows[i]["ticker"]))
    return [rows[i]["ticker"] for i in ranked if scores[i] > 0][:TOP_SET_SIZE]


def _overlap(ids: Sequence[str], top_sets: dict[str, list[str]]) -> Overlap:
    common = set.intersection(*(set(top_sets[e]) for e in ids)) if ids else set()
    pairwise: list[Agreement] = []
    for a, b in combinations(ids, 2):
        shared, union = set(top_sets[a]) & set(top_sets[b]), set(top_sets[a]) | set(top_sets[b])
        agreement = _round(_ratio(len(shared), len(union)), AGREEMENT_DIGITS)
        pairwise.append({"a": a, "b": b, "agreement": agreement, "shared": sorted(shared)})
    return {"tickers": sorted(common), "pairwise": pairwise}


def score_view(
    view: View, artifact: PackArtifact, history: Sequence[Holdings], ethos_ids: Sequence[str]
) -> EthosComparison:
    """Per-ticker 0–100 scores of the chosen ethos over `view`, their top sets and cross-ethos overlap."""
    ids = canonical_ethos_ids(ethos_ids)
    definitions = {d["id"]: d for d in _DEFINITIONS if d["id"] in ids}
    rows = sorted(view["tickers"], key=lambda row: row["ticker"])
    ctx = _context(view, artifact, history)
    names = list(dict.fromkeys(name for e in ids for name in definitions[e]["scoring"]["weights"]))
    features = {name: _feature_values(name, rows, ctx) for name in names}
    scores = {e: _ethos_scores(definitions[e], features, len(rows)) for e in ids}
    top_sets = {e: _top_set(scores[e], rows) for e in ids}
    return {
        "ethosIds": ids,
        "basis": {
            "versionId": artifact["versionId"],
            "quarter": artifact["quarter"],
            "managers": list(ctx.selected),
            "mode": view["mode"],
            "tickerCount": len(rows),
            "persistenceWindow": list(ctx.quarters),
        },
        "scores": [
            {
                "ticker": r["ticker"],
                "issuer": r["issuer"],
                "tickerAsOf": r["tickerAsOf"],
                "scores": {e: scores[e][i] for e in ids},
                "features": {n: features[n][i] for n in names},
            }
            for i, r in enumerate(rows)
        ],
        "topSets": top_sets,
        "overlap": _overlap(ids, top_sets),
        "names": _names(top_sets, rows),
    }


def _names(top_sets: dict[str, list[str]], rows: Sequence[ViewTicker]) -> dict[str, TickerName]:
    """Each ticker the top sets list (and so the overlap), named: the sets stay lists of tickers, named once here."""
    listed = {ticker for tickers in top_sets.values() for ticker in tickers}
    return {r["ticker"]: {"issuer": r["issuer"], "tickerAsOf": r["tickerAsOf"]} for r in rows if r["ticker"] in listed}


def select_tickers(result: EthosComparison, tickers: Sequence[str]) -> EthosComparison:
    """`result` with only `tickers` in its scores (top sets stay view-wide); NotInView for one not in the view."""
    if not tickers:
        return result
    present = {entry["ticker"] for entry in result["scores"]}
    missing = sorted(set(tickers) - present)
    if missing:
        message = f"not in the selected view: {', '.join(missing)}"
        raise NotInView(message, {"tickers": missing})
    return {**result, "scores": [entry for entry in result["scores"] if entry["ticker"] in set(tickers)]}
