"""Property: any sequence of publish, restate, promote-older and prune never gives one version id two contents.

Real publishes of a small slice of Berkshire's real series (three quarters, two versions) into one releases
directory; a restatement is the test's own edit of its copy (tests.berkshire.restate).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from builder.release.inventory import prune, release_summaries
from builder.release.ledger import read_ledger
from builder.release.promote import promote
from builder.release.publish import publish
from builder.release.store import current_release, list_releases
from tests.berkshire import berkshire_tree, restate
from tests.conftest import quiet
from tests.test_ledger import ids_and_contents

OLDER = tuple(f"{year}-" for year in range(2013, 2020))  # leave these out: three quarters of 2020 remain
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("publish"), st.sampled_from([0, 1000, 2000])),  # the original or one of two restatements
        st.tuples(st.just("promote-older"), st.integers(0, 5)),
        st.tuples(st.just("prune"), st.integers(1, 2)),
    ),
    min_size=1,
    max_size=6,
)


def apply(step: tuple[str, int], tree: Path, releases: Path, seen: dict[str, set[str]]) -> None:
    kind, value = step
    if kind == "publish":
        restate(tree, value)  # 0 puts the filing back as filed
        publish(tree, releases, None, quiet)
    elif kind == "promote-older" and list_releases(releases):
        names = [summary.release_id for summary in release_summaries(releases)]  # oldest written first
        promote(releases, names[value % len(names)])
    elif kind == "prune" and list_releases(releases):
        prune(releases, value)
    for version, contents in ids_and_contents(releases).items():
        seen.setdefault(version, set()).update(contents)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps=STEPS)
@example(steps=[("publish", 0), ("publish", 1000), ("promote-older", 0), ("publish", 2000)])  # issue 15 #1
def test_no_sequence_of_operations_gives_one_id_two_contents(steps: list[tuple[str, int]]) -> None:
    with tempfile.TemporaryDirectory() as work:
        tree = berkshire_tree(Path(work) / "source", without=OLDER, versions=2)
        releases = Path(work) / "releases"
        seen: dict[str, set[str]] = {}  # every id any release ever held, over the whole run (pruned ones too)
        for step in steps:
            apply(step, tree, releases, seen)
        assert {v: c for v, c in seen.items() if len(c) > 1} == {}
        ledger = {entry["versionId"]: entry["contentSha256"] for entry in read_ledger(releases)}
        assert all(ledger[version] in contents for version, contents in seen.items())
        if current_release(releases) is not None:
            assert current_release(releases).name in list_releases(releases)
