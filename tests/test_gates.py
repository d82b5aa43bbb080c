"""The publish gates on Berkshire Hathaway's real 2020 filings: corporate-actions is on by default for real sources (and
off for the fictional fixture), a gated publish records its verdict beside the release, and `ras promote` reads that
verdict: it refuses a release a gate stopped, naming the gate and why, unless told --override-gates."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.release.store import GATE_VERDICTS, current_release
from builder.review.compare import GATE_MEANINGS
from tests.berkshire import berkshire_tree

# Without corporate_actions.csv, 2020-09-30 holds two undecided changes: AAPL's 4:1 split (no record of it) and COST,
# gone from a filing that omits positions under confidential treatment.
STOPPED = (
    "corporate-actions: 2 undecided change(s) the promoted release does not publish: record them in "
    "corporate_actions.csv, or review them and promote with --override-gates"
)


def ras(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return berkshire_tree(tmp_path_factory.mktemp("gates") / "source", versions=2)  # 2020-06-30 and 2020-09-30


@pytest.fixture
def stopped(source: Path, tmp_path: Path) -> tuple[Path, str]:
    """A releases directory whose one release the corporate-actions gate stopped by default; its id."""
    releases = tmp_path / "releases"
    result = ras("publish", "--source", str(source), "--releases", str(releases))
    assert result.exit_code == 3, result.output
    return releases, result.stderr.split("`ras promote ")[-1].split()[0]


def test_a_real_source_publish_with_open_undecided_changes_is_stopped_by_the_corporate_actions_gate_by_default(
    source: Path, tmp_path: Path
):
    releases = tmp_path / "releases"
    result = ras("publish", "--source", str(source), "--releases", str(releases))
    assert result.exit_code == 3 and "gates: corporate-actions" in result.stderr.splitlines()
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: release 2020-11-16-") and STOPPED in last
    assert current_release(releases) is None  # built and kept, not promoted
    release_id = last.split("`ras promote ")[-1].split()[0]
    verdict = orjson.loads((releases / GATE_VERDICTS / f"{release_id}.json").read_bytes())
    assert verdict["releaseId"] == release_id and verdict["against"] is None
    assert verdict["gates"] == ["corporate-actions"]
    assert verdict["stopped"] == [{"gate": "corporate-actions", "reason": STOPPED}]
    seal = orjson.loads((releases / release_id / "seal.json").read_bytes())
    assert verdict["manifestSha256"] == seal["manifestSha256"]  # the verdict names the bytes it judged


def test_promote_refuses_a_release_the_gate_stopped_in_one_error_line_naming_corporate_actions(stopped):
    releases, release_id = stopped
    result = ras("promote", release_id, "--releases", str(releases))
    assert result.exit_code == 3 and result.stdout == ""
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"Error: release {release_id} was stopped by the corporate-actions gate(s) when it was ")
    assert STOPPED in line and "--override-gates" in line
    assert current_release(releases) is None


def test_promote_with_override_gates_promotes_and_says_which_gate_it_overrode(stopped):
    releases, release_id = stopped
    result = ras("promote", release_id, "--override-gates", "--releases", str(releases))
    assert result.exit_code == 0, result.output
    assert result.stdout == f"promoted {release_id}\n"
    assert f"overrode gate {STOPPED}" in result.stderr.splitlines()
    assert current_release(releases).name == release_id


def test_a_publish_after_the_override_finds_nothing_open_and_records_that(stopped, source: Path):
    releases, release_id = stopped
    assert ras("promote", release_id, "--override-gates", "--releases", str(releases)).exit_code == 0
    again = ras("publish", "--source", str(source), "--releases", str(releases))
    assert again.exit_code == 0 and again.stdout.strip() == release_id  # promoted after review: no longer open
    verdict = orjson.loads((releases / GATE_VERDICTS / f"{release_id}.json").read_bytes())
    assert verdict["against"] == release_id and verdict["stopped"] == []
    assert ras("promote", release_id, "--releases", str(releases)).exit_code == 0


def test_gate_none_turns_every_gate_off_for_a_real_source(source: Path, tmp_path: Path):
    releases = tmp_path / "releases"
    result = ras("publish", "--source", str(source), "--releases", str(releases), "--gate", "none")
    assert result.exit_code == 0, result.output
    assert "gates: none" in result.stderr.splitlines() and current_release(releases).name == result.stdout.strip()


def test_a_later_ungated_publish_of_the_same_release_takes_back_the_stop(stopped, source: Path):
    releases, release_id = stopped
    result = ras("publish", "--source", str(source), "--releases", str(releases), "--gate", "none")
    assert result.exit_code == 0 and result.stdout.strip() == release_id
    assert not (releases / GATE_VERDICTS / f"{release_id}.json").exists()


def test_the_fixture_publish_is_not_gated_by_default(tmp_path: Path):
    releases = tmp_path / "releases"
    result = ras("publish", "--fixture", "--releases", str(releases))
    assert result.exit_code == 0, result.output
    assert "gates: none" in result.stderr.splitlines()
    assert current_release(releases).name == result.stdout.strip()


def test_a_release_with_no_recorded_verdict_is_promoted(source: Path, tmp_path: Path):
    releases = tmp_path / "releases"
    built = ras("build", "--source", str(source), "--releases", str(releases))  # `ras build` asks no gate
    assert built.exit_code == 0, built.output
    release_id = built.stdout.strip()
    assert not (releases / GATE_VERDICTS / f"{release_id}.json").exists()
    promoted = ras("promote", release_id, "--releases", str(releases))
    assert (
        promoted.exit_code == 0 and promoted.stdout == f"promoted {release_id}\n" and "overrode" not in promoted.stderr
    )


def test_a_verdict_that_cannot_be_read_stops_promote_until_overridden(stopped):
    releases, release_id = stopped
    (releases / GATE_VERDICTS / f"{release_id}.json").write_bytes(b"{not json")
    refused = ras("promote", release_id, "--releases", str(releases))
    assert refused.exit_code == 3 and "stopped by the unknown-verdict gate(s)" in refused.stderr
    assert ras("promote", release_id, "--override-gates", "--releases", str(releases)).exit_code == 0


def test_prune_removes_a_pruned_releases_verdict(stopped, source: Path):
    releases, release_id = stopped
    other = ras("publish", "--fixture", "--releases", str(releases))  # newer as-of, promoted
    assert other.exit_code == 0, other.output
    assert ras("prune", "--keep", "1", "--releases", str(releases)).exit_code == 0
    assert not (releases / release_id).exists() and not (releases / GATE_VERDICTS / f"{release_id}.json").exists()


def test_publish_help_lists_every_gate_with_its_meaning_and_the_default():
    result = ras("publish", "--help")
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    for name, meaning in GATE_MEANINGS.items():
        assert f"{name}: {meaning}." in text
    assert "Default: corporate-actions for real sources, none for the embedded fixture (fictional data)." in text
    assert "--override-gates" in " ".join(ras("promote", "--help").output.split())
