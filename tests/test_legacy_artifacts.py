"""A release published before artifacts were stored compressed (plain `.json` artifact files) still serves, reviews
and still vouches for its version ids: an operator upgrades without re-publishing first."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from builder.canonical import canonical_json, sha256_hex
from builder.errors import PublishError
from builder.release.objects import unpacked_artifact
from builder.release.publish import publish
from builder.release.store import ARTIFACT_SUFFIX, MANIFEST, SEAL, current_release, load_release, prepare
from builder.review.compare import read_reviewed
from builder.sources.tree import fixture_source
from tests.conftest import quiet


def _as_published_before(releases: Path, directory: Path) -> tuple[Path, dict[str, bytes]]:
    """`directory` as an older publish wrote it: its artifact files plain canonical JSON, the manifest and seal to
    match, under an id of its own, promoted. The release and the JSON by file."""
    manifest = orjson.loads((directory / MANIFEST).read_bytes())
    manifest["releaseId"] = f"{manifest['asOf']}-0000000legacy"
    plain = {}
    for path in [p for p in manifest["files"] if p.endswith(ARTIFACT_SUFFIX)]:
        legacy = path.removesuffix(ARTIFACT_SUFFIX) + ".json"
        body = plain[legacy] = unpacked_artifact((directory / path).read_bytes())
        (directory / legacy).write_bytes(body)
        (directory / path).unlink()
        del manifest["files"][path]
        manifest["files"][legacy] = sha256_hex(body)
    manifest_bytes = canonical_json({**manifest, "files": dict(sorted(manifest["files"].items()))})
    (directory / MANIFEST).write_bytes(manifest_bytes)
    seal = orjson.loads((directory / SEAL).read_bytes())
    identity = {"releaseId": manifest["releaseId"], "manifestSha256": sha256_hex(manifest_bytes)}
    (directory / SEAL).write_bytes(canonical_json({**seal, **identity}))
    moved = directory.rename(releases / manifest["releaseId"])
    (releases / "current").unlink()
    (releases / "current").symlink_to(moved.name)
    return moved, plain


def test_a_release_with_plain_artifact_files_serves_reviews_and_lends_them(releases_copy: Path):
    promoted = current_release(releases_copy)
    assert promoted is not None
    old, plain = _as_published_before(releases_copy, promoted)
    assert len(plain) == 8

    release = load_release(old)
    prepare(release)  # what `ras serve` reads before serving: every artifact, verified against the manifest
    for version in release.data.versions:
        assert canonical_json(release.data.artifacts[version]) == plain[f"artifacts/13f-copycat/{version}.json"]
    assert list(read_reviewed(old).artifacts) == release.data.versions

    publish(fixture_source(), releases_copy, None, quiet)
    assert current_release(releases_copy) == promoted  # the same content as the one the older publish stands for


def test_a_plain_artifact_file_with_other_content_still_stops_the_publish(releases_copy: Path):
    promoted = current_release(releases_copy)
    assert promoted is not None
    old, plain = _as_published_before(releases_copy, promoted)
    path, body = sorted(plain.items())[-1]
    (old / path).write_bytes(body.replace(b'"fixture":true', b'"fixture":false', 1))
    with pytest.raises(PublishError, match="published with other content"):
        publish(fixture_source(), releases_copy, None, quiet)
