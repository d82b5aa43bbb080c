"""The rules that make a `Filing` of 13F documents: amendment kind, value unit, summary-page checks; pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from pathlib import PurePosixPath

from builder.records import (
    FILED_FROM_HEADER,
    FILED_FROM_SIGNATURE,
    Amendment,
    Filing,
    HoldingRow,
    ScopeWarning,
    ValueUnit,
)
from builder.sources.sec13f.document import PrimaryDocument, Summary
from builder.sources.sec13f.parsed import READ_FORMS
from builder.sources.sec13f.safexml import DocumentError

# Form 13F amendments (SEC Release 34-95148, 2022): filings made on or after 2023-01-03 report `value`
# rounded to the nearest dollar (eis_13FDocument.xsd, column 4); earlier ones reported thousands.
DOLLARS_FROM = date(2023, 1, 3)
# Bounds on a book's median price per share, in dollars. Below $1 a US listing gets a minimum-bid deficiency
# notice (NYSE, Nasdaq), so a book whose median is under it is almost surely thousands read as dollars
# (real misfilers land at $0.03–$0.13); above $10,000 only a handful of US shares trade (BRK.A, NVR), so a
# median beyond it is dollars read as thousands. The band is 10,000 wide, more than the factor 1,000
# between the units, so at most one reading of a plausible book falls outside it.
MIN_PLAUSIBLE_PRICE = Fraction(1)
MAX_PLAUSIBLE_PRICE = Fraction(10_000)
_SCALE = {ValueUnit.DOLLARS: 1, ValueUnit.THOUSANDS: 1000}


@dataclass(frozen=True, slots=True)
class UnitDecision:
    """The unit applied to a filing's `value` column, the rule that chose it, and a warning if doubtful."""

    unit: ValueUnit
    rule: str
    warning: ScopeWarning | None


def build_filing(
    primary: PrimaryDocument,
    rows: tuple[HoldingRow, ...],
    *,
    source: str,
    accession: str,
    filed: date | None,
    recorded: tuple[date, str] | None = None,
    dated_by: str = FILED_FROM_HEADER,
) -> Filing:
    """A Filing of a primary document and its rows, dated by `filed` (`dated_by` says whose date: a submission
    header's, or a data set's FILING_DATE), else by `recorded` (EDGAR's filing date and the record line that gives
    it), else by its signatureDate with a warning."""
    filed, filed_from, dating = filing_date(primary, source, filed, recorded)
    filed_from = dated_by if filed_from == FILED_FROM_HEADER else filed_from
    amendment, amendment_warnings = _amendment(primary, source)
    unit = decide_unit(rows, filed, source)
    warnings = (*dating, *amendment_warnings, *((unit.warning,) if unit.warning else ()))
    return Filing(
        source=source,
        accession=accession,
        cik=primary.cik,
        manager_name=primary.manager_name,
        form_type=READ_FORMS[primary.submission_type],  # only a form read is a Filing
        report_type=primary.report_type,
        period=primary.period,
        filed=filed,
        amendment=amendment,
        # an amendment that does not give its number still sorts after the quarter's original
        amendment_no=0 if amendment is Amendment.ORIGINAL else (primary.amendment_no or 1),
        unit=unit.unit,
        unit_rule=unit.rule,
        table_entry_total=primary.summary.entry_total if primary.summary else None,
        table_value_total=primary.summary.value_total if primary.summary else None,
        confidential_omitted=bool(primary.summary and primary.summary.confidential_omitted),
        rows=rows,
        warnings=(*warnings, *summary_warnings(rows, primary.summary, source)),
        filed_from=filed_from,
    )


def filing_date(
    primary: PrimaryDocument, source: str, filed: date | None, recorded: tuple[date, str] | None
) -> tuple[date, str, tuple[ScopeWarning, ...]]:
    """The filing date, where it comes from, and a `filing-date-estimated` warning when only the signature dates it.

    A filing is point-in-time data from the day EDGAR accepted it, which may be days after it was signed (Berkshire's
    13F-HR for 2015-12-31 was signed 2016-02-12 and filed 2016-02-16)."""
    if filed is not None:
        return filed, FILED_FROM_HEADER, ()
    if recorded is not None:
        return recorded[0], recorded[1], ()
    signed = primary.signature_date
    if signed is None:
        raise DocumentError("has no filing date: no submission header, no EDGAR record and no signatureDate")
    message = (
        f"{subject(source)} has no submission header and no line of filing_dates.csv (`ras fetch` writes it "
        f"beside the filings) dates it: its filing date is estimated from its signatureDate {signed.isoformat()}"
    )
    return signed, FILED_FROM_SIGNATURE, (ScopeWarning("filing-date-estimated", message, source),)


def decide_unit(rows: Sequence[HoldingRow], filed: date, source: str) -> UnitDecision:
    """Thousands if filed before 2023-01-03, else dollars; the other unit if only it gives plausible prices."""
    return unit_by_price(median_price(rows, ValueUnit.DOLLARS), filed, source)


def unit_by_price(median: Fraction | None, filed: date, source: str) -> UnitDecision:
    """`decide_unit` from a filing's median `value` per share as filed (None: no share rows); the Form 13F data
    sets give the median, not the rows."""
    by_date = ValueUnit.THOUSANDS if filed < DOLLARS_FROM else ValueUnit.DOLLARS
    rule = "filed-before-2023-01-03" if by_date is ValueUnit.THOUSANDS else "filed-on-or-after-2023-01-03"
    other = ValueUnit.DOLLARS if by_date is ValueUnit.THOUSANDS else ValueUnit.THOUSANDS
    price = None if median is None else median * _SCALE[by_date]
    # Every price scales by the same factor between units, so the median does too: one sort, not two.
    other_price = None if price is None else price * _SCALE[other] / _SCALE[by_date]
    if price is None or other_price is None or _plausible(price):
        return UnitDecision(by_date, rule, None)
    said = (
        f"{subject(source)} was filed {filed.isoformat()}, so {by_date.value} by date, "
        f"but its median price per share is then ${float(price):,.2f}"
    )
    if not _plausible(other_price):
        message = f"{said}, and ${float(other_price):,.2f} as {other.value}: neither is plausible; kept {by_date.value}"
        return UnitDecision(by_date, rule, ScopeWarning("unit-doubtful", message, source))
    message = f"{said}; as {other.value} it is ${float(other_price):,.2f}: values read as {other.value}"
    return UnitDecision(other, "implied-price-check", ScopeWarning("unit-doubtful", message, source))


def median_price(rows: Sequence[HoldingRow], unit: ValueUnit) -> Fraction | None:
    """Median value per share in dollars over plain share rows (SH, no put/call, shares > 0); None if none."""
    pairs = [
        (row.value, row.shares) for row in rows if row.share_type == "SH" and row.put_call is None and row.shares > 0
    ]
    if not pairs:
        return None
    # Exact, without a Fraction per row (most of the read phase once files come from the parse cache):
    # int / int is correctly rounded, so float order never contradicts the exact order, and only a run of
    # equal floats around the middle needs its exact order.
    pairs.sort(key=lambda pair: pair[0] / pair[1])
    middle = len(pairs) // 2
    for index in {middle - 1, middle} if len(pairs) % 2 == 0 else {middle}:
        _exact_run(pairs, index)
    median = Fraction(*pairs[middle])
    if len(pairs) % 2 == 0:
        median = (median + Fraction(*pairs[middle - 1])) / 2
    return median * _SCALE[unit]


def _exact_run(pairs: list[tuple[int, int]], index: int) -> None:
    """Put the run of pairs whose float ratio equals pairs[index]'s in exact order, in place."""
    ratio = pairs[index][0] / pairs[index][1]
    low, high = index, index + 1
    while low > 0 and pairs[low - 1][0] / pairs[low - 1][1] == ratio:
        low -= 1
    while high < len(pairs) and pairs[high][0] / pairs[high][1] == ratio:
        high += 1
    if high - low > 1:
        pairs[low:high] = sorted(pairs[low:high], key=lambda pair: Fraction(*pair))


def summary_warnings(rows: Sequence[HoldingRow], summary: Summary | None, source: str) -> tuple[ScopeWarning, ...]:
    """Scope warnings from comparing the rows with the summary page (None: there is no summary page)."""
    if summary is None or (summary.entry_total is None and summary.value_total is None):
        message = f"{subject(source)} has no summary page: its row count and value total cannot be checked"
        return (ScopeWarning("no-summary", message, source),)
    warnings = []
    differences = _differences(rows, summary)
    if differences:
        message = f"{subject(source)} does not match its summary page: {'; '.join(differences)}"
        warnings.append(ScopeWarning("summary-mismatch", message, source))
    if summary.confidential_omitted:
        message = f"{subject(source)} omits holdings under confidential treatment (isConfidentialOmitted): incomplete"
        warnings.append(ScopeWarning("confidential-omitted", message, source))
    return tuple(warnings)


def _differences(rows: Sequence[HoldingRow], summary: Summary) -> list[str]:
    differences = []
    if summary.entry_total is not None and summary.entry_total != len(rows):
        delta = len(rows) - summary.entry_total
        differences.append(f"{len(rows)} rows, tableEntryTotal {summary.entry_total} (off by {delta:+d})")
    total = sum(row.value for row in rows)
    if summary.value_total is not None and summary.value_total != total:
        delta = total - summary.value_total
        differences.append(f"values sum to {total}, tableValueTotal {summary.value_total} (off by {delta:+d})")
    return differences


def _amendment(primary: PrimaryDocument, source: str) -> tuple[Amendment, tuple[ScopeWarning, ...]]:
    if not primary.is_amendment:
        return Amendment.ORIGINAL, ()
    if primary.amendment_type == "RESTATEMENT":
        return Amendment.RESTATEMENT, ()
    if primary.amendment_type == "NEW HOLDINGS":
        return Amendment.NEW_HOLDINGS, ()
    if primary.amendment_type:
        raise DocumentError(f"has amendmentType {primary.amendment_type!r}, neither RESTATEMENT nor NEW HOLDINGS")
    message = f"{subject(source)} is an amendment without an amendmentType: read as a RESTATEMENT of the quarter"
    return Amendment.RESTATEMENT, (ScopeWarning("amendment-type-missing", message, source),)


def subject(source: str) -> str:
    """The file names of a source (`a/x.xml + a/y.xml` → `x.xml + y.xml`), to begin a message with."""
    return " + ".join(PurePosixPath(path).name for path in source.split(" + "))


def _plausible(price: Fraction) -> bool:
    return MIN_PLAUSIBLE_PRICE <= price <= MAX_PLAUSIBLE_PRICE
