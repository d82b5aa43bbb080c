"""Helpers for the fetch tests: a source tree to fetch into, `ras fetch` in-process, file checks."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner, Result

from builder.cli import main
from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from builder.sources.sec13f.submission import carried_documents, parse_submission
from tests.conftest import realdata
from tests.servers import child_env

USER_AGENT = "RAS tests ras-tests@example.com"  # a declared agent with a contact, as SEC fair access asks
BERKSHIRE_CIK = "0001067983"
SINCE = "2013-01-01"  # the stand-in holds Berkshire's 30 quarters 2013-06-30 … 2020-09-30

PACKS = """\
[copycat]
versions = 8

[[copycat.managers]]
id = "berkshire"
name = "Berkshire Hathaway Inc"
cik = "1067983"
"""


def empty_tree(root: Path, packs: str = PACKS) -> Path:
    """A new operator's folder: packs.toml and the test securities map, no filings."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "packs.toml").write_text(packs, encoding="utf-8")
    shutil.copyfile(realdata("securities_sample.csv"), root / "securities.csv")
    return root


def run_fetch(root: Path, base: str, *extra: str, user_agent: str | None = USER_AGENT) -> Result:
    agent = ("--user-agent", user_agent) if user_agent else ()
    args = ["fetch", "--source", str(root), "--edgar-url", base, "--since", SINCE, *agent, *extra]
    return CliRunner().invoke(main, args, env={"RAS_SEC_USER_AGENT": None, "RAS_EDGAR_URL": None})


@dataclass(frozen=True)
class Ran:
    """A `ras` child's result, named as click's Result is."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def run_fetch_process(root: Path, base: str, *extra: str) -> Ran:
    """`ras fetch` as its own process: the stand-in's clock is then not held up by the client's work on the GIL."""
    args = ["fetch", "--source", str(root), "--edgar-url", base, "--since", SINCE, "--user-agent", USER_AGENT, *extra]
    env = {name: value for name, value in child_env().items() if name not in ("RAS_SEC_USER_AGENT", "RAS_EDGAR_URL")}
    done = subprocess.run(
        [sys.executable, "-m", "builder.cli", *args], env=env, capture_output=True, text=True, timeout=300
    )
    return Ran(done.returncode, done.stdout, done.stderr)


def incomplete_files(folder: Path) -> list[str]:
    """Files (not dot-files) that are not a whole 13F submission of the accession their name says."""
    wrong = []
    for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
        if not path.is_file() or path.name.startswith(".") or path.name == DATES_FILE:
            continue
        try:
            submission = parse_submission(path.read_bytes())
            carried_documents(submission)
            if f"{submission.accession}.txt" != path.name:
                wrong.append(f"{path.name}: holds {submission.accession}")
        except ValueError as exc:
            wrong.append(f"{path.name}: {exc}")
    return wrong
