"""FICTIONAL holders beside a real pack, written as the SEC's Form 13F data sets: the evidence a real set would give.

The data sets every filer's books come from are not at hand in a test or on a machine without the SEC; what the
evidence needs of them is other holders of the pack's securities who went through the same corporate actions. Each
witness (CIKs from `cik_base`, far above any EDGAR has assigned; named "Fictional Witness Capital NN LLC") holds some
of the securities the pack's managers hold, at the managers' implied prices, carried through exactly the corporate
actions given (builder.research.changes.carry, rounded down per holder); every TRADER_EVERY-th also trades what an
event touched, in the event's quarter, every SELLS_CHILDREN-th sells what a distribution gave it, and all trade a
REBALANCE_CHANCE of their other positions a quarter. Nothing invented is attributed to a real manager: the pack's
rows are its filings'. The data sets hold the pack's filings as filed and the witnesses' (bench.datasets_writer).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from bench import datasets_writer, synthetic
from builder.records import Amendment, CorporateAction, Filing
from builder.research.changes.carry import Lot, carry, legs_between

WITNESSES = 20
WITNESS_CIK_BASE = 9_900_000_000  # fictional CIKs 9900000001…: ten digits, far above EDGAR's (about 2.1 million)
HOLD_CHANCE = 0.6  # a witness holds each security the pack holds with this chance
TRADER_EVERY = 5  # witnesses 5, 10, … also trade the securities an event touched, in the event's quarter
REBALANCE_CHANCE = 0.2  # a witness trades each other position with this chance a quarter
SELLS_CHILDREN = 3  # witnesses 3, 6, … sell a distribution's shares at once (holders of one class only exist)
POSITION_DOLLARS = (500_000, 20_000_000)
UNPRICED_CENTS = 1000  # a security the pack never priced (an event's product it did not keep): $10, invented


@dataclass(frozen=True, slots=True)
class Universe:
    """How the witnesses are drawn: how many, from which seed, with which CIKs, and the securities first listed in
    the window (no one held them a quarter before the pack bought them)."""

    witnesses: int = WITNESSES
    seed: int = 2013
    cik_base: int = WITNESS_CIK_BASE
    new_listings: frozenset[str] = field(default_factory=frozenset)
    # 0: every witness that holds a security buys it the quarter before the pack first does (the Berkshire universe:
    # one manager, few new names a quarter). N: up to N quarters before, drawn per witness and security, so that a
    # pack buying hundreds of names a quarter (a hedge fund) does not have its witnesses buy them all in lockstep: in
    # the data sets, most holders of a security held it long before a given filer bought it.
    spread: int = 0


def witness_name(number: int) -> str:
    return f"Fictional Witness Capital {number:02d} LLC"


def witness_filings(filings: Sequence[Filing], legs: Sequence[CorporateAction], universe: Universe) -> list[Filing]:
    """The witnesses' filings at every quarter end the pack's `filings` report (with `legs`, the corporate actions they
    go through); issuer names as the pack filed them."""
    books, cents, issuers = pack_books(filings)
    periods = sorted(books)
    found: list[Filing] = []
    for number in range(1, universe.witnesses + 1):
        cik = f"{universe.cik_base + number:010d}"
        held = _witness_books(number, cik, periods, (books, cents), legs, universe)
        securities = {c: synthetic.Security(c, "", issuers.get(c, c), 0.0) for book in held for c in book}
        for quarter, (filed, accession) in enumerate(synthetic.calendar(universe.seed, number, cik, periods)):
            period, book = periods[quarter], held[quarter]
            at = {c: cents.get((period, c)) or _nearest(cents, c) for c in book}
            source = f"sec13f-datasets/{accession}"
            found.append(
                synthetic.book_filing(source, accession, cik, witness_name(number), period, filed, book, securities, at)
            )
    return found


def write_witnessed(root: Path, filings: Iterable[Filing], witnesses: Iterable[Filing]) -> list[Path]:
    """The data sets under root/sec13f-datasets/ holding the pack's filings and the witnesses'."""
    return datasets_writer.write_datasets(root / "sec13f-datasets", [*filings, *witnesses])


def pack_books(
    filings: Sequence[Filing],
) -> tuple[dict[date, dict[str, int]], dict[tuple[date, str], int], dict[str, str]]:
    """The pack's long-equity shares per quarter end, every manager's summed (a restatement replaces a manager's
    book, new holdings add), the implied price in cents of each (quarter end, CUSIP), and issuer names as filed."""
    by_manager: dict[tuple[str, date], dict[str, int]] = {}
    dollars: dict[tuple[str, date, str], int] = {}
    issuers: dict[str, str] = {}
    for filing in sorted(filings, key=lambda f: (f.cik, f.period, f.filed, f.amendment_no, f.accession)):
        key = (filing.cik, filing.period)
        if filing.amendment is not Amendment.NEW_HOLDINGS:
            by_manager[key] = {}
            for stale in [k for k in dollars if k[:2] == key]:
                del dollars[stale]
        scale = 1000 if filing.unit.value == "thousands" else 1
        for row in filing.rows:
            if row.share_type != "SH" or row.put_call:
                continue
            book = by_manager[key]
            book[row.cusip] = book.get(row.cusip, 0) + row.shares
            dollars[(*key, row.cusip)] = dollars.get((*key, row.cusip), 0) + row.value * scale
            issuers.setdefault(row.cusip, row.issuer)
    books: dict[date, dict[str, int]] = {}
    for (_, period), book in sorted(by_manager.items(), key=lambda item: item[0][::-1]):
        merged = books.setdefault(period, {})
        for cusip, shares in book.items():
            merged[cusip] = merged.get(cusip, 0) + shares
    cents: dict[tuple[date, str], int] = {}
    for (cik, period, cusip), value in sorted(dollars.items()):
        shares = by_manager[(cik, period)][cusip]
        if shares and (period, cusip) not in cents:  # the first manager's price: one market price a quarter end
            cents[(period, cusip)] = round(value * 100 / shares)
    return books, cents, issuers


def _nearest(cents: dict[tuple[date, str], int], cusip: str) -> int:
    known = sorted(value for (_, c), value in cents.items() if c == cusip)
    return known[len(known) // 2] if known else UNPRICED_CENTS


def _witness_books(
    number: int,
    cik: str,
    periods: list[date],
    pack: tuple[dict[date, dict[str, int]], dict[tuple[date, str], int]],
    legs: Sequence[CorporateAction],
    universe: Universe,
) -> list[dict[str, int]]:
    """One witness's book per quarter end: carried through the events, opening each security the pack holds (from a
    quarter before the pack, unless it was born then) with HOLD_CHANCE and keeping it after the pack sells it (as most
    holders of a security do in any quarter)."""
    books, cents = pack
    born = {leg.new_cusip for leg in legs if leg.new_cusip} | set(universe.new_listings)
    first: dict[str, int] = {}  # each security's first quarter in the pack's books, by index
    for index, period in enumerate(periods):
        for cusip in books[period]:
            first.setdefault(cusip, index)
    rng = random.Random(f"{universe.seed}:witness:{number}")
    book: dict[str, int] = {}
    found = []
    for index, period in enumerate(periods):
        touched: set[str] = set()
        if index:
            between = legs_between(legs, periods[index - 1], period, cik)
            carried = carry({c: Lot(c, s, 0, 1, "") for c, s in book.items()}, between)
            book = {c: math.floor(s) for c, s in carried.shares.items() if math.floor(s) > 0}
            touched = {c for c in book if carried.touched(c)}
            if number % SELLS_CHILDREN == 0:  # sells what a distribution gave it: it holds one class only
                book = {c: n for c, n in book.items() if not carried.parents.get(c)}
                touched &= set(book)
            if number % TRADER_EVERY == 0:
                for cusip in sorted(touched):
                    book[cusip] += synthetic.lot(book[cusip] * rng.uniform(0.1, 0.5))
            for cusip in sorted(set(book) - touched):  # and trades the rest as holders do, a position at a time
                if rng.random() < REBALANCE_CHANCE:
                    book[cusip] = max(1, book[cusip] + synthetic.lot(book[cusip] * rng.uniform(-0.3, 0.3)))
        # a witness keeps what it holds when the pack sells (other holders outlive one's exit), and holds what the
        # pack buys a quarter before the pack does (the market held it) unless it only began then
        if universe.spread:
            held = _coming(index, books, periods, born, first, f"{universe.seed}:{number}", universe.spread)
        else:
            following = books[periods[index + 1]] if index + 1 < len(periods) else {}
            held = {*books[period], *(c for c in following if c not in born and c not in books[period])}
        for cusip in sorted(held):
            chosen = random.Random(f"{universe.seed}:{number}:{cusip}").random() < HOLD_CHANCE
            if chosen and cusip not in book:
                price = cents.get((period, cusip)) or UNPRICED_CENTS
                book[cusip] = max(1, int(rng.uniform(*POSITION_DOLLARS) * 100 / price))
        found.append(dict(book))
    return found


def _coming(
    index: int,
    books: dict[date, dict[str, int]],
    periods: list[date],
    born: set[str],
    first: dict[str, int],
    seed: str,
    spread: int,
) -> set[str]:
    """The securities a witness may open at quarter `index`: what the pack holds then, and what the pack first holds
    up to `spread` quarters later, each as many quarters ahead as the witness's own lead for it (1 … spread)."""
    held = set(books[periods[index]])
    for cusip, at in first.items():
        if at > index and cusip not in born:
            lead = 1 + int(random.Random(f"{seed}:{cusip}:lead").random() * spread)
            if at - lead <= index:
                held.add(cusip)
    return held
