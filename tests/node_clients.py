"""The Node.js clients agent developers use, installed once from the npm registry into a cache folder.

tests/node/package.json pins them and package-lock.json fixes the whole tree; `npm ci` installs it into
~/.cache/ras-tests/node-<lock hash>/ (RAS_NODE_CACHE overrides the parent folder), built in a scratch folder
and renamed into place, so an interrupted install is never mistaken for a complete one and later runs reuse
it without the network. A test that needs node fails in CI when it is missing (.ci/run installs it) and is
skipped elsewhere with the reason.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).resolve().parent / "node"
INSTALL_TIMEOUT = 600  # seconds: a cold install fetches about 130 packages
RUN_TIMEOUT = 600  # seconds for one client script (the 500-manager run reads tens of megabytes of resources)


def require_node() -> tuple[str, str]:
    """The node and npm executables; fails in CI when either is missing, skips elsewhere."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node and npm are not installed; .ci/run installs them (apt-get install -y nodejs npm)")
        pytest.skip("node and npm are not installed (apt-get install -y nodejs npm)")
    return node, npm


def installed() -> Path:
    """The folder holding node_modules of tests/node/package-lock.json, installed on first use."""
    _, npm = require_node()
    lock = (NODE_DIR / "package-lock.json").read_bytes()
    parent = Path(os.environ.get("RAS_NODE_CACHE", Path.home() / ".cache" / "ras-tests"))
    target = parent / f"node-{hashlib.sha256(lock).hexdigest()[:16]}"
    if (target / "node_modules" / ".package-lock.json").is_file():
        return target
    parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="node-install-", dir=parent))
    for name in ("package.json", "package-lock.json"):
        shutil.copy(NODE_DIR / name, scratch / name)
    result = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )
    if result.returncode != 0:
        shutil.rmtree(scratch, ignore_errors=True)
        pytest.fail(f"npm ci failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    try:
        scratch.rename(target)
    except OSError:  # another run installed it meanwhile
        shutil.rmtree(scratch, ignore_errors=True)
    return target


def run_script(name: str, *args: str, timeout: int = RUN_TIMEOUT) -> subprocess.CompletedProcess[str]:
    """Run tests/node/<name> with node beside the installed node_modules (ES modules resolve from the file)."""
    node, _ = require_node()
    folder = installed()
    shutil.copy(NODE_DIR / name, folder / name)
    return subprocess.run(
        [node, str(folder / name), *args], cwd=folder, capture_output=True, text=True, timeout=timeout, check=False
    )


def bin_path(name: str) -> Path:
    """An executable the installed packages provide (tsc, openapi-typescript)."""
    return installed() / "node_modules" / ".bin" / name
