"""Issue 15 #4 and the diff half of #5 on Berkshire's real series: warnings on the console, scoped in health."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.api.contract import BY_ID
from builder.api.methods import compare_versions
from builder.cli import main
from builder.release.store import current_release, load_release
from tests.berkshire import berkshire_tree

CONFIDENTIAL_OUTSIDE = ("2013-06-30", "2014-09-30", "2015-06-30")  # quarters with omissions, outside the window


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("berkshire")
    source = berkshire_tree(root / "source")  # its undecided changes would stop the default gate: not checked here
    result = CliRunner().invoke(
        main, ["publish", "--source", str(source), "--releases", str(root / "releases"), "--gate", "none"]
    )
    assert result.exit_code == 0, result.output
    return root / "releases", result.stderr


def health(releases: Path) -> dict:
    loaded = load_release(current_release(releases))
    return orjson.loads(loaded.answers[BY_ID["getHealth"].request_key({})].body)["data"]


def test_publish_prints_a_grouped_warning_summary_naming_each_pack(published):
    _releases, stderr = published
    lines = stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("warnings: "))
    assert "in 1 pack(s)" in lines[start]
    assert any(
        line.startswith("  confidential-omitted ×1 [13f-copycat] e.g. (sec13f/1067983/2020-09-30_")
        for line in lines[start + 1 :]
    )


def test_health_counts_only_the_published_versions_warnings_once_each_with_its_pack(published):
    releases, _ = published
    body = health(releases)
    assert body["warningCount"] == len(body["warnings"])
    assert all(w["pack"] == "13f-copycat" for w in body["warnings"])
    keys = [(w["pack"], w["code"], w["message"]) for w in body["warnings"]]
    assert len(keys) == len(set(keys))
    confidential = [w["message"] for w in body["warnings"] if w["code"] == "confidential-omitted"]
    assert len(confidential) == 1 and "2020-09-30" in confidential[0]
    assert not [w for w in body["warnings"] if any(q in w["message"] for q in CONFIDENTIAL_OUTSIDE)]


def test_a_diff_judges_each_version_at_its_own_as_of(published):
    releases, _ = published
    data = load_release(current_release(releases)).data
    older, newer = data.versions[1], data.versions[-1]
    diff = compare_versions(data, {"from": older, "to": newer, "managers": [], "mode": "any"})
    assert "freshness" not in {change["id"] for change in diff["policy"]}  # both were fresh in their day
