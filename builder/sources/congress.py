"""House and Senate Stock Watcher transaction JSON (bytes) → congressional trade records.

Three shapes, detected row by row: House Stock Watcher `all_transactions` rows (`representative`,
disclosure_date MM/DD/YYYY, transaction_date YYYY-MM-DD), Senate Stock Watcher rows (`senator`, both
dates MM/DD/YYYY) and Senate Stock Watcher daily report files (a report per filing with `office`,
`date_recieved` [sic] and its `transactions`; tickers as HTML links). A row that cannot be read as its
documented shape is never dropped silently: it becomes a `RowIssue`, kept with a documented repair or
excluded, and the file's count of rows read includes it.
"""

from __future__ import annotations

import enum
import html
import json
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

# The amount categories of the House and Senate periodic transaction reports (Ethics in Government Act
# §102(d)(1)); they do not overlap, so a lower bound names its category.
AMOUNT_BRACKETS = {
    1_001: 15_000, 15_001: 50_000, 50_001: 100_000, 100_001: 250_000, 250_001: 500_000,
    500_001: 1_000_000, 1_000_001: 5_000_000, 5_000_001: 25_000_000, 25_000_001: 50_000_000,
}
YEARS = range(1990, 2100)  # a year outside is a typo (e.g. "0021-06-28"), not a date
TICKER = re.compile(r"^[A-Z][A-Z0-9]{0,5}(?:[.\-/][A-Z0-9]{1,3})?$")  # BRK.B, BF-B, COLPAL
NO_TICKER = {"", "--", "N/A", "NA", "NONE"}  # the asset has no exchange ticker (bonds, funds, private stock)
NOT_STATED = {"", "--", "n/a", "na", "none"}  # the report leaves the owner column empty
HONORIFICS = {"hon", "mr", "mrs", "ms", "dr", "sen", "senator", "rep", "representative", "the"}
OWNERS = {"self": "self", "spouse": "spouse", "joint": "joint", "dependent": "dependent", "child": "dependent"}
TYPES = {"purchase": "purchase", "sale_full": "sale_full", "sale_partial": "sale_partial",
         "sale": "sale", "exchange": "exchange"}


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
    member: str  # as filed, e.g. "Hon. Virginia Foxx", "Boozman, John"
    district: str  # House district ("NC05"), "" for the Senate
    owner: str  # self, spouse, joint, dependent, "not stated", or the filed value lower-cased
    ticker: str | None  # None: no exchange ticker, or one that could not be read (then a RowIssue says so)
    asset_description: str  # HTML removed, entities unescaped
    asset_type: str  # "" when the shape has none (House)
    trade_type: TradeType
    traded: date
    disclosed: date
    amount: AmountRange
    ptr_link: str
    comment: str

    @property
    def member_key(self) -> tuple[str, ...]:
        """The member's name as a comparable key (see name_key): one person however the report spells them."""
        return name_key(self.member)


@dataclass(frozen=True, slots=True)
class CongressFile:
    source: str
    rows: int  # rows read, malformed ones included
    trades: tuple[CongressTrade, ...]
    issues: tuple[RowIssue, ...]


def parse_congress(data: bytes, source: str) -> CongressFile:
    """Every row of one stock-watcher JSON file; ValueError when the file is not JSON or not an array."""
    document = json.loads(data)
    if not isinstance(document, list):
        raise ValueError("expected a JSON array of transactions or of daily reports")
    trades: list[CongressTrade] = []
    issues: list[RowIssue] = []
    rows = 0
    for entry in document:
        if isinstance(entry, dict) and isinstance(entry.get("transactions"), list):
            report = {key: value for key, value in entry.items() if key != "transactions"}
            for transaction in entry["transactions"]:
                rows += 1
                _read_row(_daily_row(report, transaction), source, rows, trades, issues)
        else:
            rows += 1
            _read_row(entry, source, rows, trades, issues)
    return CongressFile(source, rows, tuple(trades), tuple(issues))


def name_key(name: str) -> tuple[str, ...]:
    """A person's name as sorted lower-case tokens, without honorifics or parentheses: order-free."""
    text = re.sub(r"\([^)]*\)", " ", name).casefold()
    tokens = re.findall(r"[^\W\d_]+", text)
    return tuple(sorted(token for token in tokens if token not in HONORIFICS))


def _daily_row(report: dict[str, Any], transaction: Any) -> Any:
    """A daily report's transaction in the Senate row shape: member and disclosure date from its report."""
    if not isinstance(transaction, dict):
        return transaction
    office = re.sub(r"\s*\([^)]*\)\s*$", "", str(report.get("office") or "")).strip()
    senator = office or f"{report.get('last_name') or ''}, {report.get('first_name') or ''}".strip(", ")
    received = report.get("date_recieved", report.get("date_received"))
    return {**transaction, "senator": senator, "disclosure_date": received,
            "ptr_link": transaction.get("ptr_link", report.get("ptr_link"))}


def _read_row(row: Any, source: str, index: int, trades: list[CongressTrade], issues: list[RowIssue]) -> None:
    found: list[tuple[str, str]] = []  # (code, message) of repairs on a kept row
    try:
        trades.append(_trade(row, source, index, found))
    except _Unusable as exc:
        issues.append(RowIssue(source, index, exc.code, exc.message, RowOutcome.EXCLUDED))
        return
    issues.extend(RowIssue(source, index, code, message, RowOutcome.KEPT) for code, message in found)


class _Unusable(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _trade(row: Any, source: str, index: int, found: list[tuple[str, str]]) -> CongressTrade:
    if not isinstance(row, dict):
        raise _Unusable("row-not-object", f"expected an object, found {type(row).__name__}")
    house = "representative" in row
    member = _text(row.get("representative" if house else "senator"))
    if not member:
        raise _Unusable("member-missing", "no representative or senator named")
    return CongressTrade(
        source=source, row=index, chamber="house" if house else "senate", member=member,
        district=_text(row.get("district")), owner=_owner(row.get("owner")),
        ticker=_ticker(row.get("ticker"), found), asset_description=_text(row.get("asset_description")),
        asset_type=_text(row.get("asset_type")), trade_type=_trade_type(row.get("type")),
        traded=_date(row.get("transaction_date"), "transaction_date"),
        disclosed=_date(row.get("disclosure_date"), "disclosure_date"),
        amount=_amount(row.get("amount"), found), ptr_link=_text(row.get("ptr_link")),
        comment=_text(row.get("comment")),
    )


def _text(value: Any) -> str:
    """Plain text: HTML tags removed, entities unescaped, whitespace collapsed; None → ""."""
    if value is None:
        return ""
    text = re.sub(r"<br\s*/?>|<[^>]+>", " ", str(value))
    return " ".join(html.unescape(text).split())


def _owner(value: Any) -> str:
    text = _text(value).casefold()
    if text in NOT_STATED:
        return "not stated"
    return OWNERS.get(text, text)


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
    return text


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
        return AmountRange(low, high, text)
    if match := re.fullmatch(rf"(?:over|more than|above)\s+{number}", text, flags=re.I):
        return AmountRange(_dollars(match.group(1)) + 1, None, text)
    if match := re.fullmatch(rf"{number}\s*\+", text):
        return AmountRange(_dollars(match.group(1)), None, text)
    if match := re.fullmatch(rf"{number}\s*-", text):
        low = _dollars(match.group(1))
        if low not in AMOUNT_BRACKETS:
            raise _Unusable("amount-unreadable", f"amount range {text!r} is truncated and names no category")
        found.append(("amount-truncated", f"amount {text!r} truncated; completed to its category "
                                          f"${low:,} - ${AMOUNT_BRACKETS[low]:,}"))
        return AmountRange(low, AMOUNT_BRACKETS[low], text)
    if match := re.fullmatch(number, text):
        return AmountRange(_dollars(match.group(1)), _dollars(match.group(1)), text)
    raise _Unusable("amount-unreadable", f"amount {value!r} is not a dollar range")


def _dollars(text: str) -> int:
    return int(text.replace(",", ""))
