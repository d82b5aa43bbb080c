"""`ras publish --workers N` renders the answers on N processes into the same release, id and bytes, as one."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from builder.cli import main
from builder.release.store import current_release


def files_of(release: Path) -> dict[str, bytes]:
    return {path.relative_to(release).as_posix(): path.read_bytes() for path in release.rglob("*") if path.is_file()}


def test_one_and_two_workers_write_the_same_release(fixture_tree: Path, tmp_path: Path):
    written = {}
    for workers in (1, 2):
        releases = tmp_path / f"releases-{workers}"
        result = CliRunner().invoke(
            main, ["publish", "--source", str(fixture_tree), "--releases", str(releases), "--workers", str(workers)]
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
