"""A release is complete or absent; a served byte is one the manifest vouches for; bad sources change nothing."""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from builder.release.publish import publish
from builder.release.store import current_release, verify_release
from builder.sources.files import Limits
from server.app import WATCH, create_app
from server.watch import Pace
from tests.conftest import DAMAGES, damage, quiet
from tests.leftovers import assert_none_left, lock_free
from tests.servers import child_env, run_cli

PHASE_MARKERS = ("reading sources", "read ", "built ", "rendered ", "wrote ")  # publish's progress, one per phase
CRASH_TRIALS = 50
MEMORY_BOUND_KIB = 300 * 1024  # the fixture publishes in ~50 MB; a hostile file is read at most to the 128 MiB limit


def changed_fixture(fixture_tree: Path, directory: Path) -> Path:
    """The fixture with one securities.csv name changed: a different, valid release."""
    source = directory / "changed-source"
    if not source.exists():
        shutil.copytree(fixture_tree, source)
        lines = (source / "securities.csv").read_text().splitlines()
        (source / "securities.csv").write_text("\n".join([lines[0], lines[1] + " (RENAMED)", *lines[2:]]) + "\n")
    return source


def publish_command(source: Path, releases: Path) -> list[str]:
    return [sys.executable, "-m", "builder.cli", "publish", "--source", str(source), "--releases", str(releases)]


def restore(releases: Path, good: str) -> None:
    """Put `current` back on `good` and drop any release a trial managed to promote."""
    current = current_release(releases)
    if current is not None and current.name != good:
        shutil.rmtree(current)
    link = releases / "restore-link"
    os.symlink(good, link)
    os.replace(link, releases / "current")


def assert_current_is_complete(releases: Path, allowed: set[str]) -> str:
    """`current` is the release before the trial or the trial's own, and every file of it verifies."""
    current = current_release(releases)
    assert current is not None and current.name in allowed, current
    assert verify_release(current) == []
    return current.name


# The child stops itself right after printing the phase's line, so the kill lands at that boundary and not
# wherever the child has run on to by the time the test reads the line (it could otherwise promote first).
STOP_AFTER = (
    "import os, signal, sys\n"
    "import builder.cli as cli\n"
    "marker, shown = sys.argv[1], cli._progress\n"
    "def progress(message):\n"
    "    shown(message)\n"
    "    if message.startswith(marker):\n"
    "        os.kill(os.getpid(), signal.SIGSTOP)\n"
    "cli._progress = progress\n"
    "cli.main(sys.argv[2:])\n"
)


def test_a_publish_killed_right_after_each_phase_leaves_the_previous_release(releases_copy, fixture_tree, tmp_path):
    source = changed_fixture(fixture_tree, tmp_path)
    before = current_release(releases_copy).name
    for marker in PHASE_MARKERS:
        command = [sys.executable, "-c", STOP_AFTER, marker, *publish_command(source, releases_copy)[3:]]
        process = subprocess.Popen(command, env=child_env(), stderr=subprocess.PIPE, text=True)
        for line in process.stderr:
            if line.startswith(marker):
                process.send_signal(signal.SIGKILL)
                break
        process.wait()
        process.stderr.close()
        assert process.returncode == -signal.SIGKILL, marker
        assert current_release(releases_copy).name == before, marker
        assert verify_release(current_release(releases_copy)) == []
    publish(source, releases_copy, None, quiet)
    assert not [p for p in releases_copy.iterdir() if p.name.startswith((".staging-", ".current-"))]
    assert current_release(releases_copy).name != before


DIE_MIDWAY = (
    "import os, signal, sys\n"
    "from builder.cli import main\n"
    "from builder.release import staging\n"
    "real, calls = staging._write, []\n"
    "def dying(destination, body):\n"
    "    calls.append(destination)\n"
    "    if len(calls) == 40:\n"
    "        os.kill(os.getpid(), signal.SIGKILL)  # the process dies mid-write, with no cleanup\n"
    "    real(destination, body)\n"
    "staging._write = dying\n"
    "main(sys.argv[1:])\n"
)


def test_a_write_that_dies_midway_leaves_only_staging_that_the_next_publish_removes(
    releases_copy, fixture_tree, tmp_path
):
    source = changed_fixture(fixture_tree, tmp_path)
    before = current_release(releases_copy).name
    command = [sys.executable, "-c", DIE_MIDWAY, "publish", "--source", str(source), "--releases", str(releases_copy)]
    died = subprocess.run(command, env=child_env(), capture_output=True, text=True)
    assert died.returncode == -signal.SIGKILL, died.stderr
    assert [p.name for p in releases_copy.iterdir() if p.name.startswith(".staging-")]
    assert current_release(releases_copy).name == before and verify_release(current_release(releases_copy)) == []
    messages: list[str] = []
    publish(source, releases_copy, None, messages.append)
    assert any(m.startswith("removed .staging-") for m in messages)
    assert not [p for p in releases_copy.iterdir() if p.name.startswith(".staging-")]


# `ras` imported once, then one publish forked per line read (its arguments, as JSON), each in a session of its own:
# a kill lands on the publish's own work, never on the interpreter's start, which took a third of a trial. It prints
# the publish's pid; at the next line it reaps it (not before: until then the pid names that process, even ended)
# and prints its exit code (-9: killed).
FORKING_PUBLISHES = (
    "import json, os, sys\n"
    "from builder.cli import main\n"
    "for line in sys.stdin:\n"
    "    pid = os.fork()\n"
    "    if pid == 0:\n"
    "        os.setsid()\n"
    "        null = os.open(os.devnull, os.O_WRONLY)\n"
    "        os.dup2(null, 1)\n"
    "        os.dup2(null, 2)\n"
    "        code = 1\n"
    "        try:\n"
    "            main(json.loads(line))\n"
    "        except SystemExit as end:\n"
    "            code = end.code if isinstance(end.code, int) else 1\n"
    "        finally:\n"
    "            os._exit(code)\n"
    "    print(pid, flush=True)\n"
    "    sys.stdin.readline()\n"
    "    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)\n"
)


@pytest.mark.slow
def test_fifty_publishes_killed_at_random_moments_never_leave_a_half_release(releases_copy, fixture_tree, tmp_path):
    source = changed_fixture(fixture_tree, tmp_path)
    before = current_release(releases_copy).name
    shutil.copytree(releases_copy, tmp_path / "timing", symlinks=True)  # the same ledger: the same version ids
    forks = subprocess.Popen(
        [sys.executable, "-c", FORKING_PUBLISHES],
        env=child_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )

    def started(releases: Path) -> int:
        forks.stdin.write(orjson.dumps(publish_command(source, releases)[3:]).decode() + "\n")
        forks.stdin.flush()
        return int(forks.stdout.readline())

    def ended() -> int:
        forks.stdin.write("\n")
        forks.stdin.flush()
        return int(forks.stdout.readline())

    with forks:
        started_at = time.monotonic()
        started(tmp_path / "timing")
        assert ended() == 0
        duration = time.monotonic() - started_at
        after = current_release(tmp_path / "timing").name  # what a completed trial promotes: ids are deterministic
        chance = random.Random(20261121)
        promoted = 0
        for _ in range(CRASH_TRIALS):
            pid = started(releases_copy)
            time.sleep(chance.uniform(0, duration * 1.1))
            os.kill(pid, signal.SIGKILL)  # the publish alone, as the out-of-memory killer does: never its workers
            assert ended() in (-signal.SIGKILL, 0)  # killed, or done before the kill
            assert lock_free(releases_copy)  # at once: its workers, still being killed, never held it
            assert_none_left(pid)
            name = assert_current_is_complete(releases_copy, {before, after})
            promoted += name != before
            restore(releases_copy, before)
        forks.stdin.close()
    assert promoted < CRASH_TRIALS  # most kills land before the promotion
    publish(source, releases_copy, None, quiet)
    assert verify_release(current_release(releases_copy)) == []
    assert not [p for p in releases_copy.iterdir() if p.name.startswith(".staging-")]


async def wait_for_status(client, path: str, status: int, seconds: float = 10.0) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        response = await client.get(path)
        body = await response.json()
        if response.status == status or time.monotonic() > deadline:
            assert response.status == status, body
            return body
        await asyncio.sleep(0.05)


@pytest.mark.parametrize("kind", DAMAGES)
async def test_a_running_server_drops_an_altered_release_and_recovers_on_the_next_promotion(
    aiohttp_client, releases_copy, fixture_tree, tmp_path, kind
):
    client = await aiohttp_client(create_app(releases_copy, pace=Pace(tick=0.05, sweep=0.2)))  # in-place edits: sweep
    await wait_for_status(client, "/api/v1/health", 200)
    damage(current_release(releases_copy), kind)
    for path in ("/api/v1/health", "/api/v1/packs/13f-copycat/latest"):
        body = await wait_for_status(client, path, 503)
        assert body["error"]["code"] == "release_unavailable"
    new_id = publish(changed_fixture(fixture_tree, tmp_path), releases_copy, None, quiet)
    healthy = await wait_for_status(client, "/api/v1/health", 200)
    assert healthy["data"]["releaseId"] == new_id


async def test_every_answer_under_load_comes_whole_from_one_of_two_alternating_releases(
    aiohttp_client, releases_copy, fixture_tree, tmp_path
):
    first = current_release(releases_copy).name
    second = publish(changed_fixture(fixture_tree, tmp_path), releases_copy, None, quiet)
    etags = {}
    for name in (first, second):
        routes = orjson.loads((releases_copy / name / "routes.json").read_bytes())
        etags[name] = {f'"{route["sha256"]}"' for route in routes.values()}
    app = create_app(releases_copy, watch_interval=0.01)
    client = await aiohttp_client(app)
    paths = ["/api/v1/health", "/api/v1/packs/13f-copycat/latest", "/api/v1/packs/13f-copycat/latest?mode=overlap"]
    seen: list[tuple[int, str]] = []
    stop = asyncio.Event()

    async def load() -> None:
        while not stop.is_set():
            for path in paths:
                response = await client.get(path)
                await response.read()
                seen.append((response.status, response.headers.get("ETag", "")))

    async def promote_back_and_forth() -> None:
        for index in range(12):
            link = releases_copy / "flip-link"
            os.symlink(first if index % 2 else second, link)
            os.replace(link, releases_copy / "current")
            await asyncio.sleep(0.08)
        stop.set()

    await asyncio.gather(*(load() for _ in range(8)), promote_back_and_forth())
    assert len(seen) > 100
    assert {status for status, _ in seen} == {200}
    for _, etag in seen:
        assert (etag in etags[first]) != (etag in etags[second]), etag
    assert app[WATCH].serving.release is not None


def hostile_files(source: Path) -> dict[str, tuple[str, bytes | None]]:
    """Name → (path relative to the source tree, bytes to write); None means: a sparse oversized file."""
    table = next((source / "sec13f" / "9900000001").rglob("infotable.xml"))
    good = table.read_bytes()
    bomb = (
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + b"".join(
            b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10) for i in range(1, 10)
        )
        + b']><informationTable xmlns="http://www.sec.gov/edgar/document/thirteenf/informationtable">&lol9;</informationTable>'
    )
    relative = table.relative_to(source).as_posix()
    return {
        "billion-laughs": (relative, bomb),
        "external-entity": (
            relative,
            b'<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            b'<informationTable xmlns="http://www.sec.gov/edgar/document/thirteenf/informationtable">&x;</informationTable>',
        ),
        "dtd": (
            relative,
            b'<?xml version="1.0"?><!DOCTYPE informationTable SYSTEM "http://example.invalid/x.dtd">'
            + good.split(b"?>", 1)[1],
        ),
        "oversized": (relative, None),
        "truncated": (relative, good[: len(good) // 2]),
        "non-utf8": (relative, good.replace(b"<nameOfIssuer>", b"<nameOfIssuer>\xff\xfe", 1)),
        "not-13f": (
            relative,
            b'<?xml version="1.0"?><catalog><book id="1"><title>Not a filing</title></book></catalog>',
        ),
        "csv-columns": ("securities.csv", b"isin,symbol\nUS0378331005,AAPL\n"),
    }


@pytest.mark.parametrize(
    "case", ["billion-laughs", "external-entity", "dtd", "oversized", "truncated", "non-utf8", "not-13f", "csv-columns"]
)
def test_a_hostile_source_ends_the_publish_with_one_error_naming_the_file(releases_copy, fixture_tree, tmp_path, case):
    source = tmp_path / "hostile"
    shutil.copytree(fixture_tree, source)
    relative, data = hostile_files(source)[case]
    target = source / relative
    if data is None:
        with open(target, "wb") as handle:
            handle.truncate(10 * Limits().sec13f.bytes)  # sparse: ten times the limit, no disk used
    else:
        target.write_bytes(data)
    before = current_release(releases_copy).name
    code, _, stderr, peak_kib = run_cli("publish", "--source", str(source), "--releases", str(releases_copy))
    assert code == 1, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("Error: ") and relative in last, last
    assert "Traceback" not in stderr
    assert current_release(releases_copy).name == before
    assert peak_kib < MEMORY_BOUND_KIB
