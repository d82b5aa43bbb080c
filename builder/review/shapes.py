"""What a review says, as types: the result `review` returns and the text, the HTML page and the gates read."""

from __future__ import annotations

from typing import TypedDict

from builder.api.data import IndexWarning
from builder.research.changes.actions import ActionListing
from builder.research.changes.listing import UndecidedEntry
from builder.research.methods.audit import ManagerSelection
from builder.research.schema import MeasuredKind
from builder.research.versions import LedgerEntry
from builder.research.views import Mode


class Dates(TypedDict):
    candidate: str
    against: str | None  # None: nothing promoted


class Latest(TypedDict):
    candidate: str | None  # None: a release of no version
    against: str | None


class Counts(TypedDict):
    candidate: int
    against: int


class Shares(TypedDict):
    candidate: float
    against: float | None


class Restated(LedgerEntry):
    replaces: str  # the version id of the quarter it restates
    replacedSha256: str


class Versions(TypedDict):
    count: Counts
    added: list[LedgerEntry]
    dropped: list[LedgerEntry]
    restated: list[Restated]


class Coverage(TypedDict):
    """A manager and the quarters each release publishes for it."""

    id: str
    name: str
    candidate: list[str]
    against: list[str]


class Selections(TypedDict):
    """How packs.toml's `largest` chose managers, in each release (None: it chose none)."""

    candidate: ManagerSelection | None
    against: ManagerSelection | None
    entered: list[str]  # the manager ids of the filers (CIKs) the candidate selects and the promoted release did not
    left: list[str]  # the promoted release's ids of the filers it selected and the candidate does not


class Warnings(TypedDict):
    count: int
    new: list[IndexWarning]
    resolved: list[IndexWarning]


class OpenUndecided(UndecidedEntry):
    open: bool  # not published undecided by the release compared with


class Undecided(TypedDict):
    count: int
    open: int
    changes: list[OpenUndecided]


class Trade(TypedDict):
    """One trade of the latest quarter: shares traded, its value change split into trade and price effect."""

    manager: str
    ticker: str
    mapped: bool
    kind: MeasuredKind
    shareDelta: int
    fromShares: int
    toShares: int
    fromValue: int
    toValue: int
    tradeEffect: int
    priceEffect: int


class Bridge(TypedDict):
    """A manager's book value, before and after, the change split into trades, undecided changes and price."""

    manager: str
    before: int
    after: int
    change: int
    tradeEffect: int
    undecided: int
    priceEffect: int


class KindCount(TypedDict):
    kind: str
    count: int


class ViewCount(TypedDict):
    mode: Mode
    tickers: int


class BookPoint(TypedDict):
    quarter: str
    value: int


class BookSeries(TypedDict):
    manager: str
    points: list[BookPoint]


class LatestPart(TypedDict):
    """What a review shows of the candidate's latest version against the one before it (read in one process)."""

    trades: list[Trade]
    bridges: list[Bridge]
    kinds: list[KindCount]
    viewCounts: list[ViewCount]


class Decision(TypedDict):
    """The verdict a review supports: what changes for agents, the gates it trips and their fixes, the next command
    (None when the candidate is the promoted release)."""

    agents: list[str]
    gates: list[str]
    gateNames: list[str]
    newWarnings: int
    undecidedOpen: int
    promotable: bool
    fix: list[str]
    next: str | None


class Facts(LatestPart):
    """Everything a review shows but its verdict (made from these)."""

    candidate: str
    against: str | None
    asOf: Dates
    latest: Latest
    versions: Versions
    coverage: list[Coverage]
    selection: Selections
    warnings: Warnings
    unmapped: Shares
    undecided: Undecided
    actions: ActionListing
    bookValues: list[BookSeries]


class Review(Facts):
    verdict: Decision
