"""A manager's changes across several quarters that no corporate action touched take a short way (no lots, no carry,
no rules) to exactly the changes the carry and classification give: the same records, field for field, in the same
order, the undecided ones included; on the fictional fixture, on Berkshire's real filings and on a synthetic tree."""

from __future__ import annotations

from itertools import pairwise

import pytest

from bench import synthetic
from builder.api import methods
from builder.api.data import ReleaseData
from builder.release.publish import publish
from builder.release.store import current_release, load_release
from builder.research.changes import books, side
from builder.research.diff import versions_changes
from builder.research.schema import ArtifactManager, PackArtifact
from builder.research.views import entries, held_amounts
from builder.research.windows import spans
from tests.conftest import quiet

TREE = synthetic.Params(managers=4, quarters=8, positions=20, seed=37)


@pytest.fixture(scope="module")
def synthetic_artifacts(tmp_path_factory: pytest.TempPathFactory) -> list[PackArtifact]:
    root = tmp_path_factory.mktemp("untouched")
    synthetic.write_tree(root / "tree", TREE)
    publish(root / "tree", root / "releases", None, quiet)
    directory = current_release(root / "releases")
    assert directory is not None
    data = load_release(directory).data
    return [data.artifacts[version] for version in data.versions]


@pytest.fixture(params=["fixture", "berkshire", "synthetic"])
def artifacts(request) -> list[PackArtifact]:
    """A release's artifacts, oldest first."""
    if request.param == "synthetic":
        return request.getfixturevalue("synthetic_artifacts")
    data = request.getfixturevalue("release" if request.param == "fixture" else "berkshire_release").data
    return [data.artifacts[version] for version in data.versions]


def compared(artifacts: list[PackArtifact]) -> tuple[int, int, int, int]:
    """Every pair further apart than consecutive, every manager: the short way against the carry where it applies,
    and the shorter one for one-to-one books against the short way's general one. How many manager pairs there were,
    how many took the short way, how many of those had undecided changes, how many took the shorter way."""
    pairs = short = undecided = shorter = 0
    for first, older in enumerate(artifacts):
        for last in range(first + 2, len(artifacts)):
            newer, between = artifacts[last], artifacts[first + 1 : last + 1]
            after = {manager["id"]: manager for manager in newer["managers"]}
            for before in older["managers"]:
                own = [next(m for m in version["managers"] if m["id"] == before["id"]) for version in between]
                pairs += 1
                seen = spans._between(own, [version["quarter"] for version in between])
                if seen.cites:
                    continue
                carried = spans._carried(before["id"], before, after[before["id"]], older, newer, seen)
                untouched = spans._untouched(before["id"], before, after[before["id"]], seen)
                assert untouched == spans._by_keys(before["id"], before, after[before["id"]], seen)
                shorter += not seen.flagged and spans._one_to_one(before["id"], before, after[before["id"]]) is not None
                assert untouched == [change for change in carried if books.listed(change)], (
                    older["quarter"],
                    newer["quarter"],
                    before["id"],
                )
                short += 1
                undecided += any(books.record(change)["kind"] == "undecided" for change in untouched)
    return pairs, short, undecided, shorter


def test_untouched_books_take_the_short_way_to_the_changes_the_carry_gives(artifacts):
    pairs, short, _, shorter = compared(artifacts)
    assert 0 < short <= pairs
    assert 0 < shorter <= short


def test_the_short_way_keeps_the_changes_the_versions_between_left_undecided(synthetic_artifacts):
    pairs, short, flagged, shorter = compared(synthetic_artifacts)
    assert (pairs, short) == (84, 84)  # a synthetic tree has no corporate action
    assert flagged > 0
    assert 0 < shorter <= short - flagged


def own_in_general(manager_id: str, before: ArtifactManager, after: ArtifactManager) -> list[books.Moved]:
    """books.own_changes without its way for plain trades: every entry's change through books.as_entry, by ticker."""
    old = {p["ticker"]: p for p in before["positions"]}
    found = []
    for pair in entries(after):
        entry, change = pair[1], pair[1]["change"]
        if change["kind"] == "unknown":
            continue
        was = old.get(entry["ticker"])
        from_shares, from_value = (was["shares"], was["value"]) if was is not None else (0, 0)
        to_shares, to_value, _ = held_amounts(pair)
        if books.moves(change["kind"], from_shares, to_shares, change["corporateActions"]):
            found.append(books.as_entry(manager_id, entry, change, from_shares, to_shares, from_value, to_value))
    return sorted(found, key=books.by_ticker)


def test_consecutive_versions_changes_take_plain_trades_straight_to_their_rows(artifacts):
    plain = detailed = 0
    for older, newer in pairwise(artifacts):
        after = {manager["id"]: manager for manager in newer["managers"]}
        for before in older["managers"]:
            found = books.own_changes(before["id"], before, after[before["id"]])
            assert found == own_in_general(before["id"], before, after[before["id"]])
            plain += sum(detail is None for _, detail, _ in found)
            detailed += sum(detail is not None for _, detail, _ in found)
    assert plain > 0 and detailed > 0


def test_a_diff_reads_the_same_changes_from_what_the_versions_carry_and_their_keyings(artifacts):
    """What api.methods.diff_of passes (carried_through of each version after the older one, both sides' keyings)
    gives the changes the whole artifacts give."""
    versions = [artifact["versionId"] for artifact in artifacts]
    data = ReleaseData({"packs": [], "copycat": {"versions": versions}}, dict(zip(versions, artifacts, strict=True)))
    spared = 0
    for first, older in enumerate(artifacts):
        for last in range(first + 1, len(artifacts)):
            newer, between = artifacts[last], artifacts[first + 1 : last + 1]
            carried = [methods.carried_through(data, version) for version in versions[first + 1 : last + 1]]
            keyings = (methods.keying_of(data, versions[first]), methods.keying_of(data, versions[last]))
            whole = versions_changes(older, newer, [], between)
            assert versions_changes(older, newer, [], carried, keyings) == whole
            spared += side.untested(*keyings) is not None
    assert spared > 0
