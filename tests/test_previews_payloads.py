"""What an agent reading a preview's `latest` sees without opening anything else, on real rows: the pack's own
warnings (stale snapshot with its age, an empty tracker and why, relaxed thresholds, copies dropped), trades
that say what they are in, clusters that count timely disclosures, one form of name, the files the pack read,
and a `latest` under 64 KB around a payload under 10 KB."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.api.handlers import get_latest_pack
from builder.api.methods import export_audit_trail
from builder.cli import main
from builder.release.store import current_release, load_release
from builder.research.previews.congress import CongressInput, build_congress
from builder.research.previews.person import build_person
from builder.research.previews.social import SocialInput, build_social
from builder.sources.congress.rows import parse_congress
from builder.sources.previews import PersonSource
from builder.sources.social import parse_social
from builder.sources.tree import fixture_source
from tests.conftest import realdata

OPTIONS = "house_stock_watcher_options_and_names_sample.json"
PERSON_SECTION = '[person]\nname = "Jane Roe"\nfiles = ["previews/person"]\nas_of = 2026-06-30\nfixture = true\n'
LATEST_BYTES = 64 * 1024
PAYLOAD_BYTES = 10 * 1024


def congress_file(folder: str, name: str):
    return parse_congress(realdata(folder, name).read_bytes(), name)


def codes(payload: dict) -> set[str]:
    return {w["code"] for w in payload["warnings"]}


def test_a_week_old_snapshot_says_stale_with_its_age_in_the_payload():
    name = "apewisdom_snapshots_sample.json"
    inputs = SocialInput("wallstreetbets", (parse_social(realdata("social", name).read_bytes(), name),))
    fresh = build_social(inputs, as_of=date(2026, 5, 1)).agent_payload
    week = build_social(inputs, as_of=date(2026, 5, 8)).agent_payload
    assert (fresh["snapshotAgeDays"], "stale-snapshot" in codes(fresh)) == (0, False)
    assert week["snapshotAgeDays"] == 7 and week["warningCount"] == len(week["warnings"]) >= 1
    (stale,) = [w for w in week["warnings"] if w["code"] == "stale-snapshot"]
    assert "7 days older" in stale["message"] and stale["message"].startswith("stale:")


def test_an_empty_tracker_says_why_in_its_answer_and_warnings():
    pack = build_person(PersonSource("Nobody Atall", (congress_file("congress", OPTIONS),)), as_of=date(2022, 12, 31))
    payload = pack.agent_payload
    assert payload["totals"] == {"estimate": 0, "low": 0, "high": 0}
    assert payload["answer"].startswith("No disclosed transaction in the configured files names Nobody Atall")
    assert "person-not-found" in codes(payload)


def test_relaxed_thresholds_and_dropped_copies_reach_the_payload_naming_both_files():
    rescrape = congress_file("congress-round2", "house_rescrape_tattooedhead_sample.json")
    capitol = congress_file("congress-round2", "capitol_watch_house_same_reports_sample.json")
    payload = build_congress(CongressInput((rescrape, capitol)), as_of=date(2026, 3, 31)).agent_payload
    (copies,) = [w for w in payload["warnings"] if w["code"] == "duplicate-trades"]
    assert rescrape.source in copies["message"] and capitol.source in copies["message"]
    assert "instrument-from-copy" in codes(payload)
    house = congress_file("congress-round2", "house_stock_watcher_class_shares_sample.json")
    senate = congress_file("congress-round2", "senate_stock_watcher_daily_summaries_sample.json")
    demo = build_congress(CongressInput((house, senate)), as_of=date(2020, 4, 16)).agent_payload
    assert demo["outcome"] == "demo-signal" and "relaxed-thresholds" in codes(demo)


def test_a_clusters_trades_say_what_they_are_in_and_how_many_were_disclosed_in_time():
    house = congress_file("congress-round2", "house_stock_watcher_class_shares_sample.json")
    senate = congress_file("congress-round2", "senate_stock_watcher_daily_summaries_sample.json")
    payload = build_congress(CongressInput((house, senate)), as_of=date(2020, 4, 16)).agent_payload
    (cluster,) = payload["signal"]
    assert cluster["ticker"] == "BRK.B" and cluster["members"] == ["David Perdue", "Gilbert Cisneros"]
    assert {t["chamber"] for t in cluster["trades"]} == {"house", "senate"}
    assert {t["instrument"] for t in cluster["trades"]} == {"stock"}
    assert all(t["assetDescription"] for t in cluster["trades"])
    timely = sum(0 <= t["daysToDisclose"] <= 45 for t in cluster["trades"])
    assert cluster["disclosedWithin45Days"] == timely == cluster["tradeCount"]


@pytest.fixture(scope="module")
def real_tracker_release(tmp_path_factory) -> Path:
    """The fixture tree with its tracker following a real member with hundreds of rows (Mark Green)."""
    root = tmp_path_factory.mktemp("real-tracker")
    source = root / "source"
    shutil.copytree(fixture_source(), source)
    (source / "previews" / "realperson").mkdir()
    shutil.copy(realdata("congress", OPTIONS), source / "previews" / "realperson" / OPTIONS)
    config = source / "packs.toml"
    text = config.read_text(encoding="utf-8")
    assert PERSON_SECTION in text
    section = '[person]\nname = "Mark Green"\nfiles = ["previews/realperson"]\nas_of = 2026-06-30\n'
    config.write_text(text.replace(PERSON_SECTION, section), encoding="utf-8")
    result = CliRunner().invoke(main, ["publish", "--source", str(source), "--releases", str(root / "r")])
    assert result.exit_code == 0, result.output
    directory = current_release(root / "r")
    assert directory is not None
    return directory


def test_a_real_trackers_latest_fits_64_kb_with_its_long_lists_one_read_away(real_tracker_release):
    data = load_release(real_tracker_release).data
    latest = get_latest_pack(data, {"packId": "mark-green-tracker"})
    assert len(orjson.dumps(latest)) < LATEST_BYTES
    assert len(orjson.dumps(latest["agentPayload"])) < PAYLOAD_BYTES
    cut = latest["artifact"]["listsCut"]["transactions"]
    assert cut["listed"] == len(latest["artifact"]["transactions"]) < cut["total"]
    audit = export_audit_trail(data, {"packId": "mark-green-tracker"})
    assert len(audit["artifact"]["transactions"]) == cut["total"] > 500
    assert [p["path"] for p in audit["provenance"]] == [f"previews/realperson/{OPTIONS}"]


def test_each_preview_audit_lists_only_the_files_its_pack_read(real_tracker_release):
    data = load_release(real_tracker_release).data
    for pack_id, folder in (("congress-trades", "previews/congress/"), ("wsb-social-momentum", "previews/social/")):
        paths = [p["path"] for p in export_audit_trail(data, {"packId": pack_id})["provenance"]]
        assert paths and all(path.startswith(folder) for path in paths), pack_id


def test_every_real_cluster_days_payload_fits_10_kb_and_its_counts_keep_the_whole():
    root = realdata("congress")
    files = tuple(
        parse_congress(path.read_bytes(), path.name)
        for folder in (root, root.parent / "congress-round2")
        for path in sorted(folder.rglob("*.json"))
        if "aggregate" not in path.name  # no disclosure dates: a publish refuses it
    )
    history = build_congress(CongressInput(files), as_of=date(2026, 8, 1)).artifact["history"]["demo"]
    assert len(history) > 40
    for day in history:
        pack = build_congress(CongressInput(files), as_of=date.fromisoformat(day["date"]))
        payload = pack.agent_payload
        assert len(orjson.dumps(payload)) < PAYLOAD_BYTES - 1024, day  # room for versionId and nextCalls
        clusters = {c["ticker"]: c for c in pack.artifact["signals"][payload["producedBy"]]}
        assert payload["signalCount"] == len(clusters) >= len(payload["signal"]) >= 1
        for brief in payload["signal"]:
            assert brief["tradesListed"] == len(brief["trades"]) <= brief["tradeCount"]
            assert brief["tradeCount"] == len(clusters[brief["ticker"]]["trades"])
