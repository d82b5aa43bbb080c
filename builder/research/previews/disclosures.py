"""The disclosed trades a preview pack counts: each trade once across its files, as published (pure).

The same disclosure often sits in two configured files (a daily file and the all-days summary, or two
scrapers' copies). A row is a copy when another file already holds a row of the same line, matched on what
both copies can be trusted for: the same person (builder.sources.congress.people), report (the link's
document id), transaction date, ticker, direction (purchase, sale, exchange: one scraper marks a sale partial,
another does not) and amount range. Owners, disclosure dates and asset types differ between scrapers and are
not compared; where the copy's words give the stronger evidence of the instrument (a "Corporate Bond; maturity
date …" line against a blanket "Stock"), the trade counted takes it. Within one file identical rows stay: a
report may list one trade twice (two accounts), and the copies a second file holds are dropped up to that count.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date

from builder.records import ScopeWarning
from builder.research.previews.artifacts import AmountBounds, PreviewSourceFile, PreviewTrade
from builder.research.previews.pack import source_entries
from builder.research.previews.shapes import AmountRange, DisclosureDates
from builder.sources.congress.instrument import RULE_STRENGTH, STRONG
from builder.sources.congress.rows import AMOUNT_BRACKETS, CongressFile, CongressTrade

DUPLICATE_RULE = (
    "a row is a copy when an earlier configured file holds a row of the same line, matched on what two scrapers' "
    "copies can both be trusted for: same person, report (the link's document id), transaction date, ticker, "
    "direction (purchase, sale, exchange) and amount range (owners, disclosure dates and asset types differ "
    "between scrapers); copies are dropped and counted per file (sources[].duplicatesDropped, duplicatesOf), "
    "the trade counted taking the copy's instrument when the copy's words are the stronger evidence; identical "
    "rows within one file stay"
)
LATE_DISCLOSURE_DAYS = 45  # STOCK Act §6 (Ethics in Government Act §103(l)): at most 45 days after the trade


@dataclass(frozen=True, slots=True)
class Copies:
    """Rows of one file dropped as copies of trades another file holds."""

    source: str  # the file whose rows were dropped
    of: str  # the file holding the row counted
    trades: tuple[CongressTrade, ...]  # the rows dropped

    @property
    def rows(self) -> tuple[int, ...]:
        return tuple(trade.row for trade in self.trades)


@dataclass(frozen=True, slots=True)
class Distinct:
    trades: tuple[CongressTrade, ...]  # file by file in configured order, each disclosure once
    copies: tuple[Copies, ...]
    retyped: tuple[tuple[CongressTrade, CongressTrade], ...] = ()  # (trade counted, the copy whose words decided it)


def report_id(link: str) -> str:
    """The report a link names: its last path segment without extension (House document number, eFD id)."""
    segment = link.strip().rstrip("/").rsplit("/", 1)[-1]
    return segment.rsplit(".", 1)[0].casefold()


# chamber, member, report, trade date, ticker, direction, amount range: what two scrapers' copies of a line share
DisclosureKey = tuple[str, tuple[str, str], str, date, str | None, str, int, int | None]


def disclosure_key(trade: CongressTrade) -> DisclosureKey:
    """What two scrapers' copies of one line agree on (owner, disclosure date and asset type they may not)."""
    direction = "sale" if trade.trade_type.value.startswith("sale") else trade.trade_type.value
    return (
        trade.chamber,
        trade.member_key,
        report_id(trade.ptr_link),
        trade.traded,
        trade.ticker,
        direction,
        trade.amount.low,
        trade.amount.high,
    )


def distinct_trades(files: Iterable[CongressFile]) -> Distinct:
    """Every trade of `files` once: a later file's rows that copy an earlier file's are dropped and listed."""
    held: dict[DisclosureKey, tuple[str, list[int]]] = {}  # per key: the file holding it, its rows' places in `kept`
    kept: list[CongressTrade] = []
    dropped: dict[tuple[str, str], list[CongressTrade]] = defaultdict(list)
    retyped: list[tuple[int, CongressTrade]] = []
    for file in files:
        seen: Counter[DisclosureKey] = Counter()
        mine: dict[DisclosureKey, list[int]] = defaultdict(list)
        for trade in file.trades:
            key = disclosure_key(trade)
            seen[key] += 1
            holder, places = held.get(key, (file.source, []))
            if seen[key] <= len(places):
                dropped[file.source, holder].append(trade)
                place = places[seen[key] - 1]
                if _stronger(trade, kept[place]):
                    kept[place] = replace(kept[place], instrument=trade.instrument, instrument_rule="other-copy")
                    retyped.append((place, trade))
            else:
                mine[key].append(len(kept))
                kept.append(trade)
        for key, places in mine.items():
            holder, before = held.get(key, (file.source, []))
            held[key] = (holder, before + places)
    copies = tuple(Copies(source, of, tuple(trades)) for (source, of), trades in sorted(dropped.items()))
    return Distinct(tuple(kept), copies, tuple((kept[place], copy) for place, copy in retyped))


def _stronger(copy: CongressTrade, counted: CongressTrade) -> bool:
    """The copy's instrument is the better evidenced one (its words against the other's blanket type)."""
    weight = RULE_STRENGTH.get(copy.instrument_rule, STRONG), RULE_STRENGTH.get(counted.instrument_rule, STRONG)
    return copy.instrument is not counted.instrument and weight[0] > weight[1]


def days_to_disclose(trade: CongressTrade) -> int:
    return (trade.disclosed - trade.traded).days


def possible(trade: CongressTrade) -> bool:
    """A trade dated no later than its disclosure; the others carry an impossible date (one of the two is wrong)."""
    return trade.traded <= trade.disclosed


def trade_flags(trade: CongressTrade) -> list[str]:
    days = days_to_disclose(trade)
    flags = ["disclosed-before-trade"] if days < 0 else ["late-disclosure"] if days > LATE_DISCLOSURE_DAYS else []
    return flags + ([] if trade.ptr_link else ["no-report-link"])


def trade_json(trade: CongressTrade, person: str) -> PreviewTrade:
    """A trade as published: as filed, plus who it is (`person`), its instrument and why, and its flags."""
    return {
        "member": trade.member,
        "person": person,
        "chamber": trade.chamber,
        "district": trade.district,
        "ticker": trade.ticker,
        "assetDescription": trade.asset_description,
        "assetType": trade.asset_type,
        "instrument": trade.instrument.value,
        "instrumentRule": trade.instrument_rule,
        "shares": trade.shares,
        "type": trade.trade_type.value,
        "owner": trade.owner,
        "transactionDate": trade.traded.isoformat(),
        "disclosureDate": trade.disclosed.isoformat(),
        "daysToDisclose": days_to_disclose(trade),
        "amount": amount_range(trade),
        "ptrLink": trade.ptr_link or None,
        "source": trade.source,
        "row": trade.row,
        "flags": trade_flags(trade),
    }


def amount_range(trade: CongressTrade) -> AmountRange:
    return {"low": trade.amount.low, "high": trade.amount.high, "text": trade.amount.text}


def amount_categories() -> list[AmountBounds]:
    """The statutory amount ranges a disclosure can name, as a methodology lists them."""
    return [{"low": low, "high": high} for low, high in sorted(AMOUNT_BRACKETS.items())]


def disclosure_dates(trades: Sequence[CongressTrade]) -> DisclosureDates:
    """Days to disclose over `trades`: dates and days derived only from trades dated on or before disclosure."""
    dated = [trade for trade in trades if possible(trade)]
    days = [days_to_disclose(trade) for trade in dated]
    traded = max((t.traded for t in dated), default=None)
    disclosed = max((t.disclosed for t in trades), default=None)
    return {
        "trades": len(trades),
        "latestTransactionDate": traded.isoformat() if traded else None,
        "latestDisclosureDate": disclosed.isoformat() if disclosed else None,
        "medianDaysToDisclose": float(statistics.median(days)) if days else None,
        "maxDaysToDisclose": max(days, default=None),
        "lateDisclosures": sum(day > LATE_DISCLOSURE_DAYS for day in days),
        "disclosedBeforeTrade": len(trades) - len(dated),
    }


def before_trade_warnings(trades: Iterable[CongressTrade]) -> list[ScopeWarning]:
    """One warning per file whose trades carry a disclosure date earlier than the trade date."""
    rows: dict[str, list[int]] = defaultdict(list)
    for trade in trades:
        if not possible(trade):
            rows[trade.source].append(trade.row)
    return [
        ScopeWarning(
            "disclosed-before-trade",
            f"{len(found)} trade(s) disclosed before their transaction date "
            f"(rows {', '.join(map(str, sorted(found)))}): kept as filed and flagged; their dates are "
            "left out of derived dates (latest transaction, days to disclose)",
            source,
        )
        for source, found in sorted(rows.items())
    ]


def copy_warnings(distinct: Distinct) -> list[ScopeWarning]:
    """One warning per file with rows dropped as copies of another file's trades (both files named), and one
    per file whose trades took their instrument from the other copy's words."""
    retyped: dict[tuple[str, str], list[tuple[CongressTrade, CongressTrade]]] = defaultdict(list)
    for counted, copy in distinct.retyped:
        retyped[counted.source, copy.source].append((counted, copy))
    return [
        *(
            ScopeWarning(
                "duplicate-trades",
                f"{len(c.rows)} row(s) of {c.source} copy trades that {c.of} holds (rows {_rows(c.rows)}): "
                "each trade counted once",
                c.source,
            )
            for c in distinct.copies
        ),
        *(
            ScopeWarning(
                "instrument-from-copy",
                f"{len(pairs)} trade(s) of {source} read by {other}'s copy of the same line, whose words say more "
                "than the row's type: "
                + "; ".join(f"row {a.row} {a.ticker} {a.instrument.value} ({b.asset_description!r})" for a, b in pairs),
                source,
            )
            for (source, other), pairs in sorted(retyped.items())
        ),
    ]


def disclosure_sources(files: Sequence[CongressFile], distinct: Distinct) -> list[PreviewSourceFile]:
    """source_entries plus, per file, trades by instrument and by the rule that decided it, trades without a
    report link, and rows dropped as copies (with the files holding the counted rows)."""
    by_path = {file.source: file for file in files}
    entries = source_entries(files)
    for entry in entries:
        trades = by_path[entry["path"]].trades
        copies = [c for c in distinct.copies if c.source == entry["path"]]
        entry["instruments"] = dict(sorted(Counter(t.instrument.value for t in trades).items()))
        rules = Counter(f"{t.instrument.value}: {t.instrument_rule}" for t in trades)
        entry["instrumentRules"] = dict(sorted(rules.items()))
        entry["withoutReportLink"] = sum(not t.ptr_link for t in trades)
        entry["duplicatesDropped"] = sum(len(c.rows) for c in copies)
        entry["duplicatesOf"] = [{"path": c.of, "rows": len(c.rows)} for c in copies]
    return entries


def _rows(rows: Sequence[int], shown: int = 20) -> str:
    listed = ", ".join(map(str, rows[:shown]))
    return listed + (f" and {len(rows) - shown} more" if len(rows) > shown else "")
