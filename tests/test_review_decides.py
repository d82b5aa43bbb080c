"""A review an operator can decide on, on Berkshire's real 2020 filings: the quarter's trades ranked by the shares
traded (never by change of market value) with each value change split into trade and price effect, a verdict with
the gates that would stop it and the exact next command, and charts only where they can mean something."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.api.data import ReleaseData
from builder.research.changes import TRADED
from builder.review.compare import GATES, Reviewed, review, tripped
from builder.review.page import review_page
from builder.review.text import review_lines
from tests.berkshire import berkshire_tree
from tests.test_caveats_realdata import data_of, only

# Berkshire's 13F-HR for 2020-09-30 as the world read it: six new stakes (AbbVie, Merck, Bristol-Myers Squibb,
# Snowflake, T-Mobile US, Pfizer), JPMorgan nearly sold out, Wells Fargo, PNC, Barrick Gold and DaVita cut, Bank of
# America and General Motors bought.
NEW = {"ABBV", "MRK", "BMY", "SNOW", "TMUS", "PFE"}
REDUCED = {"JPM", "WFC", "PNC", "GOLD", "DVA"}


def side(data: ReleaseData, release_id: str) -> Reviewed:
    return Reviewed(release_id, dict(data.index), dict(data.artifacts))


@pytest.fixture(scope="module")
def berkshire(tmp_path_factory: pytest.TempPathFactory) -> ReleaseData:
    root = berkshire_tree(
        tmp_path_factory.mktemp("review") / "source", without=only("2020-03-31", "2020-06-30", "2020-09-30"), versions=2
    )
    return data_of(root)


@pytest.fixture(scope="module")
def result(berkshire: ReleaseData) -> dict:
    return review(side(berkshire, "candidate"), None, " --releases here")


def test_trades_are_the_change_records_ranked_by_shares_traded_never_by_change_of_market_value(result, berkshire):
    trades = result["trades"]
    assert [t["kind"] for t in trades] == sorted((t["kind"] for t in trades), key=TRADED.index)  # new, added, …
    for kind in TRADED:
        effects = [abs(t["tradeEffect"]) for t in trades if t["kind"] == kind]
        assert effects == sorted(effects, reverse=True)
    assert {t["ticker"] for t in trades if t["kind"] == "new"} <= NEW and {"JPM", "WFC"} <= {
        t["ticker"] for t in trades if t["kind"] == "reduced"
    }
    assert {t["ticker"] for t in trades if t["kind"] == "reduced"} <= REDUCED
    # KO's value rose $1,876,001,000 in the quarter on no trade: the records say unchanged, so it is no trade here
    ko = next(p for p in berkshire.latest["managers"][0]["positions"] if p["ticker"] == "KO")
    assert (ko["change"]["kind"], ko["change"]["shareDelta"]) == ("unchanged", 0)
    assert "KO" not in {t["ticker"] for t in trades} and all(t["shareDelta"] for t in trades)
    assert {k["kind"]: k["count"] for k in result["kinds"]}["new"] == len(NEW)


def test_each_value_change_is_the_trade_effect_plus_the_price_effect(result):
    for trade in result["trades"]:
        assert trade["tradeEffect"] + trade["priceEffect"] == trade["toValue"] - trade["fromValue"]
    jpm = next(t for t in result["trades"] if t["ticker"] == "JPM")
    assert (jpm["shareDelta"], jpm["tradeEffect"]) == (-21_241_160, round(-21_241_160 * 93_119_000 / 967_267))
    [bridge] = result["bridges"]
    assert bridge["tradeEffect"] + bridge["undecided"] + bridge["priceEffect"] == bridge["change"]
    assert bridge["undecided"] != 0  # AAPL's unrecorded 4:1 split and COST beside a confidential omission


def test_the_verdict_says_what_changes_which_gates_stop_it_and_the_next_command(result):
    verdict = result["verdict"]
    # nothing promoted yet: every warning is new
    assert verdict["gates"] == tripped(result, GATES) and verdict["gateNames"] == ["new-warnings", "corporate-actions"]
    assert verdict["undecidedOpen"] == 2 and not verdict["promotable"]
    assert verdict["next"] == "ras promote candidate --override-gates --releases here"
    assert (
        "for agents: the latest quarter's trades: 6 new, 4 added, 8 reduced, 0 exited; 2 undecided, counted as neither"
        in "\n".join(review_lines(result))
    )
    lines = review_lines(result)
    assert lines[1] == "verdict:" and lines[lines.index("verdict:") + 1].startswith("  for agents: latest version ")
    assert any(
        line.startswith("  next: fix the above and build again, or, having reviewed it, ras promote candidate")
        for line in lines
    )


def test_a_promoted_release_reviewed_against_itself_has_nothing_to_promote(berkshire):
    same = review(side(berkshire, "r1"), side(berkshire, "r1"))
    assert same["verdict"]["next"] is None and same["verdict"]["agents"] == ["nothing: r1 is the promoted release"]


def test_a_clean_candidate_is_promotable_with_the_exact_command(berkshire):
    clean = review(side(berkshire, "r2"), side(berkshire, "r1"))  # the undecided changes are published already
    assert clean["verdict"]["promotable"] and clean["verdict"]["next"] == "ras promote r2"
    assert "  next: ras promote r2" in review_lines(clean)


def test_one_manager_gets_no_view_mode_chart(result, tmp_path: Path):
    assert result["viewCounts"] == []
    html = review_page(result)
    assert html.count("<svg") == 2  # Berkshire's book value per quarter and its positions by change kind
    assert "tickers per view mode" not in html and 'id="next-command"' in html


def test_at_operator_scale_the_terminal_review_groups_coverage_and_lists_the_largest_book_changes(result):
    manager, bridge = result["coverage"][0], result["bridges"][0]
    many = {
        **result,
        "coverage": [{**manager, "id": f"m{i:03}"} for i in range(60)] + [{**manager, "id": "gone", "candidate": []}],
        "bridges": [{**bridge, "manager": f"m{i:03}", "change": i} for i in range(60)],
    }
    lines = review_lines(many)
    coverage = lines[lines.index("coverage:") + 1 : lines.index("coverage:") + 3]
    span = f"{len(manager['candidate'])} quarters {manager['candidate'][0]} … {manager['candidate'][-1]}"
    assert coverage == [f"  60 managers: {span} (promoted: none)", "  gone: none (promoted: none)"]
    heading = next(i for i, line in enumerate(lines) if line.startswith("book value per manager"))
    assert lines[heading].endswith("(the 50 largest changes of 60)")
    assert [line.split(":")[0] for line in lines[heading + 1 : heading + 3]] == ["  m059", "  m058"]
    assert lines[heading + 51] == "  and 10 more (`ras review --html` lists all)" and len(lines) == heading + 52
