"""The release watcher's cheap checks and its bounds, lazy verified reads, and recovery by re-promotion."""

from __future__ import annotations

import json
import math
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from builder.api.contract import BY_ID
from builder.release.objects import ReleaseDamaged, ReleaseReader, object_path
from builder.release.store import current_release, load_release
from server.app import create_app
from server.dispatch import LiveCache, answer_get
from server.watch import DETECTION_BOUND, Pace, ReleaseWatch
from tests.conftest import damage
from tests.servers import run_cli, running_server

LATEST = "/api/v1/packs/13f-copycat/latest"
STATED_BOUND = 10.0  # seconds: docs/reliability.md's promise for an in-place edit, and for a promotion to be served
assert DETECTION_BOUND <= STATED_BOUND
NEVER = Pace(tick=1.0, sweep=math.inf, verify=math.inf)  # only the per-tick checks run unless a test says otherwise


class Clock:
    """A clock the test moves by hand, so each check's period is exercised without waiting for it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def watching(releases: Path, pace: Pace) -> tuple[ReleaseWatch, Clock]:
    clock = Clock()
    watch = ReleaseWatch(releases, pace, clock=clock)
    watch.refresh()
    assert watch.serving.release is not None, watch.serving.problem
    return watch, clock


@pytest.mark.parametrize("kind", ["add", "delete"])
def test_a_file_added_or_removed_is_noticed_at_the_next_tick_from_directory_stamps(releases_copy, kind):
    watch, _ = watching(releases_copy, NEVER)
    watch.refresh()
    assert watch.serving.release is not None
    damage(current_release(releases_copy), kind)
    watch.refresh()
    assert watch.serving.release is None and "integrity" in watch.serving.problem


@pytest.mark.parametrize("kind", ["flip", "truncate"])
def test_an_in_place_edit_is_left_to_the_stat_sweep_which_catches_it(releases_copy, kind):
    watch, clock = watching(releases_copy, Pace(sweep=5.0, verify=math.inf))
    damage(current_release(releases_copy), kind)
    clock.now += 4.0
    watch.refresh()
    assert watch.serving.release is not None  # a quiet tick stats no answer file, let alone hashes one
    clock.now += 1.0
    watch.refresh()
    assert watch.serving.release is None


def test_a_sweep_rehashes_a_touched_file_and_keeps_serving_when_its_bytes_are_intact(releases_copy):
    watch, clock = watching(releases_copy, Pace(sweep=5.0, verify=math.inf))
    victim = sorted((current_release(releases_copy) / "objects").iterdir())[3]
    victim.write_bytes(victim.read_bytes())  # new ctime and mtime, same bytes
    clock.now += 5.0
    watch.refresh()
    assert watch.serving.release is not None


def test_damage_no_stat_field_shows_is_found_by_the_scrub_within_one_pass(releases_copy):
    watch, _ = watching(releases_copy, Pace(sweep=math.inf, verify=600.0, scrub_bytes=1))
    assert watch.files is not None
    victim = damage(current_release(releases_copy), "flip")
    relative = victim.relative_to(current_release(releases_copy)).as_posix()
    watch.files.stamps[relative] = (
        victim.stat().st_ino,
        victim.stat().st_size,
        victim.stat().st_ctime_ns,
        victim.stat().st_mtime_ns,
    )  # as if the edit had kept every stat field
    for _ in range(len(watch.files.order)):  # one file per tick: a pass takes as many ticks as there are files
        watch.refresh()
    assert watch.serving.release is None


def test_a_release_within_the_scrub_budget_is_verified_whole_before_it_is_served(releases_copy):
    damage(current_release(releases_copy), "flip")
    watch = ReleaseWatch(releases_copy)
    watch.refresh()
    assert watch.serving.release is None


def test_an_answer_damaged_before_start_is_a_503_when_first_read_never_its_bytes(releases_copy):
    directory = current_release(releases_copy)
    routes = json.loads((directory / "routes.json").read_bytes())
    victim = directory / object_path(routes[LATEST]["sha256"])
    victim.write_bytes(victim.read_bytes()[:-1] + b" ")
    watch, _ = watching(releases_copy, Pace(sweep=math.inf, verify=math.inf, scrub_bytes=1))  # not scrubbed yet
    operation = BY_ID["getLatestPack"]
    answer = answer_get(watch.serving, LiveCache(), operation, {"packId": "13f-copycat"}, [])
    assert answer.status == 503 and json.loads(answer.body)["error"]["code"] == "release_unavailable"
    watch.refresh()
    assert watch.serving.release is None  # and the release is dropped at the next tick


async def test_the_app_answers_503_for_a_damaged_answer_and_then_for_every_route(aiohttp_client, releases_copy):
    directory = current_release(releases_copy)
    routes = json.loads((directory / "routes.json").read_bytes())
    (directory / object_path(routes[LATEST]["sha256"])).unlink()
    app = create_app(releases_copy, pace=Pace(tick=3600, sweep=math.inf, verify=math.inf, scrub_bytes=1))
    client = await aiohttp_client(app)
    for path in (LATEST, "/api/v1/health"):
        response = await client.get(path)
        assert response.status == 503 and (await response.json())["error"]["code"] == "release_unavailable"


def test_verified_bodies_are_kept_within_the_byte_bound_and_hot_ones_come_from_memory(published, tmp_path):
    directory = shutil.copytree(current_release(published), tmp_path / "release")
    shas = sorted({route["sha256"] for route in json.loads((directory / "routes.json").read_bytes()).values()})
    reader = ReleaseReader(directory, load_release(directory).reader.files, cache_bytes=200_000)
    for sha256 in shas:
        assert reader.body(sha256) == (directory / object_path(sha256)).read_bytes()
        assert reader.cached_bytes <= 200_000
    # The last small one read is kept (a body over a quarter of the bound never is); the first was evicted.
    hot = [sha for sha in shas if (directory / object_path(sha)).stat().st_size <= 50_000][-1]
    cold = shas[0]
    (directory / object_path(hot)).unlink()
    (directory / object_path(cold)).unlink()
    assert reader.body(hot)  # from memory: the file is not read again
    with pytest.raises(ReleaseDamaged):
        reader.body(cold)


def test_an_object_whose_bytes_differ_from_its_name_is_refused(published, tmp_path):
    release = load_release(current_release(published))
    sha256 = json.loads((release.directory / "routes.json").read_bytes())[LATEST]["sha256"]
    copy = tmp_path / "objects"
    copy.mkdir()
    (copy / f"{sha256}.json").write_bytes(b'{"data": "not these bytes"}')
    reader = ReleaseReader(tmp_path, release.reader.files)
    with pytest.raises(ReleaseDamaged):
        reader.body(sha256)
    assert reader.problem.startswith(object_path(sha256))


def status_of(base: str, path: str = "/api/v1/health") -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(base + path, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def wait_for(base: str, status: int, seconds: float) -> tuple[float, dict]:
    """Seconds until `ras serve` answers health with `status` (fails after `seconds`), and that answer."""
    started = time.monotonic()
    while True:
        found, body = status_of(base)
        elapsed = time.monotonic() - started
        if found == status:
            return elapsed, body
        assert elapsed < seconds, (found, body)
        time.sleep(0.1)


def test_ras_serve_drops_an_edited_release_within_the_bound_and_returns_when_the_same_id_is_promoted(releases_copy):
    directory = current_release(releases_copy)
    with running_server(releases_copy) as (base, _process):
        assert status_of(base)[0] == 200
        original = (victim := sorted((directory / "objects").iterdir())[3]).read_bytes()
        damage(directory, "flip")  # in place, same size: only the stat sweep's ctime/mtime sees it
        wait_for(base, 503, STATED_BOUND)
        victim.write_bytes(original)  # the operator restores the bytes …
        time.sleep(2.0)
        assert status_of(base)[0] == 503  # … which alone changes nothing: a dropped release stays dropped
        code, _, stderr, _ = run_cli("promote", directory.name, "--releases", str(releases_copy))
        assert code == 0, stderr
        _, body = wait_for(base, 200, STATED_BOUND)
        assert body["data"]["releaseId"] == directory.name


def test_an_answer_too_large_to_keep_is_read_again_and_refused_once_edited(published, tmp_path):
    directory = shutil.copytree(current_release(published), tmp_path / "release")
    sha256 = json.loads((directory / "routes.json").read_bytes())[LATEST]["sha256"]
    reader = ReleaseReader(directory, load_release(directory).reader.files, cache_bytes=0)  # keeps nothing
    first = reader.body(sha256)
    assert reader.body(sha256) == first and reader.cached_bytes == 0
    damage_in_place = bytearray(first)
    damage_in_place[10] ^= 1
    (directory / object_path(sha256)).write_bytes(bytes(damage_in_place))
    with pytest.raises(ReleaseDamaged):
        reader.body(sha256)
