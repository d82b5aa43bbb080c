"""The 13f-copycat PackArtifact: one per common quarter, every manager's book and its change."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date

from builder.records import Filing, ManagerConfig, ScopeWarning, Security, Sources
from builder.research.coverage import quarter_coverage
from builder.research.holdings import Holding, QuarterBook, QuarterBooks
from builder.research.quarters import filing_deadline, previous_quarter

PACK_ID = "13f-copycat"
ARTIFACT_SCHEMA = "pack-artifact/1.0"
WEIGHT_DIGITS = 6  # weights are fractions of the book; 6 places resolve 1 dollar in a $1m book
# The one vocabulary of change kinds: the artifact's positions and exits, views, diffs, explanations and the
# agent payload all name a change of shares between two quarters with these words.
CHANGE_KINDS = ("new", "added", "reduced", "unchanged", "exited", "unknown")
BOUGHT = frozenset({"new", "added"})
SOLD = frozenset({"reduced", "exited"})


def build_artifacts(sources: Sources, earlier: Callable[[list], dict | None] | None = None) -> list[dict]:
    """The PackArtifact of each quarter of the window every manager filed, oldest first, without version ids.

    `earlier(inputs)` may return the artifact an earlier build made from the same `artifact_inputs` (with the
    same code), which is then taken instead of built: after a new quarter, every quarter but the newest.
    """
    books = QuarterBooks(sources.filings)
    positions: dict[tuple[str, date], dict[str, dict] | None] = {}

    def long_positions(key: tuple[str, date]) -> dict[str, dict] | None:
        # Each book's positions once: a quarter is one version's current book and the next version's prior one.
        if key not in positions:
            positions[key] = _long_positions(books[key], sources.securities) if key in books else None
        return positions[key]

    artifacts = []
    for quarter in quarter_coverage(sources).published:
        found = earlier(artifact_inputs(quarter, sources, books)) if earlier else None
        artifacts.append(found if found is not None else build_artifact(quarter, sources, books, long_positions))
    return artifacts


def artifact_inputs(quarter: date, sources: Sources, books: QuarterBooks) -> list:
    """What the artifact of `quarter` is made of, as JSON: every source file that is not a 13F filing (packs.toml,
    securities.csv, …) and the 13F files behind each manager's book of the quarter and of the one before."""
    sha256 = {file.path: file.sha256 for file in sources.files}
    keys = [(m.cik, q) for m in sources.copycat.managers for q in (quarter, previous_quarter(quarter))]
    filed = {path for key in keys for f in books.filings(key) for path in f.source.split(" + ")}
    others = [path for path in sha256 if not path.startswith("sec13f/")]
    return [quarter.isoformat(), sources.fixture, [[path, sha256[path]] for path in sorted({*others, *filed})]]


def build_artifact(
    quarter: date, sources: Sources, books: Mapping[tuple[str, date], QuarterBook],
    long_positions: Callable[[tuple[str, date]], dict[str, dict] | None],
) -> dict:
    """One version's artifact; `versionId` is assigned by the release (it depends on what was published)."""
    managers = []
    for manager in sources.copycat.managers:
        key, prior = (manager.cik, quarter), (manager.cik, previous_quarter(quarter))
        current = long_positions(key)
        assert current is not None, "every manager of a published quarter has its book"
        entry = _manager_entry(manager, books[key], books.get(prior), current, long_positions(prior), sources.securities)
        managers.append(entry)
    warnings = _version_warnings(sources, [books[(m.cik, quarter)] for m in sources.copycat.managers], managers)
    return {
        "schema": ARTIFACT_SCHEMA,
        "packId": PACK_ID,
        "versionId": "",
        "quarter": quarter.isoformat(),
        "previousQuarter": previous_quarter(quarter).isoformat(),
        "filingDeadline": filing_deadline(quarter).isoformat(),
        "fixture": sources.fixture,
        "managers": managers,
        "warnings": warnings,
    }


def _manager_entry(
    manager: ManagerConfig, book: QuarterBook, previous: QuarterBook | None,
    current: dict[str, dict], prior: dict[str, dict] | None, securities: Mapping[str, Security],
) -> dict:
    book_value = sum(p["value"] for p in current.values())
    positions = [_with_change(p, prior, book_value) for _, p in sorted(current.items())]
    exited = [] if prior is None else [_exit(p) for key, p in sorted(prior.items()) if key not in current]
    return {
        "id": manager.id,
        "name": manager.name,
        "cik": manager.cik,
        "fictional": manager.fictional,
        "previousQuarterFiled": previous is not None,
        "bookValue": book_value,
        "filings": [_filing_entry(f) for f in book.filings],
        "positions": positions,
        "exited": exited,
        "otherHoldings": [_other(h, securities) for h in book.holdings if not h.long_equity],
    }


def _long_positions(book: QuarterBook, securities: Mapping[str, Security]) -> dict[str, dict]:
    """Long-equity holdings keyed by ticker (or by CUSIP when unmapped); CUSIPs sharing a ticker are summed."""
    positions: dict[str, dict] = {}
    for holding in book.holdings:
        if not holding.long_equity:
            continue
        security = securities.get(holding.cusip)
        key = security.ticker if security else holding.cusip
        entry = positions.setdefault(key, _position(key, holding, security))
        if entry["cusip"] != holding.cusip:
            entry["shares"] += holding.shares
            entry["value"] += holding.value
            entry["sources"] += _sources(holding)
    return positions


def _position(key: str, holding: Holding, security: Security | None) -> dict:
    return {
        "ticker": key,
        "mapped": security is not None,
        "cusip": holding.cusip,
        "issuer": security.name if security and security.name else holding.issuer,
        "shares": holding.shares,
        "value": holding.value,
        "sources": _sources(holding),
    }


def _sources(holding: Holding) -> list[dict]:
    return [{"accession": s.accession, "row": s.row} for s in holding.sources]


def _with_change(position: dict, prior: Mapping[str, dict] | None, book_value: int) -> dict:
    weight = round(position["value"] / book_value, WEIGHT_DIGITS) if book_value else 0.0
    if prior is None:
        change = {"kind": "unknown", "previousShares": None, "shareDelta": None}
    else:
        before = prior[position["ticker"]]["shares"] if position["ticker"] in prior else None
        change = _change(before, position["shares"])
    return {**position, "weight": weight, "change": change}


def change_kind(before: int | None, after: int | None) -> str:
    """The kind of a change of shares: None is 'not held' (a position opened or closed)."""
    if before is None:
        return "new"
    if after is None:
        return "exited"
    return "added" if after > before else "reduced" if after < before else "unchanged"


def _change(before: int | None, after: int) -> dict:
    return {"kind": change_kind(before, after), "previousShares": before or 0, "shareDelta": after - (before or 0)}


def _exit(previous: dict) -> dict:
    return {
        "ticker": previous["ticker"],
        "mapped": previous["mapped"],
        "cusip": previous["cusip"],
        "issuer": previous["issuer"],
        "change": {"kind": change_kind(previous["shares"], None), "previousShares": previous["shares"],
                   "shareDelta": -previous["shares"]},
        "sources": previous["sources"],
    }


def _other(holding: Holding, securities: Mapping[str, Security]) -> dict:
    security = securities.get(holding.cusip)
    return {
        "ticker": security.ticker if security else holding.cusip,
        "cusip": holding.cusip,
        "issuer": holding.issuer,
        "putCall": holding.put_call,
        "shareType": holding.share_type,
        "shares": holding.shares,
        "value": holding.value,
        "sources": _sources(holding),
    }


def _filing_entry(filing: Filing) -> dict:
    return {
        "accession": filing.accession,
        "formType": filing.form_type,
        "amendment": filing.amendment.value,
        "amendmentNo": filing.amendment_no,
        "filed": filing.filed.isoformat(),
        "source": filing.source,
        "unit": filing.unit.value,
        "unitRule": filing.unit_rule,
        "rows": len(filing.rows),
        "tableEntryTotal": filing.table_entry_total,
        "tableValueTotal": filing.table_value_total,
    }


def _version_warnings(sources: Sources, books: Sequence[QuarterBook], managers: Sequence[dict]) -> list[dict]:
    """Scope warnings of the filings behind this version, unmapped CUSIPs, and the fixture label."""
    found: list[ScopeWarning] = [w for book in books for f in book.filings for w in f.warnings]
    found += [w for w in sources.warnings if w.code == "fixture-data"]
    unmapped = sorted({p["cusip"] for m in managers for p in m["positions"] if not p["mapped"]})
    found += [ScopeWarning("unmapped-cusip", f"CUSIP {c} is not in securities.csv; keyed by CUSIP", "securities.csv") for c in unmapped]
    unique = {(w.code, w.source, w.message): w for w in found}
    return [{"code": w.code, "message": w.message, "source": w.source} for _, w in sorted(unique.items())]
