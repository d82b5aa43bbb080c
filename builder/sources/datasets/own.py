"""A pack manager's own 13F filings read from the Form 13F data sets: every holdings report of its CIK that no file
under sec13f/<cik>/ holds, made by our 13F reader's rules from the set's SUBMISSION, COVERPAGE, SUMMARYPAGE and
INFOTABLE rows, so that a quarter read from the sets is the quarter read from the filing, to the dollar.

A file on disk wins (it may be newer than the last published set): a filing whose accession a file holds is not
read from the sets, nor any filing of a quarter whose file gives no accession number (it could not be told apart).
A re-uploaded set (`_2`) repeats accessions: the later set's wins, as in `books`. A row or a SUBMISSION line of a
pack manager's filing that cannot be read is fatal, naming the zip, the table and the line; a witness's only counts.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pyarrow as pa

from builder.records import FILED_FROM_DATASET, Filing, SourceProblem
from builder.sources.datasets.filers import SetFiling
from builder.sources.datasets.members import line_of
from builder.sources.datasets.read import OwnRead
from builder.sources.datasets.reader import OpenSet, OpenSets
from builder.sources.datasets.rows import SetRow, filing_rows
from builder.sources.sec13f.document import MAX_ROW_ERRORS_LISTED, primary_document, table_row
from builder.sources.sec13f.rules import build_filing
from builder.sources.sec13f.safexml import DocumentError


@dataclass(frozen=True, slots=True)
class OwnAsk:
    """Whose filings a publish reads from the sets, and which the files on disk already give."""

    ciks: frozenset[str]  # 10 digits: the pack's managers not pinned to their filing files
    on_disk: frozenset[str]  # accession numbers the files under sec13f/ hold
    undated: frozenset[tuple[str, date]]  # (cik, quarter end) of a file that gives no accession number


def own_filings(sets: OpenSets, ask: OwnAsk, root: Path) -> OwnRead:
    """The filings of `ask.ciks` that the sets hold and the files do not."""
    chosen: dict[str, tuple[int, SetFiling]] = {}  # accession → the set (its index) it is read from, and its filing
    problems: list[SourceProblem] = []
    for index, opened in enumerate(sets.sets):
        for filing in opened.extract.filings:
            asked = filing.cik in ask.ciks and (filing.cik, filing.period) not in ask.undated
            if asked and filing.accession not in ask.on_disk:
                chosen[filing.accession] = (index, filing)  # a later set's re-upload replaces it
        problems += _unreadable(opened, ask.ciks)
    found: list[Filing] = []
    for index, opened in enumerate(sets.sets):
        mine = [filing for at, filing in chosen.values() if at == index]
        if not mine:
            continue
        problems += _broken(opened, {filing.accession for filing in mine}, root)
        try:
            rows = filing_rows(opened.rows, (filing.key for filing in mine))
        except (OSError, pa.ArrowException) as exc:
            problems.append(SourceProblem(opened.file.path, f"its cached rows cannot be read ({exc})"))
            continue
        for filing in mine:
            made = _filing(opened, filing, rows.get(filing.key, []), root)
            if isinstance(made, Filing):
                found.append(made)
            else:
                problems.append(made)
    return OwnRead(tuple(sorted(found, key=lambda f: (f.cik, f.period, f.filed, f.accession))), tuple(problems))


def _filing(opened: OpenSet, filing: SetFiling, rows: list[SetRow], root: Path) -> Filing | SourceProblem:
    """The Filing one set gives of one of its holdings reports, or what is wrong with it."""
    source = f"{opened.file.path}#{filing.accession}"
    cover = filing.cover
    try:
        primary = primary_document(
            submission_type=filing.form_type,
            cik=filing.cik,
            period=filing.period,
            signature_date=None,
            cover=(None, None, None, None, None)
            if cover is None
            else (cover.manager_name, cover.report_type, cover.is_amendment, cover.amendment_no, cover.amendment_type),
            summary=None
            if cover is None or cover.entry_total is None
            else (cover.entry_total, cover.value_total, cover.confidential_omitted),
        )
    except DocumentError as exc:
        return SourceProblem(opened.file.path, f"COVERPAGE.tsv: {filing.accession}: {exc.message}")
    held, errors = [], []
    for index, (sk, texts) in enumerate(rows, start=1):
        try:
            held.append(table_row(index, texts))
        except DocumentError as exc:
            errors.append((sk, index, exc.message))
    if errors:
        return _bad_rows(opened, filing, errors, root)
    try:
        return build_filing(
            primary,
            tuple(held),
            source=source,
            accession=filing.accession,
            filed=filing.filed,
            dated_by=FILED_FROM_DATASET,
        )
    except DocumentError as exc:
        return SourceProblem(opened.file.path, f"{filing.accession}: {exc.message}")


def _bad_rows(
    opened: OpenSet, filing: SetFiling, errors: list[tuple[int | None, int, str]], root: Path
) -> SourceProblem:
    """The first malformed rows of a pack manager's filing, the first one's line found in INFOTABLE.tsv."""
    sk, _, _ = errors[0]
    line = None if sk is None else line_of(root / opened.file.path, "INFOTABLE.tsv", f"{filing.accession}\t{sk}\t")
    listed = "; ".join(f"row {index}: {message}" for _, index, message in errors[:MAX_ROW_ERRORS_LISTED])
    more = len(errors) - MAX_ROW_ERRORS_LISTED
    message = f"INFOTABLE.tsv{f':{line}' if line else ''}: {filing.accession} has malformed rows: {listed}"
    return SourceProblem(opened.file.path, message + (f"; and {more} more" if more > 0 else ""))


def _unreadable(opened: OpenSet, ciks: Collection[str]) -> list[SourceProblem]:
    """The SUBMISSION lines of a pack manager's holdings reports that cannot be read."""
    mine = [u for u in opened.extract.unreadable if u.cik.isdigit() and u.cik.zfill(10) in ciks]
    return [SourceProblem(opened.file.path, f"SUBMISSION.tsv:{u.line}: {u.message}") for u in mine]


def _broken(opened: OpenSet, accessions: Collection[str], root: Path) -> list[SourceProblem]:
    """The INFOTABLE lines of a pack manager's filing that could not be split into the table's columns."""
    problems = []
    for broken in opened.extract.broken:
        if broken.accession in accessions:
            line = line_of(root / opened.file.path, "INFOTABLE.tsv", broken.text)
            where = f"INFOTABLE.tsv{f':{line}' if line else ''}"
            message = (
                f"{where}: a row of {broken.accession} does not split into the table's 15 columns: {broken.text!r}"
            )
            problems.append(SourceProblem(opened.file.path, message))
    return problems
