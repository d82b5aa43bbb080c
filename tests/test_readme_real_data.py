"""The README's real-data walkthrough, run as it is against the EDGAR (with the SEC's data-set page) and OpenFIGI
stand-ins, then served."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.servers import REPO, fetch, free_port, stop, wait_until_listening
from tests.standin import serving
from tests.standin_datasets import DataSetsPage, sec_app
from tests.standin_edgar import Edgar
from tests.standin_openfigi import OpenFigi

WALKTHROUGH = ["fetch", "securities", "build", "review", "promote", "export", "serve"]
SETS = [
    f"{year}q{quarter}_form13f.zip"
    for year, quarter in ((2019, 2), (2019, 3), (2019, 4), (2020, 1), (2020, 2), (2020, 3))
]


def real_data_block() -> str:
    section = REPO.joinpath("README.md").read_text(encoding="utf-8").split("## Real data", 1)[1]
    return re.search(r"```bash\n(.*?)```", section, flags=re.S)[1]


def test_the_readme_takes_an_empty_folder_to_a_served_real_release(tmp_path: Path):
    block = real_data_block()
    assert [line.split()[1] for line in block.splitlines() if line.startswith("ras ")] == WALKTHROUGH
    *steps, serve = block.strip().splitlines()
    edgar, openfigi = Edgar.berkshire(), OpenFigi()
    page = DataSetsPage.berkshire(edgar.listed_until)  # the sets the SEC's page listed that day
    with serving(sec_app(edgar, page)) as edgar_url, serving(openfigi.app()) as openfigi_url:
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(REPO),
            "RAS_EDGAR_URL": edgar_url,
            "RAS_OPENFIGI_URL": openfigi_url,
        }
        env.pop("RAS_SEC_USER_AGENT", None)
        env.pop("OPENFIGI_API_KEY", None)
        result = subprocess.run(
            ["bash", "-e", "-c", "\n".join(steps)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
    assert result.returncode == 0, result.stderr[-3000:]
    assert {seen.user_agent for seen in edgar.log.seen} == {"Jane Doe jane.doe@example.com"}
    real = tmp_path / "real"
    # the one filing no set posted by 2020-11-30 holds: 2020-09-30's; the six before it come from the sets
    assert [path.name for path in (real / "sec13f" / "0001067983").glob("*.txt")] == ["0000950123-20-012127.txt"]
    # the sets of the filing windows 2019-04 … 2020-09; the 2020q4 set (filed from October) was not listed yet
    assert sorted(path.name for path in (real / "sec13f-datasets").glob("*.zip")) == SETS
    assert sorted(page.zip_requests()) == SETS
    release_id = (real / "candidate.txt").read_text().strip()
    assert f"promoted {release_id}" in result.stdout.splitlines()
    # the review the README describes: the two undecided changes, and the gate a publish would have stopped on
    assert "undecided changes: 2, 2 open (not published by the promoted release)" in result.stdout.splitlines()
    assert any(
        line.startswith("  gate corporate-actions: 2 undecided change(s)") for line in result.stdout.splitlines()
    )
    assert f"having reviewed it, ras promote {release_id} --override-gates\n" in result.stdout
    current = real / "releases" / "current"
    assert current.is_symlink() and current.resolve().name == release_id
    assert (real / "review.html").stat().st_size > 0
    assert (real / "dist" / "nginx.conf").is_file() and (real / "dist" / "site").is_symlink()

    port = free_port()
    log = tmp_path / "serve.log"
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            ["bash", "-c", "exec " + serve.replace("--port 8080", f"--port {port}")],
            cwd=real,
            env=env,
            stdout=sink,
            stderr=sink,
        )
    try:
        wait_until_listening(process, port, log)
        health = fetch(port, "/api/v1/health")
    finally:
        stop(process)
    assert health.status == 200 and release_id.encode() in health.body and b'"fixture":false' in health.body
