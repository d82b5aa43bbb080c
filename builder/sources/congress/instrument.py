"""What a congressional trade is in: the ticker's stock, an option on it, a bond, or something else (pure).

Senate rows name the asset type and keep it. House rows have none, so their description decides, in the
spellings real House reports use: an option says call or put together with option, strike or expiry
wording ("Call Opt strike @ $300 exp 6/18/21", "Call Opts at $130, expires 4/16", "50 CALL options @ $100
expiry 06/17/22", "$180 PUT Option"); an exercise of options ("Exercised 100 call options (10K shares) …
@ $140") delivers stock, so it is a trade in the stock of that many shares; a callable bond says CALL too
("NOTE CALL MAKE WHOLE", "CALL 06/01/30 @ 100") and is a bond. Each decision carries the rule that made it.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

CONTRACT_SHARES = 100  # shares per standard US equity option contract (OCC), when an exercise names no share count
CALL_OR_PUT = re.compile(r"\b(?:calls?|puts?)\b", re.I)
OPTION_WORDING = re.compile(
    r"\b(?:options?|opts?|strike|exp|expiry|expires|expired|expiring|expiration)\b|@\s*\$", re.I
)
EXERCISE = re.compile(r"\bexc?ercis(?:e|ed|es|ing)\b", re.I)  # "Exercised", and the real misspelling "Excercised"
BOND_WORDING = re.compile(
    r"\b(?:notes?|nts|mtn|bonds?|bds|debentures?|make[ -]?whole|t-?bills?)\b"  # NOTE CALL MAKE WHOLE, MTN CALL, GO BDS
    r"|\b(?:us|u\.s\.)\s+treasury\b|\btreasury\s+(?:bills?|notes?|bonds?)\b"  # "US Treasury Bill", not "Treasury Wine"
    r"|\d\s*%.*\bdue\b"  # a coupon and a maturity: "5.00% Due 08/01/25"
    r"|\d\s*%\s+\d{1,2}/\d{1,2}/\d{2,4}"  # "5% 06/15/27"
    r"|\bcall\s+\d{1,2}/\d{1,2}/\d{2,4}\s*@\s*\d",  # a call schedule at a price, no dollar sign: "CALL 06/01/30 @ 100"
    re.I,
)
INSTRUMENT_RULE = (
    "the Senate's asset type when it names one (option; bond, municipal, government or treasury security; "
    "stock); else the description's words, as House rows have no type: an exercise of call or put options is a "
    "trade in the stock (shares delivered from the stated count, else contracts x 100); bond wording (note, MTN, "
    "bond, debenture, make whole, US Treasury, a coupon with a maturity, a call date at a price) is a bond, "
    "callable bonds included; call or put with option, strike or expiry wording is an option; else a ticker's "
    "row is stock and an untickered one other (bond when it states a coupon)"
)
COUPON = re.compile(r"\d\s*%")
SHARES = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(k)?\s+shares\b", re.I)  # "(10K shares)", "2.5K shares", "3,000 shares"
CONTRACTS = re.compile(r"\b(\d[\d,]*)\s+(?:call|put)s?\s+op", re.I)  # "Exercised 25 Call options"


class Instrument(enum.Enum):
    STOCK = "stock"  # the ticker's own shares: common or preferred stock, funds, ETFs
    OPTION = "option"  # a call or put: not a position in the stock (a bought put is a bet against it)
    BOND = "bond"  # notes, bonds, municipal and government securities, callable ones included
    OTHER = "other"  # crypto, or an untickered row whose words name no stock, option or bond


@dataclass(frozen=True, slots=True)
class Classified:
    instrument: Instrument
    rule: str  # "asset-type", "exercise", "bond-wording", "option-wording", "ticker", "no-ticker"
    shares: int | None = None  # shares an exercise delivered, when the row says (or its contracts imply)


def classify(asset_type: str, description: str, ticker: str | None) -> Classified:
    """The instrument of one row: the asset type when it names one, else the description's words."""
    kind = asset_type.casefold()
    if "option" in kind:
        return Classified(Instrument.OPTION, "asset-type")
    if any(word in kind for word in ("bond", "municipal", "government", "treasury")):
        return Classified(Instrument.BOND, "asset-type")
    if "crypto" in kind:
        return Classified(Instrument.OTHER, "asset-type")
    if "stock" in kind:  # "Stock", "Non-Public Stock"
        return Classified(Instrument.STOCK, "asset-type")
    return from_words(description, ticker)  # House rows; Senate "Other", "Other Securities"


def from_words(description: str, ticker: str | None) -> Classified:
    """The instrument a description names (rules in the module docstring), else stock when it has a ticker."""
    if EXERCISE.search(description) and CALL_OR_PUT.search(description):
        return Classified(Instrument.STOCK, "exercise", delivered_shares(description))
    if BOND_WORDING.search(description):
        return Classified(Instrument.BOND, "bond-wording")
    if CALL_OR_PUT.search(description) and OPTION_WORDING.search(description):
        return Classified(Instrument.OPTION, "option-wording")
    if ticker is not None:
        return Classified(Instrument.STOCK, "ticker")
    if COUPON.search(description):  # "New York St 5%": an untickered coupon is a bond
        return Classified(Instrument.BOND, "bond-wording")
    return Classified(Instrument.OTHER, "no-ticker")


def delivered_shares(description: str) -> int | None:
    """Shares an exercise delivered: the stated count ("10K shares"), else contracts × 100, else None."""
    if match := SHARES.search(description):
        number = float(match.group(1).replace(",", ""))
        return round(number * 1000) if match.group(2) else round(number)
    if match := CONTRACTS.search(description):
        return int(match.group(1).replace(",", "")) * CONTRACT_SHARES
    return None
