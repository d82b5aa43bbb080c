"""The corporate actions bench.universe injects: one event of every kind, each on securities of its own.

Each event's securities are invented (issuer codes apart from the traded universe's), held from the first quarter
by at least three pack managers (all when fewer) and most witnesses, traded each quarter as bench.synthetic
trades (never sold out), and carried through the event by builder.research.changes.carry, the service's own
arithmetic, rounded down per holder as brokers pay cash in lieu of fractions. Some holders trade the security
again in the event's quarter. Prices follow the event: a split divides the price, a merger's new security is
priced at what a share of the old one became, a spin-off's parent gives up part of its value to the child.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from decimal import Decimal
from fractions import Fraction

from bench import synthetic
from builder.records import ActionKind, CorporateAction
from builder.research.changes.carry import Lot, carry

PACK_HOLDERS = 3  # at least this many pack managers hold each event security (all of them when fewer)
WITNESS_SHARE = 0.6  # of the witnesses hold each event security
EVENT_TRADE_RATE = 0.3  # a holder also trades the security in the event's quarter with this chance
CASH_PREMIUM = 1.25  # a cash acquisition pays this much over the last quarter-end price
SPUN_OFF_VALUE = 0.2  # a spin-off's child takes this share of the parent's value
OPENING_DOLLARS = (1_000_000, 5_000_000)  # each holder's first position in an event security


@dataclass(frozen=True, slots=True)
class Kind:
    label: str
    kind: ActionKind
    ratio: str  # new:old, "" for a cash acquisition
    cash: str  # dollars per old share, "" for none
    start: tuple[float, float]  # the starting price range that keeps the price plausible after the event
    target: str  # "" (same CUSIP or none), "new" (a new security), "held" (one holders hold already), "renamed"


EVENTS = (
    Kind("split", ActionKind.SPLIT, "4:1", "", (200.0, 400.0), ""),
    Kind("reverse-split", ActionKind.SPLIT, "1:10", "", (8.0, 30.0), ""),
    Kind("merger-new", ActionKind.MERGER, "1.892:1", "", (60.0, 200.0), "new"),
    Kind("merger-held", ActionKind.MERGER, "0.75:1", "", (40.0, 300.0), "held"),
    Kind("stock-and-cash", ActionKind.MERGER, "1:1", "16.50", (60.0, 200.0), "new"),
    Kind("cash-acquisition", ActionKind.CASH_MERGER, "", "", (20.0, 200.0), ""),
    Kind("spin-off", ActionKind.SPIN_OFF, "1:4", "", (40.0, 300.0), "new"),
    Kind("cusip-change", ActionKind.EXCHANGE, "1:1", "", (20.0, 300.0), "renamed"),
    Kind("reverse-split-renamed", ActionKind.EXCHANGE, "1:8", "", (8.0, 30.0), "renamed"),
)


@dataclass(frozen=True, slots=True)
class Event:
    before: date  # the quarter end before the event
    after: date  # the quarter end after it
    kind: ActionKind
    label: str
    cusip: str
    new_cusip: str
    ratio: str
    cash: str


@dataclass(frozen=True, slots=True)
class Holder:
    """One holder's shares of one security after an event: `after = carried + traded`."""

    period: date
    label: str
    cik: str
    cusip: str  # the security held after ("" when the event paid cash for everything)
    before: int  # shares of the event's CUSIP at the quarter end before
    carried: int  # shares of `cusip` carried through the event (with what was held there before), rounded down
    traded: int
    after: int

    def row(self) -> tuple[object, ...]:
        return (self.label, self.cik, self.cusip, self.before, self.carried, self.traded, self.after)


@dataclass(slots=True)
class Planned:
    events: list[Event]
    securities: list[synthetic.Security]
    holders: list[Holder]
    books: dict[int, list[dict[str, int]]] = field(default_factory=dict)  # filer number → per quarter additions
    prices: dict[str, list[int]] = field(default_factory=dict)  # cents per quarter, 0 where it does not trade


def ratio_of(text: str) -> Fraction:
    if not text:
        return Fraction(1)
    new, old = text.split(":")
    return Fraction(Decimal(new)) / Fraction(Decimal(old))


def plan_events(seed: int, periods: list[date], numbers: list[int], managers: int, taken: set[str]) -> Planned:
    """Every event of EVENTS, the i-th between quarter ends i % (Q-1) and the next, with its securities, prices,
    the holders' added positions and the ground truth."""
    rng = random.Random(f"{seed}:events")
    codes = {cusip[:6] for cusip in taken}
    planned = Planned(events=[], securities=[], holders=[])
    for index, spec in enumerate(EVENTS):
        quarter = 1 + index % (len(periods) - 1)
        old = _security(rng, codes, spec.start, len(planned.securities) + 1)
        held = [old]
        new = ""
        if spec.target == "held":
            held.append(_security(rng, codes, spec.start, len(planned.securities) + 2))
            new = held[1].cusip
        elif spec.target:
            base = old.cusip[:6] + "20" if spec.target == "renamed" else ""
            child = _security(rng, codes, spec.start, len(planned.securities) + 2, base)
            new = child.cusip
            planned.securities.append(child)
        planned.securities += held
        event = Event(periods[quarter - 1], periods[quarter], spec.kind, spec.label, old.cusip, new, spec.ratio, "")
        walks = synthetic.price_paths(held, periods, seed)
        paths, cash = _prices(spec, event, walks, quarter)
        event = replace(event, cash=cash)
        planned.prices.update(paths)
        planned.events.append(event)
        holders = [_holders(rng, numbers, managers) for _ in held]
        _hold(planned, seed, event, quarter, held, holders, len(periods))
    return planned


def _security(
    rng: random.Random, codes: set[str], start: tuple[float, float], number: int, base: str = ""
) -> synthetic.Security:
    """A fresh invented common stock (or, given `base`, another issue of an issuer code) with a valid check digit."""
    while not base:
        code = "".join(rng.choice("0123456789ABCDEFGHJKLMNPRSTUVWXYZ") for _ in range(6))
        if code not in codes:
            codes.add(code)
            base = code + "10"
    issuer = f"{base[:6]} SYNTHETIC ISSUER INC"
    return synthetic.Security(base + synthetic.cusip_check_digit(base), f"SYE{number:03d}", issuer, rng.uniform(*start))


def _prices(spec: Kind, event: Event, walks: dict[str, list[int]], quarter: int) -> tuple[dict[str, list[int]], str]:
    """Cents per quarter of the event's securities, and the cash per share of a cash acquisition."""
    ratio, walk = ratio_of(spec.ratio), walks[event.cusip]
    before = [cents if q < quarter else 0 for q, cents in enumerate(walk)]
    after = [0 if q < quarter else cents for q, cents in enumerate(walk)]
    cash = Decimal(spec.cash) if spec.cash else Decimal(0)
    if spec.target == "held":
        acquirer = walks[event.new_cusip]
        target = [round(cents * ratio) if q < quarter else 0 for q, cents in enumerate(acquirer)]
        return {event.cusip: target, event.new_cusip: acquirer}, spec.cash
    if spec.kind is ActionKind.CASH_MERGER:
        paid = Decimal(round(walk[quarter - 1] * CASH_PREMIUM)) / 100
        return {event.cusip: before}, f"{paid:.2f}"
    if spec.kind is ActionKind.SPLIT and not spec.target:
        return {event.cusip: [c if q < quarter else round(c / ratio) for q, c in enumerate(walk)]}, spec.cash
    if spec.kind is ActionKind.SPIN_OFF:
        parent = [c if q < quarter else round(c * (1 - SPUN_OFF_VALUE)) for q, c in enumerate(walk)]
        child = [round(c * SPUN_OFF_VALUE / ratio) for c in after]
        return {event.cusip: parent, event.new_cusip: child}, spec.cash
    target = [round((c - Fraction(cash) * 100) / ratio) if c else 0 for c in after]
    return {event.cusip: before, event.new_cusip: target}, spec.cash


def _holders(rng: random.Random, numbers: list[int], managers: int) -> list[int]:
    pack = [n for n in numbers if n <= managers]
    witnesses = [n for n in numbers if n > managers]
    chosen = rng.sample(pack, min(len(pack), max(PACK_HOLDERS, math.ceil(len(pack) * WITNESS_SHARE))))
    chosen += rng.sample(witnesses, min(len(witnesses), max(PACK_HOLDERS, round(len(witnesses) * WITNESS_SHARE))))
    return sorted(chosen)


def _hold(
    planned: Planned,
    seed: int,
    event: Event,
    quarter: int,
    held: list[synthetic.Security],
    holders: list[list[int]],
    quarters: int,
) -> None:
    """Each holder's positions in the event's securities, quarter by quarter, carried through the event."""
    leg = CorporateAction(
        effective=event.before + timedelta(days=45),
        kind=event.kind,
        cusip=event.cusip,
        new_cusip=event.new_cusip if event.new_cusip != event.cusip else "",
        ratio=ratio_of(event.ratio),
        ratio_text=event.ratio,
        cash_per_share=Decimal(event.cash) if event.cash else None,
        source="bench.universe (synthetic)",
        record=f"events.csv:{len(planned.events) + 1}",
    )
    for number in sorted({n for group in holders for n in group}):
        rng = random.Random(f"{seed}:event:{event.label}:{number}")
        book = {
            s.cusip: _opening(rng, planned.prices[s.cusip][0])
            for s, group in zip(held, holders, strict=True)
            if number in group
        }
        books = planned.books.setdefault(number, [{} for _ in range(quarters)])
        books[0].update(book)
        for q in range(1, quarters):
            if q == quarter:
                book = _through(planned, rng, event, number, book, leg)
            else:
                book = {cusip: synthetic.trade(rng, shares) or shares for cusip, shares in sorted(book.items())}
            books[q].update(book)


def _opening(rng: random.Random, cents: int) -> int:
    """Not a round lot: a split's or a merger's fractions must show in the rounding down."""
    return int(rng.uniform(*OPENING_DOLLARS) * 100 / cents)


def _through(
    planned: Planned, rng: random.Random, event: Event, number: int, book: dict[str, int], leg: CorporateAction
) -> dict[str, int]:
    """`book` after the event: carried, rounded down, then perhaps traded; its ground-truth rows recorded."""
    carried = carry({c: Lot(c, shares, 0, 1, "") for c, shares in book.items()}, [leg])
    after = {cusip: math.floor(shares) for cusip, shares in carried.shares.items() if shares > 0}
    main = event.cusip if event.kind is ActionKind.SPIN_OFF else event.new_cusip or event.cusip
    traded = 0
    if main in after and rng.random() < EVENT_TRADE_RATE:
        traded = synthetic.lot(after[main] * rng.uniform(0.1, 0.4))
        traded = traded if rng.random() < 0.5 or after[main] - traded < synthetic.LOT else -traded
    cik = f"{synthetic.CIK_BASE + number:010d}"
    before = book.get(event.cusip, 0)
    for cusip, shares in sorted(after.items()):
        moved = traded if cusip == main else 0
        planned.holders.append(Holder(event.after, event.label, cik, cusip, before, shares, moved, shares + moved))
    if not after:
        planned.holders.append(Holder(event.after, event.label, cik, "", before, 0, 0, 0))
    if main in after:
        after[main] += traded
    return after
