"""The zips of sec13f-datasets/, each read once and then from the cache: `open_sets` hashes and opens them (each
set's filings, and the file of its every row, from which `own` reads a pack manager's filings), `OpenSets.witnesses`
gives every filer's holdings of the pack's CUSIPs (`read_witnesses` does both for a caller that only wants those)."""

from __future__ import annotations

import contextlib
import hashlib
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from builder.cores import die_with_parent
from builder.records import SourceFile, SourceProblem, Witnesses
from builder.sources.datasets.books import Books, books
from builder.sources.datasets.cache import SetExtract, entry_path, read_entry, rows_path, write_entry
from builder.sources.datasets.filers import columns, read_filings
from builder.sources.datasets.infotable import COLUMNS, aggregate_infotable
from builder.sources.datasets.members import Archive, DatasetError
from builder.sources.datasets.read import DatasetsRead, Warmed
from builder.sources.datasets.rows import COLUMNS as ROW_COLUMNS
from builder.sources.datasets.rows import RowsWriter
from builder.sources.files import DATASETS, Limit, Limits, hidden, relative
from builder.sources.sec13f.cache import TEMPORARY_PREFIX

HASH_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class OpenSet:
    """One data-set zip, read: what it yields (`holdings` all of them when just read, none when from the cache), its
    every-row file, whether it came from the cache."""

    file: SourceFile
    extract: SetExtract
    rows: Path
    entry: Path | None  # its cache entry (None: no cache; `extract.holdings` then holds every CUSIP's)
    cached: bool


class OpenSets:
    """The data-set zips of a source tree, each read (or taken from the cache); problems name the zips that cannot
    be read."""

    def __init__(self, found: list[OpenSet], files: list[SourceFile], problems: list[SourceProblem]) -> None:
        self.sets, self.files, self.problems = found, files, problems

    def witnesses(self, cusips: frozenset[str], as_of: date | None, written: int = 0) -> DatasetsRead:
        """Every filer's long-equity holding of `cusips` at each quarter end, from the filings made by `as_of`; none,
        with the problems, when a zip cannot be read."""
        if self.problems:
            return DatasetsRead(None, tuple(self.files), tuple(self.problems), ())
        extracts = [(opened.file.path, _narrowed(opened, cusips)) for opened in self.sets]
        made = books(extracts, as_of)
        sources = tuple(s for s, _ in extracts)
        witnesses = Witnesses("sec13f-datasets", sources, made.quarters, made.filers, made.behind)
        cached = sum(opened.cached for opened in self.sets) - written
        return DatasetsRead(witnesses, tuple(self.files), (), (_report(extracts, cached, witnesses, made),))


@contextlib.contextmanager
def open_sets(root: Path, cache_dir: Path | None, limits: Limits, warmed: Warmed | None = None) -> Iterator[OpenSets]:
    """The zips under `root`'s sec13f-datasets/, each read or taken from the cache (`warmed`: the zips already hashed,
    see `hashed_sets` and `warm`). Without a cache their every-row files live in a folder of their own until the
    block ends."""
    with tempfile.TemporaryDirectory(prefix="ras-datasets-") as scratch:
        found = warmed.sets if warmed is not None else hashed_sets(root, limits)
        opened, files, problems = [], [], []
        for path, file in found.items():
            try:
                if isinstance(file, DatasetError):
                    raise file
                opened.append(_open(path, file, cache_dir, Path(scratch)))
            except DatasetError as exc:
                problems.append(SourceProblem(relative(path, root), str(exc)))
                continue
            files.append(file)
        yield OpenSets(opened, files, problems)


def read_witnesses(
    root: Path,
    cusips: frozenset[str],
    cache_dir: Path | None,
    limits: Limits,
    as_of: date | None = None,
    warmed: Warmed | None = None,
) -> DatasetsRead:
    """Every filer's long-equity holding of `cusips` at each quarter end in the data sets under `root`, from the
    filings made by `as_of` (all when None)."""
    if not (root / DATASETS).is_dir():
        return DatasetsRead(None, (), (), ())
    with open_sets(root, cache_dir, limits, warmed) as sets:
        return sets.witnesses(cusips, as_of, warmed.written if warmed is not None else 0)


def hashed_sets(root: Path, limits: Limits) -> dict[Path, SourceFile | DatasetError]:
    """Every data-set zip under `root`, in name order, with its provenance or why it cannot be read."""
    found: dict[Path, SourceFile | DatasetError] = {}
    for path in sorted(p for p in (root / DATASETS).glob("*.zip") if not hidden(p.name)):
        try:
            found[path] = _source_file(path, relative(path, root), limits.datasets)
        except DatasetError as exc:
            found[path] = exc
    return found


def unwarmed(sets: dict[Path, SourceFile | DatasetError], cache_dir: Path) -> list[tuple[Path, Path]]:
    """The zips whose cache entry is missing, each with the entry's path."""
    entries = (
        (path, entry_path(cache_dir, file.sha256)) for path, file in sets.items() if isinstance(file, SourceFile)
    )
    return [(path, entry) for path, entry in entries if not (entry.exists() and rows_path(entry).exists())]


def warm(missing: list[tuple[Path, Path]], parent: int) -> None:
    """Write the cache entry of each zip (run beside the 13F parse, in a process of its own, so a cold publish
    reads both at once, and killed with it: `parent`). A zip that cannot be read is left for the read after it to
    report."""
    die_with_parent(parent)
    for path, entry in missing:
        with contextlib.suppress(DatasetError, OSError):
            _fresh(path, entry, entry.parent)


def _open(path: Path, file: SourceFile, cache_dir: Path | None, scratch: Path) -> OpenSet:
    """The zip's extract from its cache entry, else read from the zip (and the entry written)."""
    entry = None if cache_dir is None else entry_path(cache_dir, file.sha256)
    if entry is not None:
        found = read_entry(entry, None)
        if found is not None:
            return OpenSet(file, found, rows_path(entry), entry, True)
    extract, rows = _fresh(path, entry, scratch if entry is None else entry.parent)
    return OpenSet(file, extract, rows, None, False)


def _fresh(path: Path, entry: Path | None, folder: Path) -> tuple[SetExtract, Path]:
    """Read the zip whole: its extract and its every-row file (moved into the cache entry when there is one)."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=folder, prefix=TEMPORARY_PREFIX, suffix=".parquet", delete=False) as handle:
        rows = Path(handle.name)
    try:
        extract = read_set(path, rows)
    except BaseException:
        rows.unlink(missing_ok=True)
        raise
    if entry is None:
        return extract, rows
    write_entry(entry, extract, rows)
    return extract, rows_path(entry) if rows_path(entry).exists() else rows


def _narrowed(opened: OpenSet, cusips: frozenset[str]) -> SetExtract:
    """The set's extract with the holdings of `cusips` only."""
    extract = opened.extract
    if opened.cached and opened.entry is not None:
        found = read_entry(opened.entry, cusips)
        if found is None:
            raise DatasetError(f"{opened.file.path}: its cache entry changed while it was read")
        return found
    asked = pc.is_in(extract.holdings["cusip"], value_set=pa.array(sorted(cusips), pa.string()))
    return SetExtract(
        extract.filings,
        extract.holdings.filter(asked),
        extract.medians,
        extract.rows,
        extract.bad,
        extract.unreadable,
        extract.broken,
    )


def read_set(path: Path, rows: Path | None = None) -> SetExtract:
    """Everything one data-set zip yields, every INFOTABLE row written to `rows` when given; DatasetError when it is
    not a whole, well-formed set."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise DatasetError(f"cannot be read ({exc.strerror})") from exc
    with handle:
        archive = Archive(handle)
        try:
            filings, unreadable = read_filings(archive)
            columns(archive, "INFOTABLE.tsv", tuple(dict.fromkeys((*COLUMNS, *(ROW_COLUMNS if rows else ())))))
            writer = RowsWriter(rows) if rows is not None else None
            try:
                with archive.open("INFOTABLE.tsv") as stream:
                    table = aggregate_infotable(stream, writer)
            finally:
                if writer is not None:
                    writer.close()
        finally:
            archive.close()
    bad = table.bad + len(unreadable)
    return SetExtract(tuple(filings), table.holdings, table.medians, table.rows, bad, tuple(unreadable), table.broken)


def _source_file(path: Path, source: str, limit: Limit) -> SourceFile:
    """Provenance, hashed in chunks (a set is ~100 MB); DatasetError past the limit."""
    digest, size = hashlib.sha256(), 0
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(HASH_CHUNK):
                size += len(chunk)
                if size > limit.bytes:
                    raise DatasetError(f"is over the {limit.bytes >> 20} MiB limit — raise [limits] {limit.key}")
                digest.update(chunk)
    except OSError as exc:
        raise DatasetError(f"cannot be read ({exc.strerror})") from exc
    return SourceFile(source, digest.hexdigest(), size)


def _report(extracts: list[tuple[str, SetExtract]], cached: int, witnesses: Witnesses, made: Books) -> str:
    rows, bad = sum(e.rows for _, e in extracts), sum(e.bad for _, e in extracts)
    securities = len({cusip for held in witnesses.quarters.values() for cusip in held})
    filers = len({cik for held in witnesses.quarters.values() for h in held.values() for cik in h.ciks})
    return (
        f"read {len(extracts)} data sets ({_count(rows)} rows, {cached} from cache): {securities:,} "
        f"securities × {len(witnesses.quarters)} quarter ends, {filers:,} filers"
        + (f"; {bad:,} bad rows skipped" if bad else "")
        + (f"; {made.by_price:,} filings in the other unit by implied price" if made.by_price else "")
        + (f"; {made.later:,} filings made after the as-of date left out" if made.later else "")
    )


def _count(rows: int) -> str:
    return f"{rows / 1e6:,.1f} million" if rows >= 1_000_000 else f"{rows:,}"
