"""Write the preview packs' FICTIONAL fixture sources into an embedded source tree (no clock: fixed dates).

Invented members of Congress, an invented person and invented forum counts, over real tickers, in the
real shapes (House Stock Watcher, capitol-watch House rows with `source_url`, Senate Stock Watcher, Senate
daily reports, ApeWisdom snapshots), with the real quirks: malformed rows, disclosures dated before their
trade, HTML tickers and entities, negative upvotes, unranked tickers and ticker-words; options, an
exercise and callable bonds described only in words; members filed under two spellings (one merged by
the rules, one by a configured alias); a daily file repeating trades of the summary file; a row with no
report link. Evaluated on FIXTURE_AS_OF the congress fixture holds clusters under the demo thresholds
(LLY, NVDA) and none under the strict ones: LLY's third buyer before as_of bought puts, and AAPL and KO
have a second buyer only by spelling. LLY turns strict on 2026-07-02, when its third stock buyer's
disclosure arrives (a check that trades count by disclosure date).
"""

from __future__ import annotations

import json
import tomllib
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

FIXTURE_AS_OF = date(2026, 6, 30)  # every preview section is evaluated on this date (written as `as_of`)
SNAPSHOT_START = datetime(2026, 6, 28, 8, 0, tzinfo=UTC)  # four daily snapshots, the last after as_of
HOUSE_LINK = "https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/2026/fixture-{}.pdf"
SENATE_LINK = "https://efdsearch.senate.gov/search/view/ptr/fixture-{}/"
AVERY, BLAIR = ("Rep. Avery Fictional (fixture)", "ZZ01"), ("Rep. Blair Imaginary (fixture)", "ZZ02")
CASEY, DANA = ("Rep. Casey Madeup (fixture)", "ZZ03"), ("Rep. Dana Notreal (fixture)", "ZZ04")
BLAIR_AGAIN = ("None Blair Q. Imaginary (fixture)", "ZZ02")  # a scraper's placeholder and an initial: one person
CASS = ("Rep. Cass Madeup (fixture)", "ZZ03")  # Casey's nickname: no rule knows it, packs.toml's alias does
EMERY, FINLEY = "Fictional, Emery (fixture)", "Imaginary, Finley (fixture)"
SMALL, MID, LARGE = "$1,001 - $15,000", "$15,001 - $50,000", "$50,001 - $100,000"

# (member, disclosed MM/DD/YYYY, traded YYYY-MM-DD, ticker, description, type, amount, owner)
HOUSE_ROWS = (
    (AVERY, "02/10/2026", "2026-01-28", "COST", "Costco Wholesale Corporation", "purchase", SMALL, "joint"),
    (DANA, "02/20/2026", "2026-02-02", "COST", "Costco Wholesale Corporation", "purchase", SMALL, "self"),
    (BLAIR, "06/05/2026", "2026-05-26", "LLY", "Eli Lilly and Company", "purchase", MID, "joint"),
    (AVERY, "06/08/2026", "2026-05-20", "NVDA", "NVIDIA Corporation", "purchase", SMALL, "self"),
    (AVERY, "06/08/2026", "2026-05-21", "MSFT", "Microsoft Corporation", "sale_full", MID, "self"),
    (DANA, "06/10/2026", "2026-06-01", "XOM", "Exxon Mobil Corporation", "purchase", MID, ""),
    (DANA, "06/11/2026", "2026-06-12", "JPM", "JPMorgan Chase & Co.", "purchase", SMALL, "--"),  # before the trade
    (BLAIR, "06/12/2026", "2026-06-03", "MSFT", "Microsoft Corporation", "sale_partial", SMALL, "dependent"),
    (CASEY, "06/16/2026", "2026-06-09", "AAPL", "Apple Inc.", "purchase", SMALL, "joint"),
    (CASEY, "06/18/2026", "2026-06-10", "PG", "Procter & Gamble Company", "purchase", "$15,001 -", "joint"),
    (BLAIR, "06/19/2026", "2026-06-11", "KO", "Coca-Cola Company", "purchase", "$1,001 -\n$15,000", "self"),
    (DANA, "06/24/2026", "2026-02-30", "GS", "Goldman Sachs Group Inc", "purchase", MID, "self"),  # no Feb 30
    (AVERY, "06/25/2026", "2026-06-02", "--", "Fairfax County VA Municipal Bond 4.00% 2031", "purchase", MID, "joint"),
    (CASEY, "07/02/2026", "2026-06-15", "LLY", "Eli Lilly and Company", "purchase", MID, "self"),  # after as_of
    (
        CASEY,
        "06/16/2026",
        "2026-06-09",
        "NVDA",
        "NVIDIA Corporation - 20 Call Opts at $150, expires 9/18",
        "purchase",
        SMALL,
        "joint",
    ),  # an option: no NVDA buyer
    (
        DANA,
        "06/25/2026",
        "2026-06-19",
        "LLY",
        "Eli Lilly and Company - 10 PUT Options @ $700 exp 12/18/26",
        "purchase",
        MID,
        "self",
    ),  # a bought put: no LLY buyer (it would make LLY strict)
    (
        DANA,
        "06/25/2026",
        "2026-06-19",
        "MSFT",
        "Microsoft Corp 4.20% 06/01/35 CALL 06/01/30 @ 100",
        "purchase",
        MID,
        "self",
    ),  # a callable bond, neither option nor stock
    (
        AVERY,
        "06/25/2026",
        "2026-06-18",
        "AMZN",
        "Amazon.com, Inc. - Exercised 20 call options (2,000 shares) @ $180",
        "purchase",
        LARGE,
        "joint",
    ),  # an exercise: a stock purchase of 2,000 shares
    (BLAIR_AGAIN, "06/26/2026", "2026-06-22", "KO", "Coca-Cola Company", "purchase", SMALL, "Dependent Child"),
    (CASS, "06/26/2026", "2026-06-23", "AAPL", "Apple Inc.", "purchase", "$1,000 - $15,000", "spouse"),
    (BLAIR, "06/29/2026", "2035-06-23", "PG", "Procter & Gamble Company", "sale_partial", SMALL, "self"),  # 2035
)
# A daily file that repeats two trades of the summary above (the same disclosure in two files: counted once).
HOUSE_DAILY_ROWS = (HOUSE_ROWS[3], HOUSE_ROWS[4])
# House rows in the capitol-watch shape: MM/DD/YYYY dates, "Purchase" types, the report link in `source_url`.
CAPITOL_ROWS = (
    (DANA, "06/24/2026", "06/15/2026", "NVDA", "NVIDIA Corporation - Common Stock", "Purchase", SMALL, "Spouse"),
    (CASEY, "06/24/2026", "06/16/2026", "COST", "Costco Wholesale Corporation", "Sale (Partial)", SMALL, "Self"),
)
CAPITOL_UNLINKED = 1  # the second capitol-watch row carries no report link (`source_url` null)
# (senator, disclosed, traded, ticker, description, asset type, type, amount, owner)
SENATE_ROWS = (
    (EMERY, "06/15/2026", "05/28/2026", "NVDA", "NVIDIA Corp", "Stock", "Purchase", SMALL, "Spouse"),
    (FINLEY, "06/22/2026", "06/02/2026", "LLY", "Eli Lilly & Co", "Stock", "Purchase", LARGE, "Joint"),
    (
        FINLEY,
        "06/22/2026",
        "06/02/2026",
        "AAPL",
        "Apple Inc Option Type: Call Strike price: $250.00",
        "Stock Option",
        "Purchase",
        SMALL,
        "Joint",
    ),
    (
        EMERY,
        "06/15/2026",
        "05/29/2026",
        None,
        "Treasury Note 4.25% 2030",
        "Government Security",
        "Purchase",
        MID,
        "Self",
    ),
    (EMERY, "06/15/2026", "05/29/2026", "CVX", "Chevron Corp", "Stock", "Sale (Partial)", "see attached", "Self"),
    (
        FINLEY,
        "06/22/2026",
        "06/01/2026",
        '<a href="https://finance.yahoo.com/q?s=RTN">RTN</a> <br> <a href="https://finance.yahoo.com/q?s=RTX">RTX</a>',
        "Raytheon (Exchanged) RTX (Received)",
        "Stock",
        "Exchange",
        SMALL,
        "Self",
    ),
)
# Jane Roe's reports: (received, [(traded, ticker, description, asset type, type, amount, owner)])
PERSON_REPORTS = (
    (
        "01/15/2026",
        [
            ("11/20/2025", "AAPL", "Apple Inc.", "Stock", "Purchase", MID, "Self"),
            ("11/20/2025", "MSFT", "Microsoft Corporation", "Stock", "Purchase", LARGE, "Joint"),
            ("11/21/2025", "NVDA", "NVIDIA Corporation", "Stock", "Purchase", SMALL, "Self"),
            ("12/01/2025", "JNJ", "Johnson &amp; Johnson", "Stock", "Purchase", MID, "Spouse"),
            ("12/02/2025", "KO", "The Coca-Cola Company", "Stock", "Purchase", SMALL, "Spouse"),
            ("12/03/2025", "--", "Ohio St Water Dev Auth 5.00% 2034", "Municipal Security", "Purchase", MID, "Self"),
        ],
    ),
    (
        "03/10/2026",
        [
            ("02/20/2026", "AAPL", "Apple Inc.", "Stock", "Sale (Partial)", SMALL, "Self"),
            ("02/23/2026", "NVDA", "NVIDIA Corporation", "Stock", "Purchase", MID, "Self"),
            ("02/24/2026", "KO", "The Coca-Cola Company", "Stock", "Sale (Full)", SMALL, "Spouse"),
            ("02/25/2026", "PFE", "Pfizer Inc.", "Stock", "Sale (Partial)", SMALL, "Joint"),
        ],
    ),
    (
        "05/20/2026",
        [
            ("05/01/2026", "LLY", "Eli Lilly and Company", "Stock", "Purchase", MID, "Joint"),
            ("05/04/2026", "AAPL", "Apple Inc. Option Type: Call", "Stock Option", "Purchase", SMALL, "Self"),
            ("05/05/2026", "GE", "GE Aerospace", "Stock", "Gift", SMALL, "Self"),
            ("13/45/2026", "HD", "The Home Depot, Inc.", "Stock", "Purchase", SMALL, "Self"),
        ],
    ),
    (
        "06/12/2026",
        [  # filed as "Roe, Jane Q.": one person by the identity rules
            ("06/01/2026", "AAPL", "Apple Inc. Option Type: Call", "Stock Option", "Sale (Full)", SMALL, "Self"),
            ("06/02/2026", "JNJ", "Johnson &amp; Johnson", "Stock", "Purchase", SMALL, "Dependent Child"),
        ],
    ),
    ("07/15/2026", [("07/01/2026", "TSLA", "Tesla, Inc.", "Stock", "Purchase", MID, "Self")]),  # after as_of
)
# Forum counts: ticker → (name, mentions on five consecutive days, upvotes); day 0 is only the first
# snapshot's "24 h ago", days 1–4 are the snapshots (day 4 is after as_of).
FORUM_COUNTS = {
    "SPY": ("SPDR S&amp;P 500 ETF Trust", (420, 400, 380, 390, 500), 1510),
    "NVDA": ("NVIDIA", (300, 320, 310, 330, 200), 2210),
    "TSLA": ("Tesla", (250, 230, 210, 180, 170), -12),
    "PLTR": ("Palantir", (60, 90, 150, 240, 100), 980),
    "AMD": ("AMD", (80, 70, 85, 120, 90), 410),
    "MU": ("Micron Technology", (50, 55, 52, 26, 30), 77),
    "GME": ("GameStop", (0, 0, 5, 95, 300), 655),
    "RDDT": ("Reddit", (0, 0, 0, 40, 10), 120),
    "T": ("AT&amp;T", (30, 28, 35, 33, 31), -3),
    "IT": ("Gartner", (40, 45, 50, 70, 41), 12),
    "ON": ("ON Semiconductor", (20, 22, 30, 60, 25), 9),
    "ALL": ("Allstate", (15, 14, 12, 30, 11), 4),
    "SOFI": ("SoFi Technologies", (20, 22, 24, 20, 26), 35),
}
FORUMS = {"wallstreetbets": 1, "all-stocks": 2}  # all-stocks counts every forum: the same talk, doubled


def write_preview_sources(root: Path) -> None:
    """Write previews/ under `root` and append [person], [congress], [social] to root/packs.toml."""
    config = root / "packs.toml"
    existing = config.read_text(encoding="utf-8") if config.exists() else ""
    clash = sorted({"person", "congress", "social"} & set(tomllib.loads(existing)))
    if clash:
        raise ValueError(f"{config} already has preview sections: {', '.join(clash)}")
    _write_json(root / "previews" / "congress" / "house_fixture.json", [_house_row(*row) for row in HOUSE_ROWS])
    _write_json(
        root / "previews" / "congress" / "house_fixture_daily_06_08_2026.json",
        [_house_row(*row) for row in HOUSE_DAILY_ROWS],
    )
    _write_json(root / "previews" / "congress" / "house_capitol_watch_fixture.json", _capitol_rows())
    _write_json(root / "previews" / "congress" / "senate_fixture.json", [_senate_row(*row) for row in SENATE_ROWS])
    _write_json(root / "previews" / "person" / "jane_roe_reports_fixture.json", _person_reports())
    _write_json(root / "previews" / "social" / "apewisdom_fixture.json", _snapshots())
    separator = "" if not existing or existing.endswith("\n") else "\n"
    config.write_text(existing + separator + PREVIEW_SECTIONS, encoding="utf-8")


def _write_json(path: Path, document: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _house_row(
    member: tuple[str, str],
    disclosed: str,
    traded: str,
    ticker: str,
    description: str,
    kind: str,
    amount: str,
    owner: str,
) -> dict:
    link = HOUSE_LINK.format(f"{member[1]}-{disclosed.replace('/', '')}")
    return {
        "disclosure_year": disclosed[-4:],
        "disclosure_date": disclosed,
        "transaction_date": traded,
        "owner": owner,
        "ticker": ticker,
        "asset_description": description,
        "type": kind,
        "amount": amount,
        "representative": member[0],
        "district": member[1],
        "ptr_link": link,
        "cap_gains_over_200_usd": "False",
    }


def _capitol_rows() -> list[dict]:
    rows = []
    for index, (member, disclosed, traded, ticker, description, kind, amount, owner) in enumerate(CAPITOL_ROWS):
        link = HOUSE_LINK.format(f"{member[1]}-{disclosed.replace('/', '')}") if index != CAPITOL_UNLINKED else None
        rows.append(
            {
                "disclosure_date": disclosed,
                "transaction_date": traded,
                "owner": owner,
                "ticker": ticker,
                "asset_description": description,
                "type": kind,
                "amount": amount,
                "representative": member[0].removeprefix("Rep. "),
                "district": member[1],
                "source_url": link,
            }
        )
    return rows


def _senate_row(
    senator: str,
    disclosed: str,
    traded: str,
    ticker: str | None,
    description: str,
    asset_type: str,
    kind: str,
    amount: str,
    owner: str,
) -> dict:
    link = SENATE_LINK.format(f"{senator.split(',')[0].lower()}-{disclosed.replace('/', '')}")
    return {
        "transaction_date": traded,
        "owner": owner,
        "ticker": ticker,
        "asset_description": description,
        "asset_type": asset_type,
        "type": kind,
        "amount": amount,
        "comment": "--",
        "senator": senator,
        "ptr_link": link,
        "disclosure_date": disclosed,
    }


def _person_reports() -> list[dict]:
    reports = []
    for received, rows in PERSON_REPORTS:
        transactions = [
            {
                "transaction_date": traded,
                "owner": owner,
                "ticker": ticker
                if ticker == "--"
                else f'<a href="https://finance.yahoo.com/q?s={ticker}" target="_blank">{ticker}</a>',
                "asset_description": description,
                "asset_type": asset_type,
                "type": kind,
                "amount": amount,
                "comment": "--",
            }
            for traded, ticker, description, asset_type, kind, amount, owner in rows
        ]
        office = "Roe, Jane Q. (fixture) (Senator)" if received == "06/12/2026" else "Roe, Jane (fixture) (Senator)"
        reports.append(
            {
                "first_name": "Jane",
                "last_name": "Roe",
                "office": office,
                "ptr_link": SENATE_LINK.format(f"roe-{received.replace('/', '')}"),
                "date_recieved": received,
                "transactions": transactions,
                "bioguide": "Z000000",
            }
        )
    return reports


def _snapshots() -> list[dict]:
    snapshots = []
    for day in range(1, 5):
        taken = SNAPSHOT_START + timedelta(days=day - 1)
        filters = {forum: _forum_rows(day, scale) for forum, scale in FORUMS.items()}
        snapshots.append({"ts": taken.isoformat(timespec="milliseconds").replace("+00:00", "Z"), "filters": filters})
    snapshots[1]["filters"]["wallstreetbets"][4]["rank_24h_ago"] = "n/a"  # kept, rank 24 h ago left empty
    latest = snapshots[2]["filters"]["wallstreetbets"]
    latest.append(
        {
            "rank": len(latest) + 1,
            "ticker": "BB",
            "name": "BlackBerry",
            "mentions": "lots",
            "upvotes": 3,
            "rank_24h_ago": 0,
            "mentions_24h_ago": 0,
        }
    )  # excluded: mentions unreadable
    return snapshots


def _forum_rows(day: int, scale: int) -> list[dict]:
    ranks = {when: _ranks(when) for when in (day - 1, day)}
    rows = []
    for ticker in sorted(ranks[day], key=ranks[day].get):
        name, counts, upvotes = FORUM_COUNTS[ticker]
        rows.append(
            {
                "rank": ranks[day][ticker],
                "ticker": ticker,
                "name": name,
                "mentions": counts[day] * scale,
                "upvotes": upvotes * scale,
                "rank_24h_ago": ranks[day - 1].get(ticker, 0),
                "mentions_24h_ago": counts[day - 1] * scale,
            }
        )
    return rows


def _ranks(day: int) -> dict[str, int]:
    """Rank by mentions on `day` (ties by ticker); a ticker with no mentions is not ranked."""
    listed = sorted(
        (t for t, (_, counts, _) in FORUM_COUNTS.items() if counts[day]), key=lambda t: (-FORUM_COUNTS[t][1][day], t)
    )
    return {ticker: rank for rank, ticker in enumerate(listed, start=1)}


PREVIEW_SECTIONS = f"""
# Preview packs: FICTIONAL fixture data written by scripts/fixture_previews.py (invented people, real tickers).
[person]
name = "Jane Roe"
files = ["previews/person"]
as_of = {FIXTURE_AS_OF.isoformat()}
fixture = true

[congress]
files = ["previews/congress"]
as_of = {FIXTURE_AS_OF.isoformat()}
fixture = true

[congress.aliases]  # spellings of one member that no rule merges (a nickname)
"Rep. Casey Madeup (fixture)" = ["Rep. Cass Madeup (fixture)"]

[congress.demo]
window_days = 30
min_members = 2
min_amount = 1001

[congress.strict]
window_days = 30
min_members = 3
min_amount = 15001

[social]
forum = "wallstreetbets"
abbreviation = "wsb"
files = ["previews/social"]
as_of = {FIXTURE_AS_OF.isoformat()}
fixture = true
"""
