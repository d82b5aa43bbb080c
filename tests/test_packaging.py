"""The package as a server without the checkout gets it: a wheel built quietly (the licence as an SPDX
expression), holding everything `ras publish` and the /docs page need, used from outside the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.servers import REPO


def test_the_wheel_builds_without_warnings_and_publishes_the_fixture_outside_the_checkout(tmp_path: Path):
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp_path / "wheels"), str(REPO)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    assert "Warning" not in built.stdout + built.stderr, (built.stdout + built.stderr)[-3000:]
    (wheel,) = (tmp_path / "wheels").glob("research_artifact_service-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        assert "License-Expression: LicenseRef-Proprietary" in archive.read(metadata).decode()
        archive.extractall(tmp_path / "installed")
    # The unpacked wheel first on the path, the checkout nowhere on it: package data must come from the wheel.
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    env["PYTHONPATH"] = str(tmp_path / "installed")
    script = "import sys; from builder.cli import main; sys.argv[0] = 'ras'; main()"
    for arguments in (["publish", "--releases", "releases"], ["export", "--releases", "releases", "--out", "dist"]):
        result = subprocess.run(
            [sys.executable, "-c", script, *arguments],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr[-3000:]
    where = subprocess.run(
        [sys.executable, "-c", "import builder; print(builder.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert where.stdout.startswith(str(tmp_path / "installed")), where.stdout
    assert (tmp_path / "releases" / "current").is_symlink()
    assert (tmp_path / "dist" / "site" / "docs" / "index.html").is_file()
