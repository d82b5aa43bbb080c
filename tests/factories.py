"""Small hand-made domain records for pure tests: a few managers, a few quarters, a few rows."""

from __future__ import annotations

from datetime import date, timedelta

from builder.records import (
    Amendment,
    CopycatConfig,
    Filing,
    HoldingRow,
    ManagerConfig,
    ScopeWarning,
    Security,
    Sources,
    ValueUnit,
)

SECURITIES = {
    "037833100": Security("037833100", "AAPL", "APPLE INC"),
    "594918104": Security("594918104", "MSFT", "MICROSOFT CORP"),
    "02079K305": Security("02079K305", "GOOGL", "ALPHABET INC-CL A"),
    "023135106": Security("023135106", "AMZN", "AMAZON.COM INC"),
}
CUSIPS = {security.ticker: cusip for cusip, security in SECURITIES.items()}


def row(
    index: int, ticker_or_cusip: str, shares: int, value: int, put_call: str | None = None, share_type: str = "SH"
) -> HoldingRow:
    cusip = CUSIPS.get(ticker_or_cusip, ticker_or_cusip)
    issuer = SECURITIES[cusip].name if cusip in SECURITIES else f"{ticker_or_cusip} CORP"
    return HoldingRow(index, issuer, "COM", cusip, value, shares, share_type, put_call, "SOLE", "", shares, 0, 0)


def filing(
    cik: str,
    period: date,
    holdings: dict[str, int | tuple[int, int]],
    *,
    amendment: Amendment = Amendment.ORIGINAL,
    amendment_no: int = 0,
    filed: date | None = None,
    price: int | None = None,
    omitted: bool = False,
) -> Filing:
    """A filing whose rows hold `shares` of each ticker, or (shares, price), at `price` dollars a share (by default
    100, 110, 120, 130 in the quarters ending March … December: prices move, as markets do, and never look pinned
    to a deal); `omitted`: the filing omits positions under confidential treatment."""
    price = price if price is not None else 90 + 10 * (period.month // 3)
    held = {key: entry if isinstance(entry, tuple) else (entry, price) for key, entry in holdings.items()}
    rows = tuple(
        row(i, key, shares, shares * each) for i, (key, (shares, each)) in enumerate(sorted(held.items()), start=1)
    )
    filed = filed or period + timedelta(days=30 + amendment_no)
    accession = f"{cik}-{period:%y}-{period.month:02d}{amendment_no:04d}"
    return Filing(
        source=f"sec13f/{cik}/{accession}.txt",
        accession=accession,
        cik=cik,
        manager_name=f"Manager {cik}",
        form_type="13F-HR/A" if amendment is not Amendment.ORIGINAL else "13F-HR",
        report_type="13F HOLDINGS REPORT",
        period=period,
        filed=filed,
        amendment=amendment,
        amendment_no=amendment_no,
        unit=ValueUnit.DOLLARS,
        unit_rule="filed-on-or-after-2023-01-03",
        table_entry_total=len(rows),
        table_value_total=sum(r.value for r in rows),
        confidential_omitted=omitted,
        rows=rows,
    )


def sources(filings: list[Filing], managers: list[tuple[str, str]], versions: int = 8, fixture: bool = True) -> Sources:
    """Sources over `filings` for managers given as (id, cik)."""
    configs = tuple(ManagerConfig(manager_id, f"Manager {manager_id}", cik, True) for manager_id, cik in managers)
    warning = (ScopeWarning("fixture-data", "fictional", "packs.toml"),) if fixture else ()
    return Sources(
        fixture=fixture,
        as_of=max(f.filed for f in filings),
        copycat=CopycatConfig(configs, versions),
        securities=dict(SECURITIES),
        filings=tuple(filings),
        files=(),
        warnings=warning,
    )
