"""Every ```sh example of the README and of the docs pages runs, and every output shown below one is real.

Conventions, the same on every page:
- A ```sh line runs: `curl` lines against a live `ras serve` of the fixture (their `# 200` comment states the
  status they get), other lines in a scratch folder of their own page holding `releases/` (the fixture,
  published) and `source/` (the fixture's source tree), in page order; `# exit N` states a non-zero exit.
  Lines that start a long-running server (`make`, `ras serve`, `ras mcp`, `nginx`) are left to their own tests.
- An ```output block right after a ```sh block shows what its last line prints (curl's answer, headers
  included with `-i`; a command's stdout): each shown line, in order, is a line of the real output, and
  `…` stands for any text.
- ```bash, ```text, ```json and other blocks are shown, not run here (the README's real-data walkthrough
  is run by tests/test_readme_real_data.py).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from builder.sources.tree import fixture_source
from tests.servers import REPO, running_server

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
EXPECTED = re.compile(r"#\s*(?:exit\s+(?P<exit>\d+)|(?P<status>\d{3}))\b")
LONG_RUNNING = ("make ", "ras serve", "ras mcp", "nginx ")  # run by CI itself or by their own tests
BLOCK = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^```[ \t]*$", flags=re.S | re.M)


@dataclass(frozen=True)
class Example:
    page: str  # path from the repository root
    line: str
    output: str | None  # the ```output block shown right after, for the block's last line

    def __str__(self) -> str:
        return f"{self.page}: {self.line[:60]}"


def page_examples(page: Path) -> list[Example]:
    """The command lines of every ```sh block of `page`, in order, each with the output shown for it."""
    text, name = page.read_text(encoding="utf-8"), str(page.relative_to(REPO))
    blocks = list(BLOCK.finditer(text))
    examples: list[Example] = []
    for index, block in enumerate(blocks):
        if block["lang"] != "sh":
            continue
        lines = [line.strip() for line in block["body"].splitlines() if line.strip() and not line.startswith("#")]
        after = blocks[index + 1] if index + 1 < len(blocks) else None
        shown = (
            after["body"]
            if after and after["lang"] == "output" and not text[block.end() : after.start()].strip()
            else None
        )
        examples += [Example(name, line, shown if n == len(lines) - 1 else None) for n, line in enumerate(lines)]
    return examples


EXAMPLES = [example for page in PAGES for example in page_examples(page)]


def split(line: str) -> tuple[str, re.Match | None]:
    """The command without its trailing comment, and the expectation the comment states (`# 200`, `# exit 2`)."""
    command, _, comment = line.partition("  # ")
    return command.strip(), EXPECTED.search("#" + comment) if comment else None


def shown_lines_missing(shown: str, actual: str) -> list[str]:
    """The lines of `shown` that are not, in order, lines of `actual` (`…` matches any text). An HTTP answer
    (`curl -i`) is shown whole down to its blank line: every header it carries but Date, in order."""
    lines = [line.rstrip("\r") for line in actual.splitlines()]
    wanted = shown.splitlines()
    if shown.startswith("HTTP/") and "" in lines and "" in wanted:
        head = [line for line in lines[: lines.index("")] if not line.lower().startswith("date:")]
        if len(head) != wanted.index(""):
            return [f"every header but Date, in order: {head}"]
        wanted = [
            want for want, line in zip(wanted, head, strict=False) if not _pattern(want).fullmatch(line)
        ] + wanted[len(head) :]
        lines = lines[lines.index("") :]
        if wanted[:1] != [""]:
            return wanted
    position, missing = 0, []
    for want in wanted:
        found = next((i for i in range(position, len(lines)) if _pattern(want).fullmatch(lines[i])), None)
        if found is None:
            missing.append(want)
        else:
            position = found + 1
    return missing


def _pattern(shown: str) -> re.Pattern:
    return re.compile(".*".join(re.escape(part) for part in shown.split("…")))


def test_the_readme_and_the_docs_have_examples_for_the_api_and_the_cli():
    readme = [example.line for example in EXAMPLES if example.page == "README.md"]
    assert (
        sum(line.startswith("curl ") for line in readme) >= 3 and sum(line.startswith("ras ") for line in readme) >= 3
    )
    lines = [example.line for example in EXAMPLES]
    assert sum(line.startswith("curl ") for line in lines) >= 10
    assert sum(line.startswith("ras ") for line in lines) >= 15
    assert sum(example.output is not None for example in EXAMPLES) >= 4


def test_the_output_matcher_holds_order_wildcards_and_every_header():
    actual = 'HTTP/1.1 200 OK\r\nETag: "abc"\r\nServer: ras\r\nDate: today\r\n\r\n{"data":1}\r\nmore'
    assert shown_lines_missing('HTTP/1.1 200 OK\nETag: "…"\nServer: ras\n\n{"data":…}', actual) == []
    assert shown_lines_missing('HTTP/1.1 200 OK\nETag: "…"\n\n{"data":…}', actual)  # a header left out
    assert shown_lines_missing('HTTP/1.1 200 OK\nServer: ras\nETag: "…"\n\n', actual)  # out of order
    assert shown_lines_missing('HTTP/1.1 304 Not Modified\nETag: "…"\nServer: ras\n\n', actual)
    assert shown_lines_missing('HTTP/1.1 200 OK\nETag: "…"\nServer: ras\n\n{"error":…}', actual) == ['{"error":…}']
    assert shown_lines_missing('{"data":…}\nmore', actual) == []
    assert shown_lines_missing('more\n{"data":…}', actual) == ['{"data":…}']


@pytest.fixture(scope="module")
def server(published: Path):
    with running_server(published) as (base, _):
        yield base.removeprefix("http://")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory, published: Path):
    """The scratch folder of a page (made on first use, kept for the page's later lines)."""
    folders: dict[str, Path] = {}

    def folder(page: str) -> Path:
        if page not in folders:
            directory = folders[page] = tmp_path_factory.mktemp(re.sub(r"\W", "-", page))
            shutil.copytree(published, directory / "releases", symlinks=True)
            shutil.copytree(fixture_source(), directory / "source")
        return folders[page]

    return folder


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO),
    }
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.line.startswith("curl ")], ids=str)
def test_each_curl_example_answers_the_status_it_states(server: str, scratch, example: Example):
    command, expected = split(example.line)
    assert expected and expected["status"], f"state the status: {example}"
    command = command.replace("localhost:8080", server)
    result = run(command + " -o /dev/null -w '%{http_code}'", scratch(example.page))
    assert result.stdout.strip() == expected["status"], (example.line, result.stderr)
    if example.output is not None:
        shown = run(command, scratch(example.page)).stdout
        assert not shown_lines_missing(example.output, shown), (example.line, shown[:3000])


@pytest.mark.parametrize("example", [e for e in EXAMPLES if not e.line.startswith(("curl ", *LONG_RUNNING))], ids=str)
def test_each_command_example_exits_as_it_states(scratch, example: Example):
    command, expected = split(example.line)
    result = run(command.replace(".venv/bin/python", sys.executable), scratch(example.page))
    want = int(expected["exit"]) if expected and expected["exit"] else 0
    assert result.returncode == want, (example.line, result.stderr[-2000:])
    if want:
        assert result.stderr.strip().splitlines()[-1].startswith("Error: ")
    if example.output is not None:
        assert not shown_lines_missing(example.output, result.stdout), (example.line, result.stdout[:3000])
