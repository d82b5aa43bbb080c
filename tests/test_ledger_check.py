"""The ledger is checked: `ras verify` reads every line of it, and publish says so when it repairs a torn one."""

from __future__ import annotations

from pathlib import Path

import orjson
from click.testing import CliRunner

from builder.cli import main
from builder.release.ledger import LEDGER_FILE
from builder.release.store import LEDGER, current_release


def ras(*arguments: str):
    return CliRunner().invoke(main, list(arguments))


def lines(releases: Path) -> list[bytes]:
    return (releases / LEDGER_FILE).read_bytes().splitlines()


def test_a_torn_last_line_is_reported_by_verify_and_removed_by_publish_which_says_so(
    releases_copy: Path, fixture_tree: Path
):
    count = len(lines(releases_copy))
    with open(releases_copy / LEDGER_FILE, "ab") as handle:
        handle.write(b'{"contentSha256":"ab')  # an append a crash cut short
    checked = ras("verify", "--releases", str(releases_copy))
    assert checked.exit_code == 1
    assert checked.stderr.splitlines() == [
        f"{LEDGER_FILE}:{count + 1}: cut short by an interrupted publish — the next publish removes it",
        f"Error: {LEDGER_FILE} fails verification (1 problem)",
    ]
    published = ras("publish", "--source", str(fixture_tree), "--releases", str(releases_copy))
    assert published.exit_code == 0, published.output
    assert (
        f"{LEDGER_FILE}: removed line {count + 1}, cut short by an interrupted publish (20 bytes, an entry of a "
        "release that never landed)"
    ) in published.stderr.splitlines()
    assert len(lines(releases_copy)) == count
    assert ras("verify", "--releases", str(releases_copy)).exit_code == 0


def test_verify_names_a_line_that_is_no_entry_an_id_with_two_contents_and_an_id_a_release_records_but_the_ledger_lacks(
    releases_copy: Path,
):
    release = current_release(releases_copy)
    entries = [orjson.loads(line) for line in lines(releases_copy)]
    first, dropped = entries[0], entries[-1]
    other = {**first, "contentSha256": "0" * 64}
    kept = [orjson.dumps(entry) for entry in entries[:-1]]
    (releases_copy / LEDGER_FILE).write_bytes(b"\n".join([*kept, b"not json", orjson.dumps(other)]) + b"\n")
    checked = ras("verify", "--releases", str(releases_copy))
    assert checked.exit_code == 1
    assert checked.stderr.splitlines() == [
        f"{LEDGER_FILE}:{len(kept) + 1}: not a ledger entry ('not json')",
        f"{LEDGER_FILE}:{len(kept) + 2}: {first['versionId']} names other content than line 1",
        f"{LEDGER_FILE}: lacks {dropped['versionId']}, which release {release.name} records — the next publish "
        "appends it",
        f"Error: {LEDGER_FILE} fails verification (3 problems)",
    ]
    assert dropped in orjson.loads((release / LEDGER).read_bytes())  # the release's own record is the witness


def test_a_ledger_that_disagrees_with_a_release_is_named_with_both(releases_copy: Path):
    release = current_release(releases_copy)
    entries = [orjson.loads(line) for line in lines(releases_copy)]
    entries[0]["contentSha256"] = "f" * 64
    (releases_copy / LEDGER_FILE).write_bytes(b"".join(orjson.dumps(entry) + b"\n" for entry in entries))
    checked = ras("verify", "--releases", str(releases_copy))
    assert (
        f"{LEDGER_FILE}:1: {entries[0]['versionId']} names other content than release {release.name} records"
        in checked.stderr.splitlines()
    )
