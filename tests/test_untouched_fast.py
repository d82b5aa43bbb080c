"""The shorter way to an untouched manager's changes (spans._one_to_one: each CUSIP keyed to one ticker, the same on
both sides, nothing flagged) gives exactly what the general one (spans._by_keys) gives, or declines: on random books
that share CUSIPs under one ticker, rename tickers between versions, key a ticker to a CUSIP the other version names
otherwise, flag CUSIPs, hold zero-share lines and end positions. The real releases' books: test_changes_untouched."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from builder.research.changes.side import Keying, keying, one_keyed, untested
from builder.research.windows import spans

SEED = 37
BOOKS = 3000  # random manager pairs
# A manager's book as far as the code under test reads it (id, cik, positions, ended), each entry its names and shares:
# an artifact's manager less what these functions never look at.
Manager = dict[str, Any]


def entry(cusip: str, ticker: str, shares: int | None) -> dict:
    """A position (shares given) or an ended entry, as an artifact holds it (fictional names)."""
    found = {"cusip": cusip, "ticker": ticker, "issuer": f"{ticker} FICTIONAL ISSUER", "tickerAsOf": "current"}
    found["mapped"] = ticker != cusip
    if shares is not None:
        found |= {"shares": shares, "value": shares * 7 + 1}
    return found


def keys(rng: random.Random, cusips: list[str]) -> tuple[dict[str, str], dict[str, str]]:
    """Each CUSIP's ticker in the earlier version and in the later one: mostly one ticker each, the same on both
    sides; now and then unmapped (the CUSIP is the ticker), renamed later, sharing a ticker with another CUSIP, or
    keyed to a ticker spelled as another CUSIP."""
    earlier = {cusip: f"T{index}" if rng.random() > 0.05 else cusip for index, cusip in enumerate(cusips)}
    later = dict(earlier)
    for side in (earlier, later):
        for cusip in cusips:
            if rng.random() < 0.01:
                side[cusip] = side[rng.choice(cusips)]  # shares another CUSIP's ticker
            if rng.random() < 0.005:
                side[cusip] = rng.choice(cusips)  # a ticker spelled as a CUSIP
    for cusip in cusips:
        if rng.random() < 0.01:
            later[cusip] = f"R{cusip}"  # renamed
    return earlier, later


def book(rng: random.Random, cusips: list[str], key: dict[str, str], earlier: Manager | None) -> Manager:
    """A manager's book over `key`: random positions (some of zero shares, some as held before), one per ticker
    mostly, and ended entries for most earlier positions no longer held (now and then one still held), now and
    then one of a ticker of its own."""
    held = [cusip for cusip in cusips if rng.random() < 0.5]
    by_ticker = {key[cusip]: cusip for cusip in held}
    if rng.random() < 0.05 and held:
        by_ticker[f"D{rng.randrange(3)}"] = rng.choice(held)  # a CUSIP under two tickers
    before = {p["cusip"]: p["shares"] for p in earlier["positions"]} if earlier else {}
    positions = []
    for ticker, cusip in sorted(by_ticker.items()):
        shares = rng.choice([0, before.get(cusip, 0), rng.randrange(1, 1000), rng.randrange(1, 1000)])
        positions.append(entry(cusip, ticker, shares))
    gone = [p for p in earlier["positions"] if p["cusip"] not in held or rng.random() < 0.02] if earlier else []
    ended = [entry(p["cusip"], key.get(p["cusip"], p["cusip"]), None) for p in gone if rng.random() < 0.9]
    if rng.random() < 0.1 and (free := sorted(set(cusips) - set(held))):  # an ended entry of its own ticker
        ended.append(entry(rng.choice(free), f"E{rng.randrange(9)}", None))
    return {"id": "fictional-manager", "cik": "0", "positions": positions, "ended": ended}


def flags(rng: random.Random, cusips: list[str]) -> dict[str, list[dict[str, Any]]]:
    """What the versions between left undecided: mostly nothing."""
    if rng.random() < 0.8:
        return {}
    flagged = rng.sample(cusips, min(len(cusips), rng.randrange(1, 4)))
    return {cusip: [{"rule": "split", "text": f"{cusip} left undecided", "record": None}] for cusip in flagged}


def test_the_shorter_way_gives_the_general_ones_changes_or_declines():
    rng = random.Random(SEED)
    taken: Counter[str] = Counter()
    for _ in range(BOOKS):
        cusips = [f"{rng.randrange(16**6):06X}10{rng.randrange(10)}" for _ in range(rng.randrange(1, 40))]
        earlier_key, later_key = keys(rng, cusips)
        before = book(rng, cusips, earlier_key, book(rng, cusips, earlier_key, None))
        after = book(rng, cusips, later_key, before)
        flagged = flags(rng, cusips)
        seen = spans.Between(False, flagged, [], {}, {})  # what versions between that cite no corporate action carry
        general = spans._by_keys("fictional-manager", before, after, seen)
        assert spans._untouched("fictional-manager", before, after, seen) == general
        if flagged:  # the shorter way is not for them
            taken["flagged"] += 1
            continue
        shorter = spans._one_to_one("fictional-manager", before, after)
        if shorter is None:
            taken["declined"] += 1
            continue
        assert shorter == general, (before, after)
        taken["taken"] += 1
        taken["changes"] += len(general)
        taken["exited"] += sum(change[0][2] == "exited" for change in general)
    assert taken["taken"] > BOOKS / 3
    assert taken["declined"] > BOOKS / 10
    assert taken["exited"] > 0 and taken["changes"] > taken["taken"]
    assert taken["flagged"] > 0


def version(befores: list[Manager]) -> dict[str, Any]:
    """A version holding `befores` as its managers' books, each under an id of its own (fictional)."""
    managers = [{**manager, "id": f"fictional-manager-{index}"} for index, manager in enumerate(befores)]
    return {"managers": managers}


def test_versions_whose_keys_agree_spare_the_test_only_books_that_pass_it():
    """`untested` on two versions' keyings: every manager it leaves out has two books that `one_keyed` passes,
    whose shorter way (known to pass) gives the general one's changes."""
    rng = random.Random(SEED)
    taken: Counter[str] = Counter()
    for _ in range(BOOKS // 3):
        cusips = [f"{rng.randrange(16**6):06X}10{rng.randrange(10)}" for _ in range(rng.randrange(1, 30))]
        earlier_key, later_key = keys(rng, cusips)
        befores = [book(rng, cusips, earlier_key, book(rng, cusips, earlier_key, None)) for _ in range(3)]
        older = version(befores)
        newer = version([book(rng, cusips, later_key, before) for before in befores])
        tested = untested(keying(older), keying(newer))
        taken["versions tested whole" if tested is None else "versions spared"] += 1
        for before, after in zip(older["managers"], newer["managers"], strict=True):
            if tested is None or before["id"] in tested:
                taken["books tested"] += tested is not None
                continue
            assert one_keyed(before, after), (before, after)
            general = spans._by_keys(before["id"], before, after, spans.Between(False, {}, [], {}, {}))
            assert spans._one_to_one(before["id"], before, after, known=True) == general
            taken["books spared"] += 1
    assert taken["versions spared"] > BOOKS / 30
    assert taken["versions tested whole"] > BOOKS / 30
    assert taken["books spared"] > taken["versions spared"]
    assert taken["books tested"] > 0  # an entry named twice by one book (held and ended): its manager is tested


def test_a_keying_names_each_cusip_ticker_pair_once_and_the_books_that_repeat_a_cusip():
    held = [entry("00000A101", "FICTA", 5), entry("00000B101", "00000B101", 3)]
    ended = [entry("00000A101", "FICTA", None), entry("00000C101", "FICTC", None)]
    twice = {"id": "twice", "cik": "1", "positions": held, "ended": ended}
    once = {"id": "once", "cik": "2", "positions": held[:1], "ended": ended[1:]}
    found = keying({"managers": [twice, once]})
    assert found.pairs == {("00000A101", "FICTA"), ("00000B101", "00000B101"), ("00000C101", "FICTC")}
    assert found.repeated == {"twice"}
    renamed = Keying(frozenset({("00000A101", "FICTA2")}), frozenset())
    assert untested(found, found) == {"twice"}
    assert untested(found, renamed) is None  # one CUSIP under two tickers
    spelled = Keying(frozenset({("00000D101", "00000C101")}), frozenset())
    assert untested(found, spelled) is None  # a CUSIP spelled as another CUSIP's ticker
    assert untested(found, Keying(frozenset({("00000D101", "FICTD")}), frozenset({"once"}))) == {"twice", "once"}
