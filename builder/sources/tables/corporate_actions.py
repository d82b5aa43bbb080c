"""Reads corporate_actions.csv (`effective,kind,cusip,new_cusip,ratio,cash_per_share,source`, optional `cik`,
`shares`, more columns allowed) into CorporateAction legs, checked strictly: every problem names file and line."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from builder.records import ActionKind, CorporateAction, SourceProblem
from builder.sources.files import DEFAULT_LIMITS, Limit
from builder.sources.tables.csvfile import capped, csv_records, read_csv_text

FILE_NAME = "corporate_actions.csv"  # a record per leg: a few thousand rows for hundreds of managers over decades
COLUMNS = ("effective", "kind", "cusip", "new_cusip", "ratio", "cash_per_share", "source")
OPTIONAL = ("cik", "shares")
_CUSIP = re.compile(r"[0-9A-Z]{8}[0-9]")
_NUMBER = r"(?:\d+(?:\.\d+)?|\.\d+)"
_RATIO = re.compile(rf"({_NUMBER}):({_NUMBER})")
_CIK = re.compile(r"\d{1,10}")
# kind → (new_cusip: required/optional/forbidden, ratio required, cash allowed)
_RULES: dict[ActionKind, tuple[str, bool, bool]] = {
    ActionKind.SPLIT: ("optional", True, False),
    ActionKind.MERGER: ("required", True, True),
    ActionKind.CASH_MERGER: ("forbidden", False, True),
    ActionKind.SPIN_OFF: ("required", True, False),
    ActionKind.EXCHANGE: ("required", False, False),
}


def read_corporate_actions(
    root: Path, limit: Limit = DEFAULT_LIMITS.file
) -> tuple[tuple[CorporateAction, ...], tuple[SourceProblem, ...]]:
    """The legs of `root`/corporate_actions.csv in file order (none when the file is absent; read up to `limit`, a
    source file's limit like any other), or its problems."""
    path = root / FILE_NAME
    if not path.exists():
        return (), ()
    text, problems = read_csv_text(path, FILE_NAME, limit)
    if text is None:
        return (), problems
    return parse_corporate_actions(text, FILE_NAME)


def parse_corporate_actions(text: str, source: str) -> tuple[tuple[CorporateAction, ...], tuple[SourceProblem, ...]]:
    """The legs of CSV `text` and every problem found (then no legs); pure."""
    legs: list[CorporateAction] = []
    problems: list[SourceProblem] = []
    first_line: dict[tuple[object, ...], int] = {}
    for line, found in csv_records(text, source, COLUMNS, OPTIONAL):
        if isinstance(found, SourceProblem):
            problems.append(found)
            continue
        leg, errors = _leg(found, f"{source}:{line}")
        problems += [SourceProblem(source, error, line) for error in errors]
        if leg is None:
            continue
        key = (leg.effective, leg.cusip, leg.new_cusip, leg.cik, leg.kind)
        if key in first_line:
            message = f"repeats the leg of line {first_line[key]} ({leg.cusip or leg.cik} on {leg.effective})"
            problems.append(SourceProblem(source, message, line))
        first_line.setdefault(key, line)
        legs.append(leg)
    problems += _event_problems(legs, source)
    return (tuple(legs), ()) if not problems else ((), capped(problems, source))


def _leg(row: dict[str, str], record: str) -> tuple[CorporateAction | None, list[str]]:
    errors: list[str] = []
    effective = _date(row["effective"], errors)
    kind = _kind(row["kind"], errors)
    cik, shares = _cik(row.get("cik", ""), errors), _shares(row.get("shares", ""), errors)
    cusip = _cusip(row["cusip"], "cusip", errors, optional=shares is not None)
    new_cusip = _cusip(row["new_cusip"], "new_cusip", errors, optional=True)
    ratio, ratio_text = _ratio(row["ratio"], errors)
    cash = _cash(row["cash_per_share"], errors)
    if kind is not None and shares is None:
        errors += _kind_errors(kind, new_cusip, ratio_text, cash)
    if shares is not None:
        errors += _receipt_errors(kind, cik, new_cusip)
    if not row["source"]:
        errors.append("source is empty: say where the record comes from (a filing, a press release)")
    if errors or effective is None or kind is None:
        return None, errors
    return CorporateAction(
        effective, kind, cusip, new_cusip, ratio, ratio_text, cash, row["source"], record, cik, shares
    ), []


def _kind_errors(kind: ActionKind, new_cusip: str, ratio: str, cash: Decimal | None) -> list[str]:
    new_rule, ratio_required, cash_allowed = _RULES[kind]
    errors = []
    if new_rule == "required" and not new_cusip:
        errors.append(f"a {kind} needs new_cusip (the security received)")
    if new_rule == "forbidden" and new_cusip:
        errors.append(f"a {kind} ends the position in cash: new_cusip must be empty")
    if ratio_required and not ratio:
        errors.append(f"a {kind} needs a ratio new:old (e.g. 4:1, 1:20, 1.892:1)")
    if kind is ActionKind.CASH_MERGER and ratio:
        errors.append("a cash-merger has no ratio: leave it empty and give cash_per_share")
    if kind is ActionKind.CASH_MERGER and cash is None:
        errors.append("a cash-merger needs cash_per_share")
    if cash is not None and not cash_allowed:
        errors.append(f"a {kind} pays no cash: cash_per_share must be empty (use merger for stock and cash)")
    return errors


def _receipt_errors(kind: ActionKind | None, cik: str, new_cusip: str) -> list[str]:
    """A receipt (`shares` given): a manager received shares of new_cusip for holdings outside its 13F book (a
    private stake merged into a listed company); its kind says how, its cik whose book it enters."""
    errors = []
    if not cik:
        errors.append("a row with shares (a receipt from outside the 13F book) needs the cik of its manager")
    if not new_cusip:
        errors.append("a row with shares needs new_cusip (the security received)")
    if kind in (ActionKind.SPLIT, ActionKind.CASH_MERGER):
        errors.append(f"a {kind} cannot be a receipt of shares: use merger, exchange or spin-off")
    return errors


def _event_problems(legs: list[CorporateAction], source: str) -> list[SourceProblem]:
    """Legs of one event (same cusip and effective date) share a kind; a split or cash merger is one leg."""
    events: dict[tuple[date, str], list[CorporateAction]] = {}
    for leg in legs:
        if leg.cusip:
            events.setdefault((leg.effective, leg.cusip), []).append(leg)
    problems = []
    for (effective, cusip), members in events.items():
        kinds = sorted({leg.kind for leg in members})
        line = int(members[-1].record.rsplit(":", 1)[1])
        if len(kinds) > 1:
            message = f"the legs of {cusip} on {effective} mix kinds ({', '.join(kinds)})"
            problems.append(SourceProblem(source, message, line))
        elif kinds[0] in (ActionKind.SPLIT, ActionKind.CASH_MERGER) and len(members) > 1:
            message = f"a {kinds[0]} of {cusip} on {effective} is one row, not {len(members)}"
            problems.append(SourceProblem(source, message, line))
    return problems


def _date(value: str, errors: list[str]) -> date | None:
    try:
        return date.fromisoformat(value)
    except ValueError:
        errors.append(f"effective {value!r} is not a date YYYY-MM-DD")
        return None


def _kind(value: str, errors: list[str]) -> ActionKind | None:
    try:
        return ActionKind(value.lower())
    except ValueError:
        errors.append(f"kind {value!r} is not one of {', '.join(kind.value for kind in ActionKind)}")
        return None


def _cusip(value: str, column: str, errors: list[str], *, optional: bool = False) -> str:
    value = value.upper()
    if not value:
        if not optional:
            errors.append(f"{column} is empty")
        return ""
    if not _CUSIP.fullmatch(value):
        errors.append(f"{column} {value!r} is not a CUSIP (eight letters or digits and a check digit)")
    elif cusip_check_digit(value[:8]) != value[8]:
        errors.append(f"{column} {value} fails its check digit (expected {cusip_check_digit(value[:8])})")
    return value


def cusip_check_digit(base: str) -> str:
    """The ninth character of a CUSIP: the modulus-10 double-add-double sum of the first eight (letters A=10 …
    Z=35, * = 36, @ = 37, # = 38), as the CUSIP Global Services standard (ANSI X9.6) defines it."""
    total = 0
    for position, char in enumerate(base, start=1):
        value = int(char) if char.isdigit() else ord(char) - 55 if char.isalpha() else {"*": 36, "@": 37, "#": 38}[char]
        value *= 2 if position % 2 == 0 else 1
        total += value // 10 + value % 10
    return str((10 - total % 10) % 10)


def _ratio(value: str, errors: list[str]) -> tuple[Fraction, str]:
    if not value:
        return Fraction(1), ""
    match = _RATIO.fullmatch(value.replace(" ", ""))
    if not match:
        errors.append(f"ratio {value!r} is not new:old in decimals (e.g. 4:1, 1:20, 1.892:1)")
        return Fraction(1), value
    new, old = (Fraction(Decimal(part)) for part in match.groups())
    if new <= 0 or old <= 0:
        errors.append(f"ratio {value!r} must be above 0 on both sides")
        return Fraction(1), value
    return new / old, value.replace(" ", "")


def _cash(value: str, errors: list[str]) -> Decimal | None:
    if not value:
        return None
    try:
        cash = Decimal(value.lstrip("$").replace(",", ""))
    except InvalidOperation:
        errors.append(f"cash_per_share {value!r} is not a decimal number")
        return None
    if not cash.is_finite() or cash < 0:
        errors.append(f"cash_per_share {value!r} must be a number of dollars, 0 or more")
        return None
    return cash


def _cik(value: str, errors: list[str]) -> str:
    if not value:
        return ""
    if not _CIK.fullmatch(value):
        errors.append(f"cik {value!r} is not a CIK (up to ten digits)")
        return ""
    return value.zfill(10)


def _shares(value: str, errors: list[str]) -> int | None:
    if not value:
        return None
    try:
        shares = int(value.replace(",", ""))
    except ValueError:
        errors.append(f"shares {value!r} is not a whole number")
        return None
    if shares <= 0:
        errors.append(f"shares {value!r} must be above 0")
        return None
    return shares
