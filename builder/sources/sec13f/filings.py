"""Reads 13F filings from a source tree: every file read, refused or skipped by rule, documents paired."""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from builder.cores import forked_map
from builder.records import Filing, HoldingRow, ManagerConfig, ScopeWarning, SourceFile, SourceProblem
from builder.sources.files import DEFAULT_LIMITS, Limits, hidden, read_bounded, relative, walk
from builder.sources.sec13f.cache import ParseCache
from builder.sources.sec13f.document import InformationTable, PrimaryDocument
from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from builder.sources.sec13f.filing_dates import RecordedDate, parse_filing_dates
from builder.sources.sec13f.pairing import LooseDocument, Pair, pair_documents
from builder.sources.sec13f.parsed import READ_FORMS, Envelope, Parsed, parse_file
from builder.sources.sec13f.rules import build_filing, subject
from builder.sources.sec13f.safexml import DocumentError
from builder.sources.sec13f.submission import accession_in

# Forms skipped by rule, with why: a notice has no holdings of its own; a confidential treatment request is
# not public, its holdings are published later by a 13F-HR/A NEW HOLDINGS amendment (read like any other).
_SKIPPED_FORMS = {
    "13F-NT": ("skipped-notice", "is a 13F notice: its holdings are reported by other managers, it has none"),
    "13F-CTR": (
        "skipped-confidential-request",
        "is a confidential treatment request, not a public report: its holdings are read from the later "
        "13F-HR/A NEW HOLDINGS amendment",
    ),
}


@dataclass(frozen=True, slots=True)
class FilingsRead:
    """Everything read from a tree of 13F files: filings, warnings, files skipped by rule, fatal problems."""

    filings: tuple[Filing, ...]  # sorted by (cik, period, filed, amendment_no, accession)
    warnings: tuple[ScopeWarning, ...]  # every filing's warnings, in filing order
    skipped: tuple[ScopeWarning, ...]  # files or folders skipped by rule, with the reason
    problems: tuple[SourceProblem, ...]  # fatal: the caller reports all of them and aborts
    files: tuple[SourceFile, ...]  # every file read, path relative to `base`


@dataclass(frozen=True, slots=True)
class _Parts:
    """The documents of one filing, found together, before the rules make a Filing of them."""

    source: str
    primary: PrimaryDocument
    rows: tuple[HoldingRow, ...]
    accession: str
    filed: date | None  # from a submission header


_Outcome = _Parts | LooseDocument | ScopeWarning | SourceProblem


def read_filing_tree(
    directory: Path, base: Path, cache: ParseCache | None = None, limits: Limits = DEFAULT_LIMITS
) -> FilingsRead:
    """Reads every file under `directory` (nested freely, any names), paths reported relative to `base`.

    With a `cache`, a file whose bytes were parsed before is taken from it instead of parsed again. A file is
    read only up to its limit (`limits`, by its path from `base`).
    """
    if not directory.is_dir():
        problem = SourceProblem(relative(directory, base), f"{directory.name} is not a directory of filings")
        return _result([], [], [problem], [])
    files: list[SourceFile] = []
    outcomes: list[_Outcome] = []
    recorded: dict[str, RecordedDate] = {}
    for path in walk(directory):
        source = relative(path, base)
        data = _read(path, source, limits)
        if isinstance(data, SourceProblem):
            outcomes.append(data)
            continue
        sha256 = hashlib.sha256(data).hexdigest()
        files.append(SourceFile(source, sha256, len(data)))
        if path == directory / DATES_FILE:  # EDGAR's filing dates, beside the filings (ras fetch writes it)
            recorded, problems = parse_filing_dates(data, source)
            outcomes += problems
            continue
        outcomes.append(_outcome(source, data, sha256, cache))
    return _gathered(outcomes, files, recorded)


def read_copycat_filings(
    root: Path,
    managers: Sequence[ManagerConfig],
    cache: ParseCache | None = None,
    limits: Limits = DEFAULT_LIMITS,
    workers: int = 1,
    elsewhere: bool = False,
    others: bool = True,
) -> FilingsRead:
    """Reads root/sec13f/<cik>/…: configured managers' folders, each filing's CIK checked against its folder.

    The folders are read on `workers` processes (builder.cores), their reads taken in folder order: the same
    records on any number. `elsewhere`: the managers' filings may come from the Form 13F data sets too, so a
    manager without a folder, or without sec13f/ at all, is no problem here (the caller asks `absent_managers`
    once it has read the sets). `others`: a folder of no manager here is skipped with a warning (False: left to the
    caller, whose pack has more managers than it asks for here: see `unconfigured_folders`)."""
    folder = root / "sec13f"
    if not folder.is_dir():
        missing = (
            [] if elsewhere else [SourceProblem("sec13f", "sec13f/ is missing: it holds sec13f/<cik>/ per manager")]
        )
        return _result([], [], missing, [])
    wanted = {manager.cik.strip().zfill(10): manager for manager in managers}
    filings: list[Filing] = []
    folders: dict[str, str] = {}
    skipped: list[ScopeWarning] = []
    problems: list[SourceProblem] = []
    chosen: list[tuple[Path, str]] = []  # the folders to read, with their CIKs (two names may give one)
    for entry in sorted(folder.iterdir()):
        if hidden(entry.name):
            continue
        source, cik = relative(entry, root), _folder_cik(entry)
        if cik is None:
            what = "folder is not named by a CIK" if entry.is_dir() else "is not in a manager's folder sec13f/<cik>/"
            problems.append(SourceProblem(source, f"{entry.name} {what}"))
        elif cik not in wanted:
            skipped += [_unconfigured(entry, source, cik)] if others else []
        else:
            folders.setdefault(cik, source)
            chosen.append((entry, cik))

    def read(entry: Path) -> tuple[FilingsRead, tuple[int, int]]:
        counted = cache.counting() if cache is not None else None  # this folder's hits and parses, wherever read
        found = read_filing_tree(entry, root, counted, limits)
        return found, (counted.hits, counted.parsed) if counted is not None else (0, 0)

    reads = []
    done = forked_map(read, [entry for entry, _ in chosen], workers)
    for (found, (hits, parsed)), (_, cik) in zip(done, chosen, strict=True):
        if cache is not None:
            cache.hits, cache.parsed = cache.hits + hits, cache.parsed + parsed
        problems += [_foreign(filing, cik) for filing in found.filings if filing.cik != cik]
        filings += [filing for filing in found.filings if filing.cik == cik]
        reads.append(found)
    if not elsewhere:
        problems += absent_managers(managers, folders, {filing.cik for filing in filings}, datasets=False)
    problems = [*problems, *(problem for read in reads for problem in read.problems)]
    skipped += [entry for read in reads for entry in read.skipped]
    return _result(filings, skipped, problems, [file for read in reads for file in read.files])


def _read(path: Path, source: str, limits: Limits) -> bytes | SourceProblem:
    if path.is_dir():
        return SourceProblem(source, f"{path.name} is a link to a folder, not followed: copy its files in instead")
    return read_bounded(path, source, limits.sec13f)


def _outcome(source: str, data: bytes, sha256: str, cache: ParseCache | None) -> _Outcome:
    try:
        return _classified(source, cache.parse(data, sha256) if cache is not None else parse_file(data))
    except DocumentError as exc:
        return SourceProblem(source, f"{subject(source)} {exc.message}", exc.line)


def _classified(source: str, document: Parsed) -> _Outcome:
    if isinstance(document, Envelope):
        return _from_envelope(source, document)
    if isinstance(document, InformationTable):
        return LooseDocument(source, accession_in(source), document)
    skip = _skip(source, document.submission_type)
    if skip is not None:
        return skip
    accession = accession_in(source) or f"local:{source}"  # a stable id when no accession number is known
    if document.table is not None:
        return _Parts(source, document, document.table, accession, None)
    if document.summary is not None and document.summary.entry_total == 0:
        return _Parts(source, document, (), accession, None)  # a report of no rows needs no table
    return LooseDocument(source, accession_in(source), document)


def _from_envelope(source: str, envelope: Envelope) -> _Parts | ScopeWarning:
    skip = _skip(source, envelope.submission_type)
    if skip is not None:
        return skip
    assert envelope.primary is not None, "parse_file reads the documents of every holdings report"
    return _Parts(source, envelope.primary, envelope.rows, envelope.accession, envelope.filed)


def _skip(source: str, form: str) -> ScopeWarning | None:
    kind = _SKIPPED_FORMS.get(form.removesuffix("/A"))
    if kind is not None:
        return ScopeWarning(kind[0], f"{subject(source)} ({form}) {kind[1]}", source)
    if form in READ_FORMS:
        return None
    raise DocumentError(f"is a {form} submission, not a 13F-HR or 13F-HR/A")


def _gathered(outcomes: list[_Outcome], files: list[SourceFile], recorded: dict[str, RecordedDate]) -> FilingsRead:
    problems = [outcome for outcome in outcomes if isinstance(outcome, SourceProblem)]
    skipped = [outcome for outcome in outcomes if isinstance(outcome, ScopeWarning)]
    parts = [outcome for outcome in outcomes if isinstance(outcome, _Parts)]
    pairs, alone = pair_documents([outcome for outcome in outcomes if isinstance(outcome, LooseDocument)])
    parts += [_joined(pair) for pair in pairs]
    problems += [_unpaired(d) for d in alone if not _partner_failed(d, problems, files)]
    built = [_filing(part, recorded.get(part.accession)) for part in parts]
    problems += [outcome for outcome in built if isinstance(outcome, SourceProblem)]
    filings = [outcome for outcome in built if isinstance(outcome, Filing)]
    return _result(filings, skipped, problems, files)


def _filing(part: _Parts, recorded: RecordedDate | None) -> Filing | SourceProblem:
    dated = (recorded.filed, recorded.record) if recorded else None
    try:
        return build_filing(
            part.primary, part.rows, source=part.source, accession=part.accession, filed=part.filed, recorded=dated
        )
    except DocumentError as exc:
        return SourceProblem(_first(part.source), f"{subject(part.source)} {exc.message}", exc.line)


def _joined(pair: Pair) -> _Parts:
    primary, table = pair
    assert isinstance(primary.document, PrimaryDocument) and isinstance(table.document, InformationTable)
    accession = primary.accession or table.accession or f"local:{primary.source}"
    return _Parts(f"{primary.source} + {table.source}", primary.document, table.document.rows, accession, None)


def _partner_failed(document: LooseDocument, problems: list[SourceProblem], files: list[SourceFile]) -> bool:
    """True when the document's evident partner failed to read: that failure is reported, not a second one."""
    folder = posixpath.dirname(document.source)
    failed = [p.source for p in problems if posixpath.dirname(p.source) == folder]
    present = {f.path for f in files if posixpath.dirname(f.path) == folder} | set(failed)
    same_accession = document.accession is not None and any(accession_in(f) == document.accession for f in failed)
    return bool(failed) and (len(present) == 2 or same_accession)


def _unpaired(document: LooseDocument) -> SourceProblem:
    if isinstance(document.document, InformationTable):
        why = "is an information table with no primary document: its manager, quarter and filing date are unknown"
    else:
        why = "is a primary document whose information table was not found"
    how = "(paired by accession number in the path, alone together in a folder, or a common file-name prefix)"
    return SourceProblem(document.source, f"{subject(document.source)} {why} {how}")


def _duplicates(filings: list[Filing]) -> list[SourceProblem]:
    """The filings that repeat an earlier one's accession, or its whole content (header and every row)."""
    problems = []
    by_accession: dict[str, Filing] = {}
    # Rows are compared only between filings whose header agrees: hashing every row of every filing costs more
    # than the whole comparison, and a repeated header is rare.
    by_header: dict[tuple[str, date, date, int, int], list[Filing]] = {}
    for filing in sorted(filings, key=lambda f: f.source):
        header = (filing.cik, filing.period, filing.filed, filing.amendment_no, len(filing.rows))
        same = by_accession.get(filing.accession)
        if same is None:
            by_accession[filing.accession] = filing
            same = next((f for f in by_header.get(header, ()) if f.rows == filing.rows), None)
            if same is None:
                by_header.setdefault(header, []).append(filing)
                continue
        message = f"{subject(filing.source)} is the same filing as {same.source}: remove one of them"
        problems.append(SourceProblem(_first(filing.source), message))
    return problems


def _first(source: str) -> str:
    return source.split(" + ")[0]


def _folder_cik(entry: Path) -> str | None:
    if not entry.is_dir() or not entry.name.isascii() or not entry.name.isdigit() or len(entry.name) > 10:
        return None
    return entry.name.zfill(10)


def _unconfigured(entry: Path, source: str, cik: str) -> ScopeWarning:
    message = f"{entry.name}/ holds CIK {cik}, which is no manager of packs.toml: not read"
    return ScopeWarning("skipped-unconfigured-manager", message, source)


def unconfigured_folders(root: Path, ciks: Collection[str]) -> list[ScopeWarning]:
    """The warning of each folder under sec13f/ whose CIK is none of `ciks` (10 digits): skipped, not read."""
    folder = root / "sec13f"
    entries = sorted(e for e in folder.iterdir() if not hidden(e.name)) if folder.is_dir() else []
    found = ((entry, relative(entry, root), _folder_cik(entry)) for entry in entries)
    return [_unconfigured(entry, source, cik) for entry, source, cik in found if cik is not None and cik not in ciks]


def joined(*reads: FilingsRead) -> FilingsRead:
    """Several reads of one tree as one (a problem both report, once)."""
    return _result(
        [f for read in reads for f in read.filings],
        [w for read in reads for w in read.skipped],
        [p for read in reads for p in read.problems],
        [f for read in reads for f in read.files],
    )


def _foreign(filing: Filing, cik: str) -> SourceProblem:
    message = f"{subject(filing.source)} is a filing of CIK {filing.cik}, not of its folder's CIK {cik}"
    return SourceProblem(_first(filing.source), message)


def folders_of(root: Path) -> dict[str, str]:
    """CIK → the source path of its folder under sec13f/ (the first, when two names give one CIK)."""
    folder = root / "sec13f"
    found: dict[str, str] = {}
    for entry in sorted(folder.iterdir()) if folder.is_dir() else ():
        cik = _folder_cik(entry)
        if cik is not None and not hidden(entry.name):
            found.setdefault(cik, relative(entry, root))
    return found


def absent_managers(
    managers: Sequence[ManagerConfig], folders: dict[str, str], found: set[str], *, datasets: bool
) -> list[SourceProblem]:
    """A problem for each manager no filing was found for (`datasets`: the Form 13F data sets were read too)."""
    problems = []
    elsewhere = " and none in the Form 13F data sets (sec13f-datasets/)" if datasets else ""
    for manager in sorted(managers, key=lambda m: m.cik):
        cik = manager.cik.strip().zfill(10)
        if cik in found:
            continue
        who = f"{manager.name} (CIK {cik})" if manager.name else f"CIK {cik}"
        if cik in folders:
            problems.append(SourceProblem(folders[cik], f"{who} has no 13F-HR filing in it{elsewhere}"))
        else:
            message = f"{who} has no folder sec13f/{cik}/ (leading zeros optional){elsewhere}"
            problems.append(SourceProblem(f"sec13f/{cik}", message))
    return problems


def _result(
    filings: Sequence[Filing],
    skipped: Sequence[ScopeWarning],
    problems: Sequence[SourceProblem],
    files: Sequence[SourceFile],
) -> FilingsRead:
    ordered = sorted(filings, key=lambda f: (f.cik, f.period, f.filed, f.amendment_no, f.accession))
    unique = {*problems, *_duplicates(ordered)}  # a set: a tree read inside a larger read reports once
    return FilingsRead(
        filings=tuple(ordered),
        warnings=tuple(warning for filing in ordered for warning in filing.warnings),
        skipped=tuple(sorted(skipped, key=lambda w: (w.source, w.code))),
        problems=tuple(sorted(unique, key=lambda p: (p.source, p.line or 0, p.message))),
        files=tuple(sorted(files, key=lambda f: f.path)),
    )
