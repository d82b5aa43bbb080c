"""bench/universe.py and bench/datasets_writer.py: a pack plus witnesses in the SEC's Form 13F data sets, with every
kind of corporate action injected (or none), and the ground truth of what each holder's shares did."""

from __future__ import annotations

import csv
import io
import json
import math
import zipfile
from collections import defaultdict
from datetime import date, datetime
from itertools import pairwise
from pathlib import Path

import pytest

from bench import datasets_writer, universe
from bench.universe_events import EVENTS, ratio_of
from builder.sources.tree import read_sources
from tests.berkshire import CIK
from tests.berkshire_universe import WITNESS_CIK_BASE, berkshire_universe
from tests.conftest import realdata
from tests.test_bench_synthetic import files_of

ALL = universe.Params(managers=3, quarters=4, positions=10, witnesses=12, actions="all", seed=5)
NONE = universe.Params(managers=3, quarters=4, positions=10, witnesses=12, actions="none", seed=5)
REAL_SET = ("sec-datasets", "01mar2025-31may2025_form13f")
Books = dict[tuple[date, str], dict[str, int]]  # (period, cik) → CUSIP → shares


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("universe")
    for params in (ALL, NONE):
        universe.write_universe(root / params.actions, params)
    return {"all": root / "all", "none": root / "none"}


def members(tree: Path) -> dict[str, dict[str, bytes]]:
    found = {}
    for path in sorted((tree / universe.DATASETS).iterdir()):
        with zipfile.ZipFile(path) as archive:
            found[path.name] = {name: archive.read(name) for name in archive.namelist()}
    return found


def table(body: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(body.decode("utf-8")), delimiter="\t", quotechar='"'))


def books_of(tree: Path) -> Books:
    books: Books = defaultdict(dict)
    for tables in members(tree).values():
        periods = {row["ACCESSION_NUMBER"]: row for row in table(tables["SUBMISSION.tsv"])}
        for row in table(tables["INFOTABLE.tsv"]):
            submission = periods[row["ACCESSION_NUMBER"]]
            period = datetime.strptime(submission["PERIODOFREPORT"], "%d-%b-%Y").date()
            book = books[period, submission["CIK"]]
            book[row["CUSIP"]] = book.get(row["CUSIP"], 0) + int(row["SSHPRNAMT"])
    return books


def ground_truth(tree: Path, name: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO((tree / name).read_text())))


def test_the_same_parameters_write_the_same_bytes(trees: dict[str, Path], tmp_path: Path) -> None:
    universe.write_universe(tmp_path / "again", ALL)
    assert files_of(tmp_path / "again") == files_of(trees["all"])


def test_every_member_has_the_header_line_of_the_secs_own_file(trees: dict[str, Path]) -> None:
    kept = [name for name in datasets_writer.COLUMNS if name != "INFOTABLE.tsv"]  # too large to keep a real copy of
    real = {name: realdata(*REAL_SET, name).read_bytes().split(b"\n", 1)[0] for name in kept}
    metadata = json.loads(realdata(*REAL_SET, "FORM13F_metadata.json").read_text())
    declared = {t["url"]: [c["name"] for c in t["tableSchema"]["columns"]] for t in metadata["tables"]}
    for tables in members(trees["all"]).values():
        assert list(tables) == list(datasets_writer.COLUMNS)
        for name, body in tables.items():
            header = body.split(b"\n", 1)[0]
            assert header.decode().split("\t") == declared[name]
            assert header == real.get(name, header)


def test_every_row_parses_as_the_secs_tab_separated_text(trees: dict[str, Path]) -> None:
    for tables in members(trees["all"]).values():
        for body in tables.values():
            assert b"\r" not in body and body.endswith(b"\n")
            rows = list(csv.reader(io.StringIO(body.decode()), delimiter="\t", quotechar='"'))
            assert {len(row) for row in rows} == {len(rows[0])}


def test_a_quote_in_a_field_is_doubled_and_reads_back() -> None:
    body = datasets_writer.tsv(("A", "B"), [('SAY "HI" INC', 7)])
    assert body == b'A\tB\n"SAY ""HI"" INC"\t7\n'
    assert table(body) == [{"A": 'SAY "HI" INC', "B": "7"}]


@pytest.mark.parametrize(
    ("filed", "name"),
    [
        (date(2019, 2, 14), "2019q1_form13f.zip"),
        (date(2023, 11, 14), "2023q4_form13f.zip"),
        (date(2024, 2, 14), "01jan2024-29feb2024_form13f.zip"),
        (date(2024, 5, 15), "01mar2024-31may2024_form13f.zip"),
        (date(2025, 2, 14), "01dec2024-28feb2025_form13f.zip"),
        (date(2026, 11, 13), "01sep2026-30nov2026_form13f.zip"),
    ],
)
def test_a_filing_goes_into_the_set_the_sec_names_for_its_filing_date(filed: date, name: str) -> None:
    assert datasets_writer.window_name(filed) == name


def test_values_are_thousands_before_2023_01_03_and_dollars_from_then() -> None:
    assert datasets_writer.filed_value(1_234_567, date(2022, 12, 30)) == 1235
    assert datasets_writer.filed_value(1_234_567, date(2023, 1, 3)) == 1_234_567
    assert datasets_writer.sec_date(date(2025, 3, 31)) == "31-MAR-2025"


def test_the_pack_reads_as_filings_without_warnings(trees: dict[str, Path]) -> None:
    sources, _ = read_sources(trees["all"])
    assert len(sources.filings) == ALL.managers * ALL.quarters
    assert not sources.warnings


def test_every_kind_of_event_is_injected_on_a_security_three_pack_managers_hold(trees: dict[str, Path]) -> None:
    books = books_of(trees["all"])
    events = ground_truth(trees["all"], "events.csv")
    assert {e["label"] for e in events} == {
        *("split", "reverse-split", "merger-new", "merger-held", "stock-and-cash", "cash-acquisition"),
        *("spin-off", "cusip-change", "reverse-split-renamed"),
    }
    pack = [f"{8_800_000_000 + n:010d}" for n in range(1, ALL.managers + 1)]
    for event in events:
        before = date.fromisoformat(event["period_before"])
        holders = [cik for (period, cik), book in books.items() if period == before and event["cusip"] in book]
        assert set(pack) <= set(holders) and len(holders) > len(pack) + 3, event


def test_each_holders_shares_move_exactly_as_the_event_says_plus_its_own_trade(trees: dict[str, Path]) -> None:
    books = books_of(trees["all"])
    events = {e["label"]: e for e in ground_truth(trees["all"], "events.csv")}
    rows = ground_truth(trees["all"], "events_holders.csv")
    assert any(int(row["traded"]) for row in rows)
    for row in rows:
        event = events[row["label"]]
        before, after = date.fromisoformat(event["period_before"]), date.fromisoformat(event["period_after"])
        held = books[before, row["cik"]]
        assert held.get(event["cusip"], 0) == int(row["before"]), row
        assert int(row["after"]) == int(row["carried"]) + int(row["traded"]), row
        if row["cusip"]:
            assert books[after, row["cik"]].get(row["cusip"]) == int(row["after"]), row
        expected = math.floor(int(row["before"]) * ratio_of(event["ratio"]))
        if event["label"] == "merger-held":
            expected += held.get(event["new_cusip"], 0)
        elif event["label"] == "spin-off" and row["cusip"] == event["cusip"]:
            expected = int(row["before"])
        elif event["label"] == "cash-acquisition":
            expected = 0
        assert int(row["carried"]) == expected, row


def test_a_split_leaves_an_odd_lot_behind_for_some_holder(trees: dict[str, Path]) -> None:
    rows = [
        r for r in ground_truth(trees["all"], "events_holders.csv") if r["label"] in ("merger-new", "reverse-split")
    ]
    events = {e["label"]: ratio_of(e["ratio"]) for e in ground_truth(trees["all"], "events.csv")}
    assert any(int(r["before"]) * events[r["label"]] != int(r["carried"]) for r in rows)


def test_a_vanished_or_renamed_security_is_in_no_book_after_its_event(trees: dict[str, Path]) -> None:
    books = books_of(trees["all"])
    for event in ground_truth(trees["all"], "events.csv"):
        if event["kind"] in ("merger", "cash-merger", "exchange"):
            after = date.fromisoformat(event["period_after"])
            assert not [cik for (period, cik), book in books.items() if period == after and event["cusip"] in book]


def test_without_actions_no_widely_held_security_vanishes_or_moves_by_one_ratio(trees: dict[str, Path]) -> None:
    assert ground_truth(trees["none"], "events.csv") == []
    books = books_of(trees["none"])
    periods = sorted({period for period, _ in books})
    ratios = {ratio_of(e.ratio) for e in EVENTS} - {1}
    for earlier, later in pairwise(periods):
        held: dict[str, dict[str, int]] = defaultdict(dict)
        for (period, cik), book in books.items():
            for cusip, shares in book.items():
                if period == earlier:
                    held[cusip][cik] = shares
        for cusip, holders in held.items():
            if len(holders) < 3:
                continue
            now = {cik: books[later, cik].get(cusip, 0) for cik in holders}
            assert any(now.values()), cusip
            assert not any(all(now[cik] == math.floor(s * r) for cik, s in holders.items()) for r in ratios), cusip


def test_berkshires_fictional_witnesses_go_through_apples_split_and_berkshires_rows_are_its_own(tmp_path: Path) -> None:
    root = berkshire_universe(tmp_path / "tree", witnesses=6, second_manager=True)
    sources, _ = read_sources(root)
    assert [m.fictional for m in sources.copycat.managers] == [False, True]
    books = books_of(root)
    berkshire = [f for f in sources.filings if f.cik == CIK.zfill(10)]
    rows: dict[str, int] = defaultdict(int)
    for tables in members(root).values():
        for row in table(tables["INFOTABLE.tsv"]):
            rows[row["ACCESSION_NUMBER"]] += 1
    assert {f.accession: len(f.rows) for f in berkshire} == {f.accession: rows[f.accession] for f in berkshire}
    witnesses = {cik for _, cik in books if int(cik) > WITNESS_CIK_BASE}
    assert len(witnesses) == 6
    apple, june, september = "037833100", date(2020, 6, 30), date(2020, 9, 30)
    holders = [cik for cik in witnesses if apple in books[june, cik]]
    assert holders
    for cik in holders:
        carried, now = books[june, cik][apple] * 4, books[september, cik][apple]
        assert now == carried if (int(cik) - WITNESS_CIK_BASE) % 5 else now > carried
