"""Every ```sh example of the README runs: curl lines against a live `ras serve`, ras lines in a scratch dir."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import REPO, running_server

README = REPO / "README.md"
EXPECTED = re.compile(r"#\s*(?:exit\s+(?P<exit>\d+)|(?P<status>\d{3}))\b")
LONG_RUNNING = ("make ", "ras serve", "ras mcp", "nginx ")  # run by CI itself or by their own tests


def sh_examples() -> list[str]:
    """The command lines of every ```sh block, in order."""
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(), flags=re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip() and not line.startswith("#")]


def split(line: str) -> tuple[str, re.Match | None]:
    """The command without its trailing comment, and the expectation the comment states (`# 200`, `# exit 2`)."""
    command, _, comment = line.partition("  # ")
    return command.strip(), EXPECTED.search("#" + comment) if comment else None


def test_the_readme_has_examples_for_the_api_and_the_cli():
    lines = sh_examples()
    assert sum(line.startswith("curl ") for line in lines) >= 6
    assert sum(line.startswith("ras ") for line in lines) >= 5


@pytest.fixture(scope="module")
def server(published: Path):
    with running_server(published) as (base, _):
        yield base.removeprefix("http://")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory, published: Path) -> Path:
    directory = tmp_path_factory.mktemp("readme")
    shutil.copytree(published, directory / "releases", symlinks=True)
    return directory


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(REPO)}
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("line", [line for line in sh_examples() if line.startswith("curl ")])
def test_each_curl_example_answers_the_status_it_states(server: str, scratch: Path, line: str):
    command, expected = split(line)
    assert expected and expected["status"], f"state the status: {line}"
    result = run(command.replace("localhost:8080", server) + " -o /dev/null -w '%{http_code}'", scratch)
    assert result.stdout.strip() == expected["status"], (line, result.stderr)


@pytest.mark.parametrize(
    "line", [line for line in sh_examples() if not line.startswith(("curl ", *LONG_RUNNING))]
)
def test_each_command_example_exits_as_it_states(scratch: Path, line: str):
    command, expected = split(line)
    result = run(command.replace(".venv/bin/python", sys.executable), scratch)
    want = int(expected["exit"]) if expected and expected["exit"] else 0
    assert result.returncode == want, (line, result.stderr[-2000:])
    if want:
        assert result.stderr.strip().splitlines()[-1].startswith("Error: ")
