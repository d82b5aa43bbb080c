"""read_previews (packs.toml sections → files → source records), build_previews, and the fictional fixture."""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from dataclasses import replace
from datetime import date
from pathlib import Path

import orjson
import pytest

from builder.research.previews.build import build_previews
from builder.research.previews.congress import build_congress, congress_input
from builder.research.previews.pack import FIXTURE_CAVEAT, json_ready
from builder.sources.previews import CongressSource, read_previews
from scripts.fixture_previews import FIXTURE_AS_OF, write_preview_sources
from tests.conftest import realdata as realdata_root

REAL_SECTIONS = {
    "person": {"name": "Alan S. Lowenthal", "files": ["congress/house_stock_watcher_sample.json"]},
    "congress": {"files": ["congress"]},
    "social": {"forum": "wallstreetbets", "abbreviation": "wsb", "files": ["social/apewisdom_snapshots_sample.json"]},
}


@pytest.fixture(scope="module")
def realdata() -> Path:
    return realdata_root()


@pytest.fixture(scope="module")
def fixture_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("source")
    (root / "packs.toml").write_text("[source]\nfixture = true\n\n[copycat]\nversions = 8", encoding="utf-8")
    write_preview_sources(root)
    return root


def read(root: Path):
    return read_previews(root, tomllib.loads((root / "packs.toml").read_text(encoding="utf-8")))


def test_every_real_file_is_read_once_with_its_sha256_and_one_report_line(realdata):
    found = read_previews(realdata, REAL_SECTIONS)
    assert found.problems == () and sorted(found.sources) == ["congress", "person", "social"]
    assert len(found.files) == len(found.reports) == 10  # 9 congress files (one shared with person) + 1 social
    for file in found.files:
        data = (realdata / file.path).read_bytes()
        assert (file.sha256, file.size) == (hashlib.sha256(data).hexdigest(), len(data))
    assert found.reports == (
        "congress/capitol_watch_house_sample.json [congress]: 60 rows read, 4 malformed (4 kept, 0 excluded: "
        "owner-from-description ×4), instruments: bond 1, other 3, stock 56",
        "congress/house_stock_watcher_options_and_names_sample.json [congress]: 1397 rows read, 1 malformed "
        "(1 kept, 0 excluded: ticker-unreadable ×1), 2 disclosed before the trade, "
        "instruments: bond 34, crypto 13, option 56, other 3, stock 1291",
        "congress/house_stock_watcher_sample.json [person: 27 rows of Alan S. Lowenthal, congress]: 400 rows read, "
        "11 malformed (11 kept, 0 excluded: amount-truncated ×11), 1 disclosed before the trade, "
        "instruments: bond 14, other 54, stock 332",
        "congress/senate_stock_watcher_daily/transaction_report_for_02_28_2020.json [congress]: 0 rows read, "
        "0 malformed (0 kept, 0 excluded)",
        "congress/senate_stock_watcher_daily/transaction_report_for_03_03_2020.json [congress]: 90 rows read, "
        "0 malformed (0 kept, 0 excluded), instruments: bond 4, stock 86",
        "congress/senate_stock_watcher_daily/transaction_report_for_04_01_2020.json [congress]: 14 rows read, "
        "0 malformed (0 kept, 0 excluded), instruments: other 1, stock 13",
        "congress/senate_stock_watcher_daily/transaction_report_for_05_01_2020.json [congress]: 182 rows read, "
        "1 malformed (1 kept, 0 excluded: ticker-ambiguous ×1), instruments: option 55, stock 127",
        "congress/senate_stock_watcher_daily/transaction_report_for_12_31_2020.json [congress]: 17 rows read, "
        "0 malformed (0 kept, 0 excluded), instruments: stock 17",
        "congress/senate_transactions_2025_sample.json [congress]: 300 rows read, 4 malformed "
        "(4 kept, 0 excluded: asset-type-contradicted ×3, ticker-unreadable ×1), instruments: bond 42, option 31, "
        "stock 227",
        "social/apewisdom_snapshots_sample.json [social]: 3000 rows read, 0 malformed (0 kept, 0 excluded), "
        "5 snapshots",
    )


def test_the_real_packs_build_as_of_the_last_real_disclosure(realdata):
    packs = build_previews(read_previews(realdata, REAL_SECTIONS).sources, as_of=date(2026, 8, 20))
    assert [p.version for p in packs] == [
        "alan-s-lowenthal-tracker-2026-08-20-v1.0",
        "congress-trades-2026-08-20-v1.0",
        "wsb-social-momentum-2026-08-20-v1.0",
    ]
    congress = packs[1].agent_payload
    assert (congress["outcome"], congress["stance"]) == ("no-signal", "stay in cash")
    assert "stale-snapshot" in {w.code for w in packs[2].warnings}


def test_a_pack_whose_section_is_absent_is_absent(realdata):
    found = read_previews(realdata, {"social": REAL_SECTIONS["social"], "copycat": {}})
    assert list(found.sources) == ["social"]
    assert [f.path for f in found.files] == ["social/apewisdom_snapshots_sample.json"]
    assert [p.id for p in build_previews(found.sources, as_of=date(2026, 5, 2))] == ["wsb-social-momentum"]


def test_missing_files_invalid_json_and_bad_settings_are_problems_naming_the_file(tmp_path):
    (tmp_path / "bad.json").write_text('[{"senator": "x",\n  oops]', encoding="utf-8")
    (tmp_path / "object.json").write_text('{"not": "snapshots"}', encoding="utf-8")
    found = read_previews(
        tmp_path,
        {
            "congress": {"files": ["bad.json", "missing.json", "../outside.json"], "strict": {"min_members": 0}},
            "social": {"files": ["object.json"]},
            "person": "not a table",
        },
    )
    assert found.sources == {}
    assert [str(p) for p in found.problems] == [
        "packs.toml: [person] must be a table",
        "missing.json: missing: configured in [congress] files",
        "packs.toml: [congress] files: '../outside.json' is not inside the source root",
        "bad.json:2: not valid JSON: Expecting property name enclosed in double quotes (column 3)",
        "packs.toml: [congress] strict.min_members must be an integer 1–535, not 0",
        "packs.toml: [social] forum must be a non-empty string, not None",
        'object.json: not a [social] source: expected a snapshot {"ts": …, "filters": {forum: [rows]}} '
        "or an array of them",
    ]


def test_the_fixture_appends_its_sections_to_packs_toml_and_reads_without_problems(fixture_tree):
    sections = tomllib.loads((fixture_tree / "packs.toml").read_text(encoding="utf-8"))
    assert sections["copycat"] == {"versions": 8} and sections["congress"]["as_of"] == FIXTURE_AS_OF
    found = read(fixture_tree)
    assert found.problems == ()
    assert found.reports == (
        "previews/congress/house_capitol_watch_fixture.json [congress]: 2 rows read, 0 malformed (0 kept, "
        "0 excluded), 1 without a report link, instruments: stock 2",
        "previews/congress/house_fixture.json [congress]: 21 rows read, 4 malformed (3 kept, 1 excluded: "
        "amount-multiline ×1, amount-nonstatutory ×1, amount-truncated ×1, date-unreadable ×1), 2 disclosed before "
        "the trade, instruments: bond 2, option 2, stock 16",
        "previews/congress/house_fixture_daily_06_08_2026.json [congress]: 2 rows read, 0 malformed (0 kept, "
        "0 excluded), instruments: stock 2",
        "previews/congress/senate_fixture.json [congress]: 6 rows read, 2 malformed (1 kept, 1 excluded: "
        "amount-unreadable ×1, ticker-ambiguous ×1), instruments: bond 1, option 1, stock 3",
        "previews/person/jane_roe_reports_fixture.json [person: 15 rows of Jane Roe]: 17 rows read, 2 malformed "
        "(0 kept, 2 excluded: date-unreadable ×1, type-unknown ×1), instruments: bond 1, option 2, stock 12",
        "previews/social/apewisdom_fixture.json [social]: 99 rows read, 2 malformed (1 kept, 1 excluded: "
        "mentions-unreadable ×1, rank_24h_ago-unreadable ×1), 4 snapshots",
    )


def test_the_fixture_signals_under_demo_thresholds_and_not_under_strict(fixture_tree):
    packs = {p.id: p for p in build_previews(read(fixture_tree).sources, as_of=date(2026, 11, 20))}
    congress = packs["congress-trades"]
    assert congress.as_of == FIXTURE_AS_OF
    assert (congress.agent_payload["outcome"], congress.agent_payload["producedBy"]) == ("demo-signal", "demo")
    assert (congress.agent_payload["demoTickers"], congress.agent_payload["strictTickers"]) == (["LLY", "NVDA"], [])
    assert congress.artifact["history"]["demo"][0] == {"date": "2026-02-20", "tickers": ["COST"]}
    assert "relaxed-thresholds" in {w.code for w in congress.warnings}


def test_the_fixtures_third_lly_buyer_counts_only_once_disclosed(fixture_tree):
    source = read(fixture_tree).sources["congress"]
    assert isinstance(source, CongressSource)
    later = congress_input(replace(source, as_of=date(2026, 7, 2)))
    assert build_congress(later, as_of=date(2026, 11, 20)).agent_payload["strictTickers"] == ["LLY"]


def test_every_fixture_pack_says_its_data_is_fictional(fixture_tree):
    packs = build_previews(read(fixture_tree).sources, as_of=date(2026, 11, 20))
    assert [p.id for p in packs] == ["congress-trades", "jane-roe-tracker", "wsb-social-momentum"]
    for pack in packs:
        assert FIXTURE_CAVEAT in pack.caveats and pack.artifact["fixture"] is True
        assert FIXTURE_CAVEAT in pack.artifact["caveats"] and FIXTURE_CAVEAT in pack.agent_payload["caveats"]
        assert "fixture-data" in {w.code for w in pack.warnings}
        assert "malformed-rows" in {w.code for w in pack.warnings}


def test_the_fixture_person_and_forum_packs_hold_their_expected_figures(fixture_tree):
    packs = {p.id: p for p in build_previews(read(fixture_tree).sources, as_of=date(2026, 11, 20))}
    person = packs["jane-roe-tracker"].agent_payload
    # JNJ: $15,001–$50,000 and, filed as "Roe, Jane Q.", $1,001–$15,000 (midpoints 32,500 + 8,000); AAPL keeps
    # its stock (32,500 bought, 8,000 sold) although Jane sold all her AAPL calls
    assert [(h["ticker"], h["estimate"]) for h in person["topHoldings"]] == [
        ("MSFT", 75_000),
        ("JNJ", 40_500),
        ("NVDA", 40_500),
        ("LLY", 32_500),
        ("AAPL", 24_500),
    ]
    assert person["totals"] == {"estimate": 213_000, "low": 97_007, "high": 328_999}
    social = packs["wsb-social-momentum"].agent_payload
    assert [m["ticker"] for m in social["topMovers"]] == ["PLTR", "AMD", "NVDA", "SPY"]
    assert [m["ticker"] for m in social["newEntrants"]] == ["GME", "RDDT"]


def test_the_fixture_is_deterministic_and_refuses_to_append_twice(fixture_tree, tmp_path):
    (tmp_path / "packs.toml").write_text("[source]\nfixture = true\n\n[copycat]\nversions = 8", encoding="utf-8")
    write_preview_sources(tmp_path)
    for path in sorted(p for p in tmp_path.rglob("*") if p.is_file()):
        assert path.read_bytes() == (fixture_tree / path.relative_to(tmp_path)).read_bytes()
    with pytest.raises(ValueError, match="already has preview sections"):
        write_preview_sources(tmp_path)


def test_payloads_are_canonical_json_with_iso_dates_and_rounded_floats(fixture_tree):
    packs = build_previews(read(fixture_tree).sources, as_of=date(2026, 11, 20))
    assert packs == build_previews(read(fixture_tree).sources, as_of=date(2026, 11, 20))
    for pack in packs:
        for payload in (pack.artifact, pack.agent_payload, pack.methodology):
            assert json.loads(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)) == payload
        assert pack.artifact["asOf"] == pack.agent_payload["asOf"] == "2026-06-30"
    assert json_ready({"x": (1 / 3, 2)}) == {"x": [0.333333, 2]}
    with pytest.raises(ValueError, match="non-finite number nan"):
        json_ready([math.nan])


def test_a_configured_evaluation_date_after_the_release_date_is_clamped(fixture_tree):
    packs = build_previews(read(fixture_tree).sources, as_of=date(2026, 6, 20))
    assert {p.as_of for p in packs} == {date(2026, 6, 20)}
    congress = next(p for p in packs if p.id == "congress-trades")
    assert congress.agent_payload["demoTickers"] == ["NVDA"]  # LLY's second buyer is disclosed on 2026-06-22


def test_a_file_listed_by_two_sections_is_read_once_and_reported_once(tmp_path):
    (tmp_path / "bad.json").write_text("[", encoding="utf-8")
    found = read_previews(
        tmp_path, {"person": {"name": "Jane Roe", "files": ["bad.json"]}, "congress": {"files": ["bad.json"]}}
    )
    assert (found.sources, [p.source for p in found.problems]) == ({}, ["bad.json"])
    assert [f.path for f in found.files] == ["bad.json"]
