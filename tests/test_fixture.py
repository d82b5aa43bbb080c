"""The embedded fixture source tree: reproducible from scripts/make_fixture.py, well-formed, and as DESIGN asks."""

from __future__ import annotations

import csv
import io
import itertools
import re
import subprocess
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from defusedxml import ElementTree

from builder.records import Amendment, Filing, HoldingRow, ValueUnit
from builder.sources.sec13f.writer import full_submission

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "builder" / "fixture" / "source"
SCRIPT = ROOT / "scripts" / "make_fixture.py"
LATEST, PREVIOUS = date(2026, 9, 30), date(2026, 6, 30)
EXPECTED_COMMON = [
    date(2024, 9, 30),
    date(2024, 12, 31),
    date(2025, 6, 30),
    date(2025, 9, 30),
    date(2025, 12, 31),
    date(2026, 3, 31),
    date(2026, 6, 30),
    date(2026, 9, 30),
]
XML_SECTION = re.compile(rb"<XML>\s*(.*?)\s*</XML>", re.DOTALL)


@dataclass
class Doc:
    """One filing as read back from the tree, by local element names (namespaces and prefixes ignored)."""

    path: str
    cik: str
    form: str
    amendment: str  # "", "RESTATEMENT" or "NEW HOLDINGS"
    period: date
    filed: date
    entries: int
    total: int
    rows: list[dict[str, str]]


def local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1].split(":")[-1]


def find(root, name: str) -> str:
    found = next((el for el in root.iter() if local(el.tag) == name), None)
    return "" if found is None or found.text is None else found.text.strip()


def mdy(text: str) -> date:
    return datetime.strptime(text, "%m-%d-%Y").date()


def parse_doc(path: str, primary: bytes, table: bytes) -> Doc:
    cover, info = ElementTree.fromstring(primary), ElementTree.fromstring(table)
    rows = [
        {local(el.tag): (el.text or "").strip() for el in entry.iter()}
        for entry in info
        if local(entry.tag) == "infoTable"
    ]
    return Doc(
        path,
        find(cover, "cik"),
        find(cover, "submissionType"),
        find(cover, "amendmentType"),
        mdy(find(cover, "periodOfReport")),
        mdy(find(cover, "signatureDate")),
        int(find(cover, "tableEntryTotal")),
        int(find(cover, "tableValueTotal")),
        rows,
    )


def read_docs(root: Path) -> list[Doc]:
    docs = []
    for primary in sorted(root.glob("sec13f/*/*/primary_doc.xml")):
        docs.append(
            parse_doc(
                primary.relative_to(root).as_posix(),
                primary.read_bytes(),
                (primary.parent / "infotable.xml").read_bytes(),
            )
        )
    for text in sorted(root.glob("sec13f/*/*.txt")):
        primary, table = XML_SECTION.findall(text.read_bytes())
        docs.append(parse_doc(text.relative_to(root).as_posix(), primary, table))
    return docs


@pytest.fixture(scope="module")
def docs() -> list[Doc]:
    return read_docs(SOURCE)


@pytest.fixture(scope="module")
def packs() -> dict:
    return tomllib.loads((SOURCE / "packs.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tickers() -> dict[str, str]:
    reader = csv.DictReader(io.StringIO((SOURCE / "securities.csv").read_text(encoding="utf-8")))
    return {row["cusip"]: row["ticker"] for row in reader}


def run_script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


def files_of(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_committed_fixture_is_byte_identical_to_a_fresh_generation(tmp_path):
    assert run_script("--out", str(tmp_path / "fresh")).returncode == 0
    fresh, committed = files_of(tmp_path / "fresh"), files_of(SOURCE)
    assert sorted(fresh) == sorted(committed)
    assert [name for name in fresh if fresh[name] != committed[name]] == []


def test_check_mode_names_a_changed_file_and_exits_1(tmp_path):
    out = tmp_path / "tree"
    run_script("--out", str(out))
    assert run_script("--check", "--out", str(out)).returncode == 0
    (out / "securities.csv").write_text("cusip,ticker,name\n", encoding="utf-8")
    (out / "stale.txt").write_text("left over", encoding="utf-8")
    result = run_script("--check", "--out", str(out))
    assert result.returncode == 1
    assert "differs securities.csv" in result.stdout and "extra stale.txt" in result.stdout


def test_generation_removes_stale_files(tmp_path):
    out = tmp_path / "tree"
    run_script("--out", str(out))
    (out / "sec13f" / "stale.xml").write_text("<x/>", encoding="utf-8")
    run_script("--out", str(out))
    assert not (out / "sec13f" / "stale.xml").exists()


def test_every_xml_document_parses_with_defusedxml(docs):
    for path in SOURCE.rglob("*.xml"):
        ElementTree.fromstring(path.read_bytes())
    filings = SOURCE / "sec13f"
    assert len(list(filings.rglob("*.xml"))) + 2 * len(list(filings.rglob("*.txt"))) == 2 * len(docs)


def test_writer_escapes_text_and_round_trips_a_filing():
    row = HoldingRow(1, "AT&T <INC>", "COM", "00206R102", 2200, 100, "SH", "Call", "DFND", "1,2", 0, 100, 0)
    filing = Filing(
        "x.txt",
        "9900000099-26-000001",
        "9900000099",
        'Q&A "Partners" <fictional>',
        "13F-HR/A",
        "13F HOLDINGS REPORT",
        date(2026, 9, 30),
        date(2026, 11, 2),
        Amendment.NEW_HOLDINGS,
        2,
        ValueUnit.DOLLARS,
        "filed-on-or-after-2023-01-03",
        None,
        None,
        False,
        (row,),
    )
    primary, table = XML_SECTION.findall(full_submission(filing, prefix="ns1"))
    doc = parse_doc("x.txt", primary, table)
    assert (doc.form, doc.amendment, doc.period, doc.filed, doc.entries, doc.total) == (
        "13F-HR/A",
        "NEW HOLDINGS",
        date(2026, 9, 30),
        date(2026, 11, 2),
        1,
        2200,
    )
    assert find(ElementTree.fromstring(primary), "name") == 'Q&A "Partners" <fictional>'
    assert doc.rows[0]["nameOfIssuer"] == "AT&T <INC>" and doc.rows[0]["otherManager"] == "1,2"
    assert doc.rows[0]["putCall"] == "Call" and doc.rows[0]["Shared"] == "100"


def test_managers_are_fictional_with_unused_ciks_and_matching_accessions(packs, docs):
    managers = packs["copycat"]["managers"]
    assert packs["source"]["fixture"] is True and packs["copycat"]["versions"] == 8
    assert len(managers) >= 6
    for manager in managers:
        assert manager["name"].endswith("(fictional)") and manager["fictional"] is True
        assert re.fullmatch(r"99000000\d\d", manager["cik"]) and re.fullmatch(r"[a-z]+", manager["id"])
    ciks = {manager["cik"] for manager in managers}
    for doc in docs:
        accession = Path(doc.path).name.removesuffix(".txt") if doc.path.endswith(".txt") else doc.path.split("/")[2]
        assert doc.cik in ciks and doc.path.startswith(f"sec13f/{doc.cik}/")
        assert re.fullmatch(rf"{doc.cik}-{doc.filed.year % 100:02d}-\d{{6}}", accession)


def quarters_filed(docs: list[Doc]) -> dict[str, set[date]]:
    filed = defaultdict(set)
    for doc in docs:
        filed[doc.cik].add(doc.period)
    return filed


def test_the_newest_eight_common_quarters_are_not_everyones_last_eight(docs):
    filed = quarters_filed(docs)
    common = sorted(set.intersection(*filed.values()))
    assert common[-8:] == EXPECTED_COMMON
    assert len(set().union(*filed.values())) >= 10 and max(set().union(*filed.values())) == LATEST
    assert any(sorted(quarters)[-8:] != EXPECTED_COMMON for quarters in filed.values())
    assert min(min(quarters) for quarters in filed.values()) == date(2022, 9, 30)
    assert max(min(quarters) for quarters in filed.values()) == date(2024, 6, 30)


def test_filings_are_dated_within_45_days_of_quarter_end(docs):
    for doc in docs:
        assert doc.period < doc.filed <= doc.period + timedelta(days=45), doc.path


def test_summary_pages_match_their_tables(docs):
    for doc in docs:
        assert doc.entries == len(doc.rows), doc.path
        assert doc.total == sum(int(row["value"]) for row in doc.rows), doc.path


def cusip_check_digit_ok(cusip: str) -> bool:
    """The CUSIP check digit (modulus 10, double-add-double)."""
    total = 0
    for index, char in enumerate(cusip[:8]):
        value = int(char) if char.isdigit() else ord(char) - ord("A") + 10
        value = value * 2 if index % 2 else value
        total += value // 10 + value % 10
    return (10 - total % 10) % 10 == int(cusip[8])


def test_securities_are_80_or_more_real_cusips_with_tickers(tickers, docs):
    assert len(tickers) >= 80 and len(set(tickers.values())) == len(tickers)
    assert all(cusip_check_digit_ok(cusip) for cusip in tickers)
    filed = {row["cusip"] for doc in docs for row in doc.rows}
    assert all(cusip_check_digit_ok(cusip) for cusip in filed)
    assert len(filed & set(tickers)) >= 80


def dollars(doc: Doc, value: int) -> int:
    return value * 1000 if doc.filed < date(2023, 1, 3) else value


def test_implied_share_prices_are_plausible(docs):
    for doc in docs:
        for row in doc.rows:
            if row["sshPrnamtType"] == "SH":
                assert 5 <= dollars(doc, int(row["value"])) / int(row["sshPrnamt"]) <= 1500, (doc.path, row["cusip"])


def book(docs: list[Doc], cik: str, period: date) -> dict[str, int]:
    """Long-equity shares by CUSIP after amendments: a restatement replaces, new holdings add."""
    rows: list[dict[str, str]] = []
    for doc in sorted((d for d in docs if d.cik == cik and d.period == period), key=lambda d: d.filed):
        rows = rows + doc.rows if doc.amendment == "NEW HOLDINGS" else list(doc.rows)
    shares: dict[str, int] = defaultdict(int)
    for row in rows:
        if row["sshPrnamtType"] == "SH" and "putCall" not in row:
            shares[row["cusip"]] += int(row["sshPrnamt"])
    return dict(shares)


def test_every_book_holds_25_to_60_positions_with_turnover(docs):
    for cik, periods in quarters_filed(docs).items():
        kinds = defaultdict(int)
        for before, after in itertools.pairwise(sorted(periods)):
            old, new = book(docs, cik, before), book(docs, cik, after)
            assert 25 <= len(new) <= 60 and 25 <= len(old) <= 60
            kinds["exited"] += len(old.keys() - new.keys())
            kinds["new"] += len(new.keys() - old.keys())
            for cusip in old.keys() & new.keys():
                kinds["added" if new[cusip] > old[cusip] else "reduced" if new[cusip] < old[cusip] else "same"] += 1
        assert min(kinds[k] for k in ("exited", "new", "added", "reduced", "same")) >= 5, (cik, dict(kinds))


def test_quirks_are_each_present(docs, tickers):
    rows = [(doc, row) for doc in docs for row in doc.rows]
    split = {(doc.path, row["cusip"]) for doc, row in rows if row.get("otherManager")}
    assert split and all(sum(1 for d, r in rows if (d.path, r["cusip"]) == key) >= 2 for key in split)
    assert {row.get("putCall") for _, row in rows} >= {"Put", "Call"}
    assert any(row["sshPrnamtType"] == "PRN" for _, row in rows)
    assert {row["cusip"] for _, row in rows} - set(tickers)  # an unmapped CUSIP
    assert any(doc.path.endswith(".txt") for doc in docs)
    assert any("<ns1:infoTable>" in p.read_text(encoding="utf-8") for p in SOURCE.rglob("infotable.xml"))


def test_pre_2023_filing_reports_thousands_and_the_next_reports_dollars(docs):
    early = {doc.period: doc for doc in docs if doc.period < date(2023, 1, 1)}
    assert early[date(2022, 9, 30)].filed < date(2023, 1, 3) and early[date(2022, 9, 30)].filed.month == 11
    assert early[date(2022, 12, 31)].filed.month == 2
    for doc, scale in ((early[date(2022, 9, 30)], 1000), (early[date(2022, 12, 31)], 1)):
        prices = [int(row["value"]) * scale / int(row["sshPrnamt"]) for row in doc.rows]
        assert all(5 <= price <= 1500 for price in prices)


def amendments(docs: list[Doc], kind: str) -> list[tuple[Doc, Doc]]:
    """(original, amendment) pairs of one kind."""
    return [
        (next(o for o in docs if o.cik == a.cik and o.period == a.period and not o.amendment), a)
        for a in docs
        if a.amendment == kind
    ]


def test_new_holdings_amendment_adds_rows_in_a_recent_common_quarter(docs):
    [(original, amendment)] = amendments(docs, "NEW HOLDINGS")
    assert amendment.form == "13F-HR/A" and amendment.period in EXPECTED_COMMON[-2:]
    assert 0 < len(amendment.rows) < len(original.rows) and original.filed < amendment.filed
    assert not {row["cusip"] for row in amendment.rows} & {row["cusip"] for row in original.rows}


def test_restatement_replaces_a_quarter_with_changed_share_counts(docs):
    [(original, amendment)] = amendments(docs, "RESTATEMENT")
    assert amendment.form == "13F-HR/A" and amendment.period in EXPECTED_COMMON and original.filed < amendment.filed
    before = {(r["cusip"], r.get("putCall"), r.get("otherManager")): r["sshPrnamt"] for r in original.rows}
    after = {(r["cusip"], r.get("putCall"), r.get("otherManager")): r["sshPrnamt"] for r in amendment.rows}
    assert before.keys() == after.keys() and sum(before[k] != after[k] for k in before) >= 2


def view_counts(docs: list[Doc], tickers: dict[str, str]) -> dict[str, int]:
    """Tickers (or unmapped CUSIPs) per view mode on the latest quarter, all managers selected."""
    holders, buyers, sellers = defaultdict(int), set(), set()
    for cik in quarters_filed(docs):
        old, new = book(docs, cik, PREVIOUS), book(docs, cik, LATEST)
        for cusip in new:
            holders[tickers.get(cusip, cusip)] += 1
        buyers |= {tickers.get(c, c) for c in new if new[c] > old.get(c, 0)}
        sellers |= {tickers.get(c, c) for c in old if new.get(c, 0) < old[c]}
    return {
        "any": len(holders),
        "overlap": sum(n >= 2 for n in holders.values()),
        "exclusive": sum(n == 1 for n in holders.values()),
        "disagreement": len(buyers & sellers),
    }


def test_every_view_mode_has_several_tickers_on_the_latest_quarter(docs, tickers):
    counts = view_counts(docs, tickers)
    assert min(counts.values()) >= 3, counts
