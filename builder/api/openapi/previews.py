"""Component schemas of the preview packs (person tracker, congress trades, social momentum).

Every top-level key of a preview artifact, agent payload and methodology is typed; the artifact's long
lists (transactions, clusters, rankings, source reports) are left as plain objects.
"""

from __future__ import annotations

from typing import Any

from builder.api.openapi.schemas import (
    BOOLEAN,
    DATE,
    INTEGER,
    NO_EXECUTION,
    NUMBER,
    STRING,
    STRINGS,
    Schema,
    array,
    closed,
    enum,
    nullable,
    ref,
)
from builder.research.previews.congress import PACK_ID as CONGRESS_PACK_ID
from builder.research.previews.congress import Outcome as CongressOutcome
from builder.research.previews.pack import camel
from builder.research.previews.person import CONCENTRATION_TOP

OBJECT = {"type": "object"}
OBJECTS = array(OBJECT)


def said(schema: Schema, description: str) -> Schema:
    """`schema` with its own description (a field the glossary does not hold, or means otherwise here)."""
    return {**schema, "description": description}


DUPLICATES_DROPPED = said(INTEGER, "Rows dropped because another configured file holds the same trade; per-file "
                                   "counts and the files holding the counted rows are in sources.")
INSTRUMENT_RULE = said(STRING, "How each trade's instrument (stock, option, bond, other) is decided.")
DUPLICATE_RULE = said(STRING, "When a row is a copy of a trade another configured file holds.")
KINDS = ("Person", "Congress", "Social")
DATA_PREVIEW = {"const": "data preview"}


def _disclosure(*extra: str) -> Schema:
    """Days-to-disclose summary over the counted trades (null dates and days when there are none)."""
    fields = {
        "trades": INTEGER,
        "latest_transaction_date": nullable(DATE),
        "latest_disclosure_date": nullable(DATE),
        "median_days_to_disclose": nullable(NUMBER),
        "max_days_to_disclose": nullable(INTEGER),
        "late_disclosures": INTEGER,
        "disclosed_before_trade": INTEGER,
    }
    return closed({**fields, **{name: nullable(INTEGER) for name in extra}})


def person_schemas() -> dict[str, Schema]:
    """<person>-tracker: estimated holdings, concentration and freshness."""
    summary = {
        "pack": STRING,
        "label": DATA_PREVIEW,
        "person": STRING,
        "as_of": DATE,
        "fixture": BOOLEAN,
        "totals": closed({"estimate": INTEGER, "low": INTEGER, "high": nullable(INTEGER)},
                         description="Dollar estimate with its bounds; high is null when a range is open-ended."),
        "concentration": closed({
            "positions": INTEGER,
            "hhi": NUMBER,
            "effective_positions": nullable(NUMBER),
            f"top{CONCENTRATION_TOP}_weight": NUMBER,
            "top": array(closed({"ticker": STRING, "weight": NUMBER})),
        }),
        "freshness": _disclosure("days_since_latest_disclosure"),
    }
    holding = closed({"ticker": STRING, "estimate": INTEGER, "low": INTEGER, "high": nullable(INTEGER), "weight": NUMBER})
    return {
        "PersonArtifact": closed({
            **summary, "description": STRING, "holdings": OBJECTS, "closed": STRINGS, "unmatched_sales": OBJECTS,
            "options": said(OBJECTS, "The person's option trades (calls, puts): listed, never part of a stock "
                                     "position."),
            "untracked": said(OBJECTS, "Transactions not estimated: no readable ticker, bonds and other "
                                       "instruments, exchanges."),
            "transactions": OBJECTS,
            "spellings": said(OBJECTS, "Each spelling of the person's name in the counted rows, with its rows, "
                                       "chambers and districts."),
            "duplicates_dropped": said(INTEGER, "The person's rows dropped because another configured file holds "
                                                "the same trade."),
            "sources": OBJECTS, "caveats": STRINGS,
        }),
        "PersonAgentPayload": closed({**summary, "top_holdings": array(holding), "caveats": STRINGS}),
        "PersonMethodology": closed({
            "person": STRING, "names_matched": STRINGS, "name_matching": STRING, "counted": STRING, "estimate": STRING,
            "not_estimated": STRING, "instrument": INSTRUMENT_RULE, "duplicates": DUPLICATE_RULE,
            "concentration": STRING, "late_disclosure_days": INTEGER,
            "amount_categories": OBJECTS, "evaluation_date": DATE, "release_as_of": DATE, "sources": STRINGS,
        }),
    }


def congress_schemas() -> dict[str, Schema]:
    """congress-trades: cluster signal under demo and strict thresholds; may say stay in cash."""
    rule = closed({
        "window_days": INTEGER, "min_members": INTEGER, "min_amount": INTEGER,
        "direction": {"const": "purchase"}, "counted_by": {"const": "disclosure date"},
    })
    rules = closed({"demo": rule, "strict": rule})
    both = closed({"demo": OBJECTS, "strict": OBJECTS})
    head = {"pack": {"const": CONGRESS_PACK_ID}, "label": DATA_PREVIEW, "as_of": DATE, "fixture": BOOLEAN}
    summary = {
        "outcome": enum(outcome.value for outcome in CongressOutcome),
        "stance": STRING,
        "answer": STRING,
        "produced_by": nullable(enum(("strict", "demo"))),
    }
    trade = closed({
        "member": said(STRING, "The member's name as filed."),
        "person": said(STRING, "The member as one person: every spelling of the name merged (methodology "
                               "memberIdentity)."),
        "transaction_date": DATE, "disclosure_date": DATE, "days_to_disclose": INTEGER,
        "amount": closed({"low": INTEGER, "high": nullable(INTEGER), "text": STRING}),
        "owner": enum(("self", "spouse", "joint", "dependent", "not stated")),
        "ptr_link": said(nullable(STRING), "Link to the periodic transaction report; null when the row carries "
                                           "none (flagged no-report-link)."),
        "flags": STRINGS,
    })
    cluster = closed({
        "ticker": STRING, "members": STRINGS, "member_count": INTEGER, "first_disclosed": DATE, "last_disclosed": DATE,
        "trade_count": INTEGER, "amount_low_total": INTEGER, "amount_high_total": nullable(INTEGER),
        "trades": array(trade),
    })
    return {
        "CongressArtifact": closed({
            **head, "description": STRING, **summary, "rules": rules, "signals": both, "history": both,
            "window_trades": OBJECTS,
            "window_options": said(OBJECTS, "Option trades disclosed within the widest window: listed, never "
                                            "part of a cluster."),
            "people": said(OBJECTS, "Members filed under more than one spelling, each spelling with its rows: "
                                    "what the identity rule merged."),
            "duplicates_dropped": DUPLICATES_DROPPED,
            "disclosure": _disclosure(), "sources": OBJECTS, "caveats": STRINGS,
        }),
        "CongressAgentPayload": closed({
            **head, **summary,
            "definition": closed({"direction": {"const": "purchase"}, "counted_by": STRING, "demo": rule, "strict": rule}),
            "signal": array(cluster), "strict_tickers": STRINGS, "demo_tickers": STRINGS,
            "latest_disclosure_date": nullable(DATE), "caveats": STRINGS,
        }),
        "CongressMethodology": closed({
            "cluster": STRING, "counted_by": STRING, "eligible": STRING, "headline": STRING, "rules": rules,
            "member_identity": STRING,
            "member_aliases": said(array(STRINGS), "Configured spellings of one member that no rule merges, each "
                                                   "group led by the name shown."),
            "instrument": INSTRUMENT_RULE, "duplicates": DUPLICATE_RULE,
            "late_disclosure_days": INTEGER, "amount_categories": OBJECTS,
            "evaluation_date": DATE, "release_as_of": DATE, "sources": STRINGS,
        }),
    }


def social_schemas() -> dict[str, Schema]:
    """<forum>-social-momentum: attention momentum from mention counts; attention is not conviction."""
    summary = {
        "pack": STRING,
        "label": {"const": "research preview"},
        "forum": STRING,
        "as_of": DATE,
        "fixture": BOOLEAN,
        "signal": enum(("attention momentum", "no momentum signal")),
        "snapshot_time": nullable(STRING),
    }
    definition = {
        "momentum": STRING, "rank_change": STRING, "new_entrants": STRING, "eligible": STRING, "min_mentions": INTEGER,
        "min_baseline": INTEGER, "top": INTEGER, "excluded_ticker_words": STRINGS, "forum": STRING,
    }
    brief = closed({
        "ticker": STRING, "name": STRING, "mentions": INTEGER, "mentions_24h_ago": nullable(INTEGER),
        "mention_ratio": nullable(NUMBER), "rank": INTEGER, "rank_change": nullable(INTEGER),
    })
    return {
        "SocialArtifact": closed({
            **summary, "description": STRING, "movers": OBJECTS, "faders": OBJECTS, "new_entrants": OBJECTS,
            "leaders": OBJECTS, "excluded_seen": OBJECTS, "snapshots": OBJECTS, "sources": OBJECTS, "caveats": STRINGS,
        }),
        "SocialAgentPayload": closed({
            **summary, "definition": closed(definition), "top_movers": array(brief), "new_entrants": array(brief),
            "caveats": STRINGS,
        }),
        "SocialMethodology": closed({**definition, "evaluation_date": DATE, "release_as_of": DATE, "sources": STRINGS}),
    }


def preview_schemas() -> dict[str, Schema]:
    """The three preview kinds and, for each part, the union the payloads refer to."""
    unions = {
        f"Preview{part}": {"anyOf": [ref(f"{kind}{part}") for kind in KINDS]}
        for part in ("Artifact", "AgentPayload", "Methodology")
    }
    kinds = {**person_schemas(), **congress_schemas(), **social_schemas()}
    for kind in KINDS:  # every payload says execution is disabled and carries the limitations
        kinds[f"{kind}AgentPayload"]["properties"].update(execution_enabled=NO_EXECUTION, limitations=STRINGS)
        kinds[f"{kind}AgentPayload"]["required"] += ["execution_enabled", "limitations"]
    return {**_camel_fields(kinds), **unions}


def _camel_fields(node: Any) -> Any:
    """The schemas with their field names as the payloads carry them: camelCase (research.previews.pack.camel)."""
    if isinstance(node, list):
        return [_camel_fields(item) for item in node]
    if not isinstance(node, dict):
        return node
    renamed = {key: _camel_fields(value) for key, value in node.items()}
    if isinstance(node.get("properties"), dict):
        renamed["properties"] = {camel(name): _camel_fields(value) for name, value in node["properties"].items()}
    if isinstance(node.get("required"), list):
        renamed["required"] = [camel(name) for name in node["required"]]
    return renamed

