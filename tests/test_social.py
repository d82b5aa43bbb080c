"""ApeWisdom-shaped snapshot parsing and the social-momentum pack, on made-up snapshots and the real sample."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from builder.research.previews.social import EXCLUDED_TICKER_WORDS, SocialInput, build_social, pack_id, rankings
from builder.sources.congress.rows import RowOutcome
from builder.sources.social import parse_social
from tests.conftest import realdata


def row(rank: int, ticker: str, mentions: object, before: object, **changes: object) -> dict:
    return {
        "rank": rank,
        "ticker": ticker,
        "name": ticker.title(),
        "mentions": mentions,
        "upvotes": 10,
        "rank_24h_ago": rank,
        "mentions_24h_ago": before,
        **changes,
    }


def snapshot(ts: str, *rows: dict, forum: str = "wallstreetbets") -> dict:
    return {"ts": ts, "filters": {forum: list(rows)}}


def parse(*snapshots: dict):
    return parse_social(json.dumps(list(snapshots)).encode(), "social/test.json")


def test_a_row_keeps_negative_upvotes_unescapes_names_and_reads_zero_rank_as_unranked():
    parsed = parse(
        snapshot(
            "2026-05-01T07:39:15.268Z",
            row(1, "SPY", 530, 465, name="SPDR S&amp;P 500 ETF Trust", upvotes=-20, rank_24h_ago=0),
        )
    )
    mention = parsed.snapshots[0].mentions[0]
    assert (mention.name, mention.upvotes, mention.rank_24h_ago) == ("SPDR S&P 500 ETF Trust", -20, None)
    assert parsed.snapshots[0].taken == datetime(2026, 5, 1, 7, 39, 15, 268000, tzinfo=UTC)


def test_numbers_sent_as_digit_strings_are_read_as_integers():
    mention = parse(snapshot("2026-05-01T00:00:00Z", row(1, "$nvda", "12", "7"))).snapshots[0].mentions[0]
    assert (mention.ticker, mention.mentions, mention.mentions_24h_ago) == ("NVDA", 12, 7)


@pytest.mark.parametrize(
    ("bad", "code", "outcome"),
    [
        (row(2, "BB", "lots", 3), "mentions-unreadable", RowOutcome.EXCLUDED),
        (row(2, "", 5, 3), "ticker-unreadable", RowOutcome.EXCLUDED),
        (row(2, "NVDA", 5, 3), "duplicate-ticker", RowOutcome.EXCLUDED),
        (row(2, "BB", 5, 3, rank_24h_ago="n/a"), "rank_24h_ago-unreadable", RowOutcome.KEPT),
        (row(2, "BB", 5, -3), "mentions_24h_ago-unreadable", RowOutcome.KEPT),
        ("junk", "row-not-object", RowOutcome.EXCLUDED),
    ],
)
def test_a_malformed_row_is_counted_and_reported_never_fatal(bad, code, outcome):
    parsed = parse(snapshot("2026-05-01T00:00:00Z", row(1, "NVDA", 9, 3), bad))
    assert parsed.rows == 2
    assert [(i.row, i.code, i.outcome) for i in parsed.issues] == [(2, code, outcome)]


def test_rows_of_a_snapshot_without_a_readable_time_are_excluded():
    parsed = parse(snapshot("yesterday", row(1, "NVDA", 9, 3)), snapshot("2026-05-01T00:00:00Z", row(1, "NVDA", 9, 3)))
    assert (parsed.rows, len(parsed.snapshots)) == (2, 1)
    assert [i.code for i in parsed.issues] == ["snapshot-time-unreadable"]


def test_a_file_that_is_not_snapshots_is_an_error():
    with pytest.raises(ValueError, match="expected a snapshot"):
        parse_social(b"[1, 2]", "x.json")
    with pytest.raises(ValueError, match="Expecting property name"):
        parse_social(b"{", "x.json")


def inputs(*snapshots: dict, **changes: object) -> SocialInput:
    return SocialInput("wallstreetbets", (parse(*snapshots),), **changes)


def test_movers_are_ranked_by_mention_ratio_and_ticker_words_are_excluded():
    latest = snapshot(
        "2026-05-01T12:00:00Z",
        row(1, "NVDA", 300, 100),
        row(2, "ON", 200, 20),
        row(3, "AMD", 100, 50),
        row(4, "TSLA", 90, 120),
        row(5, "GME", 80, 4, rank_24h_ago=0),
        row(6, "SOFI", 10, 1),
    )
    ranked = rankings(parse(latest).snapshots[0], inputs(latest))
    assert [(r["ticker"], r["mentionRatio"]) for r in ranked["movers"]] == [("NVDA", 3.0), ("AMD", 2.0)]
    assert [r["ticker"] for r in ranked["faders"]] == ["TSLA"]
    assert [(r["ticker"], r["rankChange"]) for r in ranked["newEntrants"]] == [("GME", None)]
    assert "ON" not in {r["ticker"] for rows in ranked.values() for r in rows} and "ON" in EXCLUDED_TICKER_WORDS


def test_the_pack_uses_the_latest_snapshot_on_or_before_as_of_and_keeps_each_path():
    early = snapshot("2026-05-01T12:00:00Z", row(1, "NVDA", 300, 100))
    late = snapshot("2026-05-03T12:00:00Z", row(1, "NVDA", 30, 300))
    pack = build_social(inputs(early, late), as_of=date(2026, 5, 2))
    assert pack.agent_payload["snapshotTime"] == "2026-05-01T12:00:00.000Z"
    assert pack.artifact["movers"][0]["path"] == [{"time": "2026-05-01T12:00:00.000Z", "rank": 1, "mentions": 300}]
    assert (pack.id, pack.label, pack.version) == (
        "wsb-social-momentum",
        "research preview",
        "wsb-social-momentum-2026-05-02-v1.0",
    )


def test_the_pack_id_carries_the_forum_abbreviation():
    assert pack_id(SocialInput("wallstreetbets", ())) == "wsb-social-momentum"
    assert pack_id(SocialInput("CryptoCurrency", ())) == "cryptocurrency-social-momentum"
    assert pack_id(SocialInput("stocks", (), abbreviation="Stk")) == "stk-social-momentum"


def test_caveats_on_attention_volatility_and_source_stay_attached():
    pack = build_social(inputs(snapshot("2026-05-01T12:00:00Z", row(1, "NVDA", 300, 100))), as_of=date(2026, 5, 1))
    text = " ".join(pack.caveats)
    assert "not conviction" in text and "Volatile" in text and "ApeWisdom" in text
    assert pack.agent_payload["caveats"] == pack.artifact["caveats"] == list(pack.caveats)
    assert pack.methodology["excludedTickerWords"] == sorted(EXCLUDED_TICKER_WORDS)


def test_no_snapshot_before_as_of_is_an_explicit_no_signal_and_an_old_one_is_stale():
    one = snapshot("2026-05-01T12:00:00Z", row(1, "NVDA", 300, 100))
    empty = build_social(inputs(one), as_of=date(2026, 4, 30))
    assert (empty.agent_payload["signal"], empty.agent_payload["topMovers"]) == ("no momentum signal", [])
    assert "no-snapshot" in {w.code for w in empty.warnings}
    assert "stale-snapshot" in {w.code for w in build_social(inputs(one), as_of=date(2026, 5, 20)).warnings}


@pytest.fixture(scope="module")
def real_file():
    path = realdata("social", "apewisdom_snapshots_sample.json")
    return parse_social(path.read_bytes(), "social/apewisdom_snapshots_sample.json")


def test_the_real_sample_has_3000_rows_in_5_snapshots_of_2_forums_and_no_malformed_row(real_file):
    assert (real_file.rows, len(real_file.snapshots), real_file.issues) == (3000, 10, ())
    assert {s.forum for s in real_file.snapshots} == {"wallstreetbets", "all-stocks"}
    assert all(len(s.mentions) == 300 for s in real_file.snapshots)


def test_the_real_sample_keeps_its_quirks(real_file):
    first = next(s for s in real_file.snapshots if s.forum == "wallstreetbets")
    assert first.mentions[0].name == "SPDR S&P 500 ETF Trust"
    assert sum(m.upvotes < 0 for m in first.mentions) == 3
    assert sum(m.rank_24h_ago is None for m in first.mentions) == 25
    assert {"IT", "ON", "ALL"} <= {m.ticker for m in first.mentions}


def test_the_real_wsb_pack_leads_with_jpm_and_shows_what_the_exclusion_list_removed(real_file):
    pack = build_social(SocialInput("wallstreetbets", (real_file,)), as_of=date(2026, 5, 2))
    top = pack.agent_payload["topMovers"][0]
    assert (top["ticker"], top["mentions"], top["mentions24hAgo"], top["rankChange"]) == ("JPM", 234, 64, 18)
    assert pack.agent_payload["snapshotTime"] == "2026-05-01T22:25:17.691Z"
    assert pack.agent_payload["newEntrants"][0]["ticker"] == "SOUN"
    seen = {e["ticker"]: e["mentions"] for e in pack.artifact["excludedSeen"]}
    assert (seen["IT"], seen["ON"], seen["ALL"]) == (6, 9, 3)
    assert pack.artifact["sources"][0] | {"issues": []} == {
        "path": "social/apewisdom_snapshots_sample.json",
        "rows": 3000,
        "malformed": 0,
        "kept": 0,
        "excluded": 0,
        "reasons": {},
        "issues": [],
    }
