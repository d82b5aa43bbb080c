"""securities.csv as `ras securities` keeps it: which CUSIPs it lacks, resolver rows appended atomically."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from pathlib import Path

from builder.errors import SourceError
from builder.fetch.archive import write_atomically
from builder.fetch.openfigi import Resolved, Unresolved
from builder.records import SourceProblem
from builder.sources.pack_filings import read_pack_filings
from builder.sources.packs import PacksConfig

SECURITIES = "securities.csv"
UNRESOLVED = "securities-unresolved.csv"  # CUSIPs OpenFIGI could not map, and when it was asked
RECHECK_AFTER = timedelta(days=90)  # a CUSIP OpenFIGI did not know is asked again after a quarter
HEADER = ("cusip", "ticker", "name", "figi", "source")
RESOLVER = "openfigi"  # the `source` of rows the resolver wrote; an operator's rows have their own or none


def held_cusips(root: Path, config: PacksConfig) -> set[str]:
    """Every CUSIP the managers' filings in the source tree list (their files', and the Form 13F data sets' where no
    file holds a filing)."""
    filings = read_pack_filings(root, config, witnesses=False).read
    if filings.problems:
        raise SourceError(filings.problems)
    return {row.cusip for filing in filings.filings for row in filing.rows}


def wanted_cusips(root: Path, config: PacksConfig, today: date) -> tuple[list[str], list[str]]:
    """CUSIPs of the source filings that securities.csv lacks: (to ask OpenFIGI, skipped as recently unknown)."""
    known = _known(root)
    recent = {cusip for cusip, (checked, _) in read_unresolved(root).items() if today - checked < RECHECK_AFTER}
    held = sorted(held_cusips(root, config) - known)
    return [c for c in held if c not in recent], [c for c in held if c in recent]


def _known(root: Path) -> set[str]:
    """CUSIPs securities.csv has a row for (publish checks the rows themselves; a header alone is fine here)."""
    path = root / SECURITIES
    if not path.exists():
        return set()
    lines = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))
    header = [name.strip().lower() for name in lines[0]] if lines else []
    if "cusip" not in header:
        raise SourceError(
            [SourceProblem(SECURITIES, f"{SECURITIES} header lacks cusip (it needs cusip,ticker,name)", 1)]
        )
    column = header.index("cusip")
    return {line[column].strip().upper() for line in lines[1:] if len(line) > column}


def read_unresolved(root: Path) -> dict[str, tuple[date, str]]:
    """CUSIP → (the day OpenFIGI last could not map it, its reason)."""
    path = root / UNRESOLVED
    if not path.exists():
        return {}
    rows = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"), newline=""))
    return {row["cusip"]: (date.fromisoformat(row["checked"]), row["reason"]) for row in rows}


def append_resolved(root: Path, resolved: Iterable[Resolved]) -> int:
    """Append resolver rows to securities.csv (adding the figi and source columns if missing), atomically."""
    rows = sorted(resolved, key=lambda r: r.cusip)
    path = root / SECURITIES
    existing = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline=""))) if path.exists() else []
    header = [name.strip().lower() for name in existing[0]] if existing else []
    header += [name for name in HEADER if name not in header]
    lines = [header, *(record + [""] * (len(header) - len(record)) for record in existing[1:] if record)]
    for row in rows:
        values = {"cusip": row.cusip, "ticker": row.ticker, "name": row.name, "figi": row.figi, "source": RESOLVER}
        lines.append([values.get(name, "") for name in header])
    write_atomically(root, SECURITIES, _csv(lines))
    return len(rows)


def record_unresolved(root: Path, unresolved: Iterable[Unresolved], today: date) -> None:
    """Remember CUSIPs OpenFIGI did not map, so the next run does not ask again within RECHECK_AFTER."""
    unresolved = list(unresolved)
    if not unresolved:
        return
    checked = read_unresolved(root)
    checked.update({item.cusip: (today, item.reason) for item in unresolved})
    lines = [["cusip", "checked", "reason"], *([c, d.isoformat(), r] for c, (d, r) in sorted(checked.items()))]
    write_atomically(root, UNRESOLVED, _csv(lines))


def _csv(lines: Iterable[Sequence[str]]) -> bytes:
    out = io.StringIO(newline="")
    csv.writer(out, lineterminator="\n").writerows(lines)
    return out.getvalue().encode("utf-8")
