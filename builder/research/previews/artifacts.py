"""The preview packs' artifacts and methodologies as wire shapes: declared once, their OpenAPI schemas generated
from them (builder.api.openapi.schemas, by builder.typed).

Field names are the wire's (camelCase); the builders in `congress`, `person`, `social` and `disclosures` return
these types. The pieces an artifact shares with its agent payload (a cluster's counts, a tracker's totals,
concentration and freshness) are the payloads' (builder.research.previews.shapes). A latest answer cuts an
artifact's long lists and says so in `listsCut` (builder.api.handlers); the audit export has the artifact whole.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from builder.research.previews.shapes import (
    AmountRange,
    ClusterBrief,
    ClusterRule,
    Concentration,
    DisclosureDates,
    Freshness,
    MomentumDefinition,
    Outcome,
    PersonHead,
    ProducedBy,
    SocialHead,
    Totals,
)
from builder.typed import Date


class PreviewTrade(TypedDict):
    """A disclosed transaction as published: as filed, plus who it is, its instrument and why, and its flags."""

    member: str
    chamber: str
    district: str
    ticker: str | None
    assetDescription: str
    assetType: str
    type: str
    owner: str
    transactionDate: Date
    disclosureDate: Date
    daysToDisclose: int
    amount: AmountRange
    ptrLink: str | None
    flags: list[str]
    source: str
    row: int
    person: str
    instrument: str
    instrumentRule: str
    shares: int | None


class RowIssueRecord(TypedDict):
    code: str
    message: str
    outcome: str
    row: int


class CopiesHeld(TypedDict):
    path: str
    rows: int


class PreviewSourceFile(TypedDict):
    """One source file read: its rows, what was kept and excluded, and each malformed row with its reason; a
    disclosures file also its trades by instrument and the rows dropped as copies of another file's."""

    path: str
    rows: int
    kept: int
    excluded: int
    malformed: int
    reasons: dict[str, int]
    issues: list[RowIssueRecord]
    instruments: NotRequired[dict[str, int]]
    instrumentRules: NotRequired[dict[str, int]]
    duplicatesDropped: NotRequired[int]
    duplicatesOf: NotRequired[list[CopiesHeld]]
    withoutReportLink: NotRequired[int]


class ListCut(TypedDict):
    listed: int
    total: int


class AmountBounds(TypedDict):
    low: int
    high: int | None


class EstimatedHolding(TypedDict):
    ticker: str
    assetDescription: str
    estimate: int
    low: int
    high: int | None
    weight: float
    transactions: int
    exercisedShares: int
    firstTransactionDate: Date | None
    lastTransactionDate: Date | None
    lastDisclosureDate: Date


class Spelling(TypedDict):
    spelling: str
    rows: int
    chambers: list[str]
    districts: list[str]


class PersonArtifact(PersonHead):
    totals: Totals
    concentration: Concentration
    freshness: Freshness
    description: str
    holdings: list[EstimatedHolding]
    closed: list[str]
    unmatchedSales: list[PreviewTrade]
    options: list[PreviewTrade]
    untracked: list[PreviewTrade]
    transactions: list[PreviewTrade]
    spellings: list[Spelling]
    duplicatesDropped: int
    sources: list[PreviewSourceFile]
    caveats: list[str]
    listsCut: NotRequired[dict[str, ListCut]]


class PersonMethodology(TypedDict):
    person: str
    namesMatched: list[str]
    nameMatching: str
    counted: str
    estimate: str
    notEstimated: str
    instrument: str
    duplicates: str
    concentration: str
    lateDisclosureDays: int
    amountCategories: list[AmountBounds]
    evaluationDate: Date
    releaseAsOf: Date
    sources: list[str]


class RuleSet(TypedDict):
    demo: ClusterRule
    strict: ClusterRule


class ClusterRecord(ClusterBrief):
    windowStart: Date
    windowEnd: Date
    trades: list[PreviewTrade]


class Signals(TypedDict):
    demo: list[ClusterRecord]
    strict: list[ClusterRecord]


class SignalDay(TypedDict):
    date: Date
    tickers: list[str]


class History(TypedDict):
    demo: list[SignalDay]
    strict: list[SignalDay]


class SpellingRows(TypedDict):
    spelling: str
    rows: int


class MergedPerson(TypedDict):
    person: str
    chamber: str
    state: str
    spellings: list[SpellingRows]


class CongressArtifact(TypedDict):
    pack: Literal["congress-trades"]
    label: Literal["data preview"]
    asOf: Date
    fixture: bool
    description: str
    outcome: Outcome
    stance: str
    answer: str
    producedBy: ProducedBy | None
    rules: RuleSet
    signals: Signals
    history: History
    windowTrades: list[PreviewTrade]
    windowOptions: list[PreviewTrade]
    people: list[MergedPerson]
    duplicatesDropped: int
    disclosure: DisclosureDates
    sources: list[PreviewSourceFile]
    caveats: list[str]
    listsCut: NotRequired[dict[str, ListCut]]


class CongressMethodology(TypedDict):
    cluster: str
    countedBy: str
    eligible: str
    headline: str
    rules: RuleSet
    memberIdentity: str
    memberAliases: list[list[str]]
    instrument: str
    duplicates: str
    lateDisclosureDays: int
    amountCategories: list[AmountBounds]
    evaluationDate: Date
    releaseAsOf: Date
    sources: list[str]


class RankPoint(TypedDict):
    time: str
    rank: int | None
    mentions: int | None


class Momentum(TypedDict):
    ticker: str
    name: str
    mentions: int
    mentions24hAgo: int | None
    mentionChange: int | None
    mentionRatio: float | None
    rank: int
    rank24hAgo: int | None
    rankChange: int | None
    upvotes: int | None
    path: list[RankPoint]


class ExcludedSeen(TypedDict):
    ticker: str
    mentions: int


class SnapshotRows(TypedDict):
    time: str
    rows: int


class SocialArtifact(SocialHead):
    description: str
    movers: list[Momentum]
    faders: list[Momentum]
    newEntrants: list[Momentum]
    leaders: list[Momentum]
    excludedSeen: list[ExcludedSeen]
    snapshots: list[SnapshotRows]
    sources: list[PreviewSourceFile]
    caveats: list[str]
    listsCut: NotRequired[dict[str, ListCut]]


class SocialMethodology(MomentumDefinition):
    evaluationDate: Date
    releaseAsOf: Date
    sources: list[str]


PreviewArtifact = PersonArtifact | CongressArtifact | SocialArtifact
PreviewMethodology = PersonMethodology | CongressMethodology | SocialMethodology
ARTIFACTS = {
    "PersonArtifact": PersonArtifact,
    "PersonMethodology": PersonMethodology,
    "CongressArtifact": CongressArtifact,
    "CongressMethodology": CongressMethodology,
    "SocialArtifact": SocialArtifact,
    "SocialMethodology": SocialMethodology,
    "PreviewTrade": PreviewTrade,
    "PreviewSourceFile": PreviewSourceFile,
}
