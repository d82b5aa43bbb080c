"""Issue 15 #1 and #2 on Berkshire's real series: a version id never names two contents, a release is damaged alone."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builder.release.ledger import LEDGER_FILE, read_ledger
from builder.release.objects import artifact_of
from builder.release.promote import promote
from builder.release.publish import publish
from builder.release.store import ARTIFACT_SUFFIX, artifact_file, current_release, list_releases, verify_release
from builder.research.versions import content_digest
from tests.berkshire import berkshire_tree, restate
from tests.conftest import quiet

QUARTER = "multi-manager-2020-06-30"


def ids_and_contents(releases: Path) -> dict[str, set[str]]:
    """Every version id held by any release of the directory → the content digests it names there."""
    found: dict[str, set[str]] = {}
    for name in list_releases(releases):
        for path in (releases / name / "artifacts" / "13f-copycat").glob(f"*{ARTIFACT_SUFFIX}"):
            artifact = artifact_of(path.read_bytes())
            found.setdefault(artifact["versionId"], set()).add(content_digest(artifact))
    return found


def book_value(releases: Path, release_id: str, version: str) -> int:
    artifact = artifact_of((releases / release_id / artifact_file(version)).read_bytes())
    return artifact["managers"][0]["bookValue"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return berkshire_tree(tmp_path / "source")


def test_a_restatement_after_a_rollback_gets_a_new_id_not_the_rolled_back_one(tree: Path, tmp_path: Path):
    releases = tmp_path / "releases"
    first = publish(tree, releases, None, quiet)
    restate(tree, 1000)
    second = publish(tree, releases, None, quiet)
    assert book_value(releases, second, f"{QUARTER}-v2.1") == 202_412_166_000
    promote(releases, first)  # the rollback
    restate(tree, 2000)  # another restatement of the same quarter
    third = publish(tree, releases, None, quiet)
    assert not (releases / third / artifact_file(f"{QUARTER}-v2.1")).exists()
    assert book_value(releases, third, f"{QUARTER}-v2.2") == 202_413_166_000
    assert all(len(contents) == 1 for contents in ids_and_contents(releases).values())


def test_the_ledger_is_rebuilt_from_the_releases_when_lost(tree: Path, tmp_path: Path):
    releases = tmp_path / "releases"
    first = publish(tree, releases, None, quiet)
    restate(tree, 1000)
    publish(tree, releases, None, quiet)
    promote(releases, first)
    (releases / LEDGER_FILE).unlink()
    assert f"{QUARTER}-v2.1" in {entry["versionId"] for entry in read_ledger(releases)}
    restate(tree, 2000)
    third = publish(tree, releases, None, quiet)
    assert (releases / third / artifact_file(f"{QUARTER}-v2.2")).exists()
    assert all(len(contents) == 1 for contents in ids_and_contents(releases).values())


def test_the_ledger_records_the_ids_of_a_release_before_it_is_promoted(tree: Path, tmp_path: Path):
    releases = tmp_path / "releases"
    release_id = publish(tree, releases, None, quiet)
    lines = [orjson.loads(line) for line in (releases / LEDGER_FILE).read_bytes().splitlines()]
    published = orjson.loads((current_release(releases) / "data" / "release.json").read_bytes())["copycat"]["versions"]
    assert {line["versionId"] for line in lines} == set(published)
    assert release_id == current_release(releases).name


def test_an_in_place_edit_of_one_release_damages_no_other(tree: Path, tmp_path: Path):
    releases = tmp_path / "releases"
    first = publish(tree, releases, None, quiet)
    restate(tree, 1000)
    second = publish(tree, releases, None, quiet)
    shared = [p for p in (releases / second / "objects").iterdir() if (releases / first / "objects" / p.name).exists()]
    assert shared, "the restatement leaves most answers unchanged"
    with open(shared[0], "r+b") as handle:  # an in-place edit: the same inode, other bytes
        byte = handle.read(1)
        handle.seek(0)
        handle.write(bytes([byte[0] ^ 0x01]))
    assert verify_release(releases / second) != []
    assert verify_release(releases / first) == []


def test_with_every_ledger_lost_the_artifacts_still_name_their_ids(releases_copy: Path):
    current = current_release(releases_copy)
    published = orjson.loads((current / "data" / "release.json").read_bytes())["copycat"]["versions"]
    (releases_copy / LEDGER_FILE).unlink()
    (current / "data" / "ledger.json").write_bytes(b"[]")
    recovered = {entry["versionId"]: entry["contentSha256"] for entry in read_ledger(releases_copy)}
    assert set(recovered) == set(published)
    for version in published:
        artifact = artifact_of((current / artifact_file(version)).read_bytes())
        assert recovered[version] == content_digest(artifact)
