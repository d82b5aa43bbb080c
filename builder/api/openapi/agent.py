"""Component schemas of the agent payload (builder.research.agent) and of the next calls every payload proposes."""

from __future__ import annotations

from builder.api.openapi.schemas import (
    BOOLEAN,
    COUNT,
    DATE,
    FRACTION,
    INTEGER,
    MODE,
    NO_EXECUTION,
    STRING,
    STRINGS,
    Schema,
    array,
    closed,
    enum,
    nullable,
    ref,
)
from builder.research.agent import BUDGET_BYTES as AGENT_BUDGET_BYTES
from builder.research.changes import BOUGHT, CHANGE_KINDS, SOLD
from builder.research.versions import PACK_ID


def agent_payload_schemas() -> dict[str, Schema]:
    """The 13f-copycat agent payload (builder.research.agent): bounded, whatever the number of managers."""
    leaders = array(closed({"ticker": STRING, "score": {"type": "number", "minimum": 0, "maximum": 100}}))
    trade = closed(
        {
            "ticker": STRING,
            "kind": {**enum(sorted(BOUGHT | SOLD)), "description": "The trade: new, added, reduced or exited."},
            "shareDelta": {**INTEGER, "description": "Shares traded: positive bought, negative sold."},
            "tradedValue": {
                **INTEGER,
                "description": "shareDelta valued at the later quarter's price (the earlier "
                "price for an exit), in dollars: what ranks the trades.",
            },
        },
        description="One trade of the quarter.",
    )
    call = closed(
        {
            "tool": STRING,
            "arguments": {
                "type": "object",
                "additionalProperties": True,
                "description": "The exact arguments of the call (REST: its parameters or body).",
            },
            "why": STRING,
            "repeatManagers": {
                **BOOLEAN,
                "description": "Present (true) when the view's managers are too many to "
                "repeat: pass this call's managers again.",
            },
        },
        optional=("repeatManagers",),
        description="A call to make next, with its exact arguments.",
    )
    return {
        "AgentPayload": closed(
            {
                "pack": {"const": PACK_ID},
                "summary": STRING,
                "versionId": STRING,
                "quarter": DATE,
                "previousVersionId": nullable(STRING),
                "asOf": DATE,
                "freshness": closed(
                    {"filingDeadline": DATE, "daysSinceDeadline": INTEGER, "staleAfterDays": COUNT, "stale": BOOLEAN},
                    description="Days since the quarter's filing deadline (negative before it); stale past staleAfterDays, "
                    "when the next quarter's filings are due.",
                ),
                "view": closed({"mode": MODE, "managerCount": COUNT, "tickerCount": COUNT}),
                "tradeCount": COUNT,
                "managers": array(
                    closed(
                        {
                            "id": STRING,
                            "name": STRING,
                            "cik": STRING,
                            "period": DATE,
                            "filings": array(closed({"accession": STRING, "filed": DATE})),
                            "tradeCount": COUNT,
                            "trades": array(trade),
                        }
                    ),
                    description="The selected managers, largest books first (view.managerCount counts all).",
                ),
                "notTrades": {
                    "type": "object",
                    "additionalProperties": COUNT,
                    "description": "Changes that are not trades, counted by kind.",
                },
                "undecided": array(closed({"managerId": STRING, "ticker": STRING})),
                "headline": array(ref("AgentHolding")),
                "ethosLeaders": {"type": "object", "additionalProperties": leaders},
                "policy": ref("AgentPolicy"),
                "glossary": {"type": "object", "additionalProperties": STRING},
                "limits13F": STRINGS,
                "caveatCount": COUNT,
                "caveats": STRINGS,
                "nextCalls": array(ref("NextCall")),
                "executionEnabled": NO_EXECUTION,
            },
            description=f"What an agent reads first, at most {AGENT_BUDGET_BYTES} bytes of canonical JSON at any "
            "number of managers; the full view, artifact and audit are beside it.",
        ),
        "AgentHolding": closed(
            {
                "ticker": STRING,
                "issuer": STRING,
                "value": COUNT,
                "weight": FRACTION,
                "holderCount": COUNT,
                "topHolders": array(
                    closed(
                        {
                            "managerId": STRING,
                            "weight": {**FRACTION, "description": "Of the manager's 13F book."},
                            "change": enum(CHANGE_KINDS),
                        }
                    )
                ),
            },
            description="A headline holding: its weight in the view's total value and its largest holders.",
        ),
        "AgentPolicy": closed(
            {
                "signal": enum(("research-only", "no-signal")),
                "blockingReasonCount": COUNT,
                "blockingReasons": STRINGS,
                "warningCount": COUNT,
                "warnings": STRINGS,
            },
            description="The policy result in brief; validatePolicy gives every check.",
        ),
        "NextCall": call,
    }
