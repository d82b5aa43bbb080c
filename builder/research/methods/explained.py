"""The explanation of one ticker, its shapes: what is said once (the ticker and its naming, the view), each
selected manager's change, and statements naming the changes whose rows they cite (citations() writes them out)."""

from __future__ import annotations

import functools
import posixpath
from typing import Annotated, Literal, TypedDict

from builder.records import Amendment, FormType, ValueUnit
from builder.research.methods.ethos import EthosId, FeatureName, FeatureValue, Score
from builder.research.methods.policy import Signal
from builder.research.schema import (
    ArtifactCount,
    ArtifactDate,
    ArtifactFiling,
    ArtifactWarning,
    Change,
    Cusip,
    Nonempty,
    NullableCount,
    SourceRow,
    Sources,
    Text,
    TickerAsOf,
)
from builder.research.views import Mode
from builder.research.windows.history import PositionHistory
from builder.typed import BARE, TYPE_LIST, Count, Date, Fraction, Keywords

ViewStatus = Literal["in-view", "left-view"]  # whether an explained ticker is in the view asked about
Rank = Annotated[int | None, TYPE_LIST, Keywords(minimum=1)]  # 1 = first of the ethos's top set; null outside it


class _HeldBy(TypedDict):
    managerId: str
    managerName: str
    held: Literal[True]


class _EndedBy(TypedDict):
    managerId: str
    managerName: str
    held: Literal[False]


class Naming(TypedDict):
    """The explanation's name of the security: said once, and by a change only where its entry's differs (AsFiled)."""

    issuer: str
    cusip: str
    mapped: bool
    tickerAsOf: TickerAsOf


class AsFiled(TypedDict, total=False):
    """The entry's own name of the security, given only where it differs from the explanation's (said once)."""

    issuer: Text
    cusip: Cusip
    mapped: bool
    tickerAsOf: Annotated[TickerAsOf, BARE]


class HeldChange(_HeldBy, AsFiled):
    """The artifact's position of a selected manager: its sources are this quarter's rows."""

    shares: ArtifactCount
    value: ArtifactCount
    weight: Fraction
    change: Change
    sources: Sources


class EndedChange(_EndedBy, AsFiled):
    """A position no longer held: the sources are the previous quarter's rows it ended; absentFrom the manager's
    filings of this quarter, which have no row for the ticker."""

    change: Change
    sources: list[SourceRow]
    absentFrom: list[str]


class Citation(TypedDict):
    accession: str
    row: Rank  # null for a position no longer held (no row this quarter)
    managerId: str


class EvidenceStatement(TypedDict):
    text: str
    managerIds: list[str]  # the changes whose rows it cites (citations() lists them)


class CitedStatement(TypedDict):
    """A statement with the rows it cites written out (the compact answers', which carry a few changes only)."""

    text: str
    citations: list[Citation]


class Evidence(TypedDict):
    statements: list[EvidenceStatement]


class TickerSummary(TypedDict):
    holders: list[str]
    holderCount: Count
    buyers: list[str]
    sellers: list[str]
    value: Count


class TickerEthos(TypedDict):
    ethosIds: list[EthosId]
    scores: dict[EthosId, Score]
    features: dict[FeatureName, FeatureValue]


class TickerOverlap(TypedDict):
    inEveryTopSet: bool
    topSets: list[EthosId]
    ranks: dict[EthosId, Rank]


class SourceRecord(TypedDict):
    """A filing a statement cites, and whose it is: the artifact's filing record, its source files written as their
    folder and their names in it (the artifact's `source` is the files' paths joined by " + ")."""

    managerId: str
    accession: Nonempty
    url: str | None
    formType: Annotated[FormType, BARE]
    amendment: Annotated[Amendment, BARE]
    amendmentNo: ArtifactCount
    filed: ArtifactDate
    filedFrom: Nonempty
    folder: str
    files: list[str]
    unit: Annotated[ValueUnit, BARE]
    unitRule: Nonempty
    rows: ArtifactCount
    tableEntryTotal: NullableCount
    tableValueTotal: NullableCount


def source_record(manager_id: str, filing: ArtifactFiling) -> SourceRecord:
    """`filing` of `manager_id` as a source record: its source paths split into their common folder and names."""
    folder, files = _split(filing["source"])
    return {
        "managerId": manager_id,
        "accession": filing["accession"],
        "url": filing["url"],
        "formType": filing["formType"],
        "amendment": filing["amendment"],
        "amendmentNo": filing["amendmentNo"],
        "filed": filing["filed"],
        "filedFrom": filing["filedFrom"],
        "folder": folder,
        "files": list(files),
        "unit": filing["unit"],
        "unitRule": filing["unitRule"],
        "rows": filing["rows"],
        "tableEntryTotal": filing["tableEntryTotal"],
        "tableValueTotal": filing["tableValueTotal"],
    }


@functools.lru_cache(maxsize=65536)
def _split(source: str) -> tuple[str, tuple[str, ...]]:
    """A filing's `source` as its paths' common folder and their names under it (a publish explains each ticker
    with the filings of its holders: the same few thousand sources, asked some fifty thousand times)."""
    paths = source.split(" + ")
    folder = posixpath.commonpath(paths) if len(paths) > 1 else posixpath.dirname(paths[0])
    if folder in paths:  # one path under another: no common folder to take out
        folder = posixpath.dirname(folder)
    return folder, tuple(path[len(folder) + 1 :] if folder else path for path in paths)


def source_paths(record: SourceRecord) -> str:
    """The artifact's `source` of a source record: its files' paths, joined by " + "."""
    return " + ".join(f"{record['folder']}/{name}" if record["folder"] else name for name in record["files"])


class PolicyBrief(TypedDict):
    signal: Signal
    executionEnabled: Literal[False]
    blockingReasons: list[str]
    warnings: list[str]


class ExplainedView(TypedDict):
    """The view explained: its mode and manager count; the managers listed only when they are a subset of the
    version's (null: every manager of the version)."""

    mode: Mode
    managerCount: Count
    managers: list[str] | None


class PositionExplanation(TypedDict):
    ticker: str
    issuer: str
    cusip: str
    mapped: bool
    tickerAsOf: Annotated[TickerAsOf, BARE]
    versionId: str
    quarter: Date
    previousQuarter: Date
    view: ExplainedView
    viewStatus: ViewStatus
    summary: TickerSummary
    changes: list[HeldChange | EndedChange]
    history: PositionHistory | None
    evidence: Evidence
    ethos: TickerEthos
    overlap: TickerOverlap
    sourceRecords: list[SourceRecord]
    warnings: list[ArtifactWarning]
    limitations: list[str]
    policy: PolicyBrief | None
    executionEnabled: Literal[False]


Explained = HeldChange | EndedChange
SHAPES = {
    "PositionExplanation": PositionExplanation,
    "PositionHistory": PositionHistory,
    "EvidenceStatement": EvidenceStatement,
    "CitedStatement": CitedStatement,
}
EXTENDED = {"HeldChange": HeldChange, "EndedChange": EndedChange}  # artifact entries with who holds them


def citations(explanation: PositionExplanation, statement: EvidenceStatement) -> list[Citation]:
    """The rows a statement cites, from the changes it names: a held position's sources; for a position no longer
    held, this quarter's filings of the manager (row null: no row there), then the previous quarter's rows it ended."""
    by_manager = {change["managerId"]: change for change in explanation["changes"]}
    return [c for manager_id in statement["managerIds"] for c in change_citations(by_manager[manager_id])]


def cited(explanation: PositionExplanation, count: int) -> list[CitedStatement]:
    """The first `count` statements with their citations written out."""
    statements = explanation["evidence"]["statements"][:count]
    return [{"text": s["text"], "citations": citations(explanation, s)} for s in statements]


def change_citations(change: Explained) -> list[Citation]:
    manager_id = change["managerId"]
    rows: list[Citation] = [
        {"accession": s["accession"], "row": s["row"], "managerId": manager_id} for s in change["sources"]
    ]
    if change["held"]:
        return rows
    absent: list[Citation] = [{"accession": a, "row": None, "managerId": manager_id} for a in change["absentFrom"]]
    return absent + rows
