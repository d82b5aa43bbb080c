"""What a congressional trade is in: the ticker's stock, an option on it, a bond, crypto or something else (pure).

Decided by all a row says, the strongest evidence winning. The description's words are the strongest: an
exercise of options delivers stock ("Exercised 100 call options (10K shares) … @ $140"); a coupon, a
maturity, note or bond wording, or a CUSIP make a bond, even under the issuer's stock ticker ("Oracle Corp
Note Call Make Whole 2.3% 03/25/2028" ORCL, "Goldman Sachs Inter 3.24%" GS, "… CUSIP-172967Kd2"); call or put
with option wording, a date or a strike make an option ("Call Opt strike @ $300 exp 6/18/21", "SPY Feb 2016
put 180.000", "PUT Standard & Poors Dep Rec at 180"). Next come an asset type that names a kind (option,
bond, crypto) and a `-USD` pair as ticker (crypto). A blanket type ("Stock", which one scraper writes on
every row) and a ticker alone are the weakest: stock unless anything else says otherwise. A type the words
overrule is reported (`contradicted`), and where two scrapers copy one line, the copy with the stronger
evidence decides both (builder.research.previews.disclosures). Each decision carries the rule that made it.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

CONTRACT_SHARES = 100  # shares per standard US equity option contract (OCC), when an exercise names no share count
CALL_OR_PUT = re.compile(r"\b(?:calls?|puts?)\b", re.I)
MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
OPTION_WORDING = re.compile(
    r"\b(?:options?|opts?|strike|exp|expiry|expires|expired|expiring|expiration)\b|@\s*\$?\d"  # wording, "@ $140"
    r"|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b"  # a date: "PUT for 3/19/21"
    rf"|\b{MONTHS}\s+(?:\d{{1,2}},?\s+)?\d{{2,4}}\b"  # "Feb 2016", "Jan 21 2022"
    r"|\b(?:calls?|puts?)\s+\$?\d+(?:\.\d+)?\b|\$\d|\bat\s+\$?\d",  # a strike: "put 180.000", "$180 PUT", "at 180"
    re.I,
)
EXERCISE = re.compile(r"\bexc?ercis(?:e|ed|es|ing)\b", re.I)  # "Exercised", and the real misspelling "Excercised"
PREFERRED = re.compile(r"\b(?:preferred|pfd|prf|depositary shares?)\b", re.I)  # "8.75% Series A … Preferred": stock
BOND_WORDING = re.compile(
    r"\b(?:notes?|nts|mtn|bonds?|bds|debentures?|make[ -]?whole|t-?bills?|coupon|maturity|matures?)\b"
    r"|\b(?:us|u\.s\.)\s+treasury\b|\btreasury\s+(?:bills?|notes?|bonds?)\b"  # "US Treasury Bill", not "Treasury Wine"
    r"|\bcall\s+\d{1,2}/\d{1,2}/\d{2,4}\s*@\s*\d"  # a call schedule at a price, no dollar sign: "CALL 06/01/30 @ 100"
    r"|\bcusip\b|\b\d{3}[0-9a-z]{5}\d\b(?<!\b\d{9})",  # "CUSIP-172967Kd2": six issuer, two issue, a check digit
    re.I,
)
FUND = re.compile(r"\b(?:etf|fund|ishares|spdr)\b", re.I)  # "iShares iBoxx $ High Yield Corporate Bond ETF": a fund
COUPON = re.compile(r"\d\s*%")  # "3.24%", "02.450%": a rate, a bond's unless the row is preferred stock
CRYPTO_PAIR = re.compile(r"^[A-Z0-9]{2,10}-USD$")  # "ETH-USD", "DOGE-USD": a coin priced in dollars, no stock
INSTRUMENT_RULE = (
    "the strongest evidence a row gives wins. Words first: an exercise of call or put options is a trade in the "
    "stock (shares delivered from the stated count, else contracts x 100); bond wording (note, MTN, bond, "
    "debenture, make whole, coupon, maturity, US Treasury, a call date at a price, a CUSIP) or a coupon rate "
    "(but preferred stock) is a bond, under a stock ticker too, unless the row names a fund (ETF, fund, iShares, "
    "SPDR); call or put with option wording, a date or a "
    "strike is an option. Then an asset type naming an option, a bond (municipal, government, treasury) or "
    "crypto, and a -USD pair as ticker (crypto). Weakest: a 'Stock' type or a ticker alone is stock; else "
    "other. A type the words overrule is reported (asset-type-contradicted); two scrapers' copies of one line "
    "take the instrument of the copy with the stronger evidence (rule other-copy)"
)
STRONG = 2  # words, a type naming a kind other than stock, a crypto pair
WEAK = 1  # a blanket stock type, a ticker alone
RULE_STRENGTH = {"stock-type": WEAK, "ticker": WEAK, "no-ticker": 0}  # every other rule is STRONG


class Instrument(enum.Enum):
    STOCK = "stock"  # the ticker's own shares: common or preferred stock, funds, ETFs
    OPTION = "option"  # a call or put: not a position in the stock (a bought put is a bet against it)
    BOND = "bond"  # notes, bonds, municipal and government securities, callable ones included
    CRYPTO = "crypto"  # a coin ("ETH-USD"): no stock, held in no tracker
    OTHER = "other"  # an untickered row whose words name no stock, option or bond


@dataclass(frozen=True, slots=True)
class Classified:
    instrument: Instrument
    rule: str  # "exercise", "bond-wording", "option-wording", "asset-type", "crypto-pair", "stock-type", "ticker", …
    shares: int | None = None  # shares an exercise delivered, when the row says (or its contracts imply)
    contradicted: str = ""  # the asset type the words overruled, "" when none was

    @property
    def strength(self) -> int:
        """How much the decision weighs against another copy's: words and named kinds over a blanket type."""
        return RULE_STRENGTH.get(self.rule, STRONG)


def classify(asset_type: str, description: str, ticker: str | None) -> Classified:
    """The instrument of one row from everything it says; see the module docstring for the order."""
    typed = by_type(asset_type)
    worded = by_words(description)
    if worded is not None:
        overruled = typed is not None and typed.instrument is not worded.instrument
        return Classified(worded.instrument, worded.rule, worded.shares, asset_type if overruled else "")
    if typed is not None and typed.instrument is not Instrument.STOCK:
        return typed
    if ticker is not None and CRYPTO_PAIR.match(ticker):
        overruled = typed is not None
        return Classified(Instrument.CRYPTO, "crypto-pair", contradicted=asset_type if overruled else "")
    if typed is not None:
        return typed
    if ticker is not None:
        return Classified(Instrument.STOCK, "ticker")
    return Classified(Instrument.OTHER, "no-ticker")


def by_type(asset_type: str) -> Classified | None:
    """What an asset type names: option, bond, crypto, stock ("stock-type", a weak claim); None for the rest."""
    kind = asset_type.casefold()
    if "option" in kind:
        return Classified(Instrument.OPTION, "asset-type")
    if any(word in kind for word in ("bond", "municipal", "government", "treasury")):
        return Classified(Instrument.BOND, "asset-type")
    if "crypto" in kind:
        return Classified(Instrument.CRYPTO, "asset-type")
    if "stock" in kind:  # "Stock", "Non-Public Stock"
        return Classified(Instrument.STOCK, "stock-type")
    return None  # House rows; Senate "Other", "Other Securities"


def by_words(description: str) -> Classified | None:
    """The instrument a description names by its own words, or None when it names none."""
    if EXERCISE.search(description) and CALL_OR_PUT.search(description):
        return Classified(Instrument.STOCK, "exercise", delivered_shares(description))
    bond = BOND_WORDING.search(description) or (COUPON.search(description) and not PREFERRED.search(description))
    if bond and not FUND.search(description):
        return Classified(Instrument.BOND, "bond-wording")
    if CALL_OR_PUT.search(description) and OPTION_WORDING.search(description):
        return Classified(Instrument.OPTION, "option-wording")
    return None


def delivered_shares(description: str) -> int | None:
    """Shares an exercise delivered: the stated count ("10K shares"), else contracts × 100, else None."""
    if match := SHARES.search(description):
        number = float(match.group(1).replace(",", ""))
        return round(number * 1000) if match.group(2) else round(number)
    if match := CONTRACTS.search(description):
        return int(match.group(1).replace(",", "")) * CONTRACT_SHARES
    return None


SHARES = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(k)?\s+shares\b", re.I)  # "(10K shares)", "2.5K shares", "3,000 shares"
CONTRACTS = re.compile(r"\b(\d[\d,]*)\s+(?:call|put)s?\s+op", re.I)  # "Exercised 25 Call options"
