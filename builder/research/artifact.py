"""The 13f-copycat PackArtifact: one per common quarter, every manager's book and its change."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from datetime import date
from typing import Final, TypeVar

from builder.records import Amendment, CorporateAction, Filing, ManagerConfig, Security, Sources, Witnesses
from builder.research.caveats import ManagerQuarter, version_warnings
from builder.research.changes import Changes, Ended, book_changes, unknown_changes
from builder.research.changes.actions import action_records
from builder.research.changes.carry import legs_between
from builder.research.changes.side import Side
from builder.research.coverage import quarter_coverage
from builder.research.evidence import Evidence, decide, digest, narrowed, pack_witnesses
from builder.research.holdings import Holding, QuarterBook, QuarterBooks, edgar_url
from builder.research.quarters import filing_deadline, previous_quarter
from builder.research.schema import (
    ArtifactFiling,
    ArtifactManager,
    Change,
    OtherHolding,
    PackArtifact,
    Position,
    PositionName,
    SourceRow,
)
from builder.research.schema import Ended as EndedPosition
from builder.research.versions import PACK_ID
from builder.sources.files import DATASETS

ARTIFACT_SCHEMA: Final = "pack-artifact/2.0"
WEIGHT_DIGITS = 6  # weights are fractions of the book; 6 places resolve 1 dollar in a $1m book
# What an artifact is made of (artifact_inputs): its quarter, whether the sources are the fixture, each file behind it
# as (path, sha256), the pack's managers and the digest of the data sets' witnesses its evidence reads
ArtifactInputs = tuple[str, bool, list[tuple[str, str]], list[str], str]
Reader = Callable[[], PackArtifact | None]  # an earlier build's artifact, None when it is found damaged
Lender = Callable[[ArtifactInputs], Reader | None]  # see build_artifacts
Built = TypeVar("Built")  # what a caller keeps of each artifact made (built_artifacts)


@dataclasses.dataclass(frozen=True, slots=True)
class Made:
    """A quarter's artifact, and whether it was taken from an earlier build instead of built."""

    artifact: PackArtifact
    taken: bool


Task = Callable[[date], Made]
Spread = Callable[[Task, Sequence[date]], list[Built]]  # makes each quarter's artifact, in order, however it runs them


def in_turn(task: Task, quarters: Sequence[date]) -> list[Made]:
    """`task` of each quarter, one after the other (a caller may spread them over processes instead)."""
    return [task(quarter) for quarter in quarters]


def build_artifacts(
    sources: Sources, earlier: Lender | None = None, spread: Spread[Made] = in_turn
) -> list[PackArtifact]:
    """The PackArtifact of each quarter of the window every manager filed, oldest first, without version ids.

    `earlier(inputs)` may return what reads the artifact an earlier build made from the same `artifact_inputs` (with
    the same code), and that artifact is then taken instead of built, unless the reader finds it damaged (None): after
    a new quarter, every quarter but the newest. `spread(task, quarters)` makes each, every one independent of the
    rest: `[task(q) for q in quarters]`, in that order, however it runs them.
    """
    return [made.artifact for made in built_artifacts(sources, earlier, spread)]


def built_artifacts(sources: Sources, earlier: Lender | None, spread: Spread[Built]) -> list[Built]:
    """build_artifacts, each artifact as `spread` gives it (a caller may turn each into what it keeps of it as soon as
    it is made, where it is made: the release keeps them as compressed bytes). What `earlier` lends is read by the task
    too, so however `spread` runs the building it runs the reading."""
    builds = Builds(sources)
    quarters = quarter_coverage(sources).published
    lent = {q: earlier(artifact_inputs(q, sources, builds.books)) if earlier else None for q in quarters}

    def made(quarter: date) -> Made:
        read = lent[quarter]
        found = read() if read is not None else None
        return Made(found, True) if found is not None else Made(builds.built(quarter), False)

    return spread(made, quarters)


class Builds:
    """What the artifacts of a window's quarters share, each made when first asked for and let go once no later
    quarter (in order, however they are spread) asks for it: each book's Side (a quarter end is one version's current
    book, the next one's prior and its trend), each quarter end's securities.csv rows, and the pack's own books as
    witnesses."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        self.books = QuarterBooks(sources.filings)
        self._alive = filed_at(sources.filings)
        self._sides: dict[tuple[str, date], Side | None] = {}
        self._dated: dict[date, Dated] = {}  # per quarter end, every CUSIP's securities.csv row, looked up once
        self._own: dict[date, Witnesses] = {}  # per quarter end, the pack's own books as witnesses

    def dated(self, end: date) -> Dated:
        found = self._dated.get(end)
        if found is None:
            found = self._dated[end] = Dated(self.sources.securities, end)
        return found

    def side(self, key: tuple[str, date]) -> Side | None:
        """The book's Side, None when the manager did not file for that quarter end."""
        if key not in self._sides:
            found = self.books.get(key)
            alive = self._alive.get(key[1], frozenset())
            self._sides[key] = _side(found, self.dated(key[1]), alive) if found else None
        return self._sides[key]

    def positions(self, key: tuple[str, date], only: Container[str] | None) -> dict[str, Long]:
        """The book's long positions by key, only those keyed in `only` unless it is None. Made each time they are
        asked for (a book's all as the current one, those it no longer holds as the prior one) and let go with the
        manager's entry: one quarter end's are some 300 MB at 2,000 managers."""
        return _long_positions(self.books[key], self.dated(key[1]), only)

    def witnessed(self, quarter: date) -> Witnesses:
        if quarter not in self._own:
            keys = [(m.cik, quarter) for m in self.sources.copycat.managers if (m.cik, quarter) in self.books]
            self._own[quarter] = pack_witnesses((cik, q, _lots(self.side((cik, q)))) for cik, q in keys)
        return self._own[quarter]

    def built(self, quarter: date) -> PackArtifact:
        """The quarter's artifact; what no later quarter reads is let go first."""
        evidence = quarter_evidence(
            self.sources, quarter, version_witnesses(self.sources, self.books, quarter), self.witnessed
        )
        for done in [end for end in self._own if end < quarter]:  # the next quarter asks for this one's only
            del self._own[done]
        # an artifact reads the Sides of its quarter end and the two before it; the quarters after it no earlier ones
        oldest = previous_quarter(previous_quarter(quarter))
        for key in [key for key in self._sides if key[1] < oldest]:
            del self._sides[key]
        for end in [end for end in self._dated if end < oldest]:
            del self._dated[end]
        return build_artifact(quarter, self, evidence)


def version_witnesses(sources: Sources, books: QuarterBooks, quarter: date) -> Witnesses | None:
    """The data sets' witnesses of the version of `quarter` (evidence.narrowed): at the quarter end before and at
    `quarter`, of the securities the pack's books hold at either."""
    ends = (previous_quarter(quarter), quarter)
    keys = [(manager.cik, end) for manager in sources.copycat.managers for end in ends]
    return narrowed(sources.witnesses, ends, (row.cusip for key in keys for f in books.filings(key) for row in f.rows))


def quarter_evidence(
    sources: Sources, quarter: date, witnesses: Witnesses | None, own: Callable[[date], Witnesses]
) -> Evidence:
    """What the holders of each security show between the previous quarter end and `quarter`: `witnesses`, the Form
    13F data sets' filers (version_witnesses), where the sets cover both quarter ends, else the pack's own managers
    (`own(quarter end)`: the pack_witnesses of their books at that quarter end)."""
    before = previous_quarter(quarter)
    if witnesses is None:
        ends = [own(before), own(quarter)]
        witnesses = dataclasses.replace(
            ends[1],
            quarters={q: w.quarters[q] for q, w in zip((before, quarter), ends, strict=True) if q in w.quarters},
            filers={q: w.filers[q] for q, w in zip((before, quarter), ends, strict=True) if q in w.filers},
        )
    return decide(witnesses, before, quarter, issuers(sources, quarter))


def _lots(side: Side | None) -> Iterable[tuple[str, int, int]]:
    """(cusip, shares, value) of each long-equity holding of a book (its Side's lots, in the holdings' order)."""
    assert side is not None, "a book of the pack's filings has its Side"
    return [(lot.cusip, lot.shares, lot.value) for lot in side.lots.values()]


def issuers(sources: Sources, quarter: date) -> Callable[[str, str], bool]:
    """Whether two CUSIPs are securities of one issuer: the same CUSIP issuer code, or one position at the quarter
    end (securities.csv). Names are no proof: Liberty Global and Liberty Media share their first word."""
    same = one_position(sources, quarter)
    return lambda a, b: a[:6] == b[:6] or same(a, b)


def one_position(sources: Sources, quarter: date) -> Callable[[str, str], bool]:
    """Whether securities.csv keys two CUSIPs as one position at `quarter`: the same ticker then (a FIGI link)."""

    def ticker(cusip: str) -> str | None:
        security = sources.securities.get(cusip)
        return security.at(quarter)[0].ticker if security else None

    return lambda a, b: ticker(a) is not None and ticker(a) == ticker(b)


def with_evidence(
    legs: Sequence[CorporateAction], evidence: Evidence, one: Callable[[str, str], bool], after: date, through: date
) -> list[CorporateAction]:
    """The hand records and the derived ones of (`after`, `through`], a hand record of a security in that window
    overriding what evidence derived for it; a new CUSIP share for share that `one` already counts as the same
    position (securities.csv links them) needs no record."""
    window = [leg for leg in legs if after < leg.effective <= through]
    written = {leg.cusip for leg in window if leg.cusip} | {leg.new_cusip for leg in window if leg.new_cusip}
    derived = [
        leg
        for leg in evidence.legs
        if leg.cusip not in written
        and leg.new_cusip not in written
        and not (leg.ratio == 1 and leg.new_cusip and one(leg.cusip, leg.new_cusip))
    ]
    return [*legs, *derived]


def artifact_inputs(quarter: date, sources: Sources, books: QuarterBooks) -> ArtifactInputs:
    """What the artifact of `quarter` is made of, as JSON: every source file that is neither a 13F filing nor a data
    set (packs.toml, securities.csv, corporate_actions.csv, …), the 13F files behind each manager's book of the quarter
    and of the two before (the price trend of the one before the previous quarter is read by the undecided rules),
    with the filing_dates.csv that dates any of them (a data-set zip for a book read from a set), the pack's managers
    (`largest` takes them from the sets), and the digest of the version's witnesses in the sets."""
    sha256 = {file.path: file.sha256 for file in sources.files}
    before = previous_quarter(quarter)
    keys = [(m.cik, q) for m in sources.copycat.managers for q in (quarter, before, previous_quarter(before))]
    filed = {path for key in keys for f in books.filings(key) for path in _files_behind(f)}
    others = [path for path in sha256 if not path.startswith(("sec13f/", f"{DATASETS}/"))]
    return (
        quarter.isoformat(),
        sources.fixture,
        [(path, sha256[path]) for path in sorted({*others, *filed})],
        [repr(manager) for manager in sources.copycat.managers],
        digest(version_witnesses(sources, books, quarter)),
    )


def _files_behind(filing: Filing) -> list[str]:
    """The files of a filing (a data set's zip for a filing read from one: `<zip>#<accession>`), and the record that
    dates it when one does (`filed_from` is then "<path>:<line>")."""
    record = filing.filed_from.rpartition(":")[0]
    return [*(path.partition("#")[0] for path in filing.source.split(" + ")), *([record] if record else [])]


def build_artifact(quarter: date, builds: Builds, evidence: Evidence) -> PackArtifact:
    """One version's artifact; `versionId` is assigned by the release (it depends on what was published).

    `evidence`: what the holders of the securities decide since the previous quarter end."""
    sources, prior_end = builds.sources, previous_quarter(quarter)
    actions = with_evidence(sources.corporate_actions, evidence, one_position(sources, quarter), prior_end, quarter)
    parts = [_manager_quarter(manager, quarter, builds, actions, evidence) for manager in sources.copycat.managers]
    return {
        "schema": ARTIFACT_SCHEMA,
        "packId": PACK_ID,
        "versionId": "",
        "quarter": quarter.isoformat(),
        "previousQuarter": prior_end.isoformat(),
        "filingDeadline": filing_deadline(quarter).isoformat(),
        "fixture": sources.fixture,
        "managers": [part.entry for part in parts],
        "corporateActions": action_records(actions, prior_end, quarter),
        "warnings": version_warnings(sources, parts),
    }


def _manager_quarter(
    manager: ManagerConfig, quarter: date, builds: Builds, actions: Sequence[CorporateAction], evidence: Evidence
) -> ManagerQuarter:
    """One manager's entry of the quarter's artifact, with the books its warnings are made from."""
    key, prior = (manager.cik, quarter), (manager.cik, previous_quarter(quarter))
    current, before = builds.side(key), builds.side(prior)
    assert current is not None, "every manager of a published quarter has its book"
    later = dataclasses.replace(current, evidence=evidence)
    changes: Changes
    if before is None:
        changes = unknown_changes(later)
    else:
        trend = builds.side((manager.cik, previous_quarter(prior[1])))
        earlier = dataclasses.replace(before, previous=trend.lots if trend else {})
        changes = book_changes(earlier, later, legs_between(actions, prior[1], quarter, manager.cik))
    # the prior book's positions are read for those that ended only (a few of its 150 or so)
    ended = {entry.key for entry in changes.ended}
    book, previous = builds.books[key], builds.books.get(prior)
    entry = _manager_entry(
        manager,
        book,
        previous,
        builds.positions(key, None),
        builds.positions(prior, ended) if ended else {},
        changes,
        builds.dated(quarter),
    )
    return ManagerQuarter(book, previous if previous and omits_positions(previous) else None, entry)


def filed_at(filings: Sequence[Filing]) -> dict[date, frozenset[str]]:
    """Per quarter end, the CUSIPs some filing of the pack lists for it: securities that were still there.

    Only the quarter itself counts (not later ones), so an artifact depends on no filing beyond its quarter."""
    by_quarter: dict[date, set[str]] = {}
    for filing in filings:
        by_quarter.setdefault(filing.period, set()).update(row.cusip for row in filing.rows)
    return {quarter: frozenset(cusips) for quarter, cusips in by_quarter.items()}


class Dated(dict[str, tuple[Security | None, bool]]):
    """CUSIP → its securities.csv row at one quarter end and whether that row's dates cover it (Security.at), or
    (None, False) when unmapped; each looked up when first asked, for every book of the quarter. `named` maps a
    CUSIP to its position key then (the ticker, or the CUSIP when unmapped), likewise."""

    def __init__(self, securities: Mapping[str, Security], quarter: date) -> None:
        super().__init__()
        self.securities, self.quarter = securities, quarter
        self.named = _Keys(self)

    def __missing__(self, cusip: str) -> tuple[Security | None, bool]:
        security = self.securities.get(cusip)
        found = self[cusip] = security.at(self.quarter) if security else (None, False)
        return found


class _Keys(dict[str, str]):
    def __init__(self, dated: Dated) -> None:
        super().__init__()
        self.dated = dated

    def __missing__(self, cusip: str) -> str:
        security = self.dated[cusip][0]
        key = self[cusip] = security.ticker if security else cusip
        return key


def _side(book: QuarterBook, dated: Dated, alive: frozenset[str]) -> Side:
    """A quarter book as the change rules see it: long-equity lots by CUSIP, keys at its quarter end, omissions."""
    lots = {h.cusip: h for h in book.holdings if h.long_equity}  # each a Lot already
    # asked for every pair the rules weigh: a dict's own lookup, each CUSIP's key found once for the quarter
    return Side(book.period, lots, dated.named.__getitem__, omits_positions(book), alive=alive, cik=book.cik)


def omits_positions(book: QuarterBook) -> bool:
    """Whether the book's table omits positions under confidential treatment: a filing says so and no NEW HOLDINGS
    amendment filed after it (which discloses what was omitted) is applied."""
    omitting = [i for i, f in enumerate(book.filings) if f.confidential_omitted]
    if not omitting:
        return False
    return not any(f.amendment is Amendment.NEW_HOLDINGS for f in book.filings[omitting[-1] + 1 :])


def _manager_entry(
    manager: ManagerConfig,
    book: QuarterBook,
    previous: QuarterBook | None,
    current: Mapping[str, Long],
    prior: Mapping[str, Long],
    changes: Changes,
    rows: Dated,
) -> ArtifactManager:
    book_value = sum(p.value for p in current.values())
    positions = [_position(p, changes.held[key], book_value) for key, p in sorted(current.items())]
    ended = [_ended(entry, prior, previous, rows.securities) for entry in changes.ended]
    return {
        "id": manager.id,
        "name": manager.name,
        "cik": manager.cik,
        "fictional": manager.fictional,
        "previousQuarterFiled": previous is not None,
        "bookValue": book_value,
        "filings": [_filing_entry(f, manager.fictional) for f in book.filings],
        "positions": positions,
        "ended": ended,
        "otherHoldings": [_other(h, rows) for h in book.holdings if not h.long_equity],
    }


@dataclasses.dataclass(slots=True)
class Long:
    """A long-equity position while its holdings are summed: the first holding's security, the shares, value and
    source rows of every CUSIP keyed to it."""

    key: str
    holding: Holding
    security: Security | None
    dated: bool  # the securities.csv row's dates cover the quarter end
    shares: int
    value: int
    sources: list[SourceRow]

    def name(self) -> PositionName:
        security = self.security
        return {
            "ticker": self.key,
            "mapped": security is not None,
            "tickerAsOf": "quarter-end" if self.dated else "current" if security else "unmapped",
            "cusip": self.holding.cusip,
            "issuer": security.name if security and security.name else self.holding.issuer,
        }


def _long_positions(book: QuarterBook, rows: Dated, only: Container[str] | None = None) -> dict[str, Long]:
    """Long-equity holdings keyed by the ticker valid at the quarter end (or by CUSIP when unmapped), only those
    keyed in `only` unless it is None; CUSIPs sharing a ticker are summed."""
    positions: dict[str, Long] = {}
    named = rows.named
    for holding in book.holdings:
        if not holding.long_equity:
            continue
        key = named[holding.cusip]
        if only is not None and key not in only:
            continue
        entry = positions.get(key)
        if entry is None:
            security, dated = rows[holding.cusip]
            positions[key] = Long(key, holding, security, dated, holding.shares, holding.value, _sources(holding))
        elif entry.holding.cusip != holding.cusip:
            entry.shares += holding.shares
            entry.value += holding.value
            entry.sources += _sources(holding)
    return positions


def _position(long: Long, change: Change, book_value: int) -> Position:
    """A position with its weight in the book and its change."""
    return {
        **long.name(),
        "shares": long.shares,
        "value": long.value,
        "weight": round(long.value / book_value, WEIGHT_DIGITS) if book_value else 0.0,
        "change": change,
        "sources": long.sources,
    }


def _sources(holding: Holding) -> list[SourceRow]:
    return [{"accession": s.accession, "row": s.row} for s in holding.sources]


def _ended(
    entry: Ended, prior: Mapping[str, Long], previous: QuarterBook | None, securities: Mapping[str, Security]
) -> EndedPosition:
    """A position the book no longer holds, as the previous quarter named it; its sources are that quarter's rows."""
    before = prior.get(entry.key)
    if before is not None:
        return {**before.name(), "change": entry.change, "sources": before.sources}
    # received through a corporate action and never filed: cite the rows it came from
    rows = [
        s
        for h in (previous.holdings if previous else ())
        if h.cusip in entry.origins and h.long_equity
        for s in _sources(h)
    ]
    security = securities.get(entry.cusips[0])
    return {
        "ticker": entry.key,
        "mapped": security is not None,
        "tickerAsOf": "current" if security else "unmapped",
        "cusip": entry.cusips[0],
        "issuer": security.name if security else "",
        "change": entry.change,
        "sources": rows,
    }


def _other(holding: Holding, rows: Dated) -> OtherHolding:
    security = rows[holding.cusip][0]
    return {
        "ticker": security.ticker if security else holding.cusip,
        "mapped": security is not None,
        "cusip": holding.cusip,
        "issuer": holding.issuer,
        "putCall": holding.put_call,
        "shareType": holding.share_type,
        "shares": holding.shares,
        "value": holding.value,
        "sources": _sources(holding),
    }


def _filing_entry(filing: Filing, fictional: bool) -> ArtifactFiling:
    return {
        "accession": filing.accession,
        "url": None if fictional else edgar_url(filing),
        "formType": filing.form_type,
        "amendment": filing.amendment,
        "amendmentNo": filing.amendment_no,
        "filed": filing.filed.isoformat(),
        "filedFrom": filing.filed_from,
        "source": filing.source,
        "unit": filing.unit,
        "unitRule": filing.unit_rule,
        "rows": len(filing.rows),
        "tableEntryTotal": filing.table_entry_total,
        "tableValueTotal": filing.table_value_total,
    }
