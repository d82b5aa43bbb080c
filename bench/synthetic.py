"""Synthetic 13F source trees for benchmarks: M managers × Q quarters × P positions, in the real SEC formats.

Usage: `python -m bench.synthetic --managers M --quarters Q --positions P --out DIR [--seed S] [--universe U]`,
or `--shape largest:N --quarters Q --out DIR`: N managers whose books are as long as the N largest real filers'
(bench/largest.py), with the same trades, and the tree's filings also written as the SEC's Form 13F data sets.
Deterministic: every draw comes from `random.Random` seeded by the seed and the manager, no clock, so the same
arguments always write the same bytes. The filings are rendered by builder.sources.sec13f.writer (primary
document + information table per accession folder); securities.csv maps a universe of invented CUSIPs with
valid check digits to tickers SYN0001…. Every book holds exactly P long-equity positions and turns over every
quarter (exits replaced by new buys; adds, reductions, unchanged), so each version has changes to diff.
The tree is SYNTHETIC, not the fixture: packs.toml says so in a comment and leaves `[source] fixture` unset,
so a publish of it is what an operator's real tree of that size would cost.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

from bench import datasets_stream, largest
from builder.records import Amendment, Filing, HoldingRow, ValueUnit
from builder.research.quarters import previous_quarter
from builder.sources.files import DATASETS
from builder.sources.sec13f import writer
from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from builder.sources.sec13f.filing_dates import filing_dates_text
from builder.sources.sec13f.rules import DOLLARS_FROM  # SEC: values in dollars from filings of 2023-01-03 on

SEED = 13  # default seed; any fixed value gives a reproducible tree
GENERATOR = 1  # bump when the generator's output changes, so cached trees (bench.publish) are rebuilt
LAST_QUARTER = date(2026, 9, 30)  # Q quarters run back from here; all filed after 2023-01-03, so values in dollars
CIK_BASE = 8_800_000_000  # CIKs 8800000001…: ten digits, far above any CIK EDGAR has assigned (about 2.1 million)
MAX_UNIVERSE = 4000  # distinct long-equity CUSIPs: a few thousand, as across the books of all large 13F filers
UNIVERSE_PER_POSITION = 4  # at least 4 securities per book slot, so new buys always have somewhere to go
POPULARITY_OFFSET = 10  # weight of the i-th security is 1 / (i + 10): a long tail, a few names held by most books
EXIT_RATE = 0.10  # a position is sold out with this chance per quarter (and replaced by a new buy)
ADD_RATE, REDUCE_RATE = 0.30, 0.30  # then added to or reduced with these chances; else unchanged
LOT = 10  # share counts move in round lots
PRICE_RANGE = (10.0, 400.0)  # starting prices in dollars; the walk stays within the reader's plausible band
PRICE_LIMITS = (5.0, 1450.0)
PRICE_DRIFT, PRICE_SWING = 0.015, 0.08  # uniform quarterly return (no libm: the same floats on every machine)
BOOK_MILLIONS = (100, 20_000)  # long-equity book sizes from a small adviser to a large one
FILING_DAYS = (15, 44)  # filed this many days after quarter end, inside the 45-day deadline


@dataclass(frozen=True, slots=True)
class Params:
    managers: int
    quarters: int
    positions: int
    seed: int = SEED
    universe: int = 0  # 0: chosen from managers and positions (see universe_size)
    datasets: bool = False  # also the Form 13F data sets of every filer of the tree (its managers)
    shape: str = ""  # "largest:N": book sizes of the N largest real filers (positions: the longest of them)

    def command(self, out: Path) -> list[str]:
        """The command line that writes this tree into `out` (as its own process, so it can be measured)."""
        sizes = ["--managers", str(self.managers), "--quarters", str(self.quarters), "--positions", str(self.positions)]
        extra = ["--datasets"] if self.datasets else []
        if self.shape:
            sizes = ["--shape", self.shape, "--quarters", str(self.quarters)]
        return [sys.executable, "-m", "bench.synthetic", *sizes, "--out", str(out), *extra]

    def stamp(self) -> str:
        """The packs.toml comment that names these parameters (bench.publish reuses a tree with the same stamp)."""
        return (
            f"# synthetic: managers={self.managers} quarters={self.quarters} positions={self.positions} "
            f"seed={self.seed} universe={universe_size(self)} generator={GENERATOR}"
            + (" datasets" if self.datasets else "")
            + (f" shape={self.shape}" if self.shape else "")
        )

    def book_size(self, number: int) -> int:
        """Positions of manager `number` (from 1): the same for every book, or the shape's."""
        return largest.entry_counts()[number - 1] if self.shape else self.positions


def shaped(shape: str, quarters: int, seed: int = SEED) -> Params:
    """The parameters of a `largest:N` tree: N managers, the longest book's positions sizing the universe."""
    managers = largest.shape_size(shape)
    return Params(managers, quarters, max(largest.entry_counts()[:managers]), seed, 0, shape=shape)


@dataclass(frozen=True, slots=True)
class Security:
    cusip: str
    ticker: str
    issuer: str
    start_price: float


def universe_size(params: Params) -> int:
    if params.universe:
        return params.universe
    return max(UNIVERSE_PER_POSITION * params.positions, min(MAX_UNIVERSE, params.managers * params.positions // 4))


def cusip_check_digit(base: str) -> str:
    """The ninth character of a CUSIP: the modulus-10 double-add-double check over the first eight."""
    total = 0
    for index, char in enumerate(base):
        value = int(char) if char.isdigit() else ord(char) - ord("A") + 10
        if index % 2 == 1:
            value *= 2
        total += value // 10 + value % 10
    return str((10 - total % 10) % 10)


def securities(params: Params) -> list[Security]:
    """The universe, most popular first: invented issuer codes, common-stock issue number 10, valid check digits."""
    rng = random.Random(f"{params.seed}:universe")
    issuers: set[str] = set()
    found = []
    alphabet = "0123456789ABCDEFGHJKLMNPRSTUVWXYZ"  # no I, O or Q: CUSIP issuer codes avoid them
    while len(found) < universe_size(params):
        issuer = "".join(rng.choice(alphabet) for _ in range(6))
        if issuer in issuers:
            continue
        issuers.add(issuer)
        number = len(found) + 1
        base = issuer + "10"
        found.append(
            Security(
                base + cusip_check_digit(base),
                f"SYN{number:04d}",
                f"{issuer} SYNTHETIC ISSUER INC",
                round(rng.uniform(*PRICE_RANGE), 2),
            )
        )
    return found


def quarter_ends(count: int) -> list[date]:
    """The `count` quarter ends up to LAST_QUARTER, oldest first."""
    ends = [LAST_QUARTER]
    while len(ends) < count:
        ends.append(previous_quarter(ends[-1]))
    return ends[::-1]


def price_paths(universe: list[Security], periods: list[date], seed: int) -> dict[str, list[int]]:
    """Price in cents per security per quarter: a seeded walk, clamped to plausible prices."""
    paths = {}
    for security in universe:
        rng = random.Random(f"{seed}:price:{security.cusip}")
        price, path = security.start_price, []
        for _ in periods:
            price *= 1 + PRICE_DRIFT + rng.uniform(-PRICE_SWING, PRICE_SWING)
            price = min(max(price, PRICE_LIMITS[0]), PRICE_LIMITS[1])
            path.append(round(price * 100))
        paths[security.cusip] = path
    return paths


class Picker:
    """Draws distinct securities by popularity, never one the book already holds."""

    def __init__(self, universe: list[Security]) -> None:
        self.cusips = [s.cusip for s in universe]
        running, self.cumulative = 0.0, []
        for index in range(len(universe)):
            running += 1 / (index + POPULARITY_OFFSET)
            self.cumulative.append(running)

    def draw(self, rng: random.Random, count: int, held: set[str]) -> list[str]:
        chosen: dict[str, None] = {}  # in the order drawn; a set's lookup (a list's was quadratic in a 50,000 book)
        while len(chosen) < count:
            cusip = rng.choices(self.cusips, cum_weights=self.cumulative)[0]
            if cusip not in held and cusip not in chosen:
                chosen[cusip] = None
        return list(chosen)


def lot(shares: float) -> int:
    return max(LOT, int(shares / LOT + 0.5) * LOT)


def books(params: Params, number: int, picker: Picker, prices: dict[str, list[int]]) -> list[dict[str, int]]:
    """One manager's book (CUSIP → shares) per quarter, oldest first, exactly its size (`book_size`) long each."""
    rng = random.Random(f"{params.seed}:manager:{number}")
    book_dollars = rng.randint(*BOOK_MILLIONS) * 1_000_000
    size = params.book_size(number)

    def opening(cusip: str, quarter: int) -> int:
        return lot(book_dollars * rng.uniform(0.3, 1.7) / size * 100 / prices[cusip][quarter])

    book = {cusip: opening(cusip, 0) for cusip in picker.draw(rng, size, set())}
    result = [book]
    for quarter in range(1, params.quarters):
        after = {}
        for cusip, shares in sorted(book.items()):
            new = trade(rng, shares)
            if new is not None:
                after[cusip] = new
        for cusip in picker.draw(rng, size - len(after), set(book) | set(after)):
            after[cusip] = opening(cusip, quarter)
        book = after
        result.append(book)
    return result


def trade(rng: random.Random, shares: int) -> int | None:
    """A position's shares one quarter later: sold out (None), added to, reduced or unchanged, in round lots."""
    move = rng.random()
    if move < EXIT_RATE:
        return None
    factor = (
        rng.uniform(1.1, 1.6)
        if move < EXIT_RATE + ADD_RATE
        else (rng.uniform(0.4, 0.9) if move < EXIT_RATE + ADD_RATE + REDUCE_RATE else 1.0)
    )
    new = lot(shares * factor)
    return new if factor == 1.0 or new != shares else shares + (LOT if factor > 1 else -LOT)


def filed_on(period: date, days: int) -> date:
    """Quarter end plus `days`, moved back to a weekday."""
    day = period + timedelta(days=days)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


def manager_filings(
    params: Params,
    number: int,
    universe: dict[str, Security],
    picker: Picker,
    prices: dict[str, list[int]],
    periods: list[date],
) -> Iterator[Filing]:
    """Every original 13F-HR of one synthetic manager, oldest first."""
    cik = f"{CIK_BASE + number:010d}"
    dates = calendar(params.seed, number, cik, periods)
    for quarter, (period, book) in enumerate(zip(periods, books(params, number, picker, prices), strict=True)):
        filed, accession = dates[quarter]
        folder = f"sec13f/{cik}/{accession}"
        source = f"{folder}/primary_doc.xml + {folder}/infotable.xml"
        at = {cusip: prices[cusip][quarter] for cusip in book}
        yield book_filing(source, accession, cik, manager_name(number), period, filed, book, universe, at)


def calendar(seed: int, number: int, cik: str, periods: list[date]) -> list[tuple[date, str]]:
    """Filing date and accession number of a filer's 13F-HR for each period: filed inside the deadline, numbered
    upwards within each year."""
    rng = random.Random(f"{seed}:calendar:{number}")
    sequence: dict[int, int] = {}
    found = []
    for period in periods:
        filed = filed_on(period, rng.randint(*FILING_DAYS))
        sequence[filed.year] = sequence.get(filed.year, 0) + rng.randint(1, 4)
        found.append((filed, f"{cik}-{filed.year % 100:02d}-{sequence[filed.year]:06d}"))
    return found


def book_filing(
    source: str,
    accession: str,
    cik: str,
    name: str,
    period: date,
    filed: date,
    book: dict[str, int],
    universe: dict[str, Security],
    cents: dict[str, int],
) -> Filing:
    """The original 13F-HR of one book (CUSIP → shares) priced at `cents` a share: one SH row per CUSIP, ordered
    by issuer, values in the unit the SEC asks for on `filed` (thousands before 2023-01-03, dollars after)."""
    thousands = filed < DOLLARS_FROM
    ordered = sorted(book, key=lambda cusip: (universe[cusip].issuer, cusip))
    rows = tuple(
        HoldingRow(
            row=index,
            issuer=universe[cusip].issuer,
            title_of_class="COM",
            cusip=cusip,
            value=(book[cusip] * cents[cusip] + (50_000 if thousands else 50)) // (100_000 if thousands else 100),
            shares=book[cusip],
            share_type="SH",
            put_call=None,
            discretion="SOLE",
            other_managers="",
            voting_sole=book[cusip],
            voting_shared=0,
            voting_none=0,
        )
        for index, cusip in enumerate(ordered, start=1)
    )
    return Filing(
        source=source,
        accession=accession,
        cik=cik,
        manager_name=name,
        form_type="13F-HR",
        report_type="13F HOLDINGS REPORT",
        period=period,
        filed=filed,
        amendment=Amendment.ORIGINAL,
        amendment_no=0,
        unit=ValueUnit.THOUSANDS if thousands else ValueUnit.DOLLARS,
        unit_rule="filed-before-2023-01-03" if thousands else "filed-on-or-after-2023-01-03",
        table_entry_total=len(rows),
        table_value_total=sum(row.value for row in rows),
        confidential_omitted=False,
        rows=rows,
    )


def manager_name(number: int) -> str:
    return f"Synthetic Manager {number:04d} LLC"


def packs_toml(params: Params) -> bytes:
    about = "# Not the fixture and not investment data; generated to measure the service at scale."
    shaped_versions = params.quarters if params.shape else None  # a shape publishes every quarter it wrote
    return packs_text(params.managers, ("bench/synthetic.py", about, params.stamp()), shaped_versions)


def packs_text(managers: int, header: tuple[str, str, str], versions: int | None = None) -> bytes:
    """packs.toml of `managers` synthetic managers, each marked fictional, under a comment: (generator, what, stamp);
    `versions` when not the default 8."""
    generator, about, stamp = header
    lines = [f"# SYNTHETIC benchmark data ({generator}): invented managers, securities and holdings.", about, stamp]
    lines += ["", "[copycat]", *([f"versions = {versions}"] if versions is not None else [])]
    for number in range(1, managers + 1):
        lines += [
            "",
            "[[copycat.managers]]",
            f'id = "syn-{number:04d}"',
            f'name = "{manager_name(number)}"',
            f'cik = "{CIK_BASE + number}"',
            "fictional = true",
        ]
    return ("\n".join(lines) + "\n").encode("utf-8")


def securities_csv(universe: list[Security]) -> bytes:
    rows = ["cusip,ticker,name", *(f"{s.cusip},{s.ticker},{s.issuer}" for s in sorted(universe, key=lambda s: s.cusip))]
    return ("\n".join(rows) + "\n").encode("utf-8")


def write_tree(out: Path, params: Params) -> dict[str, int]:
    """Replace `out` with the synthetic tree of `params`; counts of what was written."""
    fresh_folder(out)
    universe = securities(params)
    by_cusip = {s.cusip: s for s in universe}
    periods = quarter_ends(params.quarters)
    prices = price_paths(universe, periods, params.seed)
    picker = Picker(universe)
    (out / "securities.csv").write_bytes(securities_csv(universe))
    counts = {"filings": 0, "rows": 0, "files": 2, "bytes": 0}
    # the sets hold the same filings (every filer of the tree, no corporate action), written as they stream past
    sets = datasets_stream.DataSets(out / DATASETS) if params.datasets or params.shape else None
    for number in range(1, params.managers + 1):
        filings = manager_filings(params, number, by_cusip, picker, prices, periods)
        write_filings(out, sets.tee(filings) if sets else filings, counts)
    if sets:
        counts["files"] += len(sets.close())
    (out / "packs.toml").write_bytes(packs_toml(params))  # last: a tree with packs.toml is complete
    return counts


def fresh_folder(out: Path) -> None:
    """Empty `out` for a generated tree; refuses a folder that holds anything but an earlier tree (packs.toml)."""
    if out.exists() and any(out.iterdir()) and not (out / "packs.toml").exists():
        raise SystemExit(f"refusing to replace {out}: it is not empty and has no packs.toml")
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)


def write_filings(out: Path, filings: Iterable[Filing], counts: dict[str, int]) -> None:
    """One manager's filings as sec13f/<cik>/<accession>/ (primary document + information table) and the filing
    dates `ras fetch` records beside headerless filings; `counts` grows by what was written."""
    dated = []
    for filing in filings:
        folder = out / "sec13f" / filing.cik / filing.accession
        folder.mkdir(parents=True)
        for name, body in (
            ("primary_doc.xml", writer.primary_document(filing)),
            ("infotable.xml", writer.information_table(filing.rows)),
        ):
            (folder / name).write_bytes(body)
            counts["files"] += 1
            counts["bytes"] += len(body)
        counts["filings"] += 1
        counts["rows"] += len(filing.rows)
        dated.append((filing.accession, filing.form_type, filing.period.isoformat(), filing.filed.isoformat()))
    if dated:
        record = filing_dates_text(dated).encode()
        (folder.parent / DATES_FILE).write_bytes(record)
        counts["files"] += 1
        counts["bytes"] += len(record)


def universe_problem(universe: int, positions: int) -> str:
    """Why --universe cannot hold books of `positions` (empty when it can; 0 sizes it from the books)."""
    if universe and universe < 2 * positions:
        return "--universe must be at least twice --positions, so new buys always have somewhere to go"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--managers", type=int)
    parser.add_argument("--quarters", type=int, required=True)
    parser.add_argument("--positions", type=int)
    parser.add_argument("--shape", help="largest:N, instead of --managers and --positions: books as the N largest")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--universe", type=int, default=0, help="securities in securities.csv (default: from M and P)")
    parser.add_argument(
        "--datasets",
        action="store_true",
        help="also write sec13f-datasets/: the Form 13F data sets of the tree's filers",
    )
    args = parser.parse_args(argv)
    params = _params(parser, args)
    counts = write_tree(args.out, params)
    print(
        f"wrote {counts['filings']} filings ({counts['rows']} rows, {counts['files']} files, "
        f"{counts['bytes'] / 1e6:.1f} MB) of {params.managers} managers to {args.out}"
    )
    return 0


def _params(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Params:
    """The tree's parameters from the command line, or the parser's error."""
    if args.quarters < 1:
        parser.error("--quarters must be at least 1")
    if args.shape:
        if args.managers is not None or args.positions is not None or args.universe:
            parser.error("--shape sets the managers, positions and universe: give none of them")
        try:
            return shaped(args.shape, args.quarters, args.seed)
        except ValueError as exc:
            parser.error(str(exc))
    if args.managers is None or args.positions is None:
        parser.error("give --managers and --positions, or --shape")
    if min(args.managers, args.quarters, args.positions) < 1:
        parser.error("--managers, --quarters and --positions must be at least 1")
    if universe_problem(args.universe, args.positions):
        parser.error(universe_problem(args.universe, args.positions))
    return Params(args.managers, args.quarters, args.positions, args.seed, args.universe, args.datasets)


if __name__ == "__main__":
    sys.exit(main())
