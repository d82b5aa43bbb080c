"""`ras publish --workers N` reads the 13F files, builds the quarters and renders the answers on N processes into the
same release, id and bytes, as one."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bench import synthetic
from builder.cli import main
from builder.release.assemble import assemble
from builder.release.build import MEMO_PARAMS, _groups, precomputed
from builder.release.store import current_release
from builder.sources.sec13f.cache import ParseCache
from builder.sources.tree import fixture_source, read_sources

SMALL = synthetic.Params(managers=5, quarters=10, positions=12, seed=11)  # more managers and quarters than processes


@pytest.fixture(scope="module")
def small_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("workers") / "tree"
    synthetic.write_tree(root, SMALL)
    return root


def files_of(release: Path) -> dict[str, bytes]:
    return {path.relative_to(release).as_posix(): path.read_bytes() for path in release.rglob("*") if path.is_file()}


@pytest.mark.parametrize("tree", ["fixture", "synthetic"])
def test_one_and_two_workers_write_the_same_release(tree: str, fixture_tree: Path, small_tree: Path, tmp_path: Path):
    source = fixture_tree if tree == "fixture" else small_tree
    written = {}
    for workers in (1, 2):
        releases = tmp_path / f"releases-{workers}"
        result = CliRunner().invoke(
            main,
            [
                "publish",
                "--source",
                str(source),
                "--releases",
                str(releases),
                "--workers",
                str(workers),
                "--gate",
                "none",
            ],
        )
        assert result.exit_code == 0, result.output
        rendered = next(line for line in result.stderr.splitlines() if line.startswith("rendered "))
        assert f" on {workers} processes into " in rendered
        release = current_release(releases)
        assert release is not None
        written[workers] = (release.name, result.stdout.strip(), files_of(release))
    assert written[1][0] == written[2][0] == written[1][1] == written[2][1]
    assert written[1][2] == written[2][2]
    assert len(written[1][2]) > 100  # answers, artifacts, manifest and seal


def cache_files(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def test_two_workers_read_the_same_records_and_fill_the_parse_cache_alike(small_tree: Path, tmp_path: Path):
    read = {}
    for workers in (1, 2):
        cache = ParseCache(tmp_path / f"cache-{workers}")
        sources, reports = read_sources(small_tree, None, cache, None, workers)
        read[workers] = (sources, reports, cache_files(tmp_path / f"cache-{workers}"))
    assert read[1][0] == read[2][0]
    assert len(read[1][0].filings) == SMALL.managers * SMALL.quarters
    assert read[1][1] == read[2][1]
    assert f"parse cache: 0 files from it, {SMALL.managers * SMALL.quarters * 2} parsed" in read[2][1]
    assert read[1][2] == read[2][2] and len(read[2][2]) == SMALL.managers * SMALL.quarters * 2
    again = ParseCache(tmp_path / "cache-2")
    assert read_sources(small_tree, None, again, None, 2)[0] == read[1][0]
    assert again.report() == f"parse cache: {SMALL.managers * SMALL.quarters * 2} files from it, 0 parsed"


def test_the_answers_of_the_latest_version_render_as_one_group_by_mode():
    """The requests that name no version share the latest version's views, scores and policy: one group, each
    mode's together; each diff pair's modes stay in one group too."""
    data, _ = assemble(read_sources(fixture_source())[0], [])
    requests = list(precomputed(data, False))
    groups = _groups(requests, data.versions, 2)
    latest = [i for i, (_, params) in enumerate(requests) if not any(name in params for name in MEMO_PARAMS)]
    (found,) = [group for group in groups if set(group) & set(latest)]
    assert sorted(found) == latest
    operations = {requests[i][0].id for i in found}
    assert {"explainPosition", "getLatestPack", "compareEthos", "validatePolicy"} <= operations
    modes = [str(requests[i][1].get("mode")) for i in found]
    assert modes == sorted(modes) and len(set(modes)) == 4
    pairs: dict[tuple[str, str], set[int]] = {}
    for number, group in enumerate(groups):
        for i in group:
            params = requests[i][1]
            if "from" in params:
                pairs.setdefault((params["from"], params["to"]), set()).add(number)
    assert pairs and all(len(numbers) == 1 for numbers in pairs.values())
