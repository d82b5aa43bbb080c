"""Schemathesis against a live `ras serve` on the fixture release: every operation, three phases, every check."""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.servers import child_env, running_server

MAX_EXAMPLES = 150  # per operation: about 1,250 requests in 20-30 s, the same ones every run
RUN_TIMEOUT = 240  # seconds; the run takes a fraction of it
# Schemathesis' stock expectations: no schemathesis.toml relaxes positive_data_acceptance. The served document
# enumerates the release's pack, manager, version and ethos ids, so every schema-valid request is accepted
# (2xx, or 404 for a ticker not in the view); tests/schemathesis_hooks.py leaves out the two cross-parameter
# refusals a schema cannot express ('from' not earlier than 'to'; view parameters to a preview pack).
HOOKS = "tests.schemathesis_hooks"


def test_schemathesis_finds_no_failure_in_any_operation_of_the_live_server(published: Path, tmp_path: Path):
    document = tmp_path / "openapi.json"
    with running_server(published) as (base, _process):
        # Read from a file: loaded from its own URL, Schemathesis leaves out the operation that serves it.
        document.write_bytes(urllib.request.urlopen(f"{base}/api/v1/openapi.json", timeout=10).read())
        result = subprocess.run(
            [
                sys.executable, "-m", "schemathesis.cli", "run", str(document),
                "--url", base,
                "--phases", "examples,coverage,fuzzing",
                "--checks", "all",
                "--max-examples", str(MAX_EXAMPLES),
                "--generation-deterministic",
                "--workers", "1",  # hypothesis' lambda descriptions are not thread-safe on CPython 3.11
                "--no-color",
            ],
            cwd=tmp_path, capture_output=True, text=True, timeout=RUN_TIMEOUT,
            env={**child_env(), "SCHEMATHESIS_HOOKS": HOOKS},
        )  # fmt: skip
    report = result.stdout + result.stderr
    assert result.returncode == 0, report[-30_000:]
    assert "11 selected / 11 total" in report and "schemathesis.toml" not in report, report[-5_000:]
