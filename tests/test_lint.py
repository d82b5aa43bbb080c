"""Lint, layout and types hold the code where review left it: `ruff check` (rules in pyproject.toml's
[tool.ruff.lint]) and `ruff format --check` ([tool.ruff.format]) over every Python folder, and mypy (its
[tool.mypy]) over builder/ and server/."""

from __future__ import annotations

import subprocess
import sys

from tests.servers import REPO

LINTED = ["builder", "server", "tests", "bench", "scripts"]


def test_ruff_finds_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", *LINTED],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_ruff_format_would_change_nothing():
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", *LINTED],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_mypy_finds_nothing_in_builder_and_server():
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental"], cwd=REPO, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "Success: no issues found" in result.stdout
