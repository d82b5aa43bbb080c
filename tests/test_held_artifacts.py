"""A publish decodes each version from the form its build worker sent back (objects.held_artifact), not from the
file it writes: the same artifact, with the strings the build shared still shared, and the file's bytes handed over
once."""

from __future__ import annotations

import pytest

from builder.api.methods import artifact_sha256
from builder.canonical import canonical_json, sha256_hex
from builder.release.assemble import assemble
from builder.release.objects import Artifacts, artifact_of
from builder.sources.tree import fixture_source, read_sources


@pytest.fixture(scope="module")
def assembled():
    data, _ = assemble(read_sources(fixture_source())[0], [])
    return data


def test_each_version_decodes_from_its_held_form_to_the_artifact_its_file_holds(assembled):
    artifacts = assembled.artifacts
    assert isinstance(artifacts, Artifacts)
    stored = {version: artifacts.stored(version) for version in assembled.versions}  # handed over once
    for version in assembled.versions:
        held = artifacts.read(version)
        assert held == artifact_of(stored[version])
        assert sha256_hex(canonical_json(held)) == artifact_sha256(assembled, version)
    with pytest.raises(KeyError):
        artifacts.stored(assembled.versions[0])


def test_the_held_form_keeps_the_strings_the_build_shared(assembled):
    artifact = assembled.artifacts.read(assembled.versions[-1])
    tickers = [p["ticker"] for m in artifact["managers"] for p in m["positions"]]
    assert len(tickers) > len(set(tickers))  # fixture managers hold the same tickers
    # one object per distinct ticker, as the build made them (JSON would make one per occurrence)
    assert len({id(ticker) for ticker in tickers}) == len(set(tickers))
