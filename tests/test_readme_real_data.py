"""The README's "Operating on real data" block, run as it is against the EDGAR and OpenFIGI stand-ins."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.servers import REPO
from tests.standin import serving
from tests.standin_edgar import Edgar
from tests.standin_openfigi import OpenFigi


def real_data_block() -> str:
    section = REPO.joinpath("README.md").read_text(encoding="utf-8").split("## Operating on real data", 1)[1]
    return re.search(r"```bash\n(.*?)```", section, flags=re.S)[1]


def test_the_readme_takes_an_empty_folder_to_a_promoted_real_release(tmp_path: Path):
    block = real_data_block()
    assert [line.split()[1] for line in block.splitlines() if line.startswith("ras ")] == ["fetch", "securities", "publish"]
    edgar, openfigi = Edgar.berkshire(), OpenFigi()
    with serving(edgar.app()) as edgar_url, serving(openfigi.app()) as openfigi_url:
        env = {
            **os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "PYTHONPATH": str(REPO), "RAS_EDGAR_URL": edgar_url, "RAS_OPENFIGI_URL": openfigi_url,
        }
        env.pop("RAS_SEC_USER_AGENT", None)
        env.pop("OPENFIGI_API_KEY", None)
        result = subprocess.run(["bash", "-e", "-c", block], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert {seen.user_agent for seen in edgar.log.seen} == {"Jane Doe jane.doe@example.com"}
    release_id = result.stdout.strip().splitlines()[-1]
    current = tmp_path / "real" / "releases" / "current"
    assert current.is_symlink() and current.resolve().name == release_id
    assert len(list((tmp_path / "real" / "sec13f" / "0001067983").glob("*.txt"))) == 7  # 2019-03-31 … 2020-09-30
