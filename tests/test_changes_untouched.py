"""A manager's changes across several quarters that no corporate action touched take a short way (no lots, no carry,
no rules) to exactly the changes the carry and classification give: the same records, field for field, in the same
order, the undecided ones included; on the fictional fixture, on Berkshire's real filings and on a synthetic tree."""

from __future__ import annotations

import pytest

from bench import synthetic
from builder.release.promote import publish
from builder.release.store import current_release, load_release
from builder.research.changes import books
from builder.research.schema import PackArtifact
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
                cites, flagged = books._flagged(own)
                if cites:
                    continue
                carried = books._carried(before["id"], before, after[before["id"]], older, newer, own, flagged)
                untouched = books._untouched(before["id"], before, after[before["id"]], flagged)
                assert untouched == books._by_keys(before["id"], before, after[before["id"]], flagged)
                shorter += not flagged and books._one_to_one(before["id"], before, after[before["id"]]) is not None
                assert untouched == [change for change in carried if books._moved(change)], (
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
