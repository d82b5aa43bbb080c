"""The compact answer of each tool: what an agent reads from a call, bounded at any number of managers.

Each is a pure function of the REST answer's `data` (and the call's arguments, for the next calls it
proposes): the agent payload for get_latest_pack, and for every other tool the same shape of answer —
the facts first, lists capped with their counts beside them, then `nextCalls` with exact arguments.
The full REST envelope stays reachable as the resources the result links (server.mcp_server.resources).
Each operation of the table (builder.api.contract) names its function here and the TypedDict it returns, from
which the tool's output schema is generated (builder.typed.compact_schema).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, NotRequired, TypedDict

from builder.api.shapes import (
    CopycatLatestPack,
    Health,
    HealthPack,
    HealthStatus,
    HealthWarning,
    NoExecution,
    PackCatalog,
    PackFeature,
    PackStatus,
    PreviewAgentPayload,
    PreviewAuditExport,
    PreviewIdentity,
    PreviewLatestPack,
    VersionCatalog,
)
from builder.research.agent import AgentManager, AgentPayload, NextCall
from builder.research.methods.audit import (
    AuditEvent,
    ContentHash,
    CopycatAuditExport,
    CopycatIdentity,
    ReleaseIdentity,
    SourceFileRecord,
)
from builder.research.methods.ethos import EthosComparison, EthosId, EthosList, FeatureName, Overlap, Score, TickerName
from builder.research.methods.explained import (
    CitedStatement,
    Explained,
    PolicyBrief,
    PositionExplanation,
    TickerOverlap,
    ViewStatus,
    cited,
)
from builder.research.methods.policy import Outcome, PolicyResult, Signal
from builder.research.previews.pack import PackLabel
from builder.research.quarters import Freshness, clock
from builder.research.schema import Change, TickerAsOf
from builder.research.versions import PACK_ID
from builder.research.views import Mode, ViewArguments
from builder.research.windows.history import HistoryBrief, history_brief
from builder.typed import KEY, UNPROMISED, Count, Date, picked

# The release's dates against the reader's clock (precomputed bytes cannot know the day they are read).
RELEASE_CLOCK = (
    "Judge freshness by your clock: asOf is the release's date; a 13F quarter's filings are due 45 days after it "
    "ends, and list_pack_versions gives each version's quarter."
)
LISTED = 10  # items of a long list (tickers, trades, changes, scores); its count covers all
SHORT = 5  # items of a list of sentences (warnings, reasons)
Data = dict[str, Any]
Arguments = dict[str, Any]
# An operation's compact answer of its REST answer's data, which it reads as the type the operation declares.
Summarise = Callable[[Any, Arguments], Mapping[str, Any]]


class HealthAnswer(TypedDict):
    """get_health's compact answer: the REST health without the identity hashes, its first warnings."""

    status: HealthStatus
    releaseId: str
    asOf: Date
    clock: str
    fixture: bool
    packs: list[HealthPack]
    warningCount: Count
    warnings: list[HealthWarning]
    executionEnabled: NoExecution
    nextCalls: list[NextCall]


class PackListing(TypedDict):
    """A catalog entry without its description and links; KEY marks what the output schema promises of each."""

    id: Annotated[str, KEY]
    label: Annotated[PackLabel, KEY]
    title: str
    status: Annotated[PackStatus, KEY]
    latestVersion: str | None
    asOf: Date | None
    features: list[PackFeature]


class PacksAnswer(TypedDict):
    """list_packs' compact answer."""

    packs: list[PackListing]
    clock: str
    nextCalls: list[NextCall]


class VersionListing(TypedDict):
    """A version of the catalog without its artifact's sha256: a 13f-copycat version has its quarter, a preview's
    its as-of date."""

    versionId: Annotated[str, KEY]
    quarter: NotRequired[Date]
    asOf: NotRequired[Date]
    latest: Annotated[bool, KEY]


class VersionsAnswer(TypedDict):
    """list_pack_versions' compact answer: the newest versions, their count."""

    packId: str
    latestVersion: str
    versionCount: Count
    versions: list[VersionListing]
    clock: str
    nextCalls: list[NextCall]


class EthosListing(TypedDict):
    """An ethos without its rules in words: its features by name and their weights."""

    id: Annotated[EthosId, KEY]
    name: Annotated[str, KEY]
    principles: Annotated[list[str], KEY]
    features: Annotated[list[FeatureName], KEY]
    weights: Annotated[dict[FeatureName, float], KEY]
    topSetSize: int


class EthosListAnswer(TypedDict):
    """list_ethos' compact answer."""

    ethos: list[EthosListing]
    nextCalls: list[NextCall]


class ScoreListing(TypedDict):
    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf
    scores: dict[EthosId, Score]


class ComparisonAnswer(TypedDict):
    """compare_ethos' compact answer: the highest total scores first, their count; the basis with a manager count;
    the tickers of the top sets and overlap named once in `names`."""

    ethosIds: list[EthosId]
    basis: dict[str, Any]
    clock: str
    topSets: dict[EthosId, list[str]]
    overlap: Overlap
    names: dict[str, TickerName]
    scoreCount: int
    scores: list[ScoreListing]
    nextCalls: list[NextCall]


class CheckListing(TypedDict):
    id: str
    outcome: Outcome
    reason: str


class PolicyAnswer(TypedDict):
    """validate_policy's compact answer: every check without its name, the first reasons and warnings, their counts."""

    versionId: str
    asOf: Date
    freshness: Freshness
    clock: str
    signal: Signal
    checks: list[CheckListing]
    blockingReasonCount: int
    blockingReasons: list[str]
    warningCount: int
    warnings: list[str]
    executionEnabled: NoExecution
    nextCalls: list[NextCall]


class LatestAnswer(TypedDict):
    """get_latest_pack's compact answer is the pack's agent payload: what every one promises (a preview's has its own
    fields instead of the NotRequired ones)."""

    pack: str
    versionId: str
    asOf: Date
    caveats: list[str]
    nextCalls: list[NextCall]
    executionEnabled: NoExecution
    managers: NotRequired[list[AgentManager]]
    freshness: NotRequired[Freshness]
    glossary: NotRequired[dict[str, str]]
    limits13F: NotRequired[list[str]]


class ViewBrief(TypedDict):
    mode: Mode
    managerCount: Count


class SummaryBrief(TypedDict):
    holderCount: Count
    value: Count
    buyerCount: Count
    buyers: list[str]
    sellerCount: Count
    sellers: list[str]


class ChangeBrief(TypedDict):
    """One manager's position (or exit) in brief: the trade, the shares and value after it, the first source."""

    managerId: Annotated[str, KEY]
    managerName: str
    tickerAsOf: TickerAsOf
    held: Annotated[bool, KEY]
    shares: NotRequired[Count]
    value: NotRequired[Count]
    weight: NotRequired[float]
    change: Annotated[Change, KEY]
    accession: Annotated[str | None, KEY]


class ExplanationAnswer(TypedDict):
    """explain_position's compact answer: the largest positions first, their count; the history; the first
    statements."""

    ticker: str
    issuer: str
    cusip: str
    versionId: str
    quarter: Date
    clock: str
    view: Annotated[ViewBrief, UNPROMISED]
    viewStatus: ViewStatus
    summary: Annotated[SummaryBrief, UNPROMISED]
    changeCount: Count
    changes: list[ChangeBrief]
    history: Annotated[HistoryBrief, UNPROMISED] | None
    evidence: list[CitedStatement]
    ethosScores: dict[EthosId, Score]
    overlap: Annotated[TickerOverlap, UNPROMISED]
    policy: PolicyBrief | None
    limitations: list[str]
    executionEnabled: NoExecution
    nextCalls: list[NextCall]


class ProvenanceBrief(TypedDict):
    fileCount: Count
    bytes: Count
    files: list[SourceFileRecord]


class PolicyOutcome(TypedDict):
    signal: Signal
    blockingReasons: list[str]


class AuditAnswer(TypedDict):
    """export_audit_trail's compact answer: the provenance counted with its first files; ethos named by id."""

    identity: Annotated[CopycatIdentity | PreviewIdentity, UNPROMISED]
    release: Annotated[ReleaseIdentity, UNPROMISED]
    contentHash: ContentHash
    clock: str
    provenance: ProvenanceBrief
    selection: NotRequired[str]  # how packs.toml's `largest` chose managers, in a line (only when it does)
    methodology: Annotated[Mapping[str, Any], UNPROMISED]
    policy: PolicyOutcome | None
    events: list[AuditEvent]
    caveats: list[str]
    executionEnabled: NoExecution
    nextCalls: list[NextCall]


def call(tool: str, arguments: Arguments, why: str) -> NextCall:
    return {"tool": tool, "arguments": arguments, "why": why}


def health(data: Health, arguments: Arguments) -> HealthAnswer:
    return {
        "status": data["status"],
        "releaseId": data["releaseId"],
        "asOf": data["asOf"],
        "clock": RELEASE_CLOCK,
        "fixture": data["fixture"],
        "packs": data["packs"],
        "warningCount": data["warningCount"],
        "warnings": data["warnings"][:SHORT],
        "executionEnabled": False,
        "nextCalls": [call("list_packs", {}, "the packs and what each answers")],
    }


def packs(data: PackCatalog, arguments: Arguments) -> PacksAnswer:
    return {
        "packs": [picked(PackListing, pack) for pack in data["packs"]],
        "clock": RELEASE_CLOCK,
        "nextCalls": [
            call("get_latest_pack", {"packId": pack["id"]}, f"the latest {pack['id']} in brief")
            for pack in data["packs"]
            if pack["status"] == "available"
        ],
    }


def latest(data: CopycatLatestPack | PreviewLatestPack, arguments: Arguments) -> AgentPayload | PreviewAgentPayload:
    """The pack's agent payload, whole: LatestAnswer says what every one promises (its output schema)."""
    return data["agentPayload"]


def versions(data: VersionCatalog, arguments: Arguments) -> VersionsAnswer:
    entries = [picked(VersionListing, entry) for entry in data["versions"]]
    ids = [entry["versionId"] for entry in data["versions"]]
    pack = data["packId"]
    next_calls = (
        [call("compare_versions", {"packId": pack, "from": ids[1], "to": ids[0]}, "what changed in the latest quarter")]
        if len(ids) > 1 and pack == PACK_ID
        else []
    )
    return {
        "packId": pack,
        "latestVersion": data["latestVersion"],
        "versionCount": len(entries),
        "versions": entries[:LISTED],
        "clock": clock(entries[0]["quarter"]) if "quarter" in entries[0] else RELEASE_CLOCK,
        "nextCalls": [*next_calls, call("get_latest_pack", {"packId": pack}, "the latest version in brief")],
    }


def explanation(data: PositionExplanation, arguments: Arguments) -> ExplanationAnswer:
    changes = sorted(data["changes"], key=lambda c: (-_value(c), c["managerId"]))
    summary = data["summary"]
    return {
        "ticker": data["ticker"],
        "issuer": data["issuer"],
        "cusip": data["cusip"],
        "versionId": data["versionId"],
        "quarter": data["quarter"],
        "clock": clock(data["quarter"]),
        "view": {"mode": data["view"]["mode"], "managerCount": data["view"]["managerCount"]},
        "viewStatus": data["viewStatus"],
        "summary": {
            "holderCount": summary["holderCount"],
            "value": summary["value"],
            "buyerCount": len(summary["buyers"]),
            "buyers": summary["buyers"][:LISTED],
            "sellerCount": len(summary["sellers"]),
            "sellers": summary["sellers"][:LISTED],
        },
        "changeCount": len(changes),
        "changes": [_held(change, data["tickerAsOf"]) for change in changes[:LISTED]],
        "history": None if data["history"] is None else history_brief(data["history"], data["versionId"], LISTED),
        "evidence": cited(data, SHORT),
        "ethosScores": data["ethos"]["scores"],
        "overlap": data["overlap"],
        "policy": data["policy"],
        "limitations": data["limitations"],
        "nextCalls": [
            call(
                "compare_ethos",
                {"tickers": [data["ticker"]], **_body_view(arguments)},
                "its score under every ethos, beside the view's top sets",
            )
            if data["viewStatus"] == "in-view"
            else call(
                "get_latest_pack", {"packId": PACK_ID, **picked(ViewArguments, arguments)}, "the view it left, in brief"
            )
        ],
        "executionEnabled": False,
    }


def _quarter_of(version_id: str) -> str:
    """The quarter end a 13f-copycat version id names (multi-manager-<quarter-end>-v<major>.<minor>)."""
    return version_id.removeprefix("multi-manager-").rsplit("-v", 1)[0]


def _value(change: Explained) -> int:
    return change["value"] if change["held"] is True else 0  # a position no longer held is worth nothing now


def _held(change: Explained, ticker_as_of: TickerAsOf) -> ChangeBrief:
    accession = change["sources"][0]["accession"] if change["sources"] else None
    return picked(ChangeBrief, {"tickerAsOf": ticker_as_of, **change, "accession": accession})


def _body_view(arguments: Arguments) -> Arguments:
    """A GET call's view as a POST body's fields."""
    view = picked(ViewArguments, arguments)
    return {("managerIds" if key == "managers" else key): value for key, value in view.items()}


def ethos_list(data: EthosList, arguments: Arguments) -> EthosListAnswer:
    listed: list[EthosListing] = [
        {
            "id": e["id"],
            "name": e["name"],
            "principles": e["principles"],
            "features": [f["name"] for f in e["scoring"]["features"]],
            "weights": e["scoring"]["weights"],
            "topSetSize": e["scoring"]["topSetSize"],
        }
        for e in data["ethos"]
    ]
    return {"ethos": listed, "nextCalls": [call("compare_ethos", {}, "every ethos's scores over all managers")]}


def ethos_comparison(data: EthosComparison, arguments: Arguments) -> ComparisonAnswer:
    ranked = sorted(data["scores"], key=lambda e: (-sum(e["scores"].values()), e["ticker"]))
    overlap = data["overlap"]["tickers"]
    body: Arguments = {key: arguments[key] for key in ("managerIds", "mode") if key in arguments}
    return {
        "ethosIds": data["ethosIds"],
        "basis": {
            **{key: value for key, value in data["basis"].items() if key != "managers"},
            "managerCount": len(data["basis"]["managers"]),
        },
        "clock": clock(data["basis"]["quarter"]),
        "topSets": data["topSets"],
        "overlap": data["overlap"],
        "names": data["names"],
        "scoreCount": len(ranked),
        "scores": [picked(ScoreListing, e) for e in ranked[:LISTED]],
        "nextCalls": [
            call(
                "explain_position", {"packId": PACK_ID, "ticker": t, **_get_view(body)}, f"why {t} is in every top set"
            )
            for t in overlap[:2]
        ],
    }


def _get_view(body: Arguments) -> Arguments:
    """A POST body's view as a GET call's arguments."""
    return {("managers" if key == "managerIds" else key): value for key, value in body.items() if value}


def policy(data: PolicyResult, arguments: Arguments) -> PolicyAnswer:
    return {
        "versionId": data["versionId"],
        "asOf": data["asOf"],
        "freshness": data["freshness"],
        "clock": clock(_quarter_of(data["versionId"])),
        "signal": data["signal"],
        "checks": [picked(CheckListing, check) for check in data["checks"]],
        "blockingReasonCount": len(data["blockingReasons"]),
        "blockingReasons": data["blockingReasons"][:SHORT],
        "warningCount": len(data["warnings"]),
        "warnings": data["warnings"][:SHORT],
        "executionEnabled": False,
        "nextCalls": [call("get_latest_pack", {"packId": PACK_ID, **_get_view(arguments)}, "the view in brief")],
    }


def audit(data: CopycatAuditExport | PreviewAuditExport, arguments: Arguments) -> AuditAnswer:
    policy_result, identity = data["policy"], data["identity"]
    quarter = identity.get("quarter")  # a copycat version's; a preview has none
    answer: AuditAnswer = {
        "identity": data["identity"],
        "release": data["release"],
        "contentHash": data["contentHash"],
        "clock": clock(quarter) if isinstance(quarter, str) else RELEASE_CLOCK,
        "provenance": {
            "fileCount": len(data["provenance"]),
            "bytes": sum(f["size"] for f in data["provenance"]),
            "files": data["provenance"][:SHORT],
        },
        "methodology": _methodology(data["methodology"]),
        "policy": None
        if policy_result is None
        else {"signal": policy_result["signal"], "blockingReasons": policy_result["blockingReasons"][:SHORT]},
        "events": data["events"],
        "caveats": data["caveats"] if data["policy"] is None else [],  # a preview's; 13f-copycat's export has none
        "executionEnabled": False,
        "nextCalls": [
            call(
                "get_latest_pack",
                {"packId": data["identity"]["packId"], **picked(ViewArguments, arguments)},
                "the artifact in brief",
            )
        ],
    }
    selection = data.get("selection")  # a copycat export's, of a pack that selects its managers by size
    if isinstance(selection, dict):
        answer["selection"] = selection["statement"]
    return answer


def _methodology(methodology: Mapping[str, Any]) -> Mapping[str, Any]:
    """13f-copycat's methodology with each ethos named by id (list_ethos has the rest); a preview's as it is."""
    if "ethos" not in methodology:
        return methodology
    return {
        "view": methodology["view"],
        "ethosIds": [e["id"] for e in methodology["ethos"]],
        "policy": methodology["policy"],
    }
