"""The review as terminal lines: short, one fact per line, the same facts the HTML page charts."""

from __future__ import annotations

from builder.research.changes.actions import action_lines
from builder.research.changes.listing import undecided_lines
from builder.review.verdict import verdict_lines


def review_lines(result: dict) -> list[str]:
    against = result["against"] or "nothing promoted"
    lines = [
        f"review of {result['candidate']} (as of {result['asOf']['candidate']}) against {against}",
        *verdict_lines(result["verdict"]),
    ]
    versions = result["versions"]
    lines.append(f"versions: {versions['count']['candidate']} (promoted: {versions['count']['against']})")
    for entry in versions["added"]:
        lines.append(f"  added     {entry['versionId']}  sha256 {entry['contentSha256'][:16]}")
    for entry in versions["dropped"]:
        lines.append(f"  dropped   {entry['versionId']}  sha256 {entry['contentSha256'][:16]}")
    for entry in versions["restated"]:
        lines.append(
            f"  restated  {entry['replaces']} → {entry['versionId']}  "
            f"sha256 {entry['replacedSha256'][:16]} → {entry['contentSha256'][:16]}"
        )
    lines.append("coverage:")
    for manager in result["coverage"]:
        lines.append(f"  {manager['id']}: {_span(manager['candidate'])} (promoted: {_span(manager['against'])})")
    warnings = result["warnings"]
    lines.append(f"warnings: {warnings['count']}, {len(warnings['new'])} new, {len(warnings['resolved'])} resolved")
    for label, entries in (("new", warnings["new"]), ("resolved", warnings["resolved"])):
        lines += [f"  {label:<8}  {w['code']} [{w.get('pack', '')}] {w['message']}" for w in entries]
    unmapped = result["unmapped"]
    before = "—" if unmapped["against"] is None else f"{unmapped['against']:.2%}"
    lines.append(f"unmapped share of value: {unmapped['candidate']:.2%} (promoted: {before})")
    undecided = result["undecided"]
    lines.append(
        f"undecided changes: {undecided['count']}, {undecided['open']} open (not published by the promoted release)"
    )
    lines += undecided_lines([u for u in undecided["changes"] if u["open"]], "  open")
    lines += action_lines(result["actions"])
    lines.append(
        f"largest trades of the latest quarter, per kind (by shares traded at the quarter's price, never by "
        f"change of market value): {_kinds(result['kinds'])}"
    )
    lines += [
        f"  {t['kind']:<8} {t['manager']}/{t['ticker']}{'' if t['mapped'] else ' (no ticker: CUSIP)'}: "
        f"{t['shareDelta']:+,} shares; value {t['fromValue']:,} → {t['toValue']:,} = trade {t['tradeEffect']:+,} "
        f"+ price {t['priceEffect']:+,}"
        for t in result["trades"]
    ]
    lines.append("book value per manager, latest quarter: change = trades + undecided + price")
    lines += [
        f"  {b['manager']}: {b['before']:,} → {b['after']:,} ({b['change']:+,}) = trades {b['tradeEffect']:+,} "
        f"+ undecided {b['undecided']:+,} + price {b['priceEffect']:+,}"
        for b in result["bridges"]
    ]
    return lines


def _kinds(kinds: list[dict]) -> str:
    return ", ".join(f"{k['count']} {k['kind']}" for k in kinds if k["count"])


def _span(quarters: list[str]) -> str:
    return f"{len(quarters)} quarters {quarters[0]} … {quarters[-1]}" if quarters else "none"
