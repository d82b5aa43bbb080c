"""The Form 13F data-set reader: small zips in the SEC's layout (real small tables trimmed, INFOTABLE rows written
from Berkshire Hathaway's real filings), read in place into Witnesses; amendments, units, the cache, hostile zips."""

from __future__ import annotations

import shutil
import zipfile
from datetime import date
from multiprocessing.sharedctypes import RawValue
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bench import datasets_set
from builder.cli import main
from builder.records import HoldingRow
from builder.release.build import DATASETS_CACHE
from builder.sources import pack_filings
from builder.sources.datasets import members, reader
from builder.sources.datasets.reader import read_witnesses
from builder.sources.files import DEFAULT_LIMITS
from builder.sources.sec13f.parsed import Envelope, parse_file
from builder.sources.tree import fixture_source, read_sources
from tests.conftest import REALDATA

SETS = REALDATA / "sec-datasets" / "01mar2025-31may2025_form13f"
BERKSHIRE = REALDATA / "sec13f" / "berkshire_hathaway_0001067983"
Q4_2019 = BERKSHIRE / "2019-12-31_0000950123-20-002466.txt"
Q1_2020 = BERKSHIRE / "2020-03-31_0000950123-20-005345.txt"
APPLE = "037833100"
CIK = 1067983
INFOTABLE_COLUMNS = (
    "ACCESSION_NUMBER\tINFOTABLE_SK\tNAMEOFISSUER\tTITLEOFCLASS\tCUSIP\tFIGI\tVALUE\tSSHPRNAMT\tSSHPRNAMTTYPE\t"
    "PUTCALL\tINVESTMENTDISCRETION\tOTHERMANAGER\tVOTING_AUTH_SOLE\tVOTING_AUTH_SHARED\tVOTING_AUTH_NONE"
)
MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]

pytestmark = pytest.mark.skipif(not BERKSHIRE.is_dir(), reason="../shared/realdata is not beside this checkout")


def day(value: date) -> str:
    return f"{value.day:02d}-{MONTHS[value.month - 1]}-{value.year}"


def envelope(path: Path) -> Envelope:
    parsed = parse_file(path.read_bytes())
    assert isinstance(parsed, Envelope)
    return parsed


def info_rows(accession: str, rows: tuple[HoldingRow, ...]) -> list[str]:
    return [
        f"{accession}\t{r.row}\t{r.issuer}\t{r.title_of_class}\t{r.cusip}\t\t{r.value}\t{r.shares}\t{r.share_type}\t"
        f"{r.put_call or ''}\t{r.discretion}\t{r.other_managers}\t{r.voting_sole}\t{r.voting_shared}\t0"
        for r in rows
    ]


def real_head(name: str, lines: int = 40) -> list[str]:
    """The first rows of one of the real small tables (other filers, other periods)."""
    return (SETS / name).read_text().splitlines()[:lines]


class Set:
    """One data set being written: filings (SUBMISSION, COVERPAGE) and INFOTABLE rows."""

    def __init__(self) -> None:
        submission, cover = real_head("SUBMISSION.tsv"), real_head("COVERPAGE.tsv")
        self.tables = {"SUBMISSION.tsv": submission, "COVERPAGE.tsv": cover, "INFOTABLE.tsv": [INFOTABLE_COLUMNS]}
        for name in ("SUMMARYPAGE.tsv", "OTHERMANAGER.tsv", "OTHERMANAGER2.tsv", "SIGNATURE.tsv"):
            self.tables[name] = real_head(name, 5)

    def filing(self, accession, period, filed, rows, amendment="", number="", cik=CIK) -> Set:
        form = "13F-HR/A" if amendment else "13F-HR"
        self.tables["SUBMISSION.tsv"].append(f"{accession}\t{day(filed)}\t{form}\t{cik:010d}\t{day(period)}")
        flag = "Y" if amendment else "N"
        cover = f"{accession}\t{day(period)}\t{flag}\t{number}\t{amendment}" + "\t" * 16
        self.tables["COVERPAGE.tsv"].append(cover)
        self.tables["INFOTABLE.tsv"] += info_rows(accession, rows)
        return self

    def write(self, path: Path, folder: str = "") -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, lines in self.tables.items():
                archive.writestr(folder + name, "\n".join(lines) + "\n")
        return path


def berkshire_set(folder: str = "") -> tuple[Set, Envelope]:
    q4 = envelope(Q4_2019)
    assert q4.primary is not None
    return Set().filing(q4.accession, q4.primary.period, q4.filed, q4.rows), q4


def long_equity(rows: tuple[HoldingRow, ...], cusip: str) -> tuple[int, int]:
    chosen = [r for r in rows if r.cusip == cusip and r.share_type == "SH" and r.put_call is None]
    return sum(r.shares for r in chosen), sum(r.value for r in chosen)


def read(root: Path, cusips=frozenset({APPLE}), cache: Path | None = None):
    return read_witnesses(root, frozenset(cusips), cache, DEFAULT_LIMITS)


def held(witnesses, period: date, cusip: str, cik: int = CIK) -> tuple[int, int] | None:
    holders = witnesses.quarters[period].get(cusip)
    if holders is None or cik not in holders.ciks:
        return None
    at = list(holders.ciks).index(cik)
    return holders.shares[at], holders.values[at]


def test_a_cusips_shares_for_a_filer_are_its_filings_summed_rows_and_thousands_become_dollars(tmp_path: Path):
    written, q4 = berkshire_set()
    written.write(tmp_path / "sec13f-datasets" / "2020q1_form13f.zip")
    result = read(tmp_path)
    assert result.problems == ()
    shares, value = long_equity(q4.rows, APPLE)
    assert shares > 0
    assert held(result.witnesses, date(2019, 12, 31), APPLE) == (shares, value * 1000)  # filed 2020: thousands
    assert result.witnesses.filers[date(2019, 12, 31)] == 1
    assert result.files[0].path == "sec13f-datasets/2020q1_form13f.zip"
    assert "read 1 data sets" in result.reports[0]


def test_every_cusips_holders_are_its_own_with_many_securities_and_filers(tmp_path: Path):
    q4, q1 = envelope(Q4_2019), envelope(Q1_2020)
    period, other = date(2019, 12, 31), 1_000_001  # Berkshire's next book filed as another filer's, same quarter
    written = Set().filing(q4.accession, period, q4.filed, q4.rows)
    written.filing(q1.accession, period, q1.filed, q1.rows, cik=other)
    written.write(tmp_path / "sec13f-datasets" / "a.zip")
    cusips = {r.cusip for r in (*q4.rows, *q1.rows)}
    witnesses = read(tmp_path, cusips).witnesses
    for cusip in cusips:
        for cik, rows in ((CIK, q4.rows), (other, q1.rows)):
            shares, value = long_equity(rows, cusip)
            assert held(witnesses, period, cusip, cik) == ((shares, value * 1000) if shares else None), cusip


def test_rows_of_one_cusip_in_one_accession_are_summed_never_deduplicated(tmp_path: Path):
    q1 = envelope(Q1_2020)
    split = [r for r in q1.rows if r.cusip == APPLE]
    period = date(2020, 3, 31)
    Set().filing(q1.accession, period, q1.filed, (*split, *split)).write(tmp_path / "sec13f-datasets" / "a.zip")
    shares, value = long_equity(q1.rows, APPLE)
    assert held(read(tmp_path).witnesses, period, APPLE) == (2 * shares, 2 * value * 1000)


def test_a_restatement_in_a_later_set_replaces_and_new_holdings_add(tmp_path: Path):
    written, q4 = berkshire_set()
    written.write(tmp_path / "sec13f-datasets" / "2020q1_form13f.zip")
    period = date(2019, 12, 31)
    apple = next(r for r in q4.rows if r.cusip == APPLE)
    restated = HoldingRow(1, apple.issuer, "COM", APPLE, 1, 10, "SH", None, "DFND", "", 10, 0, 0)
    added = HoldingRow(1, "EXAMPLE CO", "COM", "00206R102", 2, 50, "SH", None, "DFND", "", 50, 0, 0)
    later = Set().filing("0000950123-20-009999", period, date(2020, 5, 15), (restated,), "RESTATEMENT", "1")
    later.filing("0000950123-20-010000", period, date(2020, 5, 20), (added,), "NEW HOLDINGS", "2")
    later.write(tmp_path / "sec13f-datasets" / "2020q2_form13f.zip")
    witnesses = read(tmp_path, {APPLE, "00206R102", "023135106"}).witnesses
    assert held(witnesses, period, APPLE) == (10, 1_000)  # thousands by date: $100 a share
    assert held(witnesses, period, "00206R102") == (50, 2_000)
    assert held(witnesses, period, "023135106") is None  # Amazon: in the original only, which was restated


def test_a_restatement_made_after_the_as_of_date_is_left_out(tmp_path: Path):
    written, q4 = berkshire_set()
    written.write(tmp_path / "sec13f-datasets" / "2020q1_form13f.zip")
    period = date(2019, 12, 31)
    restated = HoldingRow(1, "APPLE INC", "COM", APPLE, 1, 10, "SH", None, "DFND", "", 10, 0, 0)
    later = Set().filing("0000950123-20-009999", period, date(2020, 5, 15), (restated,), "RESTATEMENT", "1")
    later.write(tmp_path / "sec13f-datasets" / "2020q2_form13f.zip")
    result = read_witnesses(tmp_path, frozenset({APPLE}), None, DEFAULT_LIMITS, date(2020, 3, 31))
    shares, value = long_equity(q4.rows, APPLE)
    assert held(result.witnesses, period, APPLE) == (shares, value * 1000)
    assert "filings made after the as-of date left out" in result.reports[0]  # and the real 2025 rows


def test_values_of_filings_made_from_2023_01_03_are_dollars_and_options_and_prn_are_left_out(tmp_path: Path):
    period, filed = date(2024, 12, 31), date(2025, 2, 14)
    rows = (
        HoldingRow(1, "APPLE INC", "COM", APPLE, 250_000_000, 1_000_000, "SH", None, "SOLE", "", 0, 0, 0),
        HoldingRow(2, "APPLE INC", "COM", APPLE, 25_000_000, 100_000, "SH", "Call", "SOLE", "", 0, 0, 0),
        HoldingRow(3, "APPLE INC", "NOTE", APPLE, 5_000_000, 5_000_000, "PRN", None, "SOLE", "", 0, 0, 0),
    )
    Set().filing("0000950123-25-000001", period, filed, rows).write(tmp_path / "sec13f-datasets" / "x.zip")
    assert held(read(tmp_path).witnesses, period, APPLE) == (1_000_000, 250_000_000)


def test_an_archive_with_its_members_under_a_folder_reads(tmp_path: Path):
    written, q4 = berkshire_set()
    written.write(tmp_path / "sec13f-datasets" / "01jun2025-31aug2025_form13f.zip", "01JUN2025-31AUG2025_form13f/")
    shares, value = long_equity(q4.rows, APPLE)
    assert held(read(tmp_path).witnesses, date(2019, 12, 31), APPLE) == (shares, value * 1000)


def test_the_second_read_opens_no_zip_and_gives_the_same_witnesses(tmp_path: Path):
    berkshire_set()[0].write(tmp_path / "sec13f-datasets" / "2020q1_form13f.zip")
    first = read(tmp_path, cache=tmp_path / "cache")
    opened = members.Archive.opened
    second = read(tmp_path, cache=tmp_path / "cache")
    assert members.Archive.opened == opened
    assert "1 from cache" in second.reports[0] and "0 from cache" in first.reports[0]
    assert second.witnesses == first.witnesses
    other = read(tmp_path, {APPLE, "023135106"}, cache=tmp_path / "cache")  # the cache holds every CUSIP
    assert set(other.witnesses.quarters[date(2019, 12, 31)]) == {APPLE, "023135106"}


def test_a_bad_row_is_counted_in_the_report_not_fatal(tmp_path: Path):
    written, _ = berkshire_set()
    bad = "0000950123-20-002466\t9\tBAD INC\tCOM\tNOT-A-CUS\t\t12\t3\tSH\t\tSOLE\t\t0\t0\t0"
    written.tables["INFOTABLE.tsv"] += [bad, bad.replace("NOT-A-CUS", APPLE).replace("\t12\t", "\t1.5e3\t")]
    written.write(tmp_path / "sec13f-datasets" / "a.zip")
    result = read(tmp_path)
    assert result.problems == ()
    assert "2 bad rows skipped" in result.reports[0]


def hostile(tmp_path: Path, case: str) -> Path:
    path = tmp_path / "sec13f-datasets" / "hostile.zip"
    good = berkshire_set()[0].write(tmp_path / "good.zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    if case == "truncated":
        path.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    elif case == "not a zip":
        path.write_bytes(b"<html>Request rate threshold exceeded</html>")
    elif case == "bomb":
        written = berkshire_set()[0]
        written.tables["INFOTABLE.tsv"] += ["\t" * 14] * 400_000  # 5.6 MB of tabs deflates ~1000 times
        written.write(path)
    elif case == "missing column":
        written = berkshire_set()[0]
        written.tables["INFOTABLE.tsv"] = [line.replace("\t", "\tX", 1) for line in written.tables["INFOTABLE.tsv"]]
        written.tables["INFOTABLE.tsv"][0] = INFOTABLE_COLUMNS.replace("CUSIP\t", "")
        written.write(path)
    elif case == "lies about its size":
        shutil.copy(good, path)
        data = bytearray(path.read_bytes())
        with zipfile.ZipFile(good) as archive:
            info = archive.getinfo("INFOTABLE.tsv")
        # the central directory's and the local header's stated size of INFOTABLE.tsv, halved
        for header in (b"PK\x01\x02", b"PK\x03\x04"):
            start = 0
            while (start := data.find(header, start)) >= 0:
                offset = 24 if header == b"PK\x01\x02" else 22
                if int.from_bytes(data[start + offset : start + offset + 4], "little") == info.file_size:
                    data[start + offset : start + offset + 4] = (info.file_size // 2).to_bytes(4, "little")
                start += 4
        path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("case", ["truncated", "not a zip", "bomb", "missing column", "lies about its size"])
def test_a_hostile_zip_is_one_problem_naming_the_file(tmp_path: Path, case: str):
    hostile(tmp_path, case)
    result = read(tmp_path)
    assert result.witnesses is None
    assert [problem.source for problem in result.problems] == ["sec13f-datasets/hostile.zip"], result.problems
    said = {"truncated": "not a whole zip", "not a zip": "not a whole zip", "bomb": "zip bomb"}
    said |= {"missing column": "INFOTABLE.tsv lacks the column CUSIP", "lies about its size": "Bad CRC-32"}
    assert said[case] in result.problems[0].message


def test_read_sources_sets_the_witnesses_and_names_the_zips_in_the_provenance(tmp_path: Path):
    root = tmp_path / "source"
    shutil.copytree(fixture_source(), root)
    berkshire_set()[0].write(root / "sec13f-datasets" / "2020q1_form13f.zip")
    sources, reports = read_sources(root)
    assert sources.witnesses is not None and sources.witnesses.origin == "sec13f-datasets"
    assert "sec13f-datasets/2020q1_form13f.zip" in [f.path for f in sources.files]
    assert any(line.startswith("read 1 data sets") for line in reports)


def test_digits_of_other_scripts_are_bad_rows_not_a_failed_set(tmp_path: Path):
    written, _ = berkshire_set()
    row = f"0000950123-20-002466\t9\tX INC\tCOM\t{APPLE}\t\t١٢\t3\tSH\t\tSOLE\t\t0\t0\t0"
    written.tables["INFOTABLE.tsv"] += [row, row.replace(APPLE, "０３７８３３１００").replace("١٢", "12")]
    written.write(tmp_path / "sec13f-datasets" / "a.zip")
    result = read(tmp_path)
    assert result.problems == ()
    assert "2 bad rows skipped" in result.reports[0]


def test_a_publish_with_a_cut_data_set_says_one_error_naming_it_and_promotes_nothing(tmp_path: Path):
    root = tmp_path / "source"
    shutil.copytree(fixture_source(), root)
    hostile(root, "truncated")
    result = CliRunner().invoke(main, ["publish", "--source", str(root), "--releases", str(tmp_path / "releases")])
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert errors == [
        "Error: sec13f-datasets/hostile.zip: is not a whole zip archive (a cut download, or not a zip at all): "
        "File is not a zip file"
    ]
    assert not (tmp_path / "releases" / "current").exists()


def test_a_publish_reads_the_data_sets_once_and_a_half_written_cache_entry_is_removed(tmp_path: Path, monkeypatch):
    root, releases = tmp_path / "source", tmp_path / "releases"
    shutil.copytree(fixture_source(), root)
    berkshire_set()[0].write(root / "sec13f-datasets" / "2020q1_form13f.zip")
    hashed, spawned = counted(monkeypatch, reader, "_source_file"), counted(monkeypatch, pack_filings, "get_context")
    first = CliRunner().invoke(main, ["publish", "--source", str(root), "--releases", str(releases)])
    assert first.exit_code == 0, first.output
    assert "0 from cache" in first.output
    assert (hashed.value, spawned.value) == (1, 1)  # the zip hashed once, its entry written by a process of its own
    (entry,) = (p for p in (releases / DATASETS_CACHE).glob("*/*/*.parquet") if not p.name.endswith(".rows.parquet"))
    left = entry.parent / ".entry-half"
    left.write_bytes(b"PAR1")
    with (root / "packs.toml").open("a") as config:  # another input, so the sources are read again
        config.write("\n# read again\n")
    second = CliRunner().invoke(main, ["publish", "--source", str(root), "--releases", str(releases)])
    assert second.exit_code == 0, second.output
    assert "1 from cache" in second.output and not left.exists()
    assert (hashed.value, spawned.value) == (2, 1)  # hashed once more, and no process started: the entry is there


def counted(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> Any:
    """Count the calls of `module.name` from here on, in this process and those forked from it (a publish reads its
    sources in one), in shared memory; a spawned process imports its own module, uncounted."""
    calls, original = RawValue("i", 0), getattr(module, name)

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.value += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counting)
    return calls


def test_the_real_submission_and_coverpage_tables_read_whole(tmp_path: Path):
    written = Set()
    written.tables["SUBMISSION.tsv"] = (SETS / "SUBMISSION.tsv").read_text().splitlines()
    written.tables["COVERPAGE.tsv"] = (SETS / "COVERPAGE.tsv").read_text().splitlines()
    written.write(tmp_path / "sec13f-datasets" / "01mar2025-31may2025_form13f.zip", "01MAR2025-31MAY2025_form13f/")
    result = read(tmp_path)
    assert result.problems == () and "bad rows" not in result.reports[0]
    # 10,765 submissions; the 13F holdings reports (not the notices) are the filers, by PERIODOFREPORT
    assert result.witnesses.filers[date(2025, 3, 31)] > 7_000
    assert sum(result.witnesses.filers.values()) < 10_765


def test_a_small_table_stating_more_than_its_limit_is_refused_before_it_is_read(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(members, "TABLE_BYTES", 1000)
    berkshire_set()[0].write(tmp_path / "sec13f-datasets" / "a.zip")
    (problem,) = read(tmp_path).problems
    assert problem.source == "sec13f-datasets/a.zip"
    assert problem.message.startswith("SUBMISSION.tsv states ") and "over the" in problem.message


def test_a_generated_set_of_many_blocks_gives_each_cusip_its_own_holders(tmp_path: Path):
    zipped = tmp_path / "sec13f-datasets" / "01jun2025-31aug2025_form13f.zip"
    zipped.parent.mkdir()
    datasets_set.write_set(zipped, 150_000)
    expected: dict[tuple[str, int], list[int]] = {}
    with zipfile.ZipFile(zipped) as archive:
        lines = archive.read(datasets_set.FOLDER + "INFOTABLE.tsv").decode().splitlines()[1:]
    for line in lines:
        fields = line.split("\t")
        if fields[8] == "SH" and not fields[9]:
            number = int(fields[0][4:10])  # datasets_set.accession(number): the filer's number
            entry = expected.setdefault((fields[4], int(datasets_set.cik(number))), [0, 0])
            entry[0] += int(fields[7])
            entry[1] += int(fields[6])
    witnesses = read(tmp_path, {cusip for cusip, _ in expected}).witnesses
    found = {
        (cusip, cik): [holders.shares[i], holders.values[i]]
        for cusip, holders in witnesses.quarters[date(2025, 6, 30)].items()
        for i, cik in enumerate(holders.ciks)
    }
    assert found == expected
