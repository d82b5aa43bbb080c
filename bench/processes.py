"""Child processes of the benchmarks: measured commands, servers on loopback, and wrk runs; all bounded in time."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"  # loopback only: the benchmarks never listen on or reach another interface
STARTUP_SECONDS = 120.0  # `ras serve` loads and verifies the whole release before it listens (M=100: ~450 MB)
STOP_SECONDS = 10.0  # a graceful stop gets this long before the process group is killed
COMMAND_SECONDS = 900.0  # the longest single command (a 500-manager publish takes a few minutes)
PSS_EVERY = 0.25  # seconds between samples of a measured command's summed PSS (smaps_rollup walks its page tables)
# A timed publish starts once the disk has written back what the benchmark deleted or wrote before it (the last run's
# release, gigabytes at 2,000 managers): the share of the last 10 s, and of the last 60 s, that some task waited on
# I/O (/proc/pressure/io). The 10 s average alone fell under 1 % while a deletion still slowed the next publish by 30 %.
SETTLED_IO_PERCENT = (1.0, 1.5)  # avg10, avg60
SETTLE_SECONDS = 180.0  # the longest a benchmark waits for it; past that it measures anyway


@dataclass(frozen=True, slots=True)
class Measured:
    """One finished command: wall time, peak resident memory of that process, exit status, stderr."""

    seconds: float
    max_rss_mb: float
    returncode: int
    stderr: str
    tree_pss_mb: float = 0.0  # the peak of the summed PSS of the command and every process it forked (tree_pss_kb)
    written_mb: float = 0.0  # what the command and the processes it waited for sent to storage (written_bytes)
    cpu_seconds: float = 0.0  # user + system time of the command and the processes it waited for (wait4's rusage)


def ras(*arguments: str) -> list[str]:
    """The `ras` CLI of this checkout, run by the benchmarks' own interpreter."""
    return [sys.executable, "-m", "builder.cli", *arguments]


def measure(command: Sequence[str], timeout: float = COMMAND_SECONDS, cwd: Path = REPO) -> Measured:
    """Run `command` to the end; its own peak RSS comes from wait4's rusage (ru_maxrss, KiB on Linux: the largest of
    the command and the processes it waited for), the sum over its processes from sampling /proc (tree_pss_kb)."""
    with tempfile.TemporaryFile() as errors:
        written = written_bytes()
        started = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errors, start_new_session=True)
        deadline, sampled, tree_pss = started + timeout, 0.0, 0
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - sampled >= PSS_EVERY:
                sampled, tree_pss = time.perf_counter(), max(tree_pss, tree_pss_kb(process.pid))
            if time.perf_counter() > deadline:
                os.killpg(process.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(process.pid, 0)
                break
            time.sleep(0.05)
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        text = errors.read().decode("utf-8", "replace")
    written = written_bytes() - written
    cpu = usage.ru_utime + usage.ru_stime
    return Measured(seconds, usage.ru_maxrss / 1024, process.returncode, text, tree_pss / 1024, written / 1e6, cpu)


def written_bytes() -> int:
    """Bytes this process, and every process it has waited for (the kernel adds a reaped child's counts to its
    parent's), caused to be sent to storage: /proc/self/io's write_bytes, counted as pages are dirtied, so a file
    written and not yet flushed counts, and a reflink, which dirties none, does not. 0 off Linux."""
    try:
        lines = Path("/proc/self/io").read_text().splitlines()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith("write_bytes:")), 0)


def settled_disk() -> float:
    """Sync, then wait until the disk is quiet (I/O pressure's 10 s and 60 s averages at most SETTLED_IO_PERCENT, at
    most SETTLE_SECONDS): what a timed command measured after a benchmark deleted a release would otherwise include
    that deletion's writeback (seconds of a 500-manager publish on this VM's disk). The 10 s pressure it started at
    (-1 where the kernel does not report it)."""
    os.sync()
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        pressure = io_pressure()
        if all(share <= limit for share, limit in zip(pressure, SETTLED_IO_PERCENT, strict=True)):
            break
        time.sleep(1.0)
    return io_pressure()[0]


_SET_ASIDE: list[Path] = []


def set_aside(directory: Path) -> None:
    """Empty the place of `directory` for a timed command now and delete what it held at the benchmark's end
    (removed_set_aside): deleting a release of gigabytes keeps this VM's disk writing for minutes, and a publish timed
    meanwhile took 15–20 s more at 500 managers, even after settled_disk."""
    if directory.exists():
        aside = directory.with_name(f".aside-{directory.name}-{os.getpid()}-{len(_SET_ASIDE)}")
        directory.rename(aside)
        _SET_ASIDE.append(aside)


def removed_set_aside() -> None:
    """Delete what set_aside moved (after the benchmark's last timed command)."""
    while _SET_ASIDE:
        shutil.rmtree(_SET_ASIDE.pop(), ignore_errors=True)


def io_pressure() -> tuple[float, float]:
    """The shares (%) of the last 10 s and 60 s in which some task waited on I/O (Linux PSI); -1 where there is none."""
    try:
        some = Path("/proc/pressure/io").read_text().splitlines()[0]
    except (OSError, IndexError):
        return (-1.0, -1.0)
    return float(re.search(r"avg10=([\d.]+)", some)[1]), float(re.search(r"avg60=([\d.]+)", some)[1])


def tree_pss_kb(pid: int) -> int:
    """The summed PSS (KiB) of a process and its descendants now: pages shared copy-on-write between forked workers
    count once in all, split between the sharers (what a publish and its workers hold together on one box; 0 off
    Linux)."""
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/task/{current}/children") as children:
                todo += [int(child) for child in children.read().split()]
            with open(f"/proc/{current}/smaps_rollup") as rollup:
                total += next((int(line.split()[1]) for line in rollup if line.startswith("Pss:")), 0)
        except (OSError, ValueError):
            continue  # gone meanwhile, or no /proc
    return total


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def get(port: int, target: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        connection.request("GET", target, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def wait_listening(process: subprocess.Popen, port: int, log: Path, timeout: float = STARTUP_SECONDS) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}: {log.read_text()[-2000:]}")
        try:
            get(port, "/api/v1/health")
            return
        except (OSError, http.client.HTTPException):
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port} after {timeout:.0f} s: {log.read_text()[-2000:]}")


@contextmanager
def server(command: Sequence[str], port: int, log: Path, cwd: Path = REPO) -> Iterator[subprocess.Popen]:
    """A server process in its own session, stopped (SIGTERM, then SIGKILL of its group) however the block ends."""
    with open(log, "wb") as sink:
        process = subprocess.Popen(command, cwd=cwd, stdout=sink, stderr=sink, start_new_session=True)
    try:
        wait_listening(process, port, log)
        yield process
    finally:
        stop(process)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and its children that are alive (nginx's workers under its master).

    Time stolen by the hypervisor or spent by other jobs is not in it: on a shared machine, CPU per answer
    is steadier than answers per second.
    """
    total = 0.0
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime (fields 14, 15)
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return total
    return total + sum(cpu_seconds(int(child)) for child in children)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with_group = True
    try:
        os.killpg(process.pid, 0)  # a worker the parent left behind still holds the group
    except ProcessLookupError:
        with_group = False
    if with_group:
        os.killpg(process.pid, signal.SIGKILL)


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)
    if found is None:
        raise SystemExit("nginx is not installed (apt-get install -y nginx-light)")
    return found


def wrk_binary() -> str:
    found = shutil.which("wrk")
    if found is None:
        raise SystemExit("wrk is not installed (apt-get install -y wrk)")
    return found


@dataclass(frozen=True, slots=True)
class Load:
    """What wrk saw: requests per second, latency percentiles (ms), requests and every kind of error."""

    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int  # connect/read/write/timeout socket errors plus responses with status ≥ 400

    def as_dict(self) -> dict[str, float]:
        return {
            "rps": self.rps,
            "p50Ms": self.p50_ms,
            "p99Ms": self.p99_ms,
            "requests": self.requests,
            "errors": self.errors,
        }


def wrk(
    url: str, connections: int, seconds: int, headers: Sequence[str] = (), script: Path | None = None, threads: int = 1
) -> Load:
    """One bounded wrk run (`-d seconds`, a hard timeout beside it) on a loopback URL."""
    command = [wrk_binary(), f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--latency", "--timeout", "10s"]
    for header in headers:
        command += ["-H", header]
    if script is not None:
        command += ["-s", str(script)]
    output = subprocess.run([*command, url], capture_output=True, text=True, timeout=seconds + 30, check=True).stdout
    return parse_wrk(output)


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def parse_wrk(output: str) -> Load:
    def latency(percent: str) -> float:
        found = re.search(rf"^\s*{percent}%\s+([\d.]+)(us|ms|s|m)\s*$", output, re.M)
        return float(found[1]) * _UNITS[found[2]] if found else float("nan")

    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1])
    requests = int(re.search(r"(\d+) requests in", output)[1])
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    status_errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = sum(int(n) for n in socket_errors.groups()) if socket_errors else 0
    errors += int(status_errors[1]) if status_errors else 0
    return Load(rps, latency("50"), latency("99"), requests, errors)
