"""The N largest filers of the Form 13F data sets by reported value (packs.toml `[copycat] largest = N`), at the newest
quarter end the sets hold: managers of the pack like those it lists by CIK alone.

A filer ranks by its original holdings report for the quarter end (SUBMISSIONTYPE 13F-HR, REPORTTYPE 13F HOLDINGS
REPORT or 13F COMBINATION REPORT: the reports with an information table), by its summary page's TABLEVALUETOTAL, ties
by CIK ascending, as bench/largest.py ranks the real set. Amendments do not rank: a NEW HOLDINGS amendment's summary
page totals only the rows it adds, and a restatement may come in a set months later, so a rank made of the originals
does not move as later sets arrive. A filer's later original for the quarter replaces its earlier one (as in `books`).
The value is in dollars by our 13F reader's rule: thousands when filed before 2023-01-03, dollars after, unless only
the other unit gives plausible prices (`rules.unit_by_price`, with the report's median price per share from
INFOTABLE, as the sets' books are read): real filers still report thousands after 2023 and would rank 1,000 times
too low.

The quarter end ranked is the newest for which the sets hold at least 1/COVERED as many filers' original reports as
for the quarter end they hold most for. A set holds the reports filed in its window: most of one quarter end's (its
45-day deadline falls inside the window) beside late ones of earlier quarters (the 01mar2025-31may2025 set holds
7,988 originals for 2025-03-31 and 153 for 2024-12-31); but a calendar-quarter set (`2023q1`, filings made January to
March) may also hold the few reports of its own quarter end filed on its last day. The newest period with reports
would then rank a handful of early filers; the rule ranks the quarter end the sets hold whole.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from datetime import date
from fractions import Fraction
from pathlib import Path

from builder.errors import SourceError
from builder.records import SourceProblem, ValueUnit
from builder.selection import Passed, Ranked, Selection
from builder.sources.datasets.filers import SetFiling, read_filings
from builder.sources.datasets.infotable import aggregate_infotable
from builder.sources.datasets.members import Archive, DatasetError
from builder.sources.files import DATASETS, hidden, relative
from builder.sources.sec13f.rules import unit_by_price

COVERED = 2  # see the module's docstring: a quarter end with half the reports of the best-covered one is whole enough
HOLDINGS = frozenset({"13F HOLDINGS REPORT", "13F COMBINATION REPORT"})  # the report types with an information table
Listing = Sequence[tuple[str, Sequence[SetFiling]]]  # each zip (source-relative) with its holdings reports, name order
Medians = Callable[[Collection[str]], Mapping[str, Mapping[int, float]]]  # zips → their medians by accession key


def largest_filers(
    count: int, listing: Listing, medians_of: Medians, as_of: date | None, versions: int = 1
) -> Selection | None:
    """The `count` largest filers of the sets in `listing` (the filings made by `as_of`), `medians_of` giving the
    median prices of the zips that hold the ranked reports; None when the sets hold no original holdings report.
    A filer is taken only with an original holdings report for each of the `versions` quarter ends the pack
    publishes, up to the ranked one, that the sets hold whole (a young filer would leave the pack without a common
    quarter to publish): one lacking any is passed over, and the next largest taken."""
    found = _originals(listing, as_of)
    whole = _whole(filing for _, filing in found)
    if not whole:
        return None
    quarter = whole[-1]
    latest: dict[str, tuple[str, SetFiling]] = {}
    for path, filing in found:
        known = latest.get(filing.cik)
        if filing.period == quarter and (known is None or _order(filing) > _order(known[1])):
            latest[filing.cik] = (path, filing)
    medians = medians_of({path for path, _ in latest.values()})
    ranked = sorted((_ranked(path, f, medians[path]) for path, f in latest.values()), key=lambda r: (-r.value, r.cik))
    window = tuple(whole[-versions:])  # what the pack publishes, as far as the sets can say who filed it
    filed: dict[str, set[date]] = {}
    for _, filing in found:
        filed.setdefault(filing.cik, set()).add(filing.period)
    taken: list[Ranked] = []
    passed: list[Passed] = []
    for rank, filer in enumerate(ranked, start=1):
        if len(taken) == count:
            break
        lacking = tuple(q for q in window if q not in filed[filer.cik])
        if lacking:
            passed.append(Passed(replace(filer, rank=rank), lacking))
        else:
            taken.append(replace(filer, rank=rank))
    return Selection(count, quarter, len(ranked), tuple(taken), tuple(passed))


def _whole(reports: Iterable[SetFiling]) -> list[date]:
    """The quarter ends the sets hold whole (reports of at least 1/COVERED as many filers as of the best covered
    one), oldest first."""
    filers = Counter(period for period, _ in {(report.period, report.cik) for report in reports})
    most = max(filers.values(), default=0)
    return sorted(period for period, count in filers.items() if count * COVERED >= most)


def ranked_quarter(reports: Iterable[SetFiling]) -> date | None:
    """The quarter end the selection ranks (see the module's docstring): the newest the sets hold whole; None without
    reports."""
    whole = _whole(reports)
    return whole[-1] if whole else None


def in_zips(root: Path, count: int, as_of: date | None, versions: int = 1) -> Selection | None:
    """The selection from the zips under `root`'s sec13f-datasets/ as they lie, read without the publish's cache (for
    `ras fetch`): every zip's three small tables, and INFOTABLE only of the zips that hold the ranked reports, for
    their median prices. SourceError naming the zip when one cannot be read."""

    def reports(path: str) -> list[SetFiling]:
        with _archive(root, path) as archive:
            return read_filings(archive)[0]

    def medians(path: str) -> Mapping[int, float]:
        with _archive(root, path) as archive, archive.open("INFOTABLE.tsv") as stream:
            return aggregate_infotable(stream).medians

    zips = sorted(relative(p, root) for p in (root / DATASETS).glob("*.zip") if not hidden(p.name))
    listing = [(path, reports(path)) for path in zips]
    return largest_filers(count, listing, lambda paths: {path: medians(path) for path in paths}, as_of, versions)


@contextmanager
def _archive(root: Path, path: str) -> Iterator[Archive]:
    """The zip at `path` under `root`, open; SourceError naming it when it cannot be read."""
    try:
        with (root / path).open("rb") as handle:
            archive = Archive(handle)
            try:
                yield archive
            finally:
                archive.close()
    except OSError as exc:
        raise SourceError([SourceProblem(path, f"cannot be read ({exc.strerror})")]) from exc
    except DatasetError as exc:
        raise SourceError([SourceProblem(path, str(exc))]) from exc


def _originals(listing: Listing, as_of: date | None) -> list[tuple[str, SetFiling]]:
    """Every original holdings report with a summary page, filed by `as_of`, with its zip (a later set's re-upload of
    an accession replaces the earlier's)."""
    found: dict[str, tuple[str, SetFiling]] = {}
    for path, filings in listing:
        for filing in filings:
            cover = filing.cover
            if filing.form_type != "13F-HR" or cover is None or cover.report_type.upper() not in HOLDINGS:
                continue
            if cover.value_total is not None and (as_of is None or filing.filed <= as_of):
                found[filing.accession] = (path, filing)
    return list(found.values())


def _order(filing: SetFiling) -> tuple[date, str]:
    return filing.filed, filing.accession


def _ranked(path: str, filing: SetFiling, medians: Mapping[int, float]) -> Ranked:
    """The filer of `filing` and the value its summary page reports, in dollars."""
    text = filing.cover.value_total if filing.cover is not None else None
    total = int(text) if text and text.isdigit() else 0  # an empty total reports nothing
    median = medians.get(filing.key)
    unit = unit_by_price(None if median is None else Fraction(median), filing.filed, path).unit
    return Ranked(filing.cik, total * (1000 if unit is ValueUnit.THOUSANDS else 1), filing.accession, path)
