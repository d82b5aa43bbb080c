"""Synthetic 13F universes: a pack of M managers plus K other filers (witnesses) in the Form 13F data sets, with
corporate actions injected or none.

Usage: `python -m bench.universe --managers M --quarters Q --positions P --witnesses K --actions none|all --out DIR
[--seed S]`. Every filer trades as in bench.synthetic (same books for the same seed and numbers); the pack's
filings are written under sec13f/ as bench.synthetic writes them, and every filer's (pack and witnesses) into
the data sets under sec13f-datasets/ (bench.datasets_writer). `--actions all` adds, on securities of their own
held by at least three pack managers (all of them when fewer) and by most witnesses, one event of every kind
(EVENTS): each holder's shares carried through it as builder.research.changes.carry carries a book, rounded down
per holder (cash in lieu of fractions), the price moved to match, and some holders trading the same quarter.
The ground truth is events.csv (one row an event) and events_holders.csv (one row per holder and security after
the event: `after = carried + traded`). SYNTHETIC: invented filers, issuers and holdings, labelled so.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
from dataclasses import dataclass
from pathlib import Path

from bench import datasets_writer, synthetic
from bench.universe_events import Planned, plan_events
from builder.records import Filing

GENERATOR = 1  # bump when the output changes
WITNESS_OFFSET = 100_000_000  # witness k is filer number 100000000 + k: CIK 8900000001…, far above EDGAR's
DATASETS = "sec13f-datasets"


@dataclass(frozen=True, slots=True)
class Params:
    managers: int
    quarters: int
    positions: int
    witnesses: int
    actions: str  # "none" or "all"
    seed: int = synthetic.SEED
    universe: int = 0  # distinct securities; 0: sized for all filers as bench.synthetic sizes it

    def base(self) -> synthetic.Params:
        """The synthetic parameters every filer's trading is drawn with (the universe sized for all filers)."""
        return synthetic.Params(self.managers + self.witnesses, self.quarters, self.positions, self.seed, self.universe)

    def command(self, out: Path) -> list[str]:
        sizes = [f"--managers={self.managers}", f"--quarters={self.quarters}", f"--positions={self.positions}"]
        more = [f"--witnesses={self.witnesses}", f"--actions={self.actions}", f"--seed={self.seed}"]
        return [sys.executable, "-m", "bench.universe", *sizes, *more, f"--universe={self.universe}", "--out", str(out)]

    def stamp(self) -> str:
        return (
            f"# synthetic universe: managers={self.managers} quarters={self.quarters} positions={self.positions} "
            f"witnesses={self.witnesses} actions={self.actions} seed={self.seed} universe={self.universe} "
            f"generator={GENERATOR}"
        )


def filer_numbers(params: Params) -> list[int]:
    """Pack managers 1…M, then witnesses: CIK = synthetic.CIK_BASE + number."""
    return [*range(1, params.managers + 1), *(WITNESS_OFFSET + k for k in range(1, params.witnesses + 1))]


def filer_name(number: int) -> str:
    if number > WITNESS_OFFSET:
        return f"Synthetic Witness {number - WITNESS_OFFSET:04d} LLC"
    return synthetic.manager_name(number)


def filings_of(
    params: Params,
    number: int,
    books: list[dict[str, int]],
    universe: dict[str, synthetic.Security],
    prices: dict[str, list[int]],
) -> list[Filing]:
    """One filer's 13F-HR per quarter (as bench.synthetic renders a book)."""
    cik = f"{synthetic.CIK_BASE + number:010d}"
    periods = synthetic.quarter_ends(params.quarters)
    found = []
    for quarter, (filed, accession) in enumerate(synthetic.calendar(params.seed, number, cik, periods)):
        book = books[quarter]
        folder = f"sec13f/{cik}/{accession}"
        source = f"{folder}/primary_doc.xml + {folder}/infotable.xml"
        at = {cusip: prices[cusip][quarter] for cusip in book}
        name = filer_name(number)
        found.append(synthetic.book_filing(source, accession, cik, name, periods[quarter], filed, book, universe, at))
    return found


def write_universe(out: Path, params: Params) -> dict[str, int]:
    """Replace `out` with the universe of `params`; counts of what was written."""
    synthetic.fresh_folder(out)
    base = params.base()
    traded = synthetic.securities(base)
    periods = synthetic.quarter_ends(params.quarters)
    prices = synthetic.price_paths(traded, periods, params.seed)
    picker = synthetic.Picker(traded)
    numbers = filer_numbers(params)
    books = {number: synthetic.books(base, number, picker, prices) for number in numbers}
    planned = Planned(events=[], securities=[], holders=[])
    if params.actions == "all":
        planned = plan_events(params.seed, periods, numbers, params.managers, {s.cusip for s in traded})
        prices.update(planned.prices)
        for number, added in planned.books.items():
            for quarter, positions in enumerate(added):
                books[number][quarter].update(positions)
    universe = {s.cusip: s for s in (*traded, *planned.securities)}
    counts = {"filings": 0, "rows": 0, "files": 3, "bytes": 0, "datasets": 0, "events": len(planned.events)}
    everyone: list[Filing] = []
    for number in numbers:
        filings = filings_of(params, number, books[number], universe, prices)
        everyone += filings
        if number <= params.managers:
            synthetic.write_filings(out, filings, counts)
    written = datasets_writer.write_datasets(out / DATASETS, everyone)
    counts["datasets"] = len(written)
    (out / "securities.csv").write_bytes(synthetic.securities_csv(list(universe.values())))
    (out / "events.csv").write_bytes(events_csv(planned))
    (out / "events_holders.csv").write_bytes(holders_csv(planned))
    about = "# Not the fixture and not investment data; witnesses and events in sec13f-datasets/, events.csv."
    header = ("bench/universe.py", about, params.stamp())
    packs = synthetic.packs_text(params.managers, header, min(params.quarters, 8) if params.quarters < 8 else None)
    (out / "packs.toml").write_bytes(packs)  # last: a tree with packs.toml is complete
    return counts


def events_csv(planned: Planned) -> bytes:
    """The ground truth, one row an event: the quarter ends it falls between, kind (as corporate_actions.csv
    names it), label, CUSIPs, ratio new:old and cash per old share."""
    header = ("period_before", "period_after", "kind", "label", "cusip", "new_cusip", "ratio", "cash_per_share")
    rows = [
        (e.before.isoformat(), e.after.isoformat(), e.kind.value, e.label, e.cusip, e.new_cusip, e.ratio, e.cash)
        for e in planned.events
    ]
    return _csv(header, rows)


def holders_csv(planned: Planned) -> bytes:
    """Per event, per holder and security it holds after: shares of the event's CUSIP before, shares carried
    through the event (rounded down, with what it held there before), its own trade that quarter and the shares
    filed after (`after = carried + traded`)."""
    header = ("period_after", "label", "cik", "cusip", "before", "carried", "traded", "after")
    return _csv(header, [(h.period.isoformat(), *h.row()) for h in planned.holders])


def _csv(header: tuple[str, ...], rows: list[tuple[object, ...]]) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--managers", type=int, required=True)
    parser.add_argument("--quarters", type=int, required=True)
    parser.add_argument("--positions", type=int, required=True)
    parser.add_argument("--witnesses", type=int, default=20)
    parser.add_argument("--actions", choices=("none", "all"), default="none")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=synthetic.SEED)
    parser.add_argument("--universe", type=int, default=0, help="distinct securities (0: sized for all filers)")
    args = parser.parse_args(argv)
    if min(args.managers, args.quarters, args.positions) < 1 or args.witnesses < 0:
        parser.error("--managers, --quarters and --positions must be at least 1, --witnesses at least 0")
    if synthetic.universe_problem(args.universe, args.positions):
        parser.error(synthetic.universe_problem(args.universe, args.positions))
    if args.actions == "all" and args.quarters < 2:
        parser.error("--actions all needs at least 2 quarters (an event falls between two quarter ends)")
    params = Params(
        args.managers, args.quarters, args.positions, args.witnesses, args.actions, args.seed, args.universe
    )
    counts = write_universe(args.out, params)
    print(
        f"wrote {counts['filings']} pack filings, {counts['datasets']} data sets of {len(filer_numbers(params))} "
        f"filers and {counts['events']} events to {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
