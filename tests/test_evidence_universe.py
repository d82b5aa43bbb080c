"""Corporate actions decided by evidence in a synthetic universe (bench.universe): one injected event of every kind,
no record given, each decided with its ratio and no trade claimed; the ground truth is the generator's events.csv
and events_holders.csv (each pack holder's shares before, carried through the event, traded beside it)."""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

import pytest

from bench import universe
from bench.universe_events import EVENTS
from builder.api.data import ReleaseData
from builder.release.assemble import assemble
from builder.sources.tree import read_sources

PACK = universe.Params(managers=8, quarters=4, positions=30, witnesses=20, actions="all")


def published(root: Path) -> ReleaseData:
    sources, _ = read_sources(root)
    data, _ = assemble(sources, [])
    return data


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("universe")
    universe.write_universe(root, PACK)
    return root


@pytest.fixture(scope="module")
def release(tree: Path) -> ReleaseData:
    return published(tree)


def truth(tree: Path, name: str) -> list[dict[str, str]]:
    with (tree / name).open(newline="") as file:
        return list(csv.DictReader(file))


def ratio(text: str) -> Fraction:
    new, _, old = text.partition(":")
    return Fraction(new) / Fraction(old)


def test_every_injected_event_is_decided_with_its_kind_and_ratio_from_the_holders_alone(tree, release):
    assert not (tree / "corporate_actions.csv").exists()
    derived = {
        (action["cusip"], action["newCusip"] or ""): (artifact["quarter"], action)
        for artifact in release.artifacts.values()
        for action in artifact["corporateActions"]
    }
    events = truth(tree, "events.csv")
    assert len(events) == len(EVENTS)
    for event in events:
        quarter, action = derived[(event["cusip"], event["new_cusip"])]
        assert quarter == event["period_after"], event["label"]
        assert action["derived"] and action["effectiveAfter"] == event["period_before"]
        assert action["kind"] == event["kind"], event["label"]
        if event["ratio"]:
            assert ratio(action["ratio"]) == ratio(event["ratio"]), event["label"]
        assert action["evidence"]["agreeing"] >= 2 and action["evidence"]["holders"] >= 3
    assert len(derived) == len(events)  # nothing else was decided to be a corporate action


def test_each_pack_holder_of_an_event_security_is_published_with_the_trade_it_made_and_no_other(tree, release):
    quarters = {artifact["quarter"]: artifact for artifact in release.artifacts.values()}
    pack = {m["cik"] for m in release.index["copycat"]["managers"]}
    checked = 0
    for row in truth(tree, "events_holders.csv"):
        if not row["cusip"] or row["period_after"] not in quarters or row["cik"].zfill(10) not in pack:
            continue  # a cash acquisition leaves no position (its ending is checked below); a witness is no manager
        manager = next(m for m in quarters[row["period_after"]]["managers"] if m["cik"] == row["cik"].zfill(10))
        entry = next(e for e in manager["positions"] if e["cusip"] == row["cusip"])
        change = entry["change"]
        assert change["kind"] != "undecided", row
        assert change["shareDelta"] == int(row["traded"]), row
        assert change["carriedShares"] == int(row["carried"]), row
        checked += 1
    assert checked >= 30


def test_a_cash_acquisition_ends_every_holders_position_as_converted_not_sold(tree, release):
    (event,) = [e for e in truth(tree, "events.csv") if e["kind"] == "cash-merger"]
    artifact = next(a for a in release.artifacts.values() if a["quarter"] == event["period_after"])
    ended = [e for m in artifact["managers"] for e in m["ended"] if e["cusip"] == event["cusip"]]
    assert len(ended) >= 3
    assert {(e["change"]["kind"], e["change"]["cause"]) for e in ended} == {("converted", "corporate-action")}
    (citation,) = {c["record"] for e in ended for c in e["change"]["corporateActions"]}
    assert citation.startswith(f"evidence:{event['period_after']}:{event['cusip']}")


def test_with_no_corporate_action_the_holders_decide_none_and_leave_almost_nothing_undecided(tmp_path):
    root = tmp_path / "quiet"
    # holders as dense as in the real sets: 120 filers over 200 securities (the SEC's: 8,000 over a few thousand)
    params = universe.Params(managers=20, quarters=5, positions=40, witnesses=100, actions="none", universe=200)
    universe.write_universe(root, params)
    data = published(root)
    assert [r for a in data.artifacts.values() for r in a["corporateActions"]] == []
    changes = [
        e["change"]["kind"]
        for a in data.artifacts.values()
        for m in a["managers"]
        for e in (*m["positions"], *m["ended"])
    ]
    assert len(changes) > 4_000
    assert changes.count("undecided") <= 0.0005 * len(changes)
