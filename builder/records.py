"""Domain records shared by the source readers and the research code (plain, frozen data)."""

from __future__ import annotations

import enum
import inspect
import sys
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from fractions import Fraction
from operator import attrgetter
from typing import Any, Literal

from builder.selection import Selection

FormType = Literal["13F-HR", "13F-HR/A"]  # holdings reports, combination reports included (reportType says which)
ShareType = Literal["SH", "PRN"]  # eis_13FDocument.xsd SHRSPRNTYPE: shares or principal amount
PutCall = Literal["Put", "Call"]  # eis_13FDocument.xsd PUT_CALL
Origin = Literal[
    "sec13f-datasets", "pack-filings"
]  # whose books witnessed a corporate action: every filer's, or the pack's


class Amendment(enum.StrEnum):
    """How a 13F filing relates to earlier filings for the same quarter (Form 13F cover page)."""

    ORIGINAL = "original"
    RESTATEMENT = "restatement"  # replaces the quarter's table
    NEW_HOLDINGS = "new-holdings"  # adds rows to the quarter's table


class ValueUnit(enum.StrEnum):
    """The unit of the `value` column as filed."""

    DOLLARS = "dollars"
    THOUSANDS = "thousands"


@dataclass(frozen=True, slots=True)
class ScopeWarning:
    """A problem in the sources that does not stop the build but limits what the data says."""

    code: str  # stable, e.g. "summary-mismatch", "confidential-omitted", "unit-doubtful", "unmapped-cusip"
    message: str
    source: str  # source-relative path of the file it concerns ("" when it concerns no one file)


@dataclass(frozen=True, slots=True)
class HoldingRow:
    """One `infoTable` row as filed; `value` is in the filing's unit, not yet normalised."""

    row: int  # 1-based position in the information table
    issuer: str
    title_of_class: str
    cusip: str  # upper-case, 9 characters
    value: int
    shares: int  # sshPrnamt
    share_type: ShareType
    put_call: PutCall | None
    discretion: str
    other_managers: str  # "" when absent
    voting_sole: int
    voting_shared: int
    voting_none: int

    def __reduce__(self) -> tuple[Callable[..., HoldingRow], tuple[object, ...]]:
        # Pickle keeps shared objects only within one message, and a forked read sends its rows back in one
        # message per process: unpickled through `holding_row`, they share the receiver's strings again.
        return holding_row, (
            self.row,
            self.issuer,
            self.title_of_class,
            self.cusip,
            self.value,
            self.shares,
            self.share_type,
            self.put_call,
            self.discretion,
            self.other_managers,
            self.voting_sole,
            self.voting_shared,
            self.voting_none,
        )


SHARED_ROW_NUMBERS = 65_536  # row numbers held once each up to here: CPython itself shares only those up to 256
_ROW_NUMBERS: list[int] = []
_new_row = object.__new__


def slot_setters(cls: type, maker: Callable[..., object]) -> tuple[Callable[[object, Any], None], ...]:
    """The setter of each slot of `cls` (its own or a base's) that `maker`'s parameters name, in their order: a maker
    that sets a frozen slotted dataclass's fields with them skips the object.__setattr__ its __init__ makes per field
    (holding_row here; research.holdings makes every Holding and SourceRow of a book so)."""
    return tuple(getattr(cls, name).__set__ for name in inspect.signature(maker).parameters)


def holding_row(
    row: int,
    issuer: str,
    title_of_class: str,
    cusip: str,
    value: int,
    shares: int,
    share_type: ShareType,
    put_call: PutCall | None,
    discretion: str,
    other_managers: str,
    voting_sole: int,
    voting_shared: int,
    voting_none: int,
) -> HoldingRow:
    """A HoldingRow whose strings are the process's one copy of each (`sys.intern`: a tree's 750,000 rows name a
    few thousand securities), whose row number is the one object of that number and whose voting counts are its
    `shares` object when equal: the same values, about 210 bytes a row instead of 570 (bench/RESULTS.md)."""
    intern = sys.intern
    if 0 <= row < SHARED_ROW_NUMBERS:
        if row >= len(_ROW_NUMBERS):
            _ROW_NUMBERS.extend(range(len(_ROW_NUMBERS), row + 1))
        row = _ROW_NUMBERS[row]
    made = _new_row(HoldingRow)
    _SET_ROW(made, row)
    _SET_ISSUER(made, intern(issuer))
    _SET_TITLE(made, intern(title_of_class))
    _SET_CUSIP(made, intern(cusip))
    _SET_VALUE(made, value)
    _SET_SHARES(made, shares)
    _SET_TYPE(made, intern(share_type))
    _SET_PUT_CALL(made, None if put_call is None else intern(put_call))
    _SET_DISCRETION(made, intern(discretion))
    _SET_OTHERS(made, intern(other_managers))
    _SET_SOLE(made, shares if voting_sole == shares else voting_sole)
    _SET_SHARED(made, shares if voting_shared == shares else voting_shared)
    _SET_NONE(made, shares if voting_none == shares else voting_none)
    return made


# Each field's slot setter, by name (holding_row's arguments are the fields). A frozen dataclass's __init__ sets
# every field through object.__setattr__, which looks the slot up again each time: holding_row sets them directly,
# in 1.05 µs a row instead of 1.75 (it makes every row of a read, and each row of a forked read again when unpickled).
(
    _SET_ROW,
    _SET_ISSUER,
    _SET_TITLE,
    _SET_CUSIP,
    _SET_VALUE,
    _SET_SHARES,
    _SET_TYPE,
    _SET_PUT_CALL,
    _SET_DISCRETION,
    _SET_OTHERS,
    _SET_SOLE,
    _SET_SHARED,
    _SET_NONE,
) = slot_setters(HoldingRow, holding_row)


FILED_FROM_HEADER = "submission header"  # the SGML header's FILED AS OF DATE
FILED_FROM_SIGNATURE = "signatureDate (estimated)"  # neither header nor record: the day it was signed
FILED_FROM_DATASET = "Form 13F data set (FILING_DATE)"  # a filing read from the SEC's Form 13F data sets


@dataclass(frozen=True, slots=True)
class Filing:
    """One 13F-HR or 13F-HR/A: cover page, summary page and its information table."""

    source: str  # path of the file(s) relative to the source root, primary document first, joined by " + "
    accession: str  # accession number when known (full .txt, .nc, or a file name), else a stable id from `source`
    cik: str  # 10 digits, zero-padded
    manager_name: str
    form_type: FormType
    report_type: str  # "13F HOLDINGS REPORT" or "13F COMBINATION REPORT"
    period: date  # periodOfReport (quarter end)
    filed: date  # filing date: the header's FILED AS OF DATE, else EDGAR's recorded date, else signatureDate
    amendment: Amendment
    amendment_no: int  # 0 for an original
    unit: ValueUnit  # unit applied to `value` to normalise to dollars
    unit_rule: str  # how the unit was decided, e.g. "filed-before-2023-01-03", "implied-price-check"
    table_entry_total: int | None  # summaryPage/tableEntryTotal
    table_value_total: int | None  # summaryPage/tableValueTotal, in the filing's unit
    confidential_omitted: bool
    rows: tuple[HoldingRow, ...]
    warnings: tuple[ScopeWarning, ...] = ()
    # where `filed` comes from: FILED_FROM_HEADER, a record line, FILED_FROM_SIGNATURE, FILED_FROM_DATASET
    filed_from: str = FILED_FROM_HEADER

    def dollars(self, value: int) -> int:
        """A `value` of this filing in dollars."""
        return value * 1000 if self.unit is ValueUnit.THOUSANDS else value

    def __reduce__(self) -> tuple[Callable[..., Filing], tuple[object, ...]]:
        # The rows travel as columns. Pickle keeps every container of a message until the whole message is read:
        # a row's own tuple of values (or list of state) then stayed as long as the rows, and was freed between
        # them, a free block per row that the reading process kept.
        values = [getattr(self, name) for name in self.__slots__]
        values[_ROWS_FIELD] = _row_columns(self.rows)
        return _unpickled_filing, tuple(values)


_ROWS_FIELD = Filing.__slots__.index("rows")
_ROW_FIELDS = HoldingRow.__slots__
_ROW_VALUES = attrgetter(*_ROW_FIELDS)
_SHARES = _ROW_FIELDS.index("shares")
_VOTING = tuple(_ROW_FIELDS.index(name) for name in ("voting_sole", "voting_shared", "voting_none"))


def _row_columns(rows: tuple[HoldingRow, ...]) -> tuple[Any, ...] | None:
    """A filing's rows as 13 columns; the row numbers None when they count from 1, a voting count None when it
    equals the row's shares (pickle shares no int: it would come back a second object)."""
    if not rows:
        return None
    columns: list[Any] = list(zip(*map(_ROW_VALUES, rows), strict=True))
    if columns[0] == tuple(range(1, len(rows) + 1)):
        columns[0] = None
    for voting in _VOTING:
        counts = zip(columns[voting], columns[_SHARES], strict=True)
        columns[voting] = tuple(None if count == held else count for count, held in counts)
    return tuple(columns)


def _unpickled_filing(*values: Any) -> Filing:
    fields = list(values)
    columns = fields[_ROWS_FIELD]
    fields[_ROWS_FIELD] = () if columns is None else _rows_of(*columns)
    return Filing(*fields)


def _rows_of(numbers: tuple[int, ...] | None, *columns: tuple[Any, ...]) -> tuple[HoldingRow, ...]:
    """The rows of `_row_columns`, each made by `holding_row`."""
    rows = []
    for number, issuer, title, cusip, value, held, kind, put_call, discretion, others, sole, shared, none in zip(
        numbers or range(1, len(columns[0]) + 1), *columns, strict=True
    ):
        sole = held if sole is None else sole
        shared = held if shared is None else shared
        none = held if none is None else none
        rows.append(
            holding_row(
                number, issuer, title, cusip, value, held, kind, put_call, discretion, others, sole, shared, none
            )
        )
    return tuple(rows)


@dataclass(frozen=True, slots=True)
class Security:
    """A CUSIP's ticker and name (securities.csv). A ticker belongs to a date: a row with `valid_from`/`valid_to`
    says when the ticker was the CUSIP's; a row without them gives today's ticker, valid at no known date."""

    cusip: str
    ticker: str
    name: str
    figi: str = ""  # share-class FIGI (securities.csv `figi`): CUSIPs sharing one are one security
    valid_from: date | None = None
    valid_to: date | None = None
    dated: tuple[Security, ...] = ()  # the CUSIP's other rows, each with its own dates

    def at(self, day: date) -> tuple[Security, bool]:
        """The row whose dates cover `day` and True; else this (today's) row and False: the ticker is the current one."""
        for row in (self, *self.dated):
            if (row.valid_from or row.valid_to) and (row.valid_from or date.min) <= day <= (row.valid_to or date.max):
                return row, True
        return self, False


class ActionKind(enum.StrEnum):
    """What a corporate action does to a holder's shares of `cusip` (corporate_actions.csv `kind`)."""

    SPLIT = "split"  # shares multiply by the ratio (also reverse); the CUSIP may change
    MERGER = "merger"  # shares become shares of new_cusip at the ratio, with optional cash per share
    CASH_MERGER = "cash-merger"  # shares become cash: the position ends
    SPIN_OFF = "spin-off"  # holders keep their shares and receive shares of new_cusip at the ratio
    EXCHANGE = "exchange"  # shares become shares of new_cusip: renames, reclassifications, consolidations


@dataclass(frozen=True, slots=True)
class ActionEvidence:
    """What decided a derived corporate action: the holders of the security at the quarter ends that bound it."""

    after: date  # the earlier quarter end: the event took effect after it, by the later one (the leg's `effective`)
    holders: int  # filers that held the security at the earlier quarter end
    agreeing: int  # of the holders it concerns, those whose books fit the event (the rest traded beside it)
    ratios: tuple[str, str] | None  # the lowest and highest ratio among them, "1.8920"; None for a cash acquisition
    origin: Origin  # Witnesses.origin
    sources: tuple[str, ...]  # the data-set zips behind it; () for the pack's own filings


@dataclass(frozen=True, slots=True)
class CorporateAction:
    """One leg of a corporate action, one row of corporate_actions.csv. Legs with the same `cusip` and
    `effective` are one event (a recapitalisation into three securities is three legs)."""

    effective: date
    kind: ActionKind
    cusip: str  # the security held before; "" only for a receipt from outside the 13F book (`shares` given)
    new_cusip: str  # the security received; "" for a split that keeps its CUSIP and for a cash merger
    ratio: Fraction  # new shares per old share (1 for a cash merger)
    ratio_text: str  # as written, "new:old": "4:1", "1:20", "1.892:1"
    cash_per_share: Decimal | None
    source: str  # where the record comes from: a filing, a press release
    record: str  # "corporate_actions.csv:<line>"
    cik: str = ""  # when given (10 digits), the leg concerns this manager only
    shares: int | None = None  # a receipt: shares of new_cusip the manager received for holdings outside its book
    evidence: ActionEvidence | None = None  # a derived record: what decided it (None for a hand record)


@dataclass(frozen=True, slots=True)
class Holders:
    """Every filer's long-equity shares (SH rows, no put or call) of one CUSIP at one quarter end, each filer one
    witness: CIKs ascending, with their shares and value in dollars at the same index (amendments applied as our
    own 13F reader applies them; rows of one CUSIP in one book summed)."""

    ciks: array[int]  # array('q'), ascending
    shares: array[int]  # array('q')
    values: array[int]  # array('q'), dollars

    def __len__(self) -> int:
        return len(self.ciks)


@dataclass(frozen=True, slots=True)
class Witnesses:
    """What the other holders of the pack's securities filed at each quarter end: the evidence that decides
    whether a change was a trade or a corporate action. From the SEC's Form 13F data sets when the source tree
    has them (`sec13f-datasets/`), else from the pack's own filings."""

    origin: Origin
    sources: tuple[str, ...]  # the source-relative files behind them (the data-set zips); () for the pack's filings
    quarters: dict[date, dict[str, Holders]]  # quarter end → CUSIP → its holders (only the CUSIPs asked for)
    filers: dict[date, int]  # quarter end → how many filers reported for it (every security, not only those asked)
    behind: dict[date, tuple[str, ...]] = field(default_factory=dict)  # quarter end → the zips whose filings made it


class ManagerSource(enum.StrEnum):
    """Where a manager's quarters come from (packs.toml `source` of a `[[copycat.managers]]` entry)."""

    DATASETS = "datasets"  # the Form 13F data sets, and a filing file under sec13f/<cik>/ where one is there
    FILINGS = "filings"  # its filing files only: `ras fetch` downloads each of them from EDGAR


@dataclass(frozen=True, slots=True)
class ManagerConfig:
    id: str  # public manager id used in the API (`managers=` values)
    name: str
    cik: str  # 10 digits, zero-padded
    fictional: bool = False
    allow_missing: tuple[date, ...] = ()  # quarters packs.toml lets this manager miss inside the window
    source: ManagerSource = ManagerSource.DATASETS


@dataclass(frozen=True, slots=True)
class CopycatConfig:
    managers: tuple[ManagerConfig, ...]
    versions: int = 8


@dataclass(frozen=True, slots=True)
class SourceProblem:
    """A fatal problem in the sources: the build reports all of them at once and promotes nothing."""

    source: str  # source-relative path
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.source}:{self.line}" if self.line else self.source
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class SourceFile:
    """Provenance of one file read from the source tree."""

    path: str  # relative to the source root, '/'-separated
    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class Sources:
    """Everything read from a source tree, validated, ready for the research code."""

    fixture: bool  # the embedded fictional fixture: every surface says so
    as_of: date  # latest filing date in the sources, or given at publish
    copycat: CopycatConfig
    securities: dict[str, Security]  # by CUSIP
    filings: tuple[Filing, ...]
    files: tuple[SourceFile, ...]
    warnings: tuple[ScopeWarning, ...] = ()
    skipped: tuple[ScopeWarning, ...] = ()  # files skipped by rule (13F-NT, …), with the reason
    previews: dict[str, object] = field(default_factory=dict)  # preview pack sources (sources.previews) by section
    corporate_actions: tuple[CorporateAction, ...] = ()  # corporate_actions.csv, in file order
    witnesses: Witnesses | None = None  # the Form 13F data sets of sec13f-datasets/, when the tree has them
    selection: Selection | None = None  # the managers packs.toml's `largest` chose from the data sets
