"""Issue 15 #7 and the review gate: `ras releases` with what each holds, `ras prune`, `ras publish --gate`."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from click.testing import CliRunner

from builder.cli import main
from builder.release.ledger import LEDGER_FILE, read_ledger
from builder.release.store import current_release, list_releases, verify_release


def run(*args: str):
    return CliRunner().invoke(main, list(args))


# Dropping a mapping leaves 2.19% of a fixture book unmapped, over publish's 1% limit; these tests are about
# what the review sees in such a restatement, so they raise the limit.
LAX = ("--max-unmapped-value", "100%")


def changed(fixture_tree: Path, tmp_path: Path, drop: int) -> Path:
    """The fictional fixture with securities.csv row `drop` removed: every version restated, one more unmapped CUSIP."""
    source = tmp_path / f"source-{drop}"
    shutil.copytree(fixture_tree, source)
    lines = (source / "securities.csv").read_text().splitlines()
    (source / "securities.csv").write_text("\n".join([*lines[:drop], *lines[drop + 1 :]]) + "\n")
    return source


def test_releases_lists_as_of_quarters_managers_warnings_and_the_promoted_mark(published: Path):
    listing = run("releases", "--releases", str(published))
    assert listing.exit_code == 0
    release_id = current_release(published).name
    assert re.fullmatch(
        rf"1 release\(s\) in {re.escape(str(published))}, oldest as-of first \(then build time\); \* promoted\n"
        rf"\* {release_id}  as of 2026-11-13  8 quarters 2024-09-30 … 2026-09-30  7 managers  \d+ warnings\n",
        listing.stdout,
    )


def test_prune_keeps_the_newest_and_the_promoted_and_the_ledger(
    releases_copy: Path, fixture_tree: Path, tmp_path: Path
):
    first = current_release(releases_copy).name
    built = [
        run(
            "build", "--source", str(changed(fixture_tree, tmp_path, n)), "--releases", str(releases_copy), *LAX
        ).stdout.strip()
        for n in (1, 2, 3)
    ]
    ledger_before = read_ledger(releases_copy)
    result = run("prune", "--keep", "1", "--releases", str(releases_copy))
    assert result.exit_code == 0, result.output
    assert sorted(list_releases(releases_copy)) == sorted([first, built[-1]])  # the promoted one stays
    assert result.stdout.splitlines() == [
        f"kept    {first}  as of 2026-11-13  (promoted)",
        f"kept    {built[-1]}  as of 2026-11-13  (among the newest 1)",
        *(f"removed {release_id}  as of 2026-11-13" for release_id in built[:2]),
        "2 release(s) removed, 2 kept (the newest 1 by as-of and the promoted one); the ledger keeps every version id",
    ]
    assert (releases_copy / LEDGER_FILE).exists() and read_ledger(releases_copy) == ledger_before
    assert verify_release(current_release(releases_copy)) == []
    assert run("prune", "--keep", "0", "--releases", str(releases_copy)).exit_code == 2
    again = run("prune", "--keep", "1", "--releases", str(releases_copy))  # nothing left to remove: it says so
    assert again.stdout.splitlines()[-1].startswith("no release(s) removed, 2 kept")


def test_releases_are_listed_and_pruned_by_as_of_not_by_build_order(releases_copy: Path, fixture_tree: Path):
    promoted = current_release(releases_copy).name
    older = run("build", "--source", str(fixture_tree), "--releases", str(releases_copy), "--as-of", "2026-08-20")
    assert older.exit_code == 0, older.output  # built last, but of an earlier day: listed first, pruned first
    listing = run("releases", "--releases", str(releases_copy)).stdout.splitlines()
    assert [line[2:].split()[0] for line in listing[1:]] == [older.stdout.strip(), promoted]
    pruned = run("prune", "--keep", "1", "--releases", str(releases_copy)).stdout.splitlines()
    assert pruned[:2] == [
        f"kept    {promoted}  as of 2026-11-13  (promoted, among the newest 1)",
        f"removed {older.stdout.strip()}  as of 2026-08-20",
    ]


def test_a_gated_publish_of_a_restatement_exits_3_and_keeps_the_release_unpromoted(
    releases_copy: Path, fixture_tree: Path, tmp_path: Path
):
    before = current_release(releases_copy).name
    result = run(
        "publish",
        "--source",
        str(changed(fixture_tree, tmp_path, 1)),
        "--releases",
        str(releases_copy),
        "--gate",
        "new-warnings,restatement,shrink",
        *LAX,
    )
    assert result.exit_code == 3
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: release ") and "restatement: 8 published quarter(s) restated" in last
    assert "new-warnings: 2 warning(s)" in last and "shrink" not in last  # the CUSIP one manager holds, one ended
    kept = next(name for name in list_releases(releases_copy) if name != before)
    assert current_release(releases_copy).name == before and verify_release(releases_copy / kept) == []
    refused = run("promote", kept, "--releases", str(releases_copy))  # the verdict recorded at publish stands
    assert refused.exit_code == 3 and "stopped by the new-warnings, restatement gate(s)" in refused.stderr
    overridden = run("promote", kept, "--override-gates", "--releases", str(releases_copy))
    assert overridden.exit_code == 0 and "overrode gate restatement: 8 published quarter(s)" in overridden.stderr


def test_a_gated_publish_with_nothing_tripped_promotes(releases_copy: Path, fixture_tree: Path):
    result = run(
        "publish", "--source", str(fixture_tree), "--releases", str(releases_copy), "--gate", "restatement,shrink"
    )
    assert result.exit_code == 0, result.output


def test_an_unknown_gate_is_a_usage_error(releases_copy: Path):
    result = run("publish", "--releases", str(releases_copy), "--gate", "restatment")
    assert result.exit_code == 2 and "unknown gate(s) restatment" in result.output


def test_a_gated_publish_of_fewer_versions_is_refused_as_a_shrink(
    releases_copy: Path, fixture_tree: Path, tmp_path: Path
):
    source = tmp_path / "fewer"
    shutil.copytree(fixture_tree, source)
    packs = (source / "packs.toml").read_text()
    (source / "packs.toml").write_text(packs.replace("versions = 8", "versions = 6"))
    result = run("publish", "--source", str(source), "--releases", str(releases_copy), "--gate", "shrink")
    assert result.exit_code == 3
    assert "shrink: 6 versions where the promoted release has 8" in result.stderr.strip().splitlines()[-1]
