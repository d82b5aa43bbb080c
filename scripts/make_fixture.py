"""Generate the embedded fixture source tree (builder/fixture/source/) in the real SEC Form 13F formats.

Usage: `python scripts/make_fixture.py [--out DIR] [--check]`. Deterministic: every draw comes from
`random.Random` seeded with `fixture_data.SEED`, no clock; the same code always writes the same bytes.
The target is emptied first (stale files go); `--check` writes to a scratch directory and exits 1, listing
`missing|extra|differs <path>`, when the tree at `--out` is not what would be written. Afterwards
`scripts/fixture_previews.py`'s `write_preview_sources(root)` adds the preview packs' sources, if present.

What the fixture holds: 7 FICTIONAL managers (CIKs 9900000001…07, unused by EDGAR) over REAL securities
(real CUSIPs and tickers: 107 stocks/ETFs + IBDR in securities.csv, plus ACN left unmapped), with invented
prices and holdings; 98 filings (96 originals, 2 amendments), 3,769 rows, 190 files. Each book holds 25–60 positions and turns
over every quarter (new, added, reduced, unchanged, exited). Filed 18–45 days after quarter end
(signatureDate = filing date, recorded for the headerless pairs in sec13f/<cik>/filing_dates.csv as `ras fetch`
records EDGAR's); values in dollars, except before 2023-01-03 (thousands).

Calendar (quarter ends filed; "sec13f/<cik>/<accession>/{primary_doc,infotable}.xml" unless noted):
  larch      9900000001  2022-09-30 … 2026-09-30 (17); 2022-09-30 filed 2022-11-08 in THOUSANDS,
                         2022-12-31 filed 2023-02-08 in dollars
  quillwort  9900000002  2023-06-30 … 2026-09-30 (14); every filing a full submission
                         sec13f/9900000002/<accession>.txt
  tamarack   9900000003  2023-06-30 … 2026-09-30 (14); information tables `ns1:`-prefixed
  osprey     9900000004  2023-06-30 … 2026-09-30 except 2025-03-31 (13)
  marrow     9900000005  2023-06-30 … 2026-09-30 (14)
  fennel     9900000006  2023-06-30 … 2026-09-30 (14)
  juniper    9900000007  2024-06-30 … 2026-09-30 (10): starts late
Common quarters (every manager filed): 2024-06-30 … 2026-09-30 without 2025-03-31; the newest 8 are
2024-09-30, 2024-12-31, 2025-06-30, 2025-09-30, 2025-12-31, 2026-03-31, 2026-06-30, 2026-09-30.

Quirks and where they live (all under sec13f/):
  thousands     9900000001/9900000001-22-000002/ (period 2022-09-30, filed 2022-11-08)
  full .txt     9900000002/*.txt (all 14 of quillwort's filings)
  ns1: prefix   9900000003/*/infotable.xml
  NEW HOLDINGS  9900000003/9900000003-26-000020/ 13F-HR/A adds CVX, PLTR, SBUX (new buys) to 2026-09-30,
                whose original 9900000003-26-000015/ has 40 rows
  Put / Call    9900000004/* SPY Put rows every quarter; NVDA Call rows from 2024 (osprey also holds shares)
  split rows    9900000005/* JPM over three rows: SOLE, DFND otherManager 1, DFND otherManager 1,2
  PRN           9900000006/* IBDR (iShares iBonds Dec 2026, 46435GAA0) as sshPrnamtType PRN, mapped
  RESTATEMENT   9900000006/9900000006-26-000012/ 13F-HR/A replaces 2026-06-30's original
                9900000006-26-000009/ (AMT, GLD, TSM share counts corrected)
  unmapped      9900000007/* ACN (G1151C101), deliberately absent from securities.csv
On 2026-09-30 with all managers selected (long-equity SH rows, after amendments): any 107, overlap 71,
exclusive 36, disagreement 29 (tests/test_fixture.py recounts them from the XML).
"""

from __future__ import annotations

import argparse
import filecmp
import importlib.util
import itertools
import random
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as `python scripts/make_fixture.py` from anywhere, package not installed
    sys.path.insert(0, str(ROOT))

import fixture_data as data  # noqa: E402  (beside this script)

from builder.records import Amendment, Filing, HoldingRow, ValueUnit  # noqa: E402
from builder.sources.sec13f import writer  # noqa: E402
from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE  # noqa: E402
from builder.sources.sec13f.filing_dates import filing_dates_text  # noqa: E402

DEFAULT_OUT = ROOT / "builder" / "fixture" / "source"
PREVIEWS_SCRIPT = Path(__file__).resolve().parent / "fixture_previews.py"
LOT = 10  # share counts move in round lots, as real books mostly do
BOOK_SIZE = (30, 42)  # positions in a first book; turnover keeps books inside BOOK_LIMITS
BOOK_LIMITS = (26, 56)  # with the quirk rows, every table stays within 25–60 positions
OWN_FIELD, CORE, ELSEWHERE = 5.0, 2.0, 0.15  # pick weights: own satellite field, core, another's field
LATEST_DAY = 44  # an amendment is filed this many days after quarter end: inside the 45-day deadline


def lot(shares: float) -> int:
    """Shares rounded half up to a round lot, at least one lot."""
    return max(LOT, int(shares / LOT + 0.5) * LOT)


@dataclass
class Book:
    """One manager's long-equity book per quarter, and which CUSIPs were new buys that quarter."""

    shares: dict[date, dict[str, int]]
    new: dict[date, list[str]]


def pick(rng: random.Random, weights: dict[str, float], count: int) -> list[str]:
    """`count` CUSIPs drawn by weight without replacement (plain arithmetic, reproducible)."""
    pool, chosen = dict(weights), []
    for _ in range(min(count, len(pool))):
        target, running = rng.random() * sum(pool.values()), 0.0
        for cusip, weight in pool.items():  # noqa: B007 (the CUSIP the loop stops at is the one drawn)
            running += weight
            if running >= target:
                break
        chosen.append(cusip)
        del pool[cusip]
    return chosen


def pins(plan: data.ManagerPlan) -> list[str]:
    """CUSIPs the manager holds every quarter (its quirks depend on them)."""
    pinned = {data.SPLIT_MANAGER: data.SPLIT_CUSIP, data.UNMAPPED_MANAGER: data.UNMAPPED_SECURITY.cusip}
    return [pinned[plan.id]] if plan.id in pinned else []


def simulate_book(plan: data.ManagerPlan) -> Book:
    """Seeded turnover from the manager's first quarter: exits, new buys, adds, reductions, unchanged."""
    rng, pinned = random.Random(f"{data.SEED}:book:{plan.id}"), pins(plan)
    weights = {
        fact.cusip: OWN_FIELD if fact.group == plan.number else CORE if fact.group == 0 else ELSEWHERE
        for fact in data.SECURITIES
        if fact.cusip not in pinned
    }
    periods = [period for period in data.QUARTERS if period >= plan.first_period]
    held = pinned + pick(rng, weights, rng.randint(*BOOK_SIZE))
    book = Book({}, {periods[0]: held})
    book.shares[periods[0]] = {cusip: _opening(plan, cusip, periods[0], rng) for cusip in held}
    for before, period in itertools.pairwise(periods):
        book.shares[period], book.new[period] = _turnover(plan, book.shares[before], period, rng, weights)
    return book


def _opening(plan: data.ManagerPlan, cusip: str, period: date, rng: random.Random) -> int:
    """Shares of a new position: about 1/36 of the book, between 0.4 and 2.6 times that."""
    dollars = plan.book_millions * 1_000_000 * rng.uniform(0.4, 2.6) / 36
    return lot(dollars * 100 / data.cents(cusip, period))


def _turnover(
    plan: data.ManagerPlan, before: dict[str, int], period: date, rng: random.Random, weights: dict[str, float]
) -> tuple[dict[str, int], list[str]]:
    """One quarter's trading: 1–3 exits, then add (28%), reduce (28%) or keep each position, then 1–3 buys."""
    exitable = sorted(set(before) - set(pins(plan)))
    exits = set(rng.sample(exitable, max(0, min(rng.randint(1, 3), len(before) - BOOK_LIMITS[0]))))
    after: dict[str, int] = {}
    for cusip in sorted(set(before) - exits):
        move = rng.random()
        factor = rng.uniform(1.1, 1.7) if move < 0.28 else rng.uniform(0.4, 0.9) if move < 0.56 else 1.0
        shares = lot(before[cusip] * factor)
        if factor != 1.0 and shares == before[cusip]:
            shares += LOT if factor > 1 else -LOT
        after[cusip] = shares
    wanted = rng.randint(1, 3)
    if (plan.id, period) == data.NEW_HOLDINGS:
        wanted = max(wanted, data.NEW_HOLDINGS_ROWS)
    candidates = {cusip: weight for cusip, weight in weights.items() if cusip not in before}
    new = pick(rng, candidates, min(wanted, BOOK_LIMITS[1] - len(after)))
    after.update((cusip, _opening(plan, cusip, period, rng)) for cusip in new)
    return after, new


def row_value(shares: int, cusip: str, period: date, unit: ValueUnit) -> int:
    """Market value rounded half up, in dollars or (before 2023) thousands of dollars."""
    scale = 100_000 if unit is ValueUnit.THOUSANDS else 100
    return (shares * data.cents(cusip, period) + scale // 2) // scale


@dataclass(frozen=True)
class Entry:
    """One information-table row before numbering."""

    cusip: str
    shares: int
    share_type: str = "SH"
    put_call: str | None = None
    discretion: str = "SOLE"
    other: str = ""


def entries(plan: data.ManagerPlan, period: date, shares: dict[str, int]) -> list[Entry]:
    """The rows a manager files for one book, quirk rows included."""
    rows: list[Entry] = []
    for cusip, count in shares.items():
        if plan.id == data.SPLIT_MANAGER and cusip == data.SPLIT_CUSIP:
            dfnd, other = lot(count * 0.3), lot(count * 0.1)
            rows += [
                Entry(cusip, count - dfnd - other),
                Entry(cusip, dfnd, discretion="DFND", other="1"),
                Entry(cusip, other, discretion="DFND", other="1,2"),
            ]
        else:
            rows.append(Entry(cusip, count))
    rng = random.Random(f"{data.SEED}:quirks:{plan.id}:{period}")
    if plan.id == data.OPTIONS_MANAGER:
        rows.append(Entry(data.PUT_UNDERLYING, rng.randrange(40, 160) * 1000, put_call="Put"))
        if period.year >= 2024:
            rows.append(Entry(data.CALL_UNDERLYING, rng.randrange(20, 90) * 1000, put_call="Call"))
    if plan.id == data.PRN_MANAGER:
        rows.append(Entry(data.PRN_SECURITY.cusip, rng.randrange(300, 600) * 1000, share_type="PRN"))
    return rows


def holding_rows(rows: list[Entry], period: date, unit: ValueUnit) -> tuple[HoldingRow, ...]:
    """Numbered `HoldingRow`s, alphabetical by issuer as most filers list them."""
    ordered = sorted(rows, key=lambda e: (data.BY_CUSIP[e.cusip].issuer, e.cusip, e.put_call or "", e.other))
    return tuple(_holding_row(number, entry, period, unit) for number, entry in enumerate(ordered, start=1))


def _holding_row(number: int, entry: Entry, period: date, unit: ValueUnit) -> HoldingRow:
    """A row as filed: voting authority sole or shared by discretion; options vote nothing; PRN under None."""
    fact = data.BY_CUSIP[entry.cusip]
    votes = 0 if entry.put_call or entry.share_type == "PRN" else entry.shares  # options carry no votes
    shared = entry.discretion == "DFND"
    return HoldingRow(
        row=number,
        issuer=fact.issuer,
        title_of_class=fact.title,
        cusip=fact.cusip,
        value=row_value(entry.shares, entry.cusip, period, unit),
        shares=entry.shares,
        share_type=entry.share_type,
        put_call=entry.put_call,
        discretion=entry.discretion,
        other_managers=entry.other,
        voting_sole=0 if shared else votes,
        voting_shared=votes if shared else 0,
        voting_none=entry.shares if entry.share_type == "PRN" else 0,
    )


def filed_on(period: date, days: int) -> date:
    """Quarter end plus `days`, moved back to a weekday (EDGAR accepts filings on business days)."""
    day = period + timedelta(days=days)
    while day.weekday() >= 5:
        day -= timedelta(days=1)
    return day


class Accessions:
    """Accession numbers `<filer cik>-<yy>-<sequence>`, sequences rising within a year per filer."""

    def __init__(self, plan: data.ManagerPlan, rng: random.Random) -> None:
        self.plan, self.rng, self.last = plan, rng, {}

    def next(self, filed: date) -> str:
        self.last[filed.year] = self.last.get(filed.year, 0) + self.rng.randint(1, 6)
        return f"{self.plan.cik}-{filed.year % 100:02d}-{self.last[filed.year]:06d}"


def manager_filings(plan: data.ManagerPlan, book: Book) -> Iterator[Filing]:
    """Every filing of one manager, in filing order; amendments follow their original."""
    rng = random.Random(f"{data.SEED}:calendar:{plan.id}")
    accessions = Accessions(plan, rng)
    for period, shares in book.shares.items():
        if period in plan.missing:
            continue
        filed = filed_on(period, rng.randint(*plan.filing_days))
        rows = entries(plan, period, shares)
        if (plan.id, period) == data.NEW_HOLDINGS:
            added = set(book.new[period][: data.NEW_HOLDINGS_ROWS])
            if len(added) != data.NEW_HOLDINGS_ROWS:
                raise SystemExit(f"{plan.id} {period}: too few new buys for the NEW HOLDINGS amendment")
            yield _filing(plan, accessions.next(filed), period, filed, [e for e in rows if e.cusip not in added])
            late = filed_on(period, LATEST_DAY)
            extra = [e for e in rows if e.cusip in added]
            yield _filing(plan, accessions.next(late), period, late, extra, Amendment.NEW_HOLDINGS)
        elif (plan.id, period) == data.RESTATEMENT:
            yield _filing(plan, accessions.next(filed), period, filed, _misreported(rows, rng))
            late = filed_on(period, LATEST_DAY)
            yield _filing(plan, accessions.next(late), period, late, rows, Amendment.RESTATEMENT)
        else:
            yield _filing(plan, accessions.next(filed), period, filed, rows)


def _misreported(rows: list[Entry], rng: random.Random) -> list[Entry]:
    """The original a restatement corrects: a few ordinary rows with wrong share counts."""
    ordinary = [index for index, e in enumerate(rows) if e.share_type == "SH" and not e.put_call and not e.other]
    wrong = set(rng.sample(ordinary, data.RESTATED_ROWS))
    return [
        Entry(e.cusip, lot(e.shares * rng.choice((0.5, 1.5, 2.0))), e.share_type, e.put_call, e.discretion, e.other)
        if index in wrong
        else e
        for index, e in enumerate(rows)
    ]


def _filing(
    plan: data.ManagerPlan,
    accession: str,
    period: date,
    filed: date,
    rows: list[Entry],
    amendment: Amendment = Amendment.ORIGINAL,
) -> Filing:
    """The `Filing` record, its summary page consistent with its table."""
    unit = ValueUnit.THOUSANDS if filed < data.THOUSANDS_BEFORE else ValueUnit.DOLLARS
    rule = "filed-before-2023-01-03" if unit is ValueUnit.THOUSANDS else "filed-on-or-after-2023-01-03"
    table = holding_rows(rows, period, unit)
    folder = f"sec13f/{plan.cik}/{accession}"
    source = f"{folder}.txt" if plan.layout == "txt" else f"{folder}/primary_doc.xml + {folder}/infotable.xml"
    return Filing(
        source=source,
        accession=accession,
        cik=plan.cik,
        manager_name=plan.name,
        form_type="13F-HR" if amendment is Amendment.ORIGINAL else "13F-HR/A",
        report_type="13F HOLDINGS REPORT",
        period=period,
        filed=filed,
        amendment=amendment,
        amendment_no=0 if amendment is Amendment.ORIGINAL else 1,
        unit=unit,
        unit_rule=rule,
        table_entry_total=len(table),
        table_value_total=sum(row.value for row in table),
        confidential_omitted=False,
        rows=table,
    )


def all_filings() -> list[tuple[data.ManagerPlan, Filing]]:
    """Every filing of every fixture manager."""
    return [(plan, filing) for plan in data.MANAGERS for filing in manager_filings(plan, simulate_book(plan))]


def filer_details(plan: data.ManagerPlan) -> writer.FilerDetails:
    """Invented cover-page details: a street named for the manager, a 555-01xx phone (reserved for fiction)."""
    return writer.FilerDetails(
        street=f"{100 * plan.number} {plan.name.split()[0]} Street",
        city=plan.city,
        state=plan.state,
        zip_code=plan.zip_code,
        signer=f"Fictional Signer {plan.number}",
        title="Chief Compliance Officer",
        phone=f"555-01{plan.number:02d}",
        file_number=f"028-99{plan.number:03d}",
    )


def source_files() -> dict[str, bytes]:
    """Every file of the fixture tree by its '/'-separated relative path."""
    files = {"packs.toml": data.packs_toml(), "securities.csv": data.securities_csv()}
    dated: dict[str, list[tuple[str, str, str, str]]] = {}
    for plan, filing in all_filings():
        folder = f"sec13f/{plan.cik}/{filing.accession}"
        if plan.layout == "txt":
            files[f"{folder}.txt"] = writer.full_submission(filing, filer_details(plan), plan.prefix)
        else:
            files[f"{folder}/primary_doc.xml"] = writer.primary_document(filing, filer_details(plan))
            files[f"{folder}/infotable.xml"] = writer.information_table(filing.rows, plan.prefix)
            row = (filing.accession, filing.form_type, filing.period.isoformat(), filing.filed.isoformat())
            dated.setdefault(plan.cik, []).append(row)
    for cik, rows in dated.items():  # the filing dates `ras fetch` would record beside headerless filings
        files[f"sec13f/{cik}/{DATES_FILE}"] = filing_dates_text(rows).encode()
    return files


def write_tree(root: Path) -> None:
    """Replace `root` with a freshly generated fixture tree, then let the preview generator add its sources."""
    if root.exists() and any(root.iterdir()) and not (root / "packs.toml").exists():
        raise SystemExit(f"refusing to replace {root}: it is not empty and has no packs.toml")
    shutil.rmtree(root, ignore_errors=True)
    for name, content in source_files().items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    write_previews(root)


def write_previews(root: Path) -> None:
    """Call scripts/fixture_previews.py's `write_preview_sources(root)` when that script exists."""
    if not PREVIEWS_SCRIPT.exists():
        return
    spec = importlib.util.spec_from_file_location("fixture_previews", PREVIEWS_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if hasattr(module, "write_preview_sources"):
        module.write_preview_sources(root)


def tree_differences(expected: Path, actual: Path) -> list[str]:
    """Relative paths that are missing, extra or different in `actual`."""

    def listing(root: Path) -> set[str]:
        return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} if root.exists() else set()

    want, have = listing(expected), listing(actual)
    changed = {n for n in want & have if not filecmp.cmp(expected / n, actual / n, shallow=False)}
    return sorted(
        {f"missing {n}" for n in want - have} | {f"extra {n}" for n in have - want} | {f"differs {n}" for n in changed}
    )


def main(argv: list[str] | None = None) -> int:
    """Write the tree, or with --check compare it; the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="tree to write (default: the package's)")
    parser.add_argument("--check", action="store_true", help="exit 1 if the tree differs from what would be written")
    args = parser.parse_args(argv)
    if not args.check:
        write_tree(args.out)
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        write_tree(Path(scratch) / "source")
        differences = tree_differences(Path(scratch) / "source", args.out)
    for line in differences:
        print(line)
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
