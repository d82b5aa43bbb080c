"""A review reads each version of both releases once, from its file, in processes forked for it (at 2,000 managers
the eight versions decoded at once held 8.6 GB, and a quadratic bridge took minutes): the same review as from the
artifacts in memory, on any number of processes, and one clear error for a release it cannot read."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.errors import ReleaseError
from builder.release.assemble import checked
from builder.release.build import Asked, prepare_release, write_release
from builder.release.objects import artifact_path
from builder.release.store import current_release, load_release
from builder.review.command import review_of
from builder.review.compare import Reviewed, read_reviewed, review
from builder.sources.tree import fixture_source
from tests.conftest import quiet


def test_a_review_read_from_the_files_is_the_review_of_the_artifacts_on_any_number_of_processes(published: Path):
    directory = current_release(published)
    assert directory is not None
    data = load_release(directory).data
    loaded = Reviewed(directory.name, dict(data.index), {version: data.artifacts[version] for version in data.versions})
    expected = review(loaded, loaded)
    assert expected["versions"]["count"] == {"candidate": 8, "against": 8}
    assert expected["trades"] and expected["bridges"] and expected["bookValues"] and expected["viewCounts"]
    latest = data.artifacts[data.versions[-1]]
    assert {b["manager"] for b in expected["bridges"]} == {m["id"] for m in latest["managers"]}
    for bridge in expected["bridges"]:  # each book value's change is its trades', its undecided changes' and the rest
        assert bridge["change"] == bridge["tradeEffect"] + bridge["undecided"] + bridge["priceEffect"]
    for workers in (1, 2):
        assert review(read_reviewed(directory), read_reviewed(directory), "", workers) == expected
    alone = review(loaded, None)
    assert alone["versions"]["added"] and alone["undecided"]["open"] == alone["undecided"]["count"]
    assert review_of(published, directory.name, None, 2)["against"] == directory.name  # the promoted one by default
    assert review(read_reviewed(directory), None, "", 2) == alone


@pytest.mark.parametrize("workers", [1, 2])
def test_an_artifact_that_does_not_decode_is_one_error_naming_its_file(releases_copy: Path, workers: int):
    directory = current_release(releases_copy)
    assert directory is not None
    side = read_reviewed(directory)
    broken = artifact_path(directory, side.versions[3])
    broken.write_bytes(broken.read_bytes()[:200])  # cut short: gzip ends early
    with pytest.raises(ReleaseError, match=f"is not a readable release: {broken.name}"):
        review(side, None, "", workers)


def test_a_release_missing_an_artifact_file_is_refused_before_anything_is_read(releases_copy: Path):
    directory = current_release(releases_copy)
    assert directory is not None
    version = read_reviewed(directory).versions[0]
    artifact_path(directory, version).unlink()
    with pytest.raises(ReleaseError, match=f"no artifact file of {version}"):
        read_reviewed(directory)


def test_a_publish_reviews_its_release_from_what_it_holds_as_from_the_files(tmp_path: Path):
    releases = tmp_path / "releases"
    prepared = prepare_release(Asked(fixture_source(), releases, workers=2), quiet)
    release_id = write_release(prepared, quiet)
    held = review_of(releases, release_id, None, 2, prepared.data)
    assert held == review_of(releases, release_id, None, 1)
    assert held["undecided"]["count"] == len(checked(prepared.data)[1]) > 0
