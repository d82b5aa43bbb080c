"""The Form 13F data sets as the pack's source: a manager's quarter read from the sets is the quarter read from its
filing, to the dollar. Berkshire Hathaway's real filings (../shared/realdata) are published twice: as files, and as
the data-set rows written from them (bench.datasets_writer, the SEC's layout); every answer is the same but for
what names the source."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bench.datasets_writer import write_datasets
from builder.cli import main
from builder.records import FILED_FROM_DATASET, Amendment, Filing, ManagerConfig, ValueUnit
from builder.research.holdings import QuarterBooks
from builder.sources.named import named_managers
from builder.sources.tree import read_sources
from tests.berkshire import CIK, berkshire_tree

Q2_2020 = date(2020, 6, 30)
APPLE = "037833100"
# What names a source differs, and what hashes the bytes it names: nothing else may.
SOURCE_NAMING = re.compile(
    r"\.(source|filedFrom|files(\[\])?|folder|message|caveats\[\]|detail|provenance.*|artifactSha256|contentHash\.value"
    r"|manifestSha256|sha256|releaseId|manifestEntry\.sha256|release\.(releaseId|manifestSha256))$"
)


def as_sets(files: Path, to: Path) -> Path:
    """A copy of the tree at `files` whose filings are only the data sets written from them (no sec13f/)."""
    sources, _ = read_sources(files)
    write_datasets(files / "sec13f-datasets", sources.filings)
    to.mkdir()
    shutil.copytree(files / "sec13f-datasets", to / "sec13f-datasets")
    for name in ("packs.toml", "securities.csv"):
        shutil.copy(files / name, to / name)
    return to


def publish(tree: Path, releases: Path) -> str:
    result = CliRunner().invoke(main, ["publish", "--source", str(tree), "--releases", str(releases), "--gate", "none"])
    assert result.exit_code == 0, result.output
    return result.output


def answers(releases: Path) -> dict[str, Any]:
    current = releases / "current"
    routes = json.loads((current / "routes.json").read_text())
    return {
        route: json.loads((current / "objects" / f"{e['sha256']}.json").read_bytes()) for route, e in routes.items()
    }


def differences(x: Any, y: Any, path: str = "") -> Iterator[str]:
    if isinstance(x, dict) and isinstance(y, dict):
        for key in sorted(x.keys() | y.keys()):
            yield from differences(x.get(key), y.get(key), f"{path}.{key}")
    elif isinstance(x, list) and isinstance(y, list) and len(x) == len(y):
        for a, b in zip(x, y, strict=True):
            yield from differences(a, b, f"{path}[]")
    elif x != y:
        yield path


@pytest.fixture(scope="module")
def both_ways(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("both")
    files = berkshire_tree(root / "files", versions=8)
    sets = as_sets(files, root / "sets")
    publish(files, root / "from-files")  # the sets beside the files: the same witnesses, the files win
    return root / "from-files", root / "from-sets", publish(sets, root / "from-sets")


def test_every_answer_from_the_data_sets_equals_the_one_from_the_filings_but_for_what_names_the_source(both_ways):
    from_files, from_sets, said = both_ways
    assert "read 30 filings (4496 rows) of 1 managers (30 of them, 4496 rows, from the Form 13F data sets)" in said
    one, other = answers(from_files), answers(from_sets)
    assert one.keys() == other.keys() and len(one) > 200
    moved = {path for route in one for path in differences(one[route], other[route])}
    assert moved, "the sources are named differently"
    assert {path for path in moved if not SOURCE_NAMING.search(path)} == set()
    latest = other["/api/v1/packs/13f-copycat/latest"]["data"]
    filing = latest["artifact"]["managers"][0]["filings"][0]
    assert filing["filedFrom"] == FILED_FROM_DATASET
    assert filing["source"] == "sec13f-datasets/2020q4_form13f.zip#0000950123-20-012127"
    assert filing["url"] == (  # where an agent checks it: the filing's index on EDGAR, whichever way it was read
        "https://www.sec.gov/Archives/edgar/data/1067983/000095012320012127/0000950123-20-012127-index.htm"
    )
    assert latest == json.loads(json.dumps(latest))  # plain JSON
    books = [one["/api/v1/packs/13f-copycat/latest"], other["/api/v1/packs/13f-copycat/latest"]]
    positions = [b["data"]["artifact"]["managers"][0]["positions"] for b in books]
    assert positions[0] == positions[1] and len(positions[0]) > 40  # shares, values, weights, changes, rows cited


def filings(tree: Path) -> list[Filing]:
    return list(read_sources(tree)[0].filings)


def test_a_file_on_disk_wins_over_its_accession_in_a_set_and_a_later_amendment_in_a_set_still_applies(tmp_path):
    files = berkshire_tree(tmp_path / "files", versions=4)
    sources, _ = read_sources(files)
    original = next(f for f in sources.filings if f.period == Q2_2020)
    apple = next(r for r in original.rows if r.cusip == APPLE)
    # The test's own edit of a copy (labelled here, never published as Berkshire's): a NEW HOLDINGS amendment adding
    # one Apple row, filed after the original, only in the set; and the set's copy of the original changed, so that
    # which copy was read shows.
    added = Filing(
        **{
            **{name: getattr(original, name) for name in Filing.__slots__},
            "accession": "0000950123-20-999999",
            "form_type": "13F-HR/A",
            "amendment": Amendment.NEW_HOLDINGS,
            "amendment_no": 1,
            "filed": date(2020, 9, 1),
            "rows": (apple,),
            "table_entry_total": 1,
            "table_value_total": apple.value,
            "confidential_omitted": False,
        }
    )
    changed = Filing(**{**{n: getattr(original, n) for n in Filing.__slots__}, "rows": original.rows[1:]})
    others = [f for f in sources.filings if f is not original]
    write_datasets(files / "sec13f-datasets", [*others, changed, added])
    read = filings(files)
    quarter = [f for f in read if f.period == Q2_2020]
    assert [(f.accession, f.filed_from, len(f.rows)) for f in quarter] == [
        (original.accession, "submission header", len(original.rows)),  # the file, not the set's changed copy
        ("0000950123-20-999999", FILED_FROM_DATASET, 1),
    ]
    book = QuarterBooks(read)[(CIK.zfill(10), Q2_2020)]
    held = next(h for h in book.holdings if h.cusip == APPLE and h.long_equity)
    filed = sum(r.shares for r in original.rows if r.cusip == APPLE and r.put_call is None and r.share_type == "SH")
    assert held.shares == filed + apple.shares
    assert held.sources[-1].accession == "0000950123-20-999999" and held.sources[-1].row == 1


def rewrite_member(zipped: Path, member: str, change) -> None:
    with zipfile.ZipFile(zipped) as archive:
        members = {info.filename: archive.read(info) for info in archive.infolist()}
    members[member] = change(members[member].decode()).encode()
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in members.items():
            archive.writestr(name, body)


@pytest.mark.parametrize(
    ("member", "where", "said"),
    [
        (
            "INFOTABLE.tsv",
            7,
            "INFOTABLE.tsv:7: 0000950123-20-009058 has malformed rows: row 6: value '19x5836' is not a whole",
        ),
        ("SUBMISSION.tsv", 2, "SUBMISSION.tsv:2: 0000950123-20-009058: FILING_DATE '32-AUG-2020' is not a DD-MON-YYYY"),
    ],
)
def test_a_malformed_row_of_a_pack_filing_in_a_set_is_one_error_naming_the_zip_table_and_line(
    tmp_path, member, where, said
):
    files = berkshire_tree(tmp_path / "files", versions=4)
    sets = as_sets(files, tmp_path / "sets")
    zipped = next((sets / "sec13f-datasets").glob("2020q3_*.zip"))

    def spoil(text: str) -> str:
        lines = text.split("\n")
        fields = lines[where - 1].split("\t")
        if member == "INFOTABLE.tsv":
            fields[6] = fields[6][:2] + "x" + fields[6][2:]
        else:
            fields[1] = "32-AUG-2020"
        lines[where - 1] = "\t".join(fields)
        return "\n".join(lines)

    rewrite_member(zipped, member, spoil)
    result = CliRunner().invoke(main, ["publish", "--source", str(sets), "--releases", str(tmp_path / "rel")])
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and errors[0].startswith(f"Error: sec13f-datasets/{zipped.name}: {said}"), errors
    assert not (tmp_path / "rel" / "current").exists()
    cached = list((tmp_path / "rel").glob(".cache/**/*.parquet"))
    publish_again = CliRunner().invoke(main, ["publish", "--source", str(sets), "--releases", str(tmp_path / "rel")])
    assert publish_again.exit_code == 1 and errors[0] in publish_again.output  # the same error from the cache
    assert sorted(cached) == sorted((tmp_path / "rel").glob(".cache/**/*.parquet"))


def test_a_pack_manager_with_no_filing_anywhere_is_one_problem_naming_both_places(tmp_path):
    files = berkshire_tree(tmp_path / "files", versions=4)
    sets = as_sets(files, tmp_path / "sets")
    with (sets / "packs.toml").open("a") as packs:
        packs.write('\n[[copycat.managers]]\nid = "absent"\nname = "Nobody Filed LLC"\ncik = "9900000099"\n')
    result = CliRunner().invoke(main, ["publish", "--source", str(sets), "--releases", str(tmp_path / "rel")])
    assert result.exit_code == 1
    assert (
        "Error: sec13f/9900000099: Nobody Filed LLC (CIK 9900000099) has no folder sec13f/9900000099/ (leading zeros "
        "optional) and none in the Form 13F data sets (sec13f-datasets/)"
    ) in result.output


def test_a_cik_alone_in_packs_toml_is_enough_the_name_and_id_come_from_the_newest_filing(tmp_path):
    files = berkshire_tree(tmp_path / "files", versions=4)
    sets = as_sets(files, tmp_path / "sets")
    (sets / "packs.toml").write_text('[copycat]\nversions = 4\n\n[[copycat.managers]]\ncik = "1067983"\n')
    sources, _ = read_sources(sets)
    newest = max(sources.filings, key=lambda f: f.filed)
    (manager,) = sources.copycat.managers
    assert (manager.id, manager.name, manager.cik) == ("berkshire-hathaway-inc", newest.manager_name, "0001067983")
    assert newest.manager_name == "Berkshire Hathaway Inc"
    publish(sets, tmp_path / "rel")
    latest = answers(tmp_path / "rel")["/api/v1/packs/13f-copycat/latest"]["data"]
    assert [m["id"] for m in latest["artifact"]["managers"]] == ["berkshire-hathaway-inc"]


def test_managers_named_alike_by_their_filings_each_add_their_cik_and_a_given_id_is_kept():
    def filing(cik: str, name: str, filed: date) -> Filing:
        return Filing(
            f"x{cik}", f"000000000{cik[-1]}-20-000001", cik, name, "13F-HR", "13F HOLDINGS REPORT", Q2_2020, filed,
            Amendment.ORIGINAL, 0, ValueUnit.THOUSANDS, "rule", 0, 0, False, (),
        )  # fmt: skip

    managers = [
        ManagerConfig("", "", "0000000001"),
        ManagerConfig("", "", "0000000002"),
        ManagerConfig("mine", "", "3"),
    ]
    found = [
        filing("0000000001", "OLD NAME LLC", date(2020, 1, 1)),
        filing("0000000001", "ALIKE CAPITAL, L.P.", date(2020, 8, 1)),  # the newest names it
        filing("0000000002", "Alike Capital LP", date(2020, 8, 2)),
    ]
    named = named_managers(managers, found)
    assert [(m.id, m.name) for m in named] == [
        ("alike-capital-l-p", "ALIKE CAPITAL, L.P."),
        ("alike-capital-lp", "Alike Capital LP"),
        ("mine", "CIK 3"),
    ]
    twins = named_managers(managers[:2], [found[1], filing("0000000002", "Alike Capital, L.P.", date(2020, 8, 2))])
    assert [m.id for m in twins] == ["alike-capital-l-p-1", "alike-capital-l-p-2"]


def test_a_manager_pinned_to_its_filings_takes_nothing_from_the_data_sets(tmp_path):
    files = berkshire_tree(tmp_path / "files", versions=4)
    sets = as_sets(files, tmp_path / "sets")
    with (sets / "packs.toml").open("a") as packs:
        packs.write('source = "filings"\n')  # the one manager's entry is the file's last table
    result = CliRunner().invoke(main, ["publish", "--source", str(sets), "--releases", str(tmp_path / "rel")])
    assert result.exit_code == 1
    assert "Berkshire Hathaway Inc (CIK 0001067983) has no folder sec13f/0001067983/" in result.output
    shutil.copytree(files / "sec13f", sets / "sec13f")  # its files: read from them, whatever the sets hold
    assert {f.filed_from for f in filings(sets)} == {"submission header"}
