"""Every caveat where it belongs, on real filings from ../shared/realdata: a warning reaches exactly the views that
contain what it is about, a diff names the confidential omission that appears, an unmapped option row is warned and
counted, and a filing without a header is dated as EDGAR dates it.

The trees are copies of real filings; the only edits are the tests' own, said where they are made: a securities map
without one row, and a real Berkshire submission saved as its two documents without the SGML envelope (the layout
EDGAR serves them in, primary_doc.xml and the information table, in the accession's folder).
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import date
from pathlib import Path

import pytest

from builder.api.data import ReleaseData
from builder.api.handlers import get_health, get_latest_pack
from builder.api.methods import compare_versions, explain_position, validate_policy
from builder.fetch.archive import record_filing_dates
from builder.fetch.edgar import listed_rows
from builder.records import FILED_FROM_SIGNATURE
from builder.release.assemble import assemble
from builder.release.build import report_unmapped
from builder.research.agent import FIRST_VERSION
from builder.research.coverage import unmapped_in
from builder.sources.sec13f.filing_dates import FILE_NAME as DATES_FILE
from builder.sources.sec13f.filings import read_filing_tree
from builder.sources.tree import read_sources
from tests.berkshire import add_duquesne, berkshire_tree, duquesne_manager, series
from tests.conftest import realdata

OMITTED = "0000950123-14-012218"  # Berkshire's 13F-HR for 2014-09-30: isConfidentialOmitted true
HEADERLESS = "0000950123-16-015025"  # Berkshire's 13F-HR for 2015-12-31: signed 2016-02-12, filed 2016-02-16
HALLIBURTON = "406216101"  # Scion's 2025-09-30 table holds a Halliburton call and no Halliburton shares


def only(*quarters: str) -> list[str]:
    """The Berkshire series' quarters other than `quarters`, to leave out."""
    return sorted({path.name[:10] for path in series().iterdir()} - set(quarters))


def data_of(root: Path, as_of: str | None = None) -> ReleaseData:
    """The release data of a source tree, assembled in memory as publish does."""
    sources, _ = read_sources(root, date.fromisoformat(as_of) if as_of else None)
    data, _ = assemble(sources, [])
    return data


@pytest.fixture(scope="module")
def two_managers(tmp_path_factory: pytest.TempPathFactory) -> ReleaseData:
    """Berkshire and Duquesne Family Office at 2019-06-30, their one common quarter in realdata."""
    root = berkshire_tree(
        tmp_path_factory.mktemp("two") / "source",
        without=only("2019-03-31", "2019-06-30"),
        versions=1,
        manager=duquesne_manager(),
    )
    return data_of(add_duquesne(root))


def test_a_one_manager_view_carries_no_other_managers_warning(two_managers: ReleaseData):
    duquesne = [w for w in two_managers.latest["warnings"] if w["manager"] == "duquesne"]
    assert {w["code"] for w in duquesne} == {"summary-mismatch", "filing-date-estimated"}  # cover total off by 4
    alone = get_latest_pack(two_managers, {"packId": "13f-copycat", "managers": ["berkshire"], "mode": "any"})
    assert alone["view"]["warnings"] == [] and alone["agentPayload"]["caveats"] == [FIRST_VERSION]  # no Duquesne's
    theirs = get_latest_pack(two_managers, {"packId": "13f-copycat", "managers": ["duquesne"], "mode": "any"})
    assert theirs["view"]["warnings"] == duquesne
    assert all(w["quarter"] == "2019-06-30" and w["accession"] for w in duquesne)
    policy = validate_policy(two_managers, {"managers": ["berkshire"], "mode": "any"})
    assert next(c for c in policy["checks"] if c["id"] == "scope-warnings")["outcome"] == "pass"


def test_health_lists_each_warning_once_with_its_pack_manager_quarter_and_accession(two_managers: ReleaseData):
    sealed = two_managers.with_identity({"releaseId": "test", "manifestSha256": "0" * 64})
    health = get_health(sealed, {})
    assert health["warningCount"] == len(health["warnings"]) == len(two_managers.latest["warnings"])
    assert {(w["pack"], w["manager"], w["quarter"]) for w in health["warnings"]} == {
        ("13f-copycat", "duquesne", "2019-06-30")
    }


@pytest.fixture(scope="module")
def omission(tmp_path_factory: pytest.TempPathFactory) -> ReleaseData:
    """Berkshire 2014-06-30 … 2014-12-31 (and 2014-03-31 before them): the 2014-09-30 filing omits positions."""
    quarters = ("2014-03-31", "2014-06-30", "2014-09-30", "2014-12-31")
    return data_of(berkshire_tree(tmp_path_factory.mktemp("omission") / "source", without=only(*quarters), versions=3))


def test_a_diff_across_a_new_confidential_omission_names_it_and_its_policy_is_a_caution(omission: ReleaseData):
    before, during, after = omission.versions
    diff = compare_versions(omission, {"from": before, "to": during, "managers": [], "mode": "any"})
    appeared = [(w["code"], w["manager"], w["quarter"], w["accession"]) for w in diff["warnings"]["appeared"]]
    # Deere vanishing into the omitting filing is undecided; the quarter before had an undecided change already
    # (NOW Inc.'s spin-off from NOV, which Berkshire's book alone cannot decide), so only the omission is new
    assert appeared == [("confidential-omitted", "berkshire", "2014-09-30", OMITTED)]
    caution = next(c for c in diff["policy"] if c["id"] == "confidential-omissions")
    assert (caution["from"], caution["to"]) == ("pass", "warn") and f"berkshire {OMITTED} (2014-09-30)" in caution[
        "toReason"
    ]
    across = compare_versions(omission, {"from": before, "to": after, "managers": [], "mode": "any"})
    assert {(w["code"], w["accession"]) for w in across["warnings"]["appeared"]} == {
        ("confidential-omitted", OMITTED),
        ("confidential-omitted-previous", OMITTED),
    }  # from the version between too; undecided changes were there before already
    leaving = compare_versions(omission, {"from": during, "to": after, "managers": [], "mode": "any"})
    assert [w["code"] for w in leaving["warnings"]["disappeared"]] == ["confidential-omitted"]


@pytest.fixture(scope="module")
def scion(tmp_path_factory: pytest.TempPathFactory) -> ReleaseData:
    """Scion Asset Management's real 2025-09-30 filing, with the test's own edit: no securities.csv row for HAL."""
    root = tmp_path_factory.mktemp("scion") / "source"
    folder = root / "sec13f" / "1649339"
    folder.mkdir(parents=True)
    for path in realdata("sec13f", "filings").glob("scion_asset_management_2025-09-30_*.xml"):
        shutil.copy(path, folder / path.name)
    rows = realdata("securities_sample.csv").read_text().splitlines()
    (root / "securities.csv").write_text("\n".join(r for r in rows if not r.startswith(HALLIBURTON)) + "\n")
    (root / "packs.toml").write_text(
        '[copycat]\nversions = 1\n\n[[copycat.managers]]\nid = "scion"\n'
        'name = "Scion Asset Management, LLC"\ncik = "1649339"\n'
    )
    return data_of(root)


def test_an_unmapped_option_row_is_warned_flagged_and_counted_in_the_unmapped_value(scion: ReleaseData):
    artifact = scion.latest
    call = next(h for h in artifact["managers"][0]["otherHoldings"] if h["cusip"] == HALLIBURTON)
    assert (call["putCall"], call["mapped"], call["ticker"], call["value"]) == ("Call", False, HALLIBURTON, 61_500_000)
    warned = [w for w in artifact["warnings"] if w["code"] == "unmapped-cusip"]
    assert [(w["manager"], w["cusip"]) for w in warned] == [("scion", HALLIBURTON)]
    assert "option or PRN row of scion worth $61,500,000" in warned[0]["message"]
    cusips, share = unmapped_in(artifact)
    assert cusips == {HALLIBURTON} and share == pytest.approx(61_500_000 / 1_381_198_076)
    lines: list[str] = []
    unmapped = {version: unmapped_in(scion.artifacts[version]) for version in scion.versions}
    report_unmapped(unmapped, 0.05, lines.append)  # the publish summary says what it did not map
    assert lines == [
        f"1 unmapped CUSIPs, at most 4.45% of a version's reported value ({scion.versions[0]}); within "
        "--max-unmapped-value 5.00%"
    ]
    policy = validate_policy(scion, {"managers": [], "mode": "any"})
    check = next(c for c in policy["checks"] if c["id"] == "unmapped-securities")
    assert check["outcome"] == "warn" and "(1 of them in option or PRN rows only): 406216101" in check["reason"]


def test_an_unmapped_position_is_flagged_in_its_explanation(tmp_path: Path):
    root = berkshire_tree(tmp_path / "source", without=only("2019-03-31", "2019-06-30"), versions=1)
    apple = "037833100"  # the test's own edit: Apple's row left out of the map
    rows = (root / "securities.csv").read_text().splitlines()
    (root / "securities.csv").write_text("\n".join(r for r in rows if not r.startswith(apple)) + "\n")
    data = data_of(root)
    explained = explain_position(data, {"packId": "13f-copycat", "ticker": apple, "managers": [], "mode": "any"})
    assert [(w["code"], w["cusip"]) for w in explained["warnings"]] == [("unmapped-cusip", apple)]
    assert explained["mapped"] is False and "mapped" not in explained["changes"][0]  # said once, the same for all


def split_submission(text: str) -> dict[str, str]:
    """A full submission's documents by file name, each exactly as between its <XML> tags: the files EDGAR serves."""
    found = re.findall(r"<FILENAME>(\S+)\n.*?<XML>\n(.*?)\n</XML>", text, flags=re.S)
    return {name: body + "\n" for name, body in found}


def headerless_tree(root: Path, *, recorded: bool) -> Path:
    """Berkshire 2015-09-30 and 2015-12-31, the latter as its two documents; with EDGAR's filing dates recorded
    beside the filings as `ras fetch` records them from the real submissions listing, or without."""
    berkshire_tree(root, without=only("2015-09-30"), versions=1)
    folder = root / "sec13f" / "1067983"
    for name, body in split_submission(next(series().glob("2015-12-31_*.txt")).read_text()).items():
        (folder / HEADERLESS / name).parent.mkdir(exist_ok=True)
        (folder / HEADERLESS / name).write_text(body)
    if recorded:  # the real listing of 2025-08-02, whose `recent` rows reach back to 2015-11
        listing = realdata("edgar", "submissions", "CIK0001067983.REFORMATTED-indent2.json")
        columns = json.loads(listing.read_text())["filings"]["recent"]
        record_filing_dates(folder, list(listed_rows(columns, str(listing))))
    return root


def test_a_headerless_pair_takes_the_filing_date_edgar_recorded(tmp_path: Path):
    folder = headerless_tree(tmp_path / "recorded", recorded=True) / "sec13f" / "1067983"
    read = read_filing_tree(folder, tmp_path / "recorded")
    filing = next(f for f in read.filings if f.accession == HEADERLESS)
    line = next(
        i for i, row in enumerate((folder / DATES_FILE).read_text().splitlines(), 1) if row.startswith(HEADERLESS)
    )
    assert (filing.filed.isoformat(), filing.filed_from) == ("2016-02-16", f"sec13f/1067983/{DATES_FILE}:{line}")
    assert read.warnings == () and read.problems == ()
    estimated = read_filing_tree(
        headerless_tree(tmp_path / "bare", recorded=False) / "sec13f" / "1067983", tmp_path / "bare"
    )
    filing = next(f for f in estimated.filings if f.accession == HEADERLESS)
    assert (filing.filed.isoformat(), filing.filed_from) == ("2016-02-12", FILED_FROM_SIGNATURE)
    assert [w.code for w in filing.warnings] == ["filing-date-estimated"]


def test_point_in_time_uses_the_recorded_date(tmp_path: Path):
    recorded = read_sources(headerless_tree(tmp_path / "recorded", recorded=True), date(2016, 2, 14))
    bare = read_sources(headerless_tree(tmp_path / "bare", recorded=False), date(2016, 2, 14))
    assert HEADERLESS not in {f.accession for f in recorded[0].filings}  # EDGAR had it only on 2016-02-16
    assert HEADERLESS in {f.accession for f in bare[0].filings}  # the signature date would have let it in
    assert any("left out 1 filings filed after the as-of date 2016-02-14" in line for line in recorded[1])


def test_the_recorded_date_and_its_line_reach_the_artifact(tmp_path: Path):
    data = data_of(headerless_tree(tmp_path / "source", recorded=True))
    filing = data.latest["managers"][0]["filings"][0]
    assert (filing["accession"], filing["filed"]) == (HEADERLESS, "2016-02-16")
    assert filing["filedFrom"].startswith(f"sec13f/1067983/{DATES_FILE}:")
    assert not [w for w in data.latest["warnings"] if w["code"] == "filing-date-estimated"]
