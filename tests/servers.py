"""Real processes for tests: `ras serve` on a free loopback port, and the `ras` CLI with its peak memory."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
START_TIMEOUT = 20.0  # seconds for `ras serve` to load a release and answer health; the fixture takes < 2


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO)}


@contextmanager
def running_server(releases: Path, *extra: str) -> Iterator[tuple[str, subprocess.Popen]]:
    """`ras serve` over `releases` on a free port; yields its base URL and process, and stops it."""
    port = free_port()
    command = [sys.executable, "-m", "builder.cli", "serve", "--releases", str(releases), "--port", str(port), *extra]
    process = subprocess.Popen(command, env=child_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base, process)
        yield base, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()


def _wait_until_up(base: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"ras serve exited: {process.stderr.read().decode(errors='replace')[-2000:]}")
        try:
            urllib.request.urlopen(f"{base}/api/v1/health", timeout=1).close()
            return
        except urllib.error.HTTPError:
            return  # answering, even if with 503
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("ras serve did not answer in time")


# VmHWM is this process image's own peak RSS; ru_maxrss would also count the forked pytest before exec.
PEAK_MEMORY_WRAPPER = (
    "import sys\n"
    "from builder.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "finally:\n"
    "    peak = next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
    "    print(f'peak-rss-kib={peak}', file=sys.stderr)\n"
)


def run_cli(*args: str, timeout: float = 120) -> tuple[int, str, str, int]:
    """Run `ras ARGS` in a child; returns exit code, stdout, stderr (without the memory line) and peak RSS in KiB."""
    result = subprocess.run(
        [sys.executable, "-c", PEAK_MEMORY_WRAPPER, *args], env=child_env(), capture_output=True, text=True, timeout=timeout
    )
    lines = result.stderr.splitlines()
    peak = next(int(line.split("=")[1]) for line in reversed(lines) if line.startswith("peak-rss-kib="))
    stderr = "\n".join(line for line in lines if not line.startswith("peak-rss-kib="))
    return result.returncode, result.stdout, stderr, peak
