"""Tables for scripts/make_fixture.py: real securities, fictional managers, calendar, prices, quirk placement."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date

SEED = 20260930  # any fixed value; every random draw of the fixture is seeded from it, so output never varies
PRICE_LIMITS = (8.0, 1450.0)  # keep every implied price inside the reader's plausible $5–$1,500
PRICE_DRIFT = 0.02  # mean quarterly return of the invented price paths
PRICE_SWING = 0.10  # half-width of the uniform quarterly return (uniform: no libm, same floats everywhere)


@dataclass(frozen=True, slots=True)
class SecurityFact:
    """A real security: CUSIP/ticker pair (public facts), 13F issuer name and class, a plausible price."""

    cusip: str
    ticker: str
    issuer: str
    title: str
    price: float  # rough mid-2020s share price in dollars, the anchor of the fixture's invented price path
    group: int  # 0: any manager may hold it; n: mostly manager n's own field, so it tends to be exclusive


@dataclass(frozen=True, slots=True)
class ManagerPlan:
    """A fictional manager: identity, calendar, book size and how its filings are written."""

    id: str
    name: str
    number: int  # 1…: its CIK is 99000000nn (an unused range) and its own satellite field is group nn
    first_period: date
    book_millions: int  # rough long-equity book in millions of dollars
    filing_days: tuple[int, int]  # filed this many days after quarter end (before weekend adjustment)
    city: str
    state: str
    zip_code: str
    missing: tuple[date, ...] = ()  # quarters with no filing at all
    layout: str = "xml"  # "xml": <accession>/primary_doc.xml + infotable.xml; "txt": <accession>.txt
    prefix: str | None = None  # information table element prefix ("ns1"), None for the default namespace

    @property
    def cik(self) -> str:
        return f"99000000{self.number:02d}"


def _s(cusip: str, ticker: str, issuer: str, title: str, price: float, group: int = 0) -> SecurityFact:
    return SecurityFact(cusip, ticker, issuer, title, price, group)


SECURITIES: tuple[SecurityFact, ...] = (
    # Core: large caps and broad ETFs that any manager may hold (overlap lives here).
    _s("037833100", "AAPL", "APPLE INC", "COM", 210),
    _s("594918104", "MSFT", "MICROSOFT CORP", "COM", 450),
    _s("023135106", "AMZN", "AMAZON COM INC", "COM", 200),
    _s("02079K305", "GOOGL", "ALPHABET INC", "CAP STK CL A", 170),
    _s("30303M102", "META", "META PLATFORMS INC", "CL A", 580),
    _s("67066G104", "NVDA", "NVIDIA CORPORATION", "COM", 140),
    _s("11135F101", "AVGO", "BROADCOM INC", "COM", 220),
    _s("084670702", "BRK.B", "BERKSHIRE HATHAWAY INC DEL", "CL B NEW", 480),
    _s("46625H100", "JPM", "JPMORGAN CHASE & CO", "COM", 240),
    _s("92826C839", "V", "VISA INC", "COM CL A", 330),
    _s("57636Q104", "MA", "MASTERCARD INCORPORATED", "CL A", 540),
    _s("91324P102", "UNH", "UNITEDHEALTH GROUP INC", "COM", 420),
    _s("478160104", "JNJ", "JOHNSON & JOHNSON", "COM", 158),
    _s("30231G102", "XOM", "EXXON MOBIL CORP", "COM", 112),
    _s("742718109", "PG", "PROCTER AND GAMBLE CO", "COM", 162),
    _s("437076102", "HD", "HOME DEPOT INC", "COM", 380),
    _s("191216100", "KO", "COCA COLA CO", "COM", 66),
    _s("22160K105", "COST", "COSTCO WHSL CORP NEW", "COM", 900),
    _s("931142103", "WMT", "WALMART INC", "COM", 85),
    _s("532457108", "LLY", "ELI LILLY & CO", "COM", 780),
    _s("060505104", "BAC", "BANK AMERICA CORP", "COM", 42),
    _s("68389X105", "ORCL", "ORACLE CORP", "COM", 190),
    _s("79466L302", "CRM", "SALESFORCE INC", "COM", 280),
    _s("64110L106", "NFLX", "NETFLIX INC", "COM", 700),
    _s("88160R101", "TSLA", "TESLA INC", "COM", 300),
    _s("78462F103", "SPY", "SPDR S&P 500 ETF TR", "TR UNIT", 560),
    _s("46090E103", "QQQ", "INVESCO QQQ TR", "UNIT SER 1", 480),
    _s("922908363", "VOO", "VANGUARD INDEX FDS", "S&P 500 ETF SHS", 510),
    _s("002824100", "ABT", "ABBOTT LABS", "COM", 120),
    _s("00287Y109", "ABBV", "ABBVIE INC", "COM", 180),
    _s("58933Y105", "MRK", "MERCK & CO INC", "COM", 95),
    _s("166764100", "CVX", "CHEVRON CORP NEW", "COM", 150),
    _s("713448108", "PEP", "PEPSICO INC", "COM", 150),
    _s("580135101", "MCD", "MCDONALDS CORP", "COM", 290),
    _s("17275R102", "CSCO", "CISCO SYS INC", "COM", 60),
    _s("007903107", "AMD", "ADVANCED MICRO DEVICES INC", "COM", 130),
    _s("874039100", "TSM", "TAIWAN SEMICONDUCTOR MFG LTD", "SPONSORED ADS", 190),
    # Satellite fields, one per manager (exclusive holdings mostly live here).
    _s("38141G104", "GS", "GOLDMAN SACHS GROUP INC", "COM", 560, 1),
    _s("617446448", "MS", "MORGAN STANLEY", "COM NEW", 120, 1),
    _s("025816109", "AXP", "AMERICAN EXPRESS CO", "COM", 280, 1),
    _s("949746101", "WFC", "WELLS FARGO CO NEW", "COM", 70, 1),
    _s("172967424", "C", "CITIGROUP INC", "COM NEW", 70, 1),
    _s("693475105", "PNC", "PNC FINL SVCS GROUP INC", "COM", 180, 1),
    _s("902973304", "USB", "US BANCORP DEL", "COM NEW", 45, 1),
    _s("09260D107", "BX", "BLACKSTONE INC", "COM", 150, 1),
    _s("031162100", "AMGN", "AMGEN INC", "COM", 290, 2),
    _s("375558103", "GILD", "GILEAD SCIENCES INC", "COM", 90, 2),
    _s("883556102", "TMO", "THERMO FISHER SCIENTIFIC INC", "COM", 520, 2),
    _s("235851102", "DHR", "DANAHER CORPORATION", "COM", 220, 2),
    _s("46120E602", "ISRG", "INTUITIVE SURGICAL INC", "COM NEW", 480, 2),
    _s("863667101", "SYK", "STRYKER CORPORATION", "COM", 360, 2),
    _s("126650100", "CVS", "CVS HEALTH CORP", "COM", 60, 2),
    _s("75886F107", "REGN", "REGENERON PHARMACEUTICALS", "COM", 750, 2),
    _s("98978V103", "ZTS", "ZOETIS INC", "CL A", 165, 2),
    _s("717081103", "PFE", "PFIZER INC", "COM", 27, 2),
    _s("81762P102", "NOW", "SERVICENOW INC", "COM", 850, 3),
    _s("22788C105", "CRWD", "CROWDSTRIKE HLDGS INC", "CL A", 340, 3),
    _s("697435105", "PANW", "PALO ALTO NETWORKS INC", "COM", 180, 3),
    _s("69608A108", "PLTR", "PALANTIR TECHNOLOGIES INC", "CL A", 60, 3),
    _s("833445109", "SNOW", "SNOWFLAKE INC", "COM", 160, 3),
    _s("82509L107", "SHOP", "SHOPIFY INC", "CL A SUB VTG", 95, 3),
    _s("90353T100", "UBER", "UBER TECHNOLOGIES INC", "COM", 75, 3),
    _s("461202103", "INTU", "INTUIT", "COM", 620, 3),
    _s("00724F101", "ADBE", "ADOBE INC", "COM", 450, 3),
    _s("595112103", "MU", "MICRON TECHNOLOGY INC", "COM", 100, 4),
    _s("038222105", "AMAT", "APPLIED MATLS INC", "COM", 180, 4),
    _s("512807108", "LRCX", "LAM RESEARCH CORP", "COM NEW", 85, 4),
    _s("747525103", "QCOM", "QUALCOMM INC", "COM", 160, 4),
    _s("882508104", "TXN", "TEXAS INSTRS INC", "COM", 190, 4),
    _s("458140100", "INTC", "INTEL CORP", "COM", 24, 4),
    _s("92189F676", "SMH", "VANECK ETF TRUST", "SEMICONDUCTR ETF", 240, 4),
    _s("464287655", "IWM", "ISHARES TR", "RUSSELL 2000 ETF", 210, 4),
    _s("20825C104", "COP", "CONOCOPHILLIPS", "COM", 105, 5),
    _s("674599105", "OXY", "OCCIDENTAL PETE CORP", "COM", 50, 5),
    _s("806857108", "SLB", "SCHLUMBERGER LTD", "COM STK", 40, 5),
    _s("718546104", "PSX", "PHILLIPS 66", "COM", 125, 5),
    _s("56585A102", "MPC", "MARATHON PETE CORP", "COM", 155, 5),
    _s("49456B101", "KMI", "KINDER MORGAN INC DEL", "COM", 27, 5),
    _s("907818108", "UNP", "UNION PAC CORP", "COM", 230, 5),
    _s("438516106", "HON", "HONEYWELL INTL INC", "COM", 210, 5),
    _s("369604301", "GE", "GENERAL ELECTRIC CO", "COM NEW", 190, 5),
    _s("244199105", "DE", "DEERE & CO", "COM", 420, 5),
    _s("75513E101", "RTX", "RTX CORPORATION", "COM", 125, 5),
    _s("539830109", "LMT", "LOCKHEED MARTIN CORP", "COM", 470, 5),
    _s("718172109", "PM", "PHILIP MORRIS INTL INC", "COM", 130, 6),
    _s("02209S103", "MO", "ALTRIA GROUP INC", "COM", 55, 6),
    _s("609207105", "MDLZ", "MONDELEZ INTL INC", "CL A", 65, 6),
    _s("194162103", "CL", "COLGATE PALMOLIVE CO", "COM", 92, 6),
    _s("65339F101", "NEE", "NEXTERA ENERGY INC", "COM", 72, 6),
    _s("26441C204", "DUK", "DUKE ENERGY CORP NEW", "COM NEW", 112, 6),
    _s("842587107", "SO", "SOUTHERN CO", "COM", 88, 6),
    _s("03027X100", "AMT", "AMERICAN TOWER CORP NEW", "COM", 205, 6),
    _s("74340W103", "PLD", "PROLOGIS INC.", "COM", 110, 6),
    _s("756109104", "O", "REALTY INCOME CORP", "COM", 56, 6),
    _s("81369Y506", "XLE", "SELECT SECTOR SPDR TR", "ENERGY", 90, 6),
    _s("78463V107", "GLD", "SPDR GOLD TR", "GOLD SHS", 230, 6),
    _s("254687106", "DIS", "DISNEY WALT CO", "COM", 100, 7),
    _s("20030N101", "CMCSA", "COMCAST CORP NEW", "CL A", 38, 7),
    _s("92343V104", "VZ", "VERIZON COMMUNICATIONS INC", "COM", 42, 7),
    _s("00206R102", "T", "AT&T INC", "COM", 22, 7),
    _s("872590104", "TMUS", "T-MOBILE US INC", "COM", 230, 7),
    _s("855244109", "SBUX", "STARBUCKS CORP", "COM", 95, 7),
    _s("654106103", "NKE", "NIKE INC", "CL B", 75, 7),
    _s("548661107", "LOW", "LOWES COS INC", "COM", 250, 7),
    _s("872540109", "TJX", "TJX COS INC NEW", "COM", 120, 7),
    _s("25809K105", "DASH", "DOORDASH INC", "CL A", 180, 7),
    _s("03831W108", "APP", "APPLOVIN CORP", "COM CL A", 300, 7),
)

# Quirk securities: outside every manager's ordinary turnover.
PRN_SECURITY = _s("46435GAA0", "IBDR", "ISHARES TR", "IBONDS DEC2026", 24.5)  # a term-bond ETF filed as PRN
UNMAPPED_SECURITY = _s("G1151C101", "ACN", "ACCENTURE PLC IRELAND", "SHS CLASS A", 310)  # not in securities.csv
PUT_UNDERLYING = "78462F103"  # SPY: an index hedge, the usual put row
CALL_UNDERLYING = "67066G104"  # NVDA: calls on a stock other managers hold as shares

FIRST_QUARTER = date(2022, 9, 30)  # larch's history starts before the 2023 unit change
USUAL_FIRST_QUARTER = date(2023, 6, 30)
LATE_FIRST_QUARTER = date(2024, 6, 30)  # juniper starts here, so the common quarters start here too
GAP_QUARTER = date(2025, 3, 31)  # osprey files nothing for it, so it is not a common quarter
LAST_QUARTER = date(2026, 9, 30)


MANAGERS: tuple[ManagerPlan, ...] = (
    ManagerPlan(
        "larch",
        "Larch Hill Capital (fictional)",
        1,
        FIRST_QUARTER,
        book_millions=2400,
        filing_days=(36, 44),
        city="Boston",
        state="MA",
        zip_code="02110",
    ),
    ManagerPlan(
        "quillwort",
        "Quillwort Partners (fictional)",
        2,
        USUAL_FIRST_QUARTER,
        book_millions=1300,
        filing_days=(25, 40),
        layout="txt",
        city="Greenwich",
        state="CT",
        zip_code="06830",
    ),
    ManagerPlan(
        "tamarack",
        "Tamarack Ridge Advisors (fictional)",
        3,
        USUAL_FIRST_QUARTER,
        book_millions=3100,
        filing_days=(18, 30),
        prefix="ns1",
        city="San Francisco",
        state="CA",
        zip_code="94105",
    ),
    ManagerPlan(
        "osprey",
        "Osprey Bend Management (fictional)",
        4,
        USUAL_FIRST_QUARTER,
        book_millions=900,
        filing_days=(30, 44),
        missing=(GAP_QUARTER,),
        city="Chicago",
        state="IL",
        zip_code="60606",
    ),
    ManagerPlan(
        "marrow",
        "Marrow Lane Investors (fictional)",
        5,
        USUAL_FIRST_QUARTER,
        book_millions=1800,
        filing_days=(38, 44),
        city="Houston",
        state="TX",
        zip_code="77002",
    ),
    ManagerPlan(
        "fennel",
        "Fennel Point Asset Management (fictional)",
        6,
        USUAL_FIRST_QUARTER,
        book_millions=650,
        filing_days=(20, 28),
        city="Minneapolis",
        state="MN",
        zip_code="55402",
    ),
    ManagerPlan(
        "juniper",
        "Juniper Ledge Capital (fictional)",
        7,
        LATE_FIRST_QUARTER,
        book_millions=1100,
        filing_days=(28, 42),
        city="Denver",
        state="CO",
        zip_code="80202",
    ),
)

THOUSANDS_BEFORE = date(2023, 1, 3)  # SEC Release 34-95148: filings made before this date report thousands
SPLIT_MANAGER = "marrow"  # files its JPM stake over three rows (SOLE; DFND with other managers 1 and 1,2)
SPLIT_CUSIP = "46625H100"
OPTIONS_MANAGER = "osprey"  # SPY puts every quarter, NVDA calls from 2024 on
PRN_MANAGER = "fennel"  # IBDR reported as PRN every quarter
UNMAPPED_MANAGER = "juniper"  # holds ACN every quarter, whose CUSIP securities.csv lacks
NEW_HOLDINGS = ("tamarack", LAST_QUARTER)  # a 13F-HR/A NEW HOLDINGS adds the quarter's newest buys
RESTATEMENT = ("fennel", date(2026, 6, 30))  # a 13F-HR/A RESTATEMENT corrects share counts of the original
RESTATED_ROWS = 3  # rows whose share count the original got wrong
NEW_HOLDINGS_ROWS = 3  # rows the NEW HOLDINGS amendment adds


def quarter_ends(first: date, last: date) -> list[date]:
    """Every calendar quarter end from `first` to `last`."""
    ends: list[date] = []
    year, month = first.year, first.month
    while date(year, month, 1) <= last:
        ends.append(date(year, month, 31 if month in (3, 12) else 30))
        year, month = (year + 1, 3) if month == 12 else (year, month + 3)
    return ends


QUARTERS = quarter_ends(FIRST_QUARTER, LAST_QUARTER)
BY_CUSIP = {fact.cusip: fact for fact in (*SECURITIES, PRN_SECURITY, UNMAPPED_SECURITY)}


def price_paths() -> dict[str, list[int]]:
    """Price in cents per security per quarter: a seeded walk from 85% of the table's anchor price."""
    paths: dict[str, list[int]] = {}
    for fact in BY_CUSIP.values():
        rng = random.Random(f"{SEED}:price:{fact.cusip}")
        calm = 10 if fact is PRN_SECURITY else 1  # a term-bond fund barely moves
        price, path = fact.price * 0.85, []
        for _ in QUARTERS:
            price *= 1 + PRICE_DRIFT / calm + rng.uniform(-PRICE_SWING, PRICE_SWING) / calm
            price = min(max(price, PRICE_LIMITS[0]), PRICE_LIMITS[1])
            path.append(round(price * 100))
        paths[fact.cusip] = path
    return paths


PRICES = price_paths()


def cents(cusip: str, period: date) -> int:
    """The fixture's price of a security at a quarter end, in cents."""
    return PRICES[cusip][QUARTERS.index(period)]


def packs_toml() -> bytes:
    """packs.toml of the fixture tree: the fixture flag and the managers (names carry no quotes to escape)."""
    lines = [
        "# Fictional fixture: invented managers and holdings over real securities. Not investment data.",
        "[source]",
        "fixture = true",
        "",
        "[copycat]",
        "versions = 8",
    ]
    for plan in MANAGERS:
        lines += [
            "",
            "[[copycat.managers]]",
            f'id = "{plan.id}"',
            f'name = "{plan.name}"',
            f'cik = "{plan.cik}"',
            "fictional = true",
        ]
        if plan.missing:  # publish checks coverage: a gap inside the window must be allowed by name
            listed = ", ".join(f'"{quarter.isoformat()}"' for quarter in plan.missing)
            lines.append(f"allow_missing = [{listed}]  # the fictional fixture's gap: nothing filed for it")
    return ("\n".join(lines) + "\n").encode("utf-8")


def securities_csv() -> bytes:
    """securities.csv by CUSIP: every security but the deliberately unmapped one (names have no commas)."""
    facts = sorted((*SECURITIES, PRN_SECURITY), key=lambda fact: fact.cusip)
    lines = ["cusip,ticker,name", *(f"{fact.cusip},{fact.ticker},{fact.issuer}" for fact in facts)]
    return ("\n".join(lines) + "\n").encode("utf-8")
