"""A served diff carries each change once, compactly: per manager, columns of one length and counts by kind; the full
record only of the changes that are not plain trades; every ticker it names named once. position_changes reads the
changes back, and they are the changes the research computes, field for field."""

from __future__ import annotations

import random
from collections import Counter
from itertools import compress

import orjson
import pytest

from builder.api import methods
from builder.research.changes import BOUGHT, SOLD
from builder.research.changes.books import record
from builder.research.diff import _shown, position_changes
from builder.research.windows.spans import moved_positions

PACK = "/api/v1/packs/13f-copycat"
COLUMNS = ("tickers", "kinds", "fromShares", "toShares", "fromValues", "toValues")


def computed(data, diff) -> list[dict]:
    """The research's changes of the diff's managers between its versions, of the view's tickers (either side)."""
    versions = data.versions
    between = [data.artifacts[v] for v in versions[versions.index(diff["from"]) + 1 : versions.index(diff["to"]) + 1]]
    older, newer = data.artifacts[diff["from"]], data.artifacts[diff["to"]]
    managers, mode = diff["view"]["managers"], diff["view"]["mode"]
    shown = methods.view_tickers_of(data, diff["from"], [], mode) | methods.view_tickers_of(data, diff["to"], [], mode)
    changes = map(record, moved_positions(older, newer, sorted(managers), between))
    return [dict(change) for change in changes if change["ticker"] in shown]


@pytest.fixture(params=["fixture", "berkshire"])
def served(request):
    """Every precomputed diff of a release (the fictional fixture's, Berkshire's real filings'), parsed, with it."""
    release = request.getfixturevalue("release" if request.param == "fixture" else "berkshire_release")
    keys = [key for key in release.answers if "/versions/diff?" in key]
    return release, [orjson.loads(release.answers[key].body)["data"] for key in keys]


def test_the_reader_gives_back_every_change_the_research_computes_field_for_field(served):
    release, diffs = served
    read = 0
    for diff in diffs:
        changes = position_changes(diff)
        assert changes == computed(release.data, diff), (diff["from"], diff["to"], diff["view"]["mode"])
        read += len(changes)
    assert read > 100  # the releases do change


def test_each_manager_lists_its_changes_as_columns_of_one_length_counted_by_kind(served):
    _, diffs = served
    for diff in diffs:
        assert [m["managerId"] for m in diff["managers"]] == diff["view"]["managers"]
        for manager in diff["managers"]:
            columns = manager["changes"]
            assert sorted(columns) == sorted(COLUMNS)
            (length,) = {len(columns[name]) for name in COLUMNS}
            assert sum(manager["counts"].values()) == length
            assert {k: n for k, n in manager["counts"].items() if n} == dict(Counter(columns["kinds"]))
            assert columns["tickers"] == sorted(columns["tickers"])  # by ticker: one change per ticker


def test_only_a_change_that_is_not_a_plain_trade_has_a_detail(served):
    release, diffs = served
    detailed = 0
    for diff in diffs:
        details = {(d["managerId"], d["ticker"]) for d in diff["changeDetails"]}
        assert len(details) == len(diff["changeDetails"])
        for change in computed(release.data, diff):
            plain = (
                change["kind"] in BOUGHT | SOLD
                and change["cause"] == "trade"
                and change["carriedShares"] == change["fromShares"]
                and change["shareDelta"] == change["toShares"] - change["fromShares"]
                and not change["corporateActions"]
                and not change["candidates"]
            )
            assert ((change["managerId"], change["ticker"]) in details) is not plain, change
        detailed += len(details)
    assert detailed > 0  # the corporate actions and undecided changes are detailed


def test_every_ticker_the_diff_names_is_named_once_entered_and_left_ones_too(served):
    _, diffs = served
    for diff in diffs:
        named = {t for m in diff["managers"] for t in m["changes"]["tickers"]}
        named |= {*diff["tickers"]["entered"], *diff["tickers"]["left"]}
        named |= {t for m in diff["windowTrades"] for t in m["tickers"]}  # the trades inside a window of quarters
        assert set(diff["names"]) == named
        assert all(name["issuer"] for name in diff["names"].values())


def test_a_managers_columns_less_the_rows_a_view_hides_whichever_way_they_are_copied():
    rng = random.Random(37)
    ways = Counter()
    for _ in range(500):
        length = rng.randrange(1, 60)
        columns = {name: [f"{name}-{index}" for index in range(length)] for name in COLUMNS}
        shown = [rng.random() < rng.choice([0.05, 0.5, 0.95]) for _ in range(length)]
        expected = {name: list(compress(column, shown)) for name, column in columns.items()}
        assert _shown(columns, shown) == expected
        assert columns == {name: [f"{name}-{index}" for index in range(length)] for name in COLUMNS}  # untouched
        ways[sum(shown) * 2 < length] += 1
    assert ways[True] > 50 and ways[False] > 50  # item by item of the few kept; whole less the few left out
