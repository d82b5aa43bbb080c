"""A source tree of Berkshire Hathaway's real 13F-HR series (2013-06-30 … 2020-09-30) from ../shared/realdata.

The filings are copied byte for byte; a test may leave some out, restate one (a value changed, as a 13F-HR/A
restatement would) or add files. Nothing here invents holdings for Berkshire: a restated value is labelled
as the test's own edit of a copy, in the test that makes it.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from tests.conftest import realdata

CIK = "1067983"
DUQUESNE_CIK = "1536411"
DUQUESNE_QUARTER = "2019-06-30"  # the one quarter of Duquesne Family Office's in ../shared/realdata
FIRST_VALUE = "<value>1157325</value>"  # the first row of the 2020-06-30 table, in thousands
PACKS = """[copycat]
versions = {versions}

[[copycat.managers]]
id = "berkshire"
name = "Berkshire Hathaway Inc"
cik = "{cik}"
{manager}
"""


def series() -> Path:
    return realdata("sec13f", "berkshire_hathaway_0001067983")


def berkshire_tree(root: Path, *, without: Iterable[str] = (), versions: int = 8, manager: str = "") -> Path:
    """root/ with packs.toml, securities.csv and sec13f/1067983/ holding the series minus quarters `without`."""
    left_out = tuple(without)
    folder = root / "sec13f" / CIK
    folder.mkdir(parents=True)
    for path in sorted(series().iterdir()):
        if not path.name.startswith(left_out) or not left_out:
            shutil.copy(path, folder / path.name)
    shutil.copy(realdata("securities_sample.csv"), root / "securities.csv")
    (root / "packs.toml").write_text(PACKS.format(versions=versions, cik=CIK, manager=manager))
    return root


def restate(root: Path, thousands: int) -> None:
    """The test's edit of its copy: the 2020-06-30 table's first value raised by `thousands` (a restatement; 0: as filed)."""
    original = next(series().glob("2020-06-30_*.txt"))
    text = original.read_text()
    assert text.count(FIRST_VALUE) == 1
    (root / "sec13f" / CIK / original.name).write_text(
        text.replace(FIRST_VALUE, f"<value>{1157325 + thousands}</value>")
    )


def duquesne_manager(allow_missing: Iterable[str] = ()) -> str:
    """packs.toml's [[copycat.managers]] entry of Duquesne Family Office, allowed to miss `allow_missing`."""
    listed = ", ".join(f'"{quarter}"' for quarter in allow_missing)
    allowed = f"allow_missing = [{listed}]\n" if listed else ""
    return f"""
[[copycat.managers]]
id = "duquesne"
name = "Duquesne Family Office LLC"
cik = "{DUQUESNE_CIK}"
{allowed}"""


def add_duquesne(root: Path) -> Path:
    """Duquesne's real 13F-HR for 2019-06-30 (its primary document and information table) copied into root/."""
    folder = root / "sec13f" / DUQUESNE_CIK
    folder.mkdir()
    for path in realdata("sec13f", "filings").glob(f"duquesne_family_office_{DUQUESNE_QUARTER}_*.xml"):
        shutil.copy(path, folder / path.name)
    return root
