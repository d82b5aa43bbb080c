"""The agent payload: what an agent reads first about a 13F view, within a fixed budget of canonical JSON bytes.

It condenses what the rest of the answer holds in full: the headline holdings with their weights and
largest holders (each citing the accession number of its filing), what changed since the previous version,
the ethos leaders, the policy status with its blocking reasons, the limitations, and executionEnabled:
false. Every list is capped, so its size does not grow with the number of managers; `fit` then trims the
longest lists until the canonical bytes are within BUDGET_BYTES, whatever the names and texts hold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from builder.canonical import canonical_json
from builder.research.changes import BOUGHT, SOLD

BUDGET_BYTES = 8192  # an agent's first read: a few thousand tokens at most, at any number of managers
HEADLINE = 10  # holdings by value
TOP_HOLDERS = 3  # largest holders shown per headline holding
LISTED = 10  # tickers listed as entered or left; the counts cover all
MOVES = 5  # largest increases and decreases
LEADERS = 3  # top tickers per ethos
REASONS = 5  # blocking reasons and warnings listed; the counts cover all
WEIGHT_DIGITS = 4
TRIMMABLE = (("headline",), ("changes", "entered"), ("changes", "left"), ("changes", "largestIncreases"),
             ("changes", "largestDecreases"), ("warnings",), ("policy", "warnings"), ("policy", "blockingReasons"))


def agent_payload(
    view: dict, artifact: dict, *, diff: dict | None, scores: dict, policy: dict, limitations: Sequence[str],
    summary: str,
) -> dict[str, Any]:
    """The bounded payload of `view` of `artifact`; `diff` is against the previous version (None for the first)."""
    warnings = [w["message"] for w in view["warnings"]]  # the pack's and the selected managers' only
    payload = {
        "summary": summary,
        "versionId": artifact["versionId"],
        "quarter": artifact["quarter"],
        "view": {"mode": view["mode"], "managerCount": len(view["managers"]), "tickerCount": view["tickerCount"]},
        "headline": headline(view, artifact),
        "changes": changes(diff),
        "ethosLeaders": ethos_leaders(scores),
        "policy": policy_status(policy),
        "warningCount": len(warnings),
        "warnings": warnings[:REASONS],
        "limitations": list(limitations),
        "executionEnabled": False,
    }
    return fit(payload)


def _accessions(artifact: dict) -> dict[tuple[str, str], str]:
    """(manager id, ticker) → the accession number of the filing its position comes from."""
    return {(m["id"], p["ticker"]): p["sources"][0]["accession"]
            for m in artifact["managers"] for p in m["positions"] if p["sources"]}


def headline(view: dict, artifact: dict) -> list[dict]:
    """The view's largest holdings by value: weight in the view, holder count and the largest holders."""
    total = sum(row["value"] for row in view["tickers"])
    accession = _accessions(artifact)
    rows = sorted(view["tickers"], key=lambda row: (-row["value"], row["ticker"]))[:HEADLINE]
    return [
        {
            "ticker": row["ticker"],
            "issuer": row["issuer"],
            "value": row["value"],
            "weight": round(row["value"] / total, WEIGHT_DIGITS) if total else 0.0,
            "holderCount": row["holderCount"],
            "topHolders": [
                {"managerId": p["managerId"], "weight": round(p["weight"], WEIGHT_DIGITS), "change": p["change"],
                 "accession": accession.get((p["managerId"], row["ticker"]))}
                for p in _largest_holders(row)
            ],
        }
        for row in rows
    ]


def _largest_holders(row: dict) -> list[dict]:
    held = [p for p in row["managers"] if p["held"]]
    return sorted(held, key=lambda p: (-p["value"], p["managerId"]))[:TOP_HOLDERS]


def changes(diff: dict | None) -> dict[str, Any] | None:
    """Since the previous version: tickers that entered and left the view, largest net increases and decreases."""
    if diff is None:
        return None
    moves = _net_moves(diff["positions"])
    increases = sorted((m for m in moves if m["shareDelta"] > 0), key=lambda m: (-m["valueDelta"], m["ticker"]))
    decreases = sorted((m for m in moves if m["shareDelta"] < 0), key=lambda m: (m["valueDelta"], m["ticker"]))
    return {
        "fromVersionId": diff["from"],
        "enteredCount": len(diff["tickers"]["entered"]),
        "entered": diff["tickers"]["entered"][:LISTED],
        "leftCount": len(diff["tickers"]["left"]),
        "left": diff["tickers"]["left"][:LISTED],
        "largestIncreases": increases[:MOVES],
        "largestDecreases": decreases[:MOVES],
    }


def _net_moves(positions: Sequence[dict]) -> list[dict]:
    """Per ticker: net traded shares over the selected managers valued at the later quarter's price (the price before
    when the position ended), and how many made each kind of change. Only trades move the net: a corporate action
    or an undecided change is counted, not traded; a change of market value is never taken for a trade."""
    by_ticker: dict[str, dict] = {}
    for change in positions:
        move = by_ticker.setdefault(change["ticker"], {"ticker": change["ticker"], "shareDelta": 0, "valueDelta": 0,
                                                       "kinds": {}})
        if change["kind"] in BOUGHT | SOLD:
            shares, value = (change["toShares"], change["toValue"]) if change["toShares"] else (change["fromShares"], change["fromValue"])
            move["shareDelta"] += change["shareDelta"]
            move["valueDelta"] += round(change["shareDelta"] * value / shares) if shares else 0
        move["kinds"][change["kind"]] = move["kinds"].get(change["kind"], 0) + 1
    return [{**move, "kinds": dict(sorted(move["kinds"].items()))} for move in by_ticker.values()]


def ethos_leaders(scores: dict) -> dict[str, list[dict]]:
    """Per ethos, its highest-scoring tickers of the view."""
    leaders = {}
    for ethos_id in scores["ethosIds"]:
        ranked = sorted(scores["scores"], key=lambda entry: (-entry["scores"][ethos_id], entry["ticker"]))
        leaders[ethos_id] = [{"ticker": e["ticker"], "score": e["scores"][ethos_id]} for e in ranked[:LEADERS]]
    return leaders


def policy_status(policy: dict) -> dict[str, Any]:
    return {
        "signal": policy["signal"],
        "blockingReasonCount": len(policy["blockingReasons"]),
        "blockingReasons": policy["blockingReasons"][:REASONS],
        "warningCount": len(policy["warnings"]),
        "warnings": policy["warnings"][:REASONS],
        "executionEnabled": False,
    }


def size(payload: dict) -> int:
    return len(canonical_json(payload))


def fit(payload: dict) -> dict:
    """`payload` with the last items of its longest lists dropped until it is within BUDGET_BYTES."""
    while size(payload) > BUDGET_BYTES:
        lists = [(len(items), path, items) for path in TRIMMABLE if (items := _at(payload, path))]
        if not lists:
            raise ValueError(f"the agent payload's fixed part is over {BUDGET_BYTES} bytes")
        max(lists)[2].pop()  # the longest list (paths are unique, so the lists themselves are never compared)
    return payload


def _at(payload: dict, path: tuple[str, ...]) -> list | None:
    node: Any = payload
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, list) else None
