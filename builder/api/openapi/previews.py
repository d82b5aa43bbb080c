"""Component schemas of the preview packs (person tracker, congress trades, social momentum).

Every key of a preview artifact, agent payload and methodology is typed. The agent payloads are generated from
their types (builder.research.previews.shapes, by builder.typed), and the artifacts reuse the pieces they share
with them (a cluster's counts, a tracker's totals, concentration and freshness). The items of the artifacts'
long lists (transactions, clusters, rankings, source reports) name their fields but stay open to new ones: the
previews grow with the sources they read.
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
from builder.research.previews.shapes import AGENT_PAYLOADS, ClusterBrief, Concentration, Freshness, Totals
from builder.typed import object_schemas


def said(schema: Schema, description: str) -> Schema:
    """`schema` with its own description (a field the glossary does not hold, or means otherwise here)."""
    return {**schema, "description": description}


DUPLICATES_DROPPED = said(
    INTEGER,
    "Rows dropped because another configured file holds the same trade; per-file "
    "counts and the files holding the counted rows are in sources.",
)
INSTRUMENT_RULE = said(STRING, "How each trade's instrument (stock, option, bond, other) is decided.")
DUPLICATE_RULE = said(STRING, "When a row is a copy of a trade another configured file holds.")
KINDS = ("Person", "Congress", "Social")
LISTS_CUT = said(
    {"type": "object", "additionalProperties": closed({"listed": INTEGER, "total": INTEGER})},
    "Only in a latest answer: the artifact's lists cut to their first items (by list, as a dotted path), with "
    "how many are listed and how many there are; export_audit_trail returns the artifact whole.",
)
DATA_PREVIEW = {"const": "data preview"}


def fields(properties: dict[str, Schema], optional: tuple[str, ...] = ()) -> Schema:
    """An object with these fields (all but `optional` required), open to fields a preview adds later."""
    return {"type": "object", "properties": properties, "required": [k for k in properties if k not in optional]}


AMOUNT_RANGE = fields({"low": INTEGER, "high": nullable(INTEGER)})
SPELLING = fields({"spelling": STRING, "rows": INTEGER, "chambers": STRINGS, "districts": STRINGS})
PERSON = fields(
    {
        "person": STRING,
        "chamber": STRING,
        "state": STRING,
        "spellings": array(fields({"spelling": STRING, "rows": INTEGER})),
    }
)


def _amount() -> Schema:
    return fields({"low": INTEGER, "high": nullable(INTEGER), "text": STRING})


def transaction() -> Schema:
    """A disclosed transaction as read from its source row."""
    return fields(
        {
            "member": STRING,
            "chamber": STRING,
            "district": STRING,
            "ticker": nullable(STRING),
            "asset_description": STRING,
            "asset_type": STRING,
            "type": STRING,
            "owner": STRING,
            "transaction_date": DATE,
            "disclosure_date": DATE,
            "days_to_disclose": INTEGER,
            "amount": _amount(),
            "ptr_link": STRING,
            "flags": STRINGS,
            "source": STRING,
            "row": INTEGER,
            "person": said(
                STRING, "The member after the identity rules: one person, one name, however the rows spell it."
            ),
            "instrument": STRING,
            "instrument_rule": STRING,
            "shares": nullable(INTEGER),
        }
    )


def source_report() -> Schema:
    """One source file read: its rows, what was kept and excluded, and each malformed row with its reason."""
    counts = {"type": "object", "additionalProperties": INTEGER}
    return fields(
        {
            "path": STRING,
            "rows": INTEGER,
            "kept": INTEGER,
            "excluded": INTEGER,
            "malformed": INTEGER,
            "reasons": counts,
            "issues": array(fields({"code": STRING, "message": STRING, "outcome": STRING, "row": INTEGER})),
            "instruments": counts,
            "instrument_rules": counts,
            "duplicates_dropped": INTEGER,
            "duplicates_of": array(fields({"path": STRING, "rows": INTEGER})),
            "without_report_link": INTEGER,
        },
        optional=("instruments", "instrument_rules", "duplicates_dropped", "duplicates_of", "without_report_link"),
    )


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


def typed_parts() -> dict[str, Schema]:
    """The pieces the artifacts share with the agent payloads, generated from the payloads' types (inline)."""
    return object_schemas(
        {"Totals": Totals, "Concentration": Concentration, "Freshness": Freshness, "ClusterBrief": ClusterBrief}
    )


def person_schemas() -> dict[str, Schema]:
    """<person>-tracker: estimated holdings, concentration and freshness."""
    parts = typed_parts()
    summary = {
        "pack": STRING,
        "label": DATA_PREVIEW,
        "person": STRING,
        "as_of": DATE,
        "fixture": BOOLEAN,
        "totals": said(parts["Totals"], "Dollar estimate with its bounds; high is null when a range is open-ended."),
        "concentration": parts["Concentration"],
        "freshness": parts["Freshness"],
    }
    estimated = fields(
        {
            "ticker": STRING,
            "asset_description": STRING,
            "estimate": INTEGER,
            "low": INTEGER,
            "high": nullable(INTEGER),
            "weight": NUMBER,
            "transactions": INTEGER,
            "first_transaction_date": DATE,
            "last_transaction_date": DATE,
            "last_disclosure_date": DATE,
        }
    )
    return {
        "PersonArtifact": closed(
            {
                **summary,
                "description": STRING,
                "holdings": array(estimated),
                "closed": STRINGS,
                "unmatched_sales": array(transaction()),
                "options": said(
                    array(transaction()),
                    "The person's option trades (calls, puts): listed, never part of a stock position.",
                ),
                "untracked": said(
                    array(transaction()),
                    "Transactions not estimated: no readable ticker, bonds and other instruments, exchanges.",
                ),
                "transactions": array(transaction()),
                "spellings": said(
                    array(SPELLING),
                    "Each spelling of the person's name in the counted rows, with its rows, chambers and districts.",
                ),
                "duplicates_dropped": said(
                    INTEGER, "The person's rows dropped because another configured file holds the same trade."
                ),
                "sources": array(source_report()),
                "caveats": STRINGS,
            }
        ),
        "PersonMethodology": closed(
            {
                "person": STRING,
                "names_matched": STRINGS,
                "name_matching": STRING,
                "counted": STRING,
                "estimate": STRING,
                "not_estimated": STRING,
                "instrument": INSTRUMENT_RULE,
                "duplicates": DUPLICATE_RULE,
                "concentration": STRING,
                "late_disclosure_days": INTEGER,
                "amount_categories": array(AMOUNT_RANGE),
                "evaluation_date": DATE,
                "release_as_of": DATE,
                "sources": STRINGS,
            }
        ),
    }


def _cluster(trade: Schema) -> dict[str, Schema]:
    """A buying cluster's keys in the artifact: the payload's counts (generated), its window, its trades `trade`."""
    counts = typed_parts()["ClusterBrief"]["properties"]
    return {**counts, "window_start": DATE, "window_end": DATE, "trades": array(trade)}


def congress_schemas() -> dict[str, Schema]:
    """congress-trades: cluster signal under demo and strict thresholds; may say stay in cash."""
    rule = closed(
        {
            "window_days": INTEGER,
            "min_members": INTEGER,
            "min_amount": INTEGER,
            "direction": {"const": "purchase"},
            "counted_by": {"const": "disclosure date"},
        }
    )
    rules = closed({"demo": rule, "strict": rule})
    clusters = array(fields(_cluster(transaction())))
    days = array(fields({"date": DATE, "tickers": STRINGS}))
    head = {"pack": {"const": CONGRESS_PACK_ID}, "label": DATA_PREVIEW, "as_of": DATE, "fixture": BOOLEAN}
    summary = {
        "outcome": enum(outcome.value for outcome in CongressOutcome),
        "stance": STRING,
        "answer": STRING,
        "produced_by": nullable(enum(("strict", "demo"))),
    }
    return {
        "CongressArtifact": closed(
            {
                **head,
                "description": STRING,
                **summary,
                "rules": rules,
                "signals": closed({"demo": clusters, "strict": clusters}),
                "history": closed({"demo": days, "strict": days}),
                "window_trades": array(transaction()),
                "window_options": said(
                    array(transaction()),
                    "Option trades disclosed within the widest window: listed, never part of a cluster.",
                ),
                "people": said(
                    array(PERSON),
                    "Members filed under more than one spelling, each spelling with its rows: "
                    "what the identity rule merged.",
                ),
                "duplicates_dropped": DUPLICATES_DROPPED,
                "disclosure": _disclosure(),
                "sources": array(source_report()),
                "caveats": STRINGS,
            }
        ),
        "CongressMethodology": closed(
            {
                "cluster": STRING,
                "counted_by": STRING,
                "eligible": STRING,
                "headline": STRING,
                "rules": rules,
                "member_identity": STRING,
                "member_aliases": said(
                    array(STRINGS),
                    "Configured spellings of one member that no rule merges, each group led by the name shown.",
                ),
                "instrument": INSTRUMENT_RULE,
                "duplicates": DUPLICATE_RULE,
                "late_disclosure_days": INTEGER,
                "amount_categories": array(AMOUNT_RANGE),
                "evaluation_date": DATE,
                "release_as_of": DATE,
                "sources": STRINGS,
            }
        ),
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
        "momentum": STRING,
        "rank_change": STRING,
        "new_entrants": STRING,
        "eligible": STRING,
        "min_mentions": INTEGER,
        "min_baseline": INTEGER,
        "top": INTEGER,
        "excluded_ticker_words": STRINGS,
        "forum": STRING,
    }
    ranked = array(
        fields(
            {
                "ticker": STRING,
                "name": STRING,
                "mentions": INTEGER,
                "mentions_24h_ago": nullable(INTEGER),
                "mention_change": nullable(INTEGER),
                "mention_ratio": nullable(NUMBER),
                "rank": INTEGER,
                "rank_24h_ago": nullable(INTEGER),
                "rank_change": nullable(INTEGER),
                "upvotes": nullable(INTEGER),
                "path": array(fields({"time": STRING, "rank": nullable(INTEGER), "mentions": nullable(INTEGER)})),
            }
        )
    )
    return {
        "SocialArtifact": closed(
            {
                **summary,
                "description": STRING,
                "movers": ranked,
                "faders": ranked,
                "new_entrants": ranked,
                "leaders": ranked,
                "excluded_seen": array(fields({"ticker": STRING, "mentions": INTEGER})),
                "snapshots": array(fields({"time": STRING, "rows": INTEGER})),
                "sources": array(source_report()),
                "caveats": STRINGS,
            }
        ),
        "SocialMethodology": closed({**definition, "evaluation_date": DATE, "release_as_of": DATE, "sources": STRINGS}),
    }


def preview_schemas() -> dict[str, Schema]:
    """The three preview kinds and, for each part, the union the payloads refer to."""
    unions = {
        f"Preview{part}": {"anyOf": [ref(f"{kind}{part}") for kind in KINDS]}
        for part in ("Artifact", "AgentPayload", "Methodology")
    }
    kinds = {**person_schemas(), **congress_schemas(), **social_schemas(), **object_schemas(AGENT_PAYLOADS)}
    for kind in KINDS:  # a latest answer cuts an artifact's long lists and says so (the audit export has them whole)
        kinds[f"{kind}Artifact"]["properties"]["lists_cut"] = LISTS_CUT
    for kind in KINDS:  # every payload says execution is disabled, names its version and the calls to make next
        kinds[f"{kind}AgentPayload"]["properties"].update(
            execution_enabled=NO_EXECUTION, version_id=STRING, next_calls=array(ref("NextCall"))
        )
        kinds[f"{kind}AgentPayload"]["required"] += ["execution_enabled", "version_id", "next_calls"]
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
