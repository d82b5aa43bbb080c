"""The agent payload: what an agent reads first about a 13F view, within a fixed budget of canonical JSON bytes.

It answers what an agent asks first: which filings (managers with name, CIK, period, filing date and
accession), as of when and how fresh, what each manager traded (the largest trades, ranked by the shares
traded valued at the later quarter's price, never by the change of market value, which mixes in price
moves), the headline holdings, the ethos leaders and the policy status; what the words mean, what a 13F
cannot say (stated once), the pack's own caveats, and the next calls with their exact arguments. Every list
is capped, so its size does not grow with the number of managers; `fit` then trims the longest lists until
the canonical bytes are within BUDGET_BYTES, whatever the names and texts hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NotRequired, TypedDict, TypeVar, get_args

from builder.canonical import canonical_json
from builder.research.changes import is_trade
from builder.research.diff import PositionChange, VersionDiff, position_changes
from builder.research.methods.ethos import EthosComparison
from builder.research.methods.policy import PolicyResult, Signal
from builder.research.quarters import Freshness, clock, freshness
from builder.research.schema import ChangeKind, PackArtifact, TickerAsOf, Traded
from builder.research.views import Mode, View, ViewArguments, ViewPosition, ViewTicker
from builder.typed import KEY, Count, Date, Fraction, Keywords

BUDGET_BYTES = 9088  # an agent's first read, 128 bytes under 9 KiB (a tool's text may take 16 KB), at any scale
MANAGERS = 8  # managers listed (largest books first) with their trades; view.managerCount counts all
TRADES = 3  # largest trades listed per manager; tradeCount counts all
HEADLINE = 5  # holdings by value
TOP_HOLDERS = 3  # largest holders shown per headline holding
LEADERS = 3  # top tickers per ethos
LISTED = 5  # blocking reasons, warnings, caveats and undecided changes listed; the counts cover all
NEXT_CALL_MANAGERS = 50  # a next call repeats the view's managers up to this many ids, else says to repeat them
WEIGHT_DIGITS = 4
# What a 13F cannot say, stated once (17 CFR 240.13f-1; SEC Form 13F instructions).
LIMITS_13F = (
    (
        "A 13F shows long positions as of the quarter's last day and is filed up to 45 days later "
        "(17 CFR 240.13f-1): they may have changed since."
    ),
    (
        "Only long positions in Section 13(f) securities (mostly US-listed stocks): no short positions, cash, bonds "
        "or most non-US holdings, so a book here is not a manager's whole portfolio."
    ),
    "A 13F says nothing about why a manager traded, at what price, or when within the quarter.",
)
RESEARCH_ONLY = "Research only: no broker, no account, no orders. executionEnabled is always false."
# The first version has no version before it to diff: say so rather than let an empty trade list read as no trades.
FIRST_VERSION = (
    "No earlier version is published, so this one lists no trades and no undecided changes (both are measured "
    "against the version before); explain_position gives each position's change against the previous quarter's 13F."
)
GLOSSARY = {
    "researchOnly": "Evidence from public filings, not advice: no broker, account or orders; executionEnabled is "
    "always false.",
    "new": "A trade: opened a position not held a quarter earlier.",
    "added": "A trade: bought more of a position held before.",
    "reduced": "A trade: sold part of a position.",
    "exited": "A trade: sold the whole position.",
    "unchanged": "Held the same shares: no trade.",
    "converted": "Ended or changed through a corporate action (merger, exchange): not a trade.",
    "undecided": "The filings cannot tell a trade from an unrecorded corporate action: neither bought nor sold.",
    "unknown": "No filing a quarter earlier to compare with: no change is claimed.",
    "tradedValue": "Shares traded times the later quarter's price (the earlier one for an exit): ranks trades without "
    "the price moves in market value.",
    "signal": "research-only when no policy check blocks; no-signal when one does (stay in cash).",
    "ethos": "A scoring methodology over filing data, 0-100 per ticker; list_ethos defines each.",
}
TRIMMABLE = (
    ("managers",),
    ("headline",),
    ("undecided",),
    ("caveats",),
    ("policy", "warnings"),
    ("policy", "blockingReasons"),
)


class AgentView(TypedDict):
    mode: Mode
    managerCount: Count
    tickerCount: Count


class FilingDate(TypedDict):
    accession: str
    filed: Date


class Trade(TypedDict):
    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf
    kind: Annotated[Traded, Keywords(enum=sorted(get_args(Traded)))]  # the document has listed them alphabetically
    shareDelta: int
    tradedValue: int


class AgentManager(TypedDict):  # KEY: what get_latest_pack's compact answer promises of each
    id: Annotated[str, KEY]
    name: Annotated[str, KEY]
    cik: Annotated[str, KEY]
    period: Annotated[Date, KEY]
    filings: Annotated[list[FilingDate], KEY]
    tradeCount: Count
    trades: Annotated[list[Annotated[Trade, Keywords(description="One trade of the quarter.")]], KEY]


class Undecided(TypedDict):
    managerId: str
    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf


class TopHolder(TypedDict):
    managerId: str
    weight: Fraction
    change: ChangeKind


class AgentHolding(TypedDict):
    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf
    value: Count
    weight: Fraction
    holderCount: Count
    topHolders: list[TopHolder]


class Leader(TypedDict):
    ticker: str
    issuer: str
    tickerAsOf: TickerAsOf
    score: Annotated[float, Keywords(minimum=0, maximum=100)]


class AgentPolicy(TypedDict):
    signal: Signal
    blockingReasonCount: Count
    blockingReasons: list[str]
    warningCount: Count
    warnings: list[str]


class NextCall(TypedDict):
    """A call to make next: the tool, its exact arguments, what it answers."""

    tool: str
    arguments: dict[str, Any]
    why: str
    repeatManagers: NotRequired[bool]  # present (true) when the view's managers are too many to repeat


class AgentPayload(TypedDict):
    pack: Literal["13f-copycat"]
    summary: str
    versionId: str
    quarter: Date
    previousVersionId: str | None
    asOf: Date
    freshness: Freshness
    clock: str  # how to judge `freshness` against the reader's own clock, in one line
    view: AgentView
    tradeCount: Count
    managers: list[AgentManager]
    notTrades: dict[str, Count]
    undecided: list[Undecided]
    headline: list[AgentHolding]
    ethosLeaders: dict[str, list[Leader]]
    policy: AgentPolicy
    glossary: dict[str, str]
    limits13F: list[str]
    caveatCount: Count
    caveats: list[str]
    nextCalls: list[NextCall]
    executionEnabled: Literal[False]


SHAPES = {"AgentPayload": AgentPayload, "AgentHolding": AgentHolding, "AgentPolicy": AgentPolicy, "NextCall": NextCall}
Payload = TypeVar("Payload", bound=Mapping[str, Any])


def traded_value(change: PositionChange) -> int:
    """A diff's position change valued at the later quarter's price: shares traded × value / shares as filed.

    A position that ended has no later price: the earlier quarter's price per share (carried through
    corporate actions when the change says how) stands in.
    """
    delta = change["shareDelta"] or 0  # None only for an undecided change, never a trade
    value: int = change["toValue"] if change["toShares"] else change["fromValue"]
    shares: int = change["toShares"] or change.get("carriedShares") or change["fromShares"]
    return round(delta * value / shares) if shares else 0


def agent_payload(
    view: View,
    artifact: PackArtifact,
    *,
    previous: str | None,
    diff: VersionDiff | None,
    scores: EthosComparison,
    policy: PolicyResult,
    as_of: str,
    summary: str,
) -> AgentPayload:
    """The bounded payload of `view` of `artifact`; `diff` is against the `previous` version (None for the first)."""
    # The view's tickers, and those that left it: a position sold out by every selected manager is a trade too.
    tickers = {row["ticker"] for row in view["tickers"]} | set(diff["tickers"]["left"] if diff else ())
    changes = [c for c in (position_changes(diff) if diff else ()) if c["ticker"] in tickers]
    trades = trades_by_manager(changes)
    caveats = list(dict.fromkeys(w["message"] for w in view["warnings"]))  # the pack's and the selected managers' only
    if previous is None:
        caveats.insert(0, FIRST_VERSION)
    undecided: list[Undecided] = [
        {"managerId": c["managerId"], "ticker": c["ticker"], "issuer": c["issuer"], "tickerAsOf": c["tickerAsOf"]}
        for c in changes
        if c["kind"] == "undecided"
    ]
    payload: AgentPayload = {
        "pack": artifact["packId"],
        "summary": summary,
        "versionId": artifact["versionId"],
        "quarter": artifact["quarter"],
        "previousVersionId": previous,
        "asOf": as_of,
        "freshness": freshness(artifact["quarter"]),
        "clock": clock(artifact["quarter"]),
        "view": {"mode": view["mode"], "managerCount": len(view["managers"]), "tickerCount": view["tickerCount"]},
        "tradeCount": sum(len(listed) for listed in trades.values()),
        "managers": manager_entries(artifact, view["managers"], trades),
        "notTrades": dict(sorted(_counts(c["kind"] for c in changes if not is_trade(c["kind"])).items())),
        "undecided": undecided,
        "headline": headline(view, artifact),
        "ethosLeaders": ethos_leaders(scores, view),
        "policy": policy_status(policy),
        "glossary": GLOSSARY,
        "limits13F": list(LIMITS_13F),
        "caveatCount": len(caveats),
        "caveats": caveats,
        "nextCalls": next_calls(artifact, view, previous, trades),
        "executionEnabled": False,
    }
    return fit(payload)


def _counts(kinds: Any) -> dict[str, int]:
    counted: dict[str, int] = {}
    for kind in kinds:
        counted[kind] = counted.get(kind, 0) + 1
    return counted


def trades_by_manager(changes: Sequence[PositionChange]) -> dict[str, list[Trade]]:
    """Each manager's trades, largest traded value first (ties by ticker)."""
    found: dict[str, list[Trade]] = {}
    for change in changes:
        if is_trade(kind := change["kind"]) and (delta := change["shareDelta"]) is not None:
            trade: Trade = {
                "ticker": change["ticker"],
                "issuer": change["issuer"],
                "tickerAsOf": change["tickerAsOf"],
                "kind": kind,
                "shareDelta": delta,
                "tradedValue": traded_value(change),
            }
            found.setdefault(change["managerId"], []).append(trade)
    for listed in found.values():
        listed.sort(key=lambda trade: (-abs(trade["tradedValue"]), trade["ticker"]))
    return found


def in_turn(lists: Sequence[Sequence[Any]]) -> list[Any]:
    """Each list's first item, then each one's second, and so on: every list has its turn."""
    longest = max((len(items) for items in lists), default=0)
    return [items[i] for i in range(longest) for items in lists if i < len(items)]


def manager_entries(
    artifact: PackArtifact, selected: Sequence[str], trades: dict[str, list[Trade]]
) -> list[AgentManager]:
    """The selected managers, largest books first: who filed what and when, and their largest trades."""
    chosen = set(selected)
    managers = sorted((m for m in artifact["managers"] if m["id"] in chosen), key=lambda m: (-m["bookValue"], m["id"]))
    return [
        {
            "id": m["id"],
            "name": m["name"],
            "cik": m["cik"],
            "period": artifact["quarter"],
            "filings": [{"accession": f["accession"], "filed": f["filed"]} for f in m["filings"]],
            "tradeCount": len(trades.get(m["id"], [])),
            "trades": trades.get(m["id"], [])[:TRADES],
        }
        for m in managers[:MANAGERS]
    ]


def headline(view: View, artifact: PackArtifact) -> list[AgentHolding]:
    """The view's largest holdings by value: weight in the view, holder count and the largest holders."""
    total = sum(row["value"] for row in view["tickers"])
    rows = sorted(view["tickers"], key=lambda row: (-row["value"], row["ticker"]))[:HEADLINE]
    return [
        {
            "ticker": row["ticker"],
            "issuer": row["issuer"],
            "tickerAsOf": row["tickerAsOf"],
            "value": row["value"],
            "weight": round(row["value"] / total, WEIGHT_DIGITS) if total else 0.0,
            "holderCount": row["holderCount"],
            "topHolders": [
                {"managerId": p["managerId"], "weight": round(p["weight"], WEIGHT_DIGITS), "change": p["change"]}
                for p in _largest_holders(row)
            ],
        }
        for row in rows
    ]


def _largest_holders(row: ViewTicker) -> list[ViewPosition]:
    held = [p for p in row["managers"] if p["held"]]
    return sorted(held, key=lambda p: (-p["value"], p["managerId"]))[:TOP_HOLDERS]


def ethos_leaders(scores: EthosComparison, view: View) -> dict[str, list[Leader]]:
    """Per ethos, its highest-scoring tickers of the view, each named as the view names it."""
    rows = {row["ticker"]: row for row in view["tickers"]}
    leaders: dict[str, list[Leader]] = {}
    for ethos_id in scores["ethosIds"]:
        ranked = sorted(scores["scores"], key=lambda entry: (-entry["scores"][ethos_id], entry["ticker"]))
        leaders[ethos_id] = [
            {
                "ticker": e["ticker"],
                "issuer": rows[e["ticker"]]["issuer"],
                "tickerAsOf": rows[e["ticker"]]["tickerAsOf"],
                "score": e["scores"][ethos_id],
            }
            for e in ranked[:LEADERS]
        ]
    return leaders


def policy_status(policy: PolicyResult) -> AgentPolicy:
    return {
        "signal": policy["signal"],
        "blockingReasonCount": len(policy["blockingReasons"]),
        "blockingReasons": policy["blockingReasons"][:LISTED],
        "warningCount": len(policy["warnings"]),
        "warnings": policy["warnings"][:LISTED],
    }


def view_arguments(view: View, every: int) -> ViewArguments:
    """The view as tool arguments: the managers when a subset of `every` is selected, the mode unless `any`."""
    arguments: ViewArguments = {}
    if len(view["managers"]) < every:
        arguments["managers"] = view["managers"]
    if view["mode"] != "any":
        arguments["mode"] = view["mode"]
    return arguments


def next_calls(
    artifact: PackArtifact, view: View, previous: str | None, trades: dict[str, list[Trade]]
) -> list[NextCall]:
    """The calls that take an agent deeper, with their exact arguments: the largest trades' tickers explained (the
    largest of each manager in turn, so a second manager's is not hidden by the first's),
    the diff from the previous version, the policy checks. A subset of more than NEXT_CALL_MANAGERS managers
    is not repeated in every call: `repeatManagers` asks the agent to pass this call's managers again."""
    ranked = sorted(trades.values(), key=lambda listed: (-abs(listed[0]["tradedValue"]), listed[0]["ticker"]))
    tickers = list(dict.fromkeys(trade["ticker"] for trade in in_turn(ranked)))[:2]
    pack_id, view_args = artifact["packId"], view_arguments(view, len(artifact["managers"]))
    repeat = len(view_args.get("managers", ())) > NEXT_CALL_MANAGERS
    if repeat:
        del view_args["managers"]
    body_args = {("managerIds" if key == "managers" else key): value for key, value in view_args.items()}
    calls = [
        (
            "explain_position",
            {"packId": pack_id, "ticker": t, **view_args},
            f"who traded {t}, with the filing rows behind each number",
        )
        for t in tickers
    ]
    if previous is not None:
        calls.append(
            (
                "compare_versions",
                {"packId": pack_id, "from": previous, "to": artifact["versionId"], **view_args},
                "every change since the previous version, with source and policy changes",
            )
        )
    calls.append(("validate_policy", body_args, "every research policy check of this view"))
    listed: list[NextCall] = [{"tool": tool, "arguments": arguments, "why": why} for tool, arguments, why in calls]
    for call in listed if repeat else ():
        call["repeatManagers"] = True
    return listed


def size(payload: Mapping[str, Any]) -> int:
    return len(canonical_json(payload))


def fit(payload: Payload, budget: int = BUDGET_BYTES, trimmable: Sequence[tuple[str, ...]] = TRIMMABLE) -> Payload:
    """`payload` with the last items of its longest trimmable lists dropped until it is within `budget` bytes."""
    while size(payload) > budget:
        lists = [(len(items), path, items) for path in trimmable if (items := _at(payload, path))]
        if not lists:
            raise ValueError(f"the payload's fixed part is over {budget} bytes")
        max(lists)[2].pop()  # the longest list (paths are unique, so the lists themselves are never compared)
    return payload


def _at(payload: Mapping[str, Any], path: tuple[str, ...]) -> list[Any] | None:
    node: Any = payload
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, list) else None
