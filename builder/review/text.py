"""The review as terminal lines: short, one fact per line, the same facts the HTML page charts."""

from __future__ import annotations

from collections import Counter

from builder.research.changes.actions import action_lines
from builder.research.changes.listing import LISTED, undecided_lines
from builder.review.shapes import Coverage, KindCount, Review, Selections
from builder.review.verdict import verdict_lines


def review_lines(result: Review) -> list[str]:
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
    lines += _selection_lines(result["selection"])
    lines.append("coverage:")
    lines += _coverage_lines(result["coverage"])
    warnings = result["warnings"]
    lines.append(f"warnings: {warnings['count']}, {len(warnings['new'])} new, {len(warnings['resolved'])} resolved")
    for label, entries in (("new", warnings["new"]), ("resolved", warnings["resolved"])):
        lines += [f"  {label:<8}  {w['code']} [{w['pack']}] {w['message']}" for w in entries]
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
    bridges = result["bridges"]
    largest = sorted(bridges, key=lambda b: (-abs(b["change"]), b["manager"]))[:LISTED]
    lines.append(
        "book value per manager, latest quarter: change = trades + undecided + price"
        + (f" (the {LISTED} largest changes of {len(bridges)})" if len(bridges) > LISTED else "")
    )
    lines += [
        f"  {b['manager']}: {b['before']:,} → {b['after']:,} ({b['change']:+,}) = trades {b['tradeEffect']:+,} "
        f"+ undecided {b['undecided']:+,} + price {b['priceEffect']:+,}"
        for b in (largest if len(bridges) > LISTED else bridges)
    ]
    if len(bridges) > LISTED:
        lines.append(f"  and {len(bridges) - LISTED} more (`ras review --html` lists all)")
    return lines


def _selection_lines(selection: Selections) -> list[str]:
    """How `largest` chose managers (its filers, the LISTED largest of them on a terminal), and who entered or left;
    nothing when neither release selects."""
    now, then = selection["candidate"], selection["against"]
    if now is None and then is None:
        return []
    lines = [f"selected: {now['statement'] if now else 'none'} (promoted: {then['statement'] if then else 'none'})"]
    filers = now["filers"] if now else []
    lines += [
        f"  {f['rank']:>4}  {f['managerId']} (CIK {f['cik']}): {f['reportedValue']:,}  {f['accession']}"
        for f in filers[:LISTED]
    ]
    if len(filers) > LISTED:
        lines.append(f"  and {len(filers) - LISTED} more (`ras review --html` lists all)")
    for label, ids in (("entered", selection["entered"]), ("left", selection["left"])):
        lines += [f"  {label}: {', '.join(ids)}"] if ids else []
    return lines


def _coverage_lines(coverage: list[Coverage]) -> list[str]:
    """One line per manager; at operator scale, the managers that share the most common coverage on one line, the
    rest each on its own."""
    spans = [(_span(manager["candidate"]), _span(manager["against"])) for manager in coverage]
    common = Counter(spans).most_common(1)
    if len(coverage) <= LISTED or not common:
        return [f"  {m['id']}: {now} (promoted: {before})" for m, (now, before) in zip(coverage, spans, strict=True)]
    (now, before), count = common[0]
    lines = [f"  {count} managers: {now} (promoted: {before})"]
    others = [(m, span) for m, span in zip(coverage, spans, strict=True) if span != common[0][0]]
    return lines + [f"  {m['id']}: {now} (promoted: {before})" for m, (now, before) in others]


def _kinds(kinds: list[KindCount]) -> str:
    return ", ".join(f"{k['count']} {k['kind']}" for k in kinds if k["count"])


def _span(quarters: list[str]) -> str:
    return f"{len(quarters)} quarters {quarters[0]} … {quarters[-1]}" if quarters else "none"
