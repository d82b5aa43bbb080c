"""The parse cache: a re-publish reads unchanged 13F files from it, checks every entry, and survives its loss."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from builder.records import HoldingRow
from builder.release.build import PARSE_CACHE
from builder.release.inputs import RECORD
from builder.release.publish import publish
from builder.sources.sec13f.cache import ParseCache, parser_digest
from builder.sources.sec13f.document import PrimaryDocument
from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from builder.sources.sec13f.parsed import Parsed, parse_file
from builder.sources.sec13f.safexml import DocumentError
from builder.sources.tree import fixture_source
from tests.conftest import realdata

REPORT = "parse cache: "


def filing_files() -> list[Path]:
    found = (fixture_source() / "sec13f").rglob("*")
    return sorted(path for path in found if path.is_file() and path.name != DATES_FILE)  # the record is no 13F file


def publish_reporting(releases: Path) -> tuple[str, str]:
    """(release id, the publish's parse cache line)."""
    lines: list[str] = []
    release_id = publish(fixture_source(), releases, None, lines.append)
    return release_id, next(line for line in lines if line.startswith(REPORT))


def copy_without_record(releases: Path, target: Path) -> Path:
    """A copy of `releases` that has forgotten its last publish's inputs, so publishing builds again."""
    shutil.copytree(releases, target, symlinks=True)
    (target / RECORD).unlink()
    return target


def entries(releases: Path) -> list[Path]:
    return sorted(path for path in (releases / PARSE_CACHE).rglob("*") if path.is_file())


@pytest.fixture(scope="module")
def cached_releases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """A releases directory published once from nothing: (directory, release id, its parse cache line)."""
    releases = tmp_path_factory.mktemp("cached")
    return releases, *publish_reporting(releases)


def test_a_first_publish_parses_every_filing_file_and_keeps_them_beside_the_releases(cached_releases):
    releases, _, report = cached_releases
    count = len(filing_files())
    assert report == f"parse cache: 0 files from it, {count} parsed"
    assert len(entries(releases)) == count
    assert all(entry.parent.parent.name == parser_digest() for entry in entries(releases))


def test_a_republish_reads_every_unchanged_file_from_the_cache_and_gives_the_same_release(cached_releases, tmp_path):
    releases, release_id, _ = cached_releases
    copy = copy_without_record(releases, tmp_path / "releases")
    again, report = publish_reporting(copy)
    assert (again, report) == (release_id, f"parse cache: {len(filing_files())} files from it, 0 parsed")


@pytest.mark.parametrize("damage", ["flip", "truncate", "garbage"])
def test_a_damaged_entry_is_parsed_again_and_rewritten(cached_releases, tmp_path, damage):
    releases, release_id, _ = cached_releases
    copy = copy_without_record(releases, tmp_path / "releases")
    victim = entries(copy)[0]
    stored = victim.read_bytes()
    altered = {
        "flip": stored[:-3] + bytes([stored[-3] ^ 1]) + stored[-2:],
        "truncate": stored[: len(stored) // 2],
        "garbage": b"not an entry",
    }[damage]
    victim.write_bytes(altered)
    again, report = publish_reporting(copy)
    assert (again, report) == (release_id, f"parse cache: {len(filing_files()) - 1} files from it, 1 parsed")
    assert victim.read_bytes() == stored


def test_deleting_the_cache_costs_only_the_parsing(cached_releases, tmp_path):
    releases, release_id, _ = cached_releases
    copy = copy_without_record(releases, tmp_path / "releases")
    shutil.rmtree(copy / ".cache")
    again, report = publish_reporting(copy)
    assert (again, report) == (release_id, f"parse cache: 0 files from it, {len(filing_files())} parsed")


def rows_of(parsed: Parsed) -> tuple[HoldingRow, ...]:
    if isinstance(parsed, PrimaryDocument):
        return parsed.table or ()
    return parsed.rows


@pytest.mark.parametrize("tree", ["fixture", "realdata"])
def test_an_entry_reads_back_as_exactly_what_the_parser_made(tree: str, tmp_path: Path):
    files = filing_files() if tree == "fixture" else sorted(p for p in realdata("sec13f").rglob("*") if p.is_file())
    readable = 0
    for path in files:
        data = path.read_bytes()
        sha256 = hashlib.sha256(data).hexdigest()
        try:
            expected = parse_file(data)
        except DocumentError:
            continue  # refused: never cached (the next test)
        ParseCache(tmp_path).parse(data, sha256)
        reader = ParseCache(tmp_path)
        cached = reader.parse(data, sha256)
        assert cached == expected, path.name
        assert (reader.hits, reader.parsed) == (1, 0), path.name
        # the rows read back hold the strings the parser's rows hold, not copies of their own
        pairs = zip(rows_of(cached), rows_of(expected), strict=True)
        assert all(a.issuer is b.issuer and a.cusip is b.cusip for a, b in pairs), path.name
        readable += 1
    assert readable >= len(files) // 2, "most of these files are readable 13F documents or envelopes"


def test_a_file_the_parser_refuses_is_never_cached(tmp_path: Path):
    cache = ParseCache(tmp_path)
    data = b"<html><body>not a filing</body></html>"
    for _ in range(2):
        with pytest.raises(DocumentError):
            cache.parse(data, hashlib.sha256(data).hexdigest())
    assert (cache.hits, cache.parsed) == (0, 0) and not any(tmp_path.rglob("*"))
