"""House and Senate Stock Watcher transaction JSON (bytes) → congressional trade records.

Three shapes, detected row by row: House Stock Watcher `all_transactions` rows (`representative`,
disclosure_date MM/DD/YYYY, transaction_date YYYY-MM-DD), Senate Stock Watcher rows (`senator`, both
dates MM/DD/YYYY) and Senate Stock Watcher daily report files (a report per filing with `office`,
`date_recieved` [sic] and its `transactions`; tickers as HTML links). A row that cannot be read as its
documented shape is never dropped silently: it becomes a `RowIssue`, kept with a documented repair or
excluded, and the file's count of rows read includes it; every fault of a row is reported, not only the
first. The report link is `ptr_link`, or `source_url` in the capitol-watch House shape (MM/DD/YYYY dates,
"Sale (Partial)" types); a row without one keeps an empty link. The instrument (stock, option, bond) is
decided by `builder.sources.congress.instrument`.
"""

from __future__ import annotations

import enum
import html
import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from builder.sources.congress.instrument import Instrument, classify
from builder.sources.congress.people import NameKey, name_key, state_of

# The amount categories of the House and Senate periodic transaction reports (Ethics in Government Act
# §102(a)(5)(B) and §103(l), as the STOCK Act applies them; the House PTR form's categories A–K); they do not
# overlap, so a lower bound names its category.
AMOUNT_BRACKETS = {
    1_001: 15_000,
    15_001: 50_000,
    50_001: 100_000,
    100_001: 250_000,
    250_001: 500_000,
    500_001: 1_000_000,
    1_000_001: 5_000_000,
    5_000_001: 25_000_000,
    25_000_001: 50_000_000,
}
OPEN_ENDED = (1_000_001, 50_000_001)  # "Over $1,000,000" (a spouse's or dependent's asset), "Over $50,000,000"
YEARS = range(1990, 2100)  # a year outside is a typo (e.g. "0021-06-28"), not a date
TICKER = re.compile(r"^[A-Z][A-Z0-9]{0,5}(?:[.\-/][A-Z0-9]{1,3})?$")  # BRK.B, BF-B, COLPAL
CLASS_SHARE = re.compile(r"^([A-Z][A-Z0-9]{0,5})[.\-/]([A-Z])$")  # BRK.B, BRK-B, BRK/B: one security, shown BRK.B
# The owner codes of a House report's line ("SP Kroger Company", "JT M3 INC UNSP/ADR", "F S: New DC STERIS plc"),
# which one scraper keeps in the description while writing "Self" in the owner field.
OWNER_CODE = re.compile(r"(?<!, )(?<![\w&])(SP|JT|DC)(?![\w&)])")  # not "Washington, DC"
NO_TICKER = {"", "--", "N/A", "NA", "NONE"}  # the asset has no exchange ticker (bonds, funds, private stock)
NOT_STATED = {"", "--", "n/a", "na", "none"}  # the report leaves the owner column empty
# The owner column's documented values: self, spouse, joint, dependent (a dependent child), not stated.
OWNERS = {
    "self": "self",
    "spouse": "spouse",
    "sp": "spouse",
    "joint": "joint",
    "jt": "joint",
    "dependent": "dependent",
    "child": "dependent",
    "dependent child": "dependent",
    "dc": "dependent",
}
OWNER_CODES = {"SP": "spouse", "JT": "joint", "DC": "dependent"}
TYPES = {
    "purchase": "purchase",
    "sale_full": "sale_full",
    "sale_partial": "sale_partial",
    "sale": "sale",
    "exchange": "exchange",
}


class TradeType(enum.Enum):
    PURCHASE = "purchase"
    SALE_FULL = "sale_full"
    SALE_PARTIAL = "sale_partial"
    SALE = "sale"  # a sale the filer did not mark full or partial
    EXCHANGE = "exchange"


class RowOutcome(enum.Enum):
    """What became of a malformed row."""

    KEPT = "kept"  # kept, the field repaired by a documented rule or left empty
    EXCLUDED = "excluded"  # unusable: in no research result, reported with its reason


@dataclass(frozen=True, slots=True)
class RowIssue:
    """One malformed row of a source file and what was done with it."""

    source: str  # source-relative path
    row: int  # 1-based row in the file (daily reports: transactions numbered across reports)
    code: str  # stable, e.g. "amount-truncated", "date-unreadable"
    message: str
    outcome: RowOutcome


@dataclass(frozen=True, slots=True)
class AmountRange:
    """A disclosed amount range in dollars; `high` None means open-ended ("Over $50,000,000")."""

    low: int
    high: int | None
    text: str  # as filed, whitespace collapsed

    @property
    def midpoint(self) -> int:
        return self.low if self.high is None else (self.low + self.high) // 2


@dataclass(frozen=True, slots=True)
class CongressTrade:
    source: str
    row: int
    chamber: str  # "house" or "senate"
    member: str  # as filed, e.g. "Hon. Virginia Foxx", "Boozman, John" (builder.sources.congress.people: who it is)
    district: str  # House district ("NC05"), "" for the Senate
    owner: str  # self, spouse, joint, dependent or "not stated"
    ticker: str | None  # None: no exchange ticker, or one that could not be read (then a RowIssue says so)
    asset_description: str  # HTML removed, entities unescaped
    asset_type: str  # "" when the shape has none (House)
    trade_type: TradeType
    traded: date
    disclosed: date
    amount: AmountRange
    ptr_link: str  # the report: `ptr_link` or `source_url`; "" when the row carries none
    comment: str
    instrument: Instrument
    instrument_rule: str  # which rule decided the instrument (builder.sources.congress.instrument)
    shares: int | None  # shares an option exercise delivered

    @property
    def member_key(self) -> NameKey:
        """The member's name by the identity rules (builder.sources.congress.people): one key however spelled."""
        return name_key(self.member)

    @property
    def state(self) -> str:
        """The House district's state ("CA53" → "CA"); "" in the Senate, whose shapes name no state."""
        return state_of(self.district) if self.chamber == "house" else ""


@dataclass(frozen=True, slots=True)
class CongressFile:
    source: str
    rows: int  # rows read, malformed ones included
    trades: tuple[CongressTrade, ...]
    issues: tuple[RowIssue, ...]
    disclosure_dates: int = 0  # rows that carry a disclosure date at all (the Senate aggregate shape has none)


def parse_congress(data: bytes, source: str) -> CongressFile:
    """Every row of one stock-watcher JSON file; ValueError when the file is not JSON or not an array."""
    document = json.loads(data)
    if not isinstance(document, list):
        raise ValueError("expected a JSON array of transactions or of daily reports")
    trades: list[CongressTrade] = []
    issues: list[RowIssue] = []
    rows = dated = 0
    for entry in document:
        if isinstance(entry, dict) and isinstance(entry.get("transactions"), list):
            report = {key: value for key, value in entry.items() if key != "transactions"}
            for transaction in entry["transactions"]:
                rows += 1
                row = _daily_row(report, transaction)
                dated += isinstance(row, dict) and bool(_text(row.get("disclosure_date")))
                _read_row(row, source, rows, trades, issues)
        else:
            rows += 1
            dated += isinstance(entry, dict) and bool(_text(entry.get("disclosure_date")))
            _read_row(entry, source, rows, trades, issues)
    return CongressFile(source, rows, tuple(trades), tuple(issues), dated)


def _daily_row(report: dict[str, Any], transaction: Any) -> Any:
    """A daily report's transaction in the Senate row shape: member and disclosure date from its report."""
    if not isinstance(transaction, dict):
        return transaction
    office = re.sub(r"\s*\([^)]*\)\s*$", "", str(report.get("office") or "")).strip()
    senator = office or f"{report.get('last_name') or ''}, {report.get('first_name') or ''}".strip(", ")
    received = report.get("date_recieved", report.get("date_received"))
    return {
        **transaction,
        "senator": senator,
        "disclosure_date": received,
        "ptr_link": transaction.get("ptr_link", report.get("ptr_link")),
    }


def _read_row(row: Any, source: str, index: int, trades: list[CongressTrade], issues: list[RowIssue]) -> None:
    found: list[tuple[str, str]] = []  # (code, message) of every fault, repaired or not
    if isinstance(row, dict):
        trade = _trade(row, source, index, found)
    else:
        trade = None
        found.append(("row-not-object", f"expected an object, found {type(row).__name__}"))
    if trade is not None:
        trades.append(trade)
    outcome = RowOutcome.KEPT if trade is not None else RowOutcome.EXCLUDED
    issues.extend(RowIssue(source, index, code, message, outcome) for code, message in found)


class _Unusable(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _trade(row: dict[str, Any], source: str, index: int, found: list[tuple[str, str]]) -> CongressTrade | None:
    """The row as a trade, or None when a field is unusable; every fault found is appended to `found`."""
    house = "representative" in row

    def read(parse: Any, *args: Any) -> Any:
        try:
            return parse(*args)
        except _Unusable as exc:
            found.append((exc.code, exc.message))
            return None

    member = _text(row.get("representative" if house else "senator"))
    if not member:
        found.append(("member-missing", "no representative or senator named"))
    fields = {
        "trade_type": read(_trade_type, row.get("type")),
        "traded": read(_date, row.get("transaction_date"), "transaction_date"),
        "disclosed": read(_date, row.get("disclosure_date"), "disclosure_date"),
        "amount": read(_amount, row.get("amount"), found),
    }
    owner, ticker = _owner(row.get("owner"), found), _ticker(row.get("ticker"), found)
    if not member or any(value is None for value in fields.values()):
        return None
    description, asset_type = _text(row.get("asset_description")), _text(row.get("asset_type"))
    kind = classify(asset_type, description, ticker)
    if kind.contradicted:
        found.append(
            (
                "asset-type-contradicted",
                f"asset type {kind.contradicted!r}, but the row's words say {kind.instrument.value} "
                f"({kind.rule}); read as {kind.instrument.value}",
            )
        )
    owner = _owner_code(owner, description, found) if house else owner
    return CongressTrade(
        source=source,
        row=index,
        chamber="house" if house else "senate",
        member=member,
        district=_text(row.get("district")),
        owner=owner,
        ticker=ticker,
        asset_description=description,
        asset_type=asset_type,
        **fields,
        ptr_link=_text(row.get("ptr_link") or row.get("source_url")),
        comment=_text(row.get("comment")),
        instrument=kind.instrument,
        instrument_rule=kind.rule,
        shares=kind.shares,
    )


def _text(value: Any) -> str:
    """Plain text: HTML tags removed, entities unescaped, whitespace collapsed; None → ""."""
    if value is None:
        return ""
    text = re.sub(r"<br\s*/?>|<[^>]+>", " ", str(value))
    return " ".join(html.unescape(text).split())


def _owner(value: Any, found: list[tuple[str, str]]) -> str:
    text = " ".join(re.sub(r"[^a-z]+", " ", _text(value).casefold()).split())
    if _text(value).casefold() in NOT_STATED:
        return "not stated"
    if text not in OWNERS:
        found.append(
            ("owner-unreadable", f"owner {value!r} is not self, spouse, joint or dependent; kept as not stated")
        )
        return "not stated"
    return OWNERS[text]


def _owner_code(owner: str, description: str, found: list[tuple[str, str]]) -> str:
    """The owner a description's one code names (SP, JT, DC) where the owner field says self or nothing."""
    codes = {OWNER_CODES[code] for code in OWNER_CODE.findall(description)}
    if len(codes) != 1 or owner not in ("self", "not stated"):
        return owner
    coded = codes.pop()
    found.append(
        ("owner-from-description", f"owner field says {owner}, the description's code {coded}; read as {coded}")
    )
    return coded


def _trade_type(value: Any) -> TradeType:
    key = re.sub(r"[^a-z]+", "_", _text(value).casefold()).strip("_")
    if key not in TYPES:
        raise _Unusable("type-unknown", f"transaction type {value!r} is not purchase, sale or exchange")
    return TradeType(TYPES[key])


def _date(value: Any, field: str) -> date:
    text = _text(value)
    for pattern in ("%Y-%m-%d", "%m/%d/%Y"):
        try:
            parsed = datetime.strptime(text[:10] if "T" in text else text, pattern).date()
        except ValueError:
            continue
        if parsed.year in YEARS:
            return parsed
    raise _Unusable("date-unreadable", f"{field} {value!r} is not a date (MM/DD/YYYY or YYYY-MM-DD)")


def _ticker(value: Any, found: list[tuple[str, str]]) -> str | None:
    raw = "" if value is None else str(value)
    links = re.findall(r"<a\b[^>]*>(.*?)</a>", raw, flags=re.S | re.I)
    if len(links) > 1:
        symbols = ", ".join(_text(link) for link in links)
        found.append(("ticker-ambiguous", f"ticker field holds {len(links)} symbols ({symbols}); kept without ticker"))
        return None
    text = _text(links[0] if links else raw).upper().removeprefix("$")
    if text in NO_TICKER:
        return None
    if not TICKER.match(text):
        found.append(("ticker-unreadable", f"ticker {text!r} is not a ticker symbol; kept without ticker"))
        return None
    return CLASS_SHARE.sub(r"\1.\2", text)


def _amount(value: Any, found: list[tuple[str, str]]) -> AmountRange:
    raw = "" if value is None else str(value)
    text = " ".join(raw.split())
    if "\n" in raw.strip():
        found.append(("amount-multiline", f"amount range spans several lines ({raw!r}); joined"))
    number = r"\$?\s*([\d,]*\d)"
    if match := re.fullmatch(rf"{number}\s*-\s*{number}", text):
        low, high = _dollars(match.group(1)), _dollars(match.group(2))
        if low > high:
            raise _Unusable("amount-unreadable", f"amount range {text!r} ends below its start")
        return _statutory(AmountRange(low, high, text), found)
    if match := re.fullmatch(rf"(?:over|more than|above)\s+{number}", text, flags=re.I):
        return _statutory(AmountRange(_dollars(match.group(1)) + 1, None, text), found)
    if match := re.fullmatch(rf"{number}\s*\+", text):
        return _statutory(AmountRange(_dollars(match.group(1)), None, text), found)
    if match := re.fullmatch(rf"{number}\s*-", text):
        low = _dollars(match.group(1))
        if low not in AMOUNT_BRACKETS:
            raise _Unusable("amount-unreadable", f"amount range {text!r} is truncated and names no category")
        found.append(
            (
                "amount-truncated",
                f"amount {text!r} truncated; completed to its category ${low:,} - ${AMOUNT_BRACKETS[low]:,}",
            )
        )
        return AmountRange(low, AMOUNT_BRACKETS[low], text)
    if match := re.fullmatch(number, text):
        return _statutory(AmountRange(_dollars(match.group(1)), _dollars(match.group(1)), text), found)
    raise _Unusable("amount-unreadable", f"amount {value!r} is not a dollar range")


def _statutory(amount: AmountRange, found: list[tuple[str, str]]) -> AmountRange:
    """A statutory category as read; a range within $1 of one ("$1,000 - $15,000") is read as that category;
    any other is kept as filed. Both are reported (amount-nonstatutory)."""
    if amount.low in OPEN_ENDED if amount.high is None else AMOUNT_BRACKETS.get(amount.low) == amount.high:
        return amount
    for low, high in AMOUNT_BRACKETS.items():
        if amount.high is not None and abs(amount.low - low) <= 1 and abs(amount.high - high) <= 1:
            found.append(
                (
                    "amount-nonstatutory",
                    f"amount {amount.text!r} is not a statutory category; read as "
                    f"${low:,} - ${high:,}, the category within $1 of it",
                )
            )
            return AmountRange(low, high, amount.text)
    found.append(("amount-nonstatutory", f"amount {amount.text!r} is not a statutory category; kept as filed"))
    return amount


def _dollars(text: str) -> int:
    return int(text.replace(",", ""))
