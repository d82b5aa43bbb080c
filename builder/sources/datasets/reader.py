"""`read_witnesses`: the zips of sec13f-datasets/ → `Witnesses`, each zip read once and then from the cache."""

from __future__ import annotations

import contextlib
import hashlib
from datetime import date
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from builder.cores import die_with_parent
from builder.records import SourceFile, SourceProblem, Witnesses
from builder.sources.datasets.books import Books, books
from builder.sources.datasets.cache import SetExtract, entry_path, read_entry, write_entry
from builder.sources.datasets.filers import columns, read_filings
from builder.sources.datasets.infotable import COLUMNS, aggregate_infotable
from builder.sources.datasets.members import Archive, DatasetError
from builder.sources.datasets.read import DatasetsRead, Warmed
from builder.sources.files import DATASETS, Limit, Limits, hidden, relative

HASH_CHUNK = 1024 * 1024


def read_witnesses(
    root: Path,
    cusips: frozenset[str],
    cache_dir: Path | None,
    limits: Limits,
    as_of: date | None = None,
    warmed: Warmed | None = None,
) -> DatasetsRead:
    """Every filer's long-equity holding of `cusips` at each quarter end in the data sets under `root`, from the
    filings made by `as_of` (all when None); `warmed`: the zips already hashed and the cache entries just written
    (see `hashed_sets` and `warm`)."""
    folder = root / DATASETS
    if not folder.is_dir():
        return DatasetsRead(None, (), (), ())
    found = warmed.sets if warmed is not None else hashed_sets(root, limits)
    extracts, files, problems, cached = [], [], [], 0
    for path, file in found.items():
        try:
            if isinstance(file, DatasetError):
                raise file
            extract, hit = _extract(path, file.sha256, cusips, cache_dir)
        except DatasetError as exc:
            problems.append(SourceProblem(relative(path, root), str(exc)))
            continue
        files.append(file)
        extracts.append((file.path, extract))
        cached += hit
    if problems:
        return DatasetsRead(None, tuple(files), tuple(problems), ())
    made = books(extracts, as_of)
    witnesses = Witnesses("sec13f-datasets", tuple(s for s, _ in extracts), made.quarters, made.filers)
    written = warmed.written if warmed is not None else 0
    return DatasetsRead(witnesses, tuple(files), (), (_report(extracts, cached - written, witnesses, made),))


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
    return [(path, entry) for path, entry in entries if not entry.exists()]


def warm(missing: list[tuple[Path, Path]], parent: int) -> None:
    """Write the cache entry of each zip (run beside the 13F parse, in a process of its own, so a cold publish
    reads both at once, and killed with it: `parent`). A zip that cannot be read is left for read_witnesses to
    report."""
    die_with_parent(parent)
    for path, entry in missing:
        with contextlib.suppress(DatasetError):
            write_entry(entry, read_set(path))


def _extract(path: Path, sha256: str, cusips: frozenset[str], cache_dir: Path | None) -> tuple[SetExtract, bool]:
    """The zip's extract narrowed to `cusips`, and whether it came from the cache."""
    entry = None if cache_dir is None else entry_path(cache_dir, sha256)
    if entry is not None:
        found = read_entry(entry, cusips)
        if found is not None:
            return found, True
    whole = read_set(path)
    if entry is not None:
        write_entry(entry, whole)
    asked = pc.is_in(whole.holdings["cusip"], value_set=pa.array(sorted(cusips), pa.string()))
    return SetExtract(whole.filings, whole.holdings.filter(asked), whole.medians, whole.rows, whole.bad), False


def read_set(path: Path) -> SetExtract:
    """Everything one data-set zip yields; DatasetError when it is not a whole, well-formed set."""
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise DatasetError(f"cannot be read ({exc.strerror})") from exc
    with handle:
        archive = Archive(handle)
        try:
            filings, bad = read_filings(archive)
            columns(archive, "INFOTABLE.tsv", COLUMNS)
            with archive.open("INFOTABLE.tsv") as stream:
                table = aggregate_infotable(stream)
        finally:
            archive.close()
    return SetExtract(tuple(filings), table.holdings, table.medians, table.rows, table.bad + bad)


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
