"""A new release writes (or reflinks) its own copy of the files it shares with the promoted one: never a hard link."""

from __future__ import annotations

import csv
import io
import os
import re
import shutil
import zipfile
from datetime import date, datetime
from pathlib import Path

import orjson
import pytest

from bench import synthetic, universe
from bench.datasets_writer import named_window
from builder.errors import PublishError
from builder.release import inputs
from builder.release.build import Asked, prepare_release, write_release
from builder.release.inputs import ANSWERS
from builder.release.objects import object_path, packed_artifact, unpacked_artifact
from builder.release.publish import publish
from builder.release.store import INDEX, LEDGER, MANIFEST, ROUTES, artifact_file, current_release, verify_release
from builder.research.views import MODES
from builder.sources.files import DATASETS
from builder.sources.tree import fixture_source


def test_a_next_day_release_shares_no_inode_with_the_previous_one(published: Path, tmp_path: Path) -> None:
    releases = tmp_path / "releases"
    shutil.copytree(published, releases, symlinks=True)
    before = (releases / "current").resolve()
    messages: list[str] = []
    release_id = publish(fixture_source(), releases, date(2027, 1, 4), messages.append)
    after = releases / release_id
    assert re.search(r"\((\d+) reused from the previous release\)", "\n".join(messages))
    shared = [p for p in (after / "objects").iterdir() if (before / "objects" / p.name).exists()]
    assert shared
    assert not any(os.path.samefile(p, before / "objects" / p.name) for p in shared)
    assert all(p.stat().st_nlink == 1 for p in shared)
    assert verify_release(after) == [] and verify_release(before) == []


# A new quarter: the diffs between quarters both releases hold are taken from the promoted release, and every
# answer is byte for byte the one a cold publish of the same tree makes.
NEXT = synthetic.Params(managers=3, quarters=10, positions=12, seed=7)
# 8 versions each, 7 of them in both releases: the diffs of consecutive versions among those 7 (the diffs up to the
# latest are precomputed for the latest only, and each release has its own)
SHARED_PAIRS = 6
# A universe with one corporate action of every kind, its witnesses in the data sets beside the pack's filings
EVENTS = universe.Params(managers=8, quarters=6, positions=30, witnesses=20, actions="all")


def _without_newest_quarter(tree: Path, out: Path) -> Path:
    shutil.copytree(tree, out)
    for manager in (out / "sec13f").iterdir():
        # accessions sort by year and sequence: the last folder is the newest (filing_dates.csv beside them stays)
        shutil.rmtree(max(path for path in manager.iterdir() if path.is_dir()))
    return out


def _taken(messages: list[str]) -> int:
    found = re.search(r"(\d+) of them taken unchanged from the promoted release", "\n".join(messages))
    return int(found.group(1)) if found else 0


def _artifacts_taken(messages: list[str]) -> int:
    found = re.search(
        r"versions of 13f-copycat .*, (\d+) taken unchanged from the promoted release", "\n".join(messages)
    )
    return int(found.group(1)) if found else 0


def _content(release: Path) -> dict[str, str]:
    """What the manifest vouches for (every answer that does not name the release), but the ledger of ids,
    which remembers the promoted release's versions too."""
    files = orjson.loads((release / MANIFEST).read_bytes())["files"]
    return {path: sha256 for path, sha256 in files.items() if path != LEDGER}


@pytest.fixture(scope="module")
def quarters(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """A synthetic tree of ten quarters, a copy without its newest, and the cold publish of the whole tree."""
    root = tmp_path_factory.mktemp("next-quarter")
    synthetic.write_tree(root / "full", NEXT)
    cold = root / "cold" / publish(root / "full", root / "cold", None, lambda line: None)
    return _without_newest_quarter(root / "full", root / "before"), root / "full", cold


@pytest.mark.parametrize(
    ("as_of", "shared"),
    [
        # Default as-of, the newest filing date: the promoted latest was judged on the day it was complete, as
        # it is now as an older version, so its diffs are taken too.
        (None, SHARED_PAIRS),
        # A later as-of (before the next quarter is due) judged the promoted latest's policy on another day:
        # its diff from the version before it is computed again, in every mode.
        (date(2026, 10, 15), SHARED_PAIRS - 1),
    ],
)
def test_a_next_quarter_takes_the_diffs_it_shares_and_equals_a_cold_publish(
    quarters, tmp_path: Path, as_of: date | None, shared: int
) -> None:
    before, full, cold = quarters
    releases, messages = tmp_path / "releases", []
    publish(before, releases, as_of, lambda line: None)
    release = releases / publish(full, releases, None, messages.append)
    assert _taken(messages) == len(MODES) * shared
    assert _artifacts_taken(messages) == 7  # every version but the new quarter's
    assert _content(release) == _content(cold)
    assert len(orjson.loads((release / INDEX).read_bytes())["copycat"]["versions"]) == 8


def test_beside_the_data_sets_a_next_quarter_takes_every_older_version_and_equals_a_cold_publish(
    tmp_path: Path,
) -> None:
    """The newest quarter's data set is no input of an older version: each version's evidence reads the witnesses of
    its own two quarter ends and cites the sets behind them, so a publish with one more quarter (its filings and its
    set) takes every older version, and its release is the one a cold publish makes."""
    universe.write_universe(tmp_path / "full", EVENTS)
    packs = tmp_path / "full" / "packs.toml"  # versions the tree without its newest quarter can publish too
    packs.write_text(packs.read_text().replace(f"versions = {EVENTS.quarters}", f"versions = {EVENTS.quarters - 2}"))
    cold = tmp_path / "cold" / publish(tmp_path / "full", tmp_path / "cold", None, lambda line: None)
    before = _without_newest_quarter(tmp_path / "full", tmp_path / "before")
    sets = sorted((before / DATASETS).iterdir(), key=lambda path: named_window(path.name))
    sets[-1].unlink()  # the newest filing window: the newest quarter's filings, the pack's and the witnesses'
    # published once the window's every filing is in (the witnesses file after the pack's managers)
    closed = named_window(sets[-2].name)[1]
    releases, messages = tmp_path / "releases", []
    publish(before, releases, closed, lambda line: None)
    release = releases / publish(tmp_path / "full", releases, None, messages.append)
    versions = orjson.loads((release / INDEX).read_bytes())["copycat"]["versions"]
    assert _artifacts_taken(messages) == len(versions) - 1
    assert _content(release) == _content(cold)
    artifacts = [orjson.loads(unpacked_artifact((release / artifact_file(v)).read_bytes())) for v in versions]
    derived = [(a["quarter"], action) for a in artifacts for action in a["corporateActions"] if action["derived"]]
    with (tmp_path / "full" / "events.csv").open(newline="") as file:
        published = {a["quarter"] for a in artifacts}
        events = {e["cusip"] for e in csv.DictReader(file) if e["period_after"] in published}
    assert len(events) > 3 and events <= {action["cusip"] for _, action in derived}
    for quarter, action in derived:
        ends = {date.fromisoformat(quarter), date.fromisoformat(action["effectiveAfter"])}
        assert action["evidence"]["sources"] == _sets_holding(tmp_path / "full", ends), action


def _sets_holding(tree: Path, ends: set[date]) -> list[str]:
    """The data-set zips of `tree` holding a report of any of the quarter ends (their SUBMISSION tables, read here)."""
    found = []
    for path in sorted((tree / DATASETS).iterdir()):
        with zipfile.ZipFile(path) as archive:
            rows = csv.DictReader(io.TextIOWrapper(archive.open("SUBMISSION.tsv"), "utf-8"), delimiter="\t")
            periods = {datetime.strptime(row["PERIODOFREPORT"], "%d-%b-%Y").date() for row in rows}
        if periods & ends:
            found.append(f"{DATASETS}/{path.name}")
    return found


def test_an_answer_whose_bytes_were_altered_is_computed_again(quarters, tmp_path: Path) -> None:
    before, full, cold = quarters
    releases, messages = tmp_path / "releases", []
    promoted = releases / publish(before, releases, None, lambda line: None)
    routes, shared = (orjson.loads((release / ROUTES).read_bytes()) for release in (promoted, cold))
    diff = next(route for key, route in routes.items() if "/versions/diff?" in key and key in shared)
    damaged = promoted / object_path(diff["sha256"])
    damaged.write_bytes(damaged.read_bytes().replace(b'"toShares"', b'"toSharez"'))
    release = releases / publish(full, releases, None, messages.append)
    assert _taken(messages) == len(MODES) * SHARED_PAIRS - 1
    assert verify_release(release) == [] and _content(release) == _content(cold)


def test_a_changed_securities_map_takes_no_artifact(quarters, tmp_path: Path) -> None:
    before, full, _cold = quarters
    renamed = tmp_path / "renamed"
    shutil.copytree(full, renamed)
    securities = renamed / "securities.csv"
    securities.write_bytes(securities.read_bytes().replace(b"SYN0001", b"SYN0001X", 1))
    releases, messages = tmp_path / "releases", []
    publish(before, releases, None, lambda line: None)
    publish(renamed, releases, None, messages.append)
    assert _artifacts_taken(messages) == 0


def test_without_the_record_of_the_promoted_release_nothing_is_taken(quarters, tmp_path: Path) -> None:
    before, full, cold = quarters
    releases, messages = tmp_path / "releases", []
    publish(before, releases, None, lambda line: None)
    shutil.rmtree(releases / ANSWERS)
    release = releases / publish(full, releases, None, messages.append)
    assert _taken(messages) == 0 and _artifacts_taken(messages) == 0 and _content(release) == _content(cold)


def test_a_promoted_artifact_with_other_bytes_than_its_id_names_stops_the_publish(quarters, tmp_path: Path) -> None:
    before, full, _cold = quarters
    releases = tmp_path / "releases"
    promoted = releases / publish(before, releases, None, lambda line: None)
    version = orjson.loads((promoted / INDEX).read_bytes())["copycat"]["versions"][3]
    damaged = promoted / artifact_file(version)
    other = unpacked_artifact(damaged.read_bytes()).replace(
        b'"shares":', b'"shares": ', 1
    )  # the same JSON, other bytes
    damaged.write_bytes(packed_artifact(other))
    with pytest.raises(PublishError, match=f"version {version} is published with other content"):
        publish(full, releases, None, lambda line: None)
    assert current_release(releases) == promoted


def test_a_candidate_built_but_not_promoted_leaves_the_promoted_release_lending(quarters, tmp_path: Path) -> None:
    """The quarterly run: `ras build` writes a candidate the operator then rejects; the promoted release still lends."""
    before, full, cold = quarters
    releases, messages = tmp_path / "releases", []
    promoted = publish(before, releases, None, lambda line: None)
    prepared = prepare_release(Asked(before, releases, date(2026, 10, 15)), lambda line: None)
    candidate = write_release(prepared, lambda line: None)
    assert candidate != promoted and current_release(releases).name == promoted
    release = releases / publish(full, releases, None, messages.append)
    assert _artifacts_taken(messages) == 7 and _taken(messages) == len(MODES) * SHARED_PAIRS
    assert _content(release) == _content(cold)


def test_the_artifacts_a_next_quarter_takes_are_read_by_the_build_workers(
    quarters, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading and decoding a promoted artifact costs about what building it does: each is read in the process forked
    for its quarter, as the new quarter is built, not one after the other before the building starts."""
    before, full, cold = quarters
    readers = tmp_path / "readers"
    read = inputs._intact_artifact

    def recorded(path: Path, sha256: str) -> dict | None:
        with readers.open("a") as sink:
            sink.write(f"{os.getpid()}\n")
        return read(path, sha256)

    releases, messages = tmp_path / "releases", []
    publish(before, releases, None, lambda line: None, workers=2)
    monkeypatch.setattr(inputs, "_intact_artifact", recorded)
    release = releases / publish(full, releases, None, messages.append, workers=2)
    pids = readers.read_text().split()
    assert len(pids) == 7 and len(set(pids)) == 7 and str(os.getpid()) not in pids  # a process per quarter
    assert _artifacts_taken(messages) == 7
    assert _content(release) == _content(cold)
