"""Berkshire Hathaway's real 13F series (tests/berkshire.py) inside a Form 13F data-set universe of FICTIONAL holders.

The data sets under sec13f-datasets/ hold Berkshire's own filings as filed (each information-table row one
INFOTABLE row of its accession) and WITNESSES fictional filers (CIKs 9900000001…, far above any EDGAR has
assigned; names "Fictional Witness Capital NN LLC") who hold some of the securities Berkshire holds, priced at
Berkshire's implied prices, and go through exactly the public record of tests/berkshire_corporate_actions.csv
between quarter ends (carried by builder.research.changes.carry, rounded down per holder). Every TRADER_EVERY-th
witness also trades the securities an event touched, in the event's quarter. Nothing invented is attributed to
Berkshire: its rows are its filings'. With `second_manager`, the first witness is also a pack manager, marked
fictional in packs.toml, with its filings under sec13f/.
"""

from __future__ import annotations

import math
import random
from datetime import date
from pathlib import Path

from bench import datasets_writer, synthetic
from builder.records import Amendment, CorporateAction, Filing
from builder.research.changes.carry import Lot, carry, legs_between
from builder.sources.tables.corporate_actions import parse_corporate_actions
from builder.sources.tree import read_sources
from tests.berkshire import CIK, berkshire_tree

ACTIONS = Path(__file__).with_name("berkshire_corporate_actions.csv")
WITNESSES = 20
WITNESS_CIK_BASE = 9_900_000_000  # fictional CIKs 9900000001…: ten digits, far above EDGAR's (about 2.1 million)
HOLD_CHANCE = 0.6  # a witness holds each security Berkshire holds with this chance
TRADER_EVERY = 5  # witnesses 5, 10, … also trade what an event touched, in the event's quarter
REBALANCE_CHANCE = 0.2  # a witness trades each other position with this chance a quarter
SELLS_CHILDREN = 3  # witnesses 3, 6, … sell a distribution's shares at once (holders of one class only exist)
POSITION_DOLLARS = (500_000, 20_000_000)
UNPRICED_CENTS = 1000  # a security Berkshire never priced (an event's product it did not keep): $10, invented
SEED = 2013
# Securities Berkshire bought in the quarter they were first listed: no one held them a quarter before.
NEW_LISTINGS = {
    "76131D103": "Restaurant Brands International, formed 2014-12-12",
    "G85158106": "StoneCo, listed 2018-10-25",
    "833445109": "Snowflake, listed 2020-09-16",
}


def witness_name(number: int) -> str:
    return f"Fictional Witness Capital {number:02d} LLC"


def berkshire_universe(
    root: Path, *, witnesses: int = WITNESSES, second_manager: bool = False, versions: int = 8
) -> Path:
    """root/ as berkshire_tree writes it plus sec13f-datasets/ (and, with `second_manager`, a fictional manager)."""
    berkshire_tree(root, versions=versions)
    sources, _ = read_sources(root)
    filings = sorted((f for f in sources.filings if f.cik == CIK.zfill(10)), key=lambda f: (f.period, f.filed))
    books, cents, issuers = _berkshire_books(filings)
    for cusip, security in sources.securities.items():
        issuers.setdefault(cusip, security.name)
    legs, problems = parse_corporate_actions(ACTIONS.read_text(), "corporate_actions.csv")
    assert not problems, problems
    periods = sorted(books)
    everyone = list(filings)
    for number in range(1, witnesses + 1):
        cik = f"{WITNESS_CIK_BASE + number:010d}"
        held = _witness_books(number, cik, periods, (books, cents), legs)
        universe = {c: synthetic.Security(c, "", issuers.get(c, c), 0.0) for book in held for c in book}
        found = []
        for quarter, (filed, accession) in enumerate(synthetic.calendar(SEED, number, cik, periods)):
            period, book = periods[quarter], held[quarter]
            at = {c: cents.get((period, c)) or _nearest(cents, c) for c in book}
            source = f"sec13f-datasets/{accession}"
            found.append(
                synthetic.book_filing(source, accession, cik, witness_name(number), period, filed, book, universe, at)
            )
        everyone += found
        if second_manager and number == 1:
            synthetic.write_filings(root, found, {"files": 0, "bytes": 0, "filings": 0, "rows": 0})
            _add_manager(root, cik, witness_name(number))
    datasets_writer.write_datasets(root / "sec13f-datasets", everyone)
    return root


def _berkshire_books(
    filings: list[Filing],
) -> tuple[dict[date, dict[str, int]], dict[tuple[date, str], int], dict[str, str]]:
    """Berkshire's long-equity shares per quarter end (a restatement replaces, new holdings add), the implied
    price in cents of each (quarter end, CUSIP), and issuer names as filed."""
    books: dict[date, dict[str, int]] = {}
    dollars: dict[tuple[date, str], int] = {}
    issuers: dict[str, str] = {}
    for filing in filings:
        if filing.amendment is not Amendment.NEW_HOLDINGS:
            books[filing.period] = {}
            for key in [k for k in dollars if k[0] == filing.period]:
                del dollars[key]
        scale = 1000 if filing.unit.value == "thousands" else 1
        for row in filing.rows:
            if row.share_type != "SH" or row.put_call:
                continue
            book = books[filing.period]
            book[row.cusip] = book.get(row.cusip, 0) + row.shares
            key = (filing.period, row.cusip)
            dollars[key] = dollars.get(key, 0) + row.value * scale
            issuers.setdefault(row.cusip, row.issuer)
    cents = {key: round(value * 100 / books[key[0]][key[1]]) for key, value in dollars.items() if books[key[0]][key[1]]}
    return books, cents, issuers


def _nearest(cents: dict[tuple[date, str], int], cusip: str) -> int:
    known = sorted(value for (_, c), value in cents.items() if c == cusip)
    return known[len(known) // 2] if known else UNPRICED_CENTS


def _witness_books(
    number: int,
    cik: str,
    periods: list[date],
    berkshire: tuple[dict[date, dict[str, int]], dict[tuple[date, str], int]],
    legs: tuple[CorporateAction, ...],
) -> list[dict[str, int]]:
    """One witness's book per quarter end: carried through the recorded events, opening each security Berkshire holds
    (from a quarter before Berkshire, unless it was born then) with HOLD_CHANCE and keeping it after Berkshire sells
    it (as most holders of a security do in any quarter)."""
    books, cents = berkshire
    born = {leg.new_cusip for leg in legs if leg.new_cusip} | set(NEW_LISTINGS)
    rng = random.Random(f"{SEED}:witness:{number}")
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
        # a witness keeps what it holds when Berkshire sells (other holders outlive one's exit), and holds what
        # Berkshire buys a quarter before Berkshire does (the market held it) unless it only began then
        following = books[periods[index + 1]] if index + 1 < len(periods) else {}
        held = {*books[period], *(c for c in following if c not in born and c not in books[period])}
        for cusip in sorted(held):
            chosen = random.Random(f"{SEED}:{number}:{cusip}").random() < HOLD_CHANCE
            if chosen and cusip not in book:
                price = cents.get((period, cusip)) or UNPRICED_CENTS
                book[cusip] = max(1, int(rng.uniform(*POSITION_DOLLARS) * 100 / price))
        found.append(dict(book))
    return found


def _add_manager(root: Path, cik: str, name: str) -> None:
    packs = root / "packs.toml"
    text = "# The second manager is FICTIONAL (tests/berkshire_universe.py): invented holdings beside Berkshire's.\n"
    text += packs.read_text()
    text += f'\n[[copycat.managers]]\nid = "fictional-witness"\nname = "{name}"\ncik = "{int(cik)}"\nfictional = true\n'
    packs.write_text(text)
