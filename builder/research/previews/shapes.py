"""The preview packs' agent payloads as wire shapes: declared once, their OpenAPI schemas generated from them.

Field names are the wire's (camelCase); the builders in `congress`, `person` and `social` return these types,
and builder.api.openapi.schemas turns them into components with builder.typed. The payload's `versionId` and
`nextCalls` are added where the answer is served (builder.api.shapes.PersonAgentPayload and its siblings).
"""

from __future__ import annotations

from typing import Annotated, Literal, TypedDict

from builder.sources.congress.instrument import Instrument
from builder.typed import Count, Date, Keywords

Owner = Annotated[str, Keywords(enum=["self", "spouse", "joint", "dependent", "not stated"])]
Chamber = Annotated[str, Keywords(enum=["house", "senate"])]
InstrumentName = Annotated[str, Keywords(enum=[kind.value for kind in Instrument])]
Outcome = Annotated[str, Keywords(enum=["strict-signal", "demo-signal", "no-signal"])]
ProducedBy = Literal["strict", "demo"]  # which cluster rule produced a congress signal


class PreviewWarning(TypedDict):
    """One scope warning of the pack, as health lists it: what is wrong, and the file it is about."""

    code: str
    message: str
    source: str


class AmountRange(TypedDict):
    low: int
    high: int | None
    text: str


class TradeBrief(TypedDict):
    """A trade behind a cluster: who, what it is in (as described, and as read), when, how much, where filed."""

    member: str
    person: str
    chamber: Chamber
    assetDescription: str
    instrument: InstrumentName
    instrumentRule: str
    transactionDate: Date
    disclosureDate: Date
    daysToDisclose: int
    amount: AmountRange
    owner: Owner
    ptrLink: str | None
    flags: list[str]


class ClusterBrief(TypedDict):
    ticker: str
    name: str  # the security as its first disclosure describes it
    members: list[str]
    memberCount: Count
    firstDisclosed: Date
    lastDisclosed: Date
    tradeCount: Count
    disclosedWithin45Days: Count
    amountLowTotal: int
    amountHighTotal: int | None


class CongressCluster(ClusterBrief):
    tradesListed: Count  # the payload lists this many of tradeCount (the artifact has every one)
    trades: list[TradeBrief]


class ClusterRule(TypedDict):
    windowDays: int
    minMembers: int
    minAmount: int
    direction: Literal["purchase"]
    countedBy: Literal["disclosure date"]


class ClusterDefinition(TypedDict):
    direction: Literal["purchase"]
    countedBy: str
    demo: ClusterRule
    strict: ClusterRule


class CongressPayload(TypedDict):
    pack: Literal["congress-trades"]
    label: Literal["data preview"]
    asOf: Date
    fixture: bool
    outcome: Outcome
    stance: str
    answer: str
    producedBy: ProducedBy | None
    definition: ClusterDefinition
    signalCount: Count  # clusters found; signal lists the first of them the payload's budget holds
    signal: list[CongressCluster]
    strictTickers: list[str]
    demoTickers: list[str]
    latestDisclosureDate: Date | None
    clock: str  # how to judge the dates against the reader's own clock, in one line
    warningCount: Count
    warnings: list[PreviewWarning]
    caveats: list[str]
    executionEnabled: Literal[False]


class Totals(TypedDict):
    estimate: int
    low: int
    high: int | None


class Weight(TypedDict):
    ticker: str
    name: str  # the security as its disclosures describe it
    weight: float


class Concentration(TypedDict):
    positions: Count
    hhi: float
    effectivePositions: float | None
    top5Weight: float
    top: list[Weight]


class DisclosureDates(TypedDict):
    """Days to disclose over the counted trades: dates and days derived only from trades dated on or before their
    disclosure (null when there are none)."""

    trades: Count
    latestTransactionDate: Date | None
    latestDisclosureDate: Date | None
    medianDaysToDisclose: float | None
    maxDaysToDisclose: int | None
    lateDisclosures: Count
    disclosedBeforeTrade: Count


class Freshness(DisclosureDates):
    daysSinceLatestDisclosure: int | None


class HoldingBrief(TypedDict):
    ticker: str
    name: str  # the security as its disclosures describe it
    estimate: int
    low: int
    high: int | None
    weight: float


class PersonHead(TypedDict):
    """What a person tracker's artifact and payload both open with: the pack and the person, as of when."""

    pack: str
    label: Literal["data preview"]
    person: str
    asOf: Date
    fixture: bool


class PersonPayload(PersonHead):
    answer: str
    totals: Totals
    concentration: Concentration
    freshness: Freshness
    clock: str  # how to judge the dates against the reader's own clock, in one line
    topHoldings: list[HoldingBrief]
    warningCount: Count
    warnings: list[PreviewWarning]
    caveats: list[str]
    executionEnabled: Literal[False]


class MomentumBrief(TypedDict):
    ticker: str
    name: str
    mentions: int
    mentions24hAgo: int | None
    mentionRatio: float | None
    rank: int
    rankChange: int | None


class MomentumDefinition(TypedDict):
    momentum: str
    rankChange: str
    newEntrants: str
    eligible: str
    minMentions: int
    minBaseline: int
    top: int
    excludedTickerWords: list[str]
    forum: str


class SocialHead(TypedDict):
    """What a social pack's artifact and payload both open with: the pack, its forum, its signal, its snapshot."""

    pack: str
    label: Literal["research preview"]
    forum: str
    asOf: Date
    fixture: bool
    signal: Literal["attention momentum", "no momentum signal"]
    snapshotTime: str | None


class SocialPayload(SocialHead):
    snapshotAgeDays: int | None
    clock: str  # how to judge the snapshot's time against the reader's own clock, in one line
    definition: MomentumDefinition
    topMovers: list[MomentumBrief]
    newEntrants: list[MomentumBrief]
    warningCount: Count
    warnings: list[PreviewWarning]
    caveats: list[str]
    executionEnabled: Literal[False]


PreviewPayload = PersonPayload | CongressPayload | SocialPayload
