"""`ras securities` against the OpenFIGI stand-in, and a CUSIP change linked by share-class FIGI."""

from __future__ import annotations

import csv
import json
import shutil
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.fetch.openfigi import Resolved, Unresolved, choose_listing, pause_after
from builder.records import ManagerConfig
from builder.research.artifact import build_artifacts
from builder.sources.sec13f.filings import read_copycat_filings
from builder.sources.tree import read_sources
from tests.conftest import realdata
from tests.fetching import BERKSHIRE_CIK, PACKS
from tests.standin import serving
from tests.standin_openfigi import IBM, OpenFigi

TORCHMARK, GLOBE_LIFE = "891027104", "37959E102"
QUARTERS = ("2019-06-30", "2019-09-30")  # Berkshire's filings either side of Torchmark becoming Globe Life


def berkshire_tree(root: Path, quarters=QUARTERS, securities: str = "cusip,ticker,name\n") -> Path:
    """Berkshire's real filings of `quarters` and a securities.csv holding `securities`."""
    folder = root / "sec13f" / BERKSHIRE_CIK
    folder.mkdir(parents=True)
    for quarter in quarters:
        original = next(realdata("sec13f/berkshire_hathaway_0001067983").glob(f"{quarter}_*.txt"))
        shutil.copyfile(original, folder / original.name)
    # versions: as many as the tree's quarters, so the coverage check passes and the test is about securities
    (root / "packs.toml").write_text(PACKS.replace("versions = 8", f"versions = {len(quarters)}"), encoding="utf-8")
    (root / "securities.csv").write_text(securities, encoding="utf-8")
    return root


def run_securities(root: Path, base: str, api_key: str | None = None):
    env = {"OPENFIGI_API_KEY": api_key, "RAS_OPENFIGI_URL": None}
    return CliRunner().invoke(main, ["securities", "--source", str(root), "--openfigi-url", base], env=env)


def rows_of(root: Path) -> dict[str, dict]:
    with (root / "securities.csv").open(encoding="utf-8", newline="") as handle:
        return {row["cusip"]: row for row in csv.DictReader(handle)}


def filed_cusips(root: Path) -> set[str]:
    filings = read_copycat_filings(root, [ManagerConfig("berkshire", "Berkshire Hathaway Inc", BERKSHIRE_CIK)])
    return {row.cusip for filing in filings.filings for row in filing.rows}


@pytest.fixture
def openfigi():
    stand_in = OpenFigi()
    with serving(stand_in.app()) as base:
        yield stand_in, base


def test_every_filed_cusip_is_asked_in_batches_of_ten_without_a_key(tmp_path, openfigi):
    stand_in, base = openfigi
    root = berkshire_tree(tmp_path / "source")
    result = run_securities(root, base)
    assert result.exit_code == 0, result.output
    rows = rows_of(root)
    with realdata("securities_sample.csv").open(encoding="utf-8", newline="") as handle:
        sample = {row["cusip"]: row["ticker"] for row in csv.DictReader(handle)}
    held = {cusip for cusip in rows if cusip in sample}
    assert {cusip: rows[cusip]["ticker"] for cusip in held} == {cusip: sample[cusip] for cusip in held}
    assert {row["source"] for row in rows.values()} == {"openfigi"}
    asked = sum(stand_in.jobs)
    assert max(stand_in.jobs) == 10 and len(stand_in.jobs) == -(-asked // 10)
    assert f"resolved {len(rows)} of {asked} CUSIPs in {len(stand_in.jobs)} requests" in result.output


def test_with_an_api_key_one_request_carries_up_to_a_hundred_jobs(tmp_path, openfigi):
    stand_in, base = openfigi
    root = berkshire_tree(tmp_path / "source")
    result = run_securities(root, base, api_key="test-key-not-real")
    assert result.exit_code == 0, result.output
    assert len(stand_in.jobs) == -(-sum(stand_in.jobs) // 100) and max(stand_in.jobs) > 10


def test_requests_are_paced_to_the_rate_limit_headers_and_never_refused(tmp_path):
    stand_in = OpenFigi(limit=3, window=1.0)  # three requests a second, told in ratelimit-* headers
    root = berkshire_tree(tmp_path / "source")
    with serving(stand_in.app()) as base:
        result = run_securities(root, base)
    assert result.exit_code == 0, result.output
    assert len(stand_in.jobs) > 3  # more requests than one window allows
    assert [seen.status for seen in stand_in.log.seen] == [200] * len(stand_in.jobs)
    assert stand_in.log.most_in_one_second() <= 3 + 1  # a window edge may fall inside any one-second span


def test_a_429_is_waited_out_for_its_retry_after_and_asked_again(tmp_path):
    stand_in = OpenFigi(refuse_next=1, retry_after=1)
    root = berkshire_tree(tmp_path / "source", quarters=QUARTERS[:1])
    with serving(stand_in.app()) as base:
        result = run_securities(root, base)
    assert result.exit_code == 0, result.output
    refused, granted = stand_in.log.seen[:2]
    assert (refused.status, granted.status) == (429, 200) and granted.at - refused.at >= 1.0


def test_a_cusip_openfigi_does_not_know_is_listed_cached_and_not_asked_again(tmp_path, openfigi):
    stand_in, base = openfigi
    root = berkshire_tree(tmp_path / "source")
    forgotten = sorted(filed_cusips(root) & set(stand_in.known))[0]  # a miss for certain, whatever the sample holds
    stand_in.known.pop(forgotten)
    result = run_securities(root, base)
    assert result.exit_code == 0, result.output
    assert f"  unresolved {forgotten}: No identifier found." in result.output
    with (root / "securities-unresolved.csv").open(encoding="utf-8", newline="") as handle:
        cached = {row["cusip"]: row for row in csv.DictReader(handle)}
    assert forgotten in cached and cached[forgotten]["checked"] == date.today().isoformat()
    asked_before = len(stand_in.jobs)
    again = run_securities(root, base)
    assert len(stand_in.jobs) == asked_before
    assert "not asked again" in again.output


def test_operator_rows_stay_as_they_are_and_win(tmp_path, openfigi):
    stand_in, base = openfigi
    root = berkshire_tree(tmp_path / "source", securities=f"cusip,ticker,name\n{IBM},IBM-OPS,MY OWN NAME\n")
    assert run_securities(root, base).exit_code == 0
    rows = rows_of(root)
    assert rows[IBM] == {"cusip": IBM, "ticker": "IBM-OPS", "name": "MY OWN NAME", "figi": "", "source": ""}
    assert all(IBM not in json.dumps(jobs) for jobs in stand_in.jobs)


def test_the_us_composite_listing_is_chosen_among_every_exchange_of_a_real_answer():
    bulk = json.loads(realdata("openfigi", "mapping_bulk_ID_ISIN_US4592001014+TICKER_AAPL.response.json").read_bytes())
    assert len(bulk[0]["data"]) > 100
    assert choose_listing(IBM, bulk[0]["data"]) == Resolved(IBM, "IBM", "INTL BUSINESS MACHINES CORP", "BBG001S5S399")
    assert choose_listing(IBM, []) == Unresolved(IBM, "no US listing among 0 listings")


def berkshire_positions(root: Path, quarter: str) -> dict[str, dict]:
    sources, _ = read_sources(root)
    artifact = next(a for a in build_artifacts(sources) if a["quarter"] == quarter)
    return {p["ticker"]: p for p in artifact["managers"][0]["positions"]}


def test_unlinked_torchmark_and_globe_life_are_undecided_from_the_one_book_and_tell_no_story(tmp_path):
    # securities.csv without the FIGI that links them: one book's TMK ending and GL beginning share for share is no
    # witness (a filer's sale of one and purchase of another in equal counts reads the same); the next test's FIGI
    # link, or every filer's books in the data sets, decides it
    sample = realdata("securities_sample.csv").read_text(encoding="utf-8")
    root = berkshire_tree(tmp_path / "source", securities=sample)
    after = berkshire_positions(root, "2019-09-30")
    change = after["GL"]["change"]
    assert (change["kind"], change["shareDelta"], change["corporateActions"]) == ("undecided", None, [])
    assert [(c["rule"], c["record"]) for c in change["candidates"]] == [("no-evidence", None)]


def test_a_cusip_change_linked_by_figi_is_one_unchanged_position(tmp_path, openfigi):
    _, base = openfigi
    root = berkshire_tree(tmp_path / "source")
    assert run_securities(root, base).exit_code == 0
    rows = rows_of(root)
    assert rows[TORCHMARK]["figi"] == rows[GLOBE_LIFE]["figi"] != ""
    assert (rows[TORCHMARK]["ticker"], rows[GLOBE_LIFE]["ticker"]) == ("TMK", "GL")
    after = berkshire_positions(root, "2019-09-30")
    assert "TMK" not in after
    change = after["GL"]["change"]
    assert (change["kind"], change["previousShares"], change["shareDelta"], change["cause"]) == (
        "unchanged",
        6353727,
        0,
        "none",
    )


@pytest.mark.parametrize(
    ("headers", "keyed", "pause"),
    [
        ({"ratelimit-remaining": "0", "ratelimit-reset": "42"}, False, 42.0),  # the window is spent: wait it out
        ({"ratelimit-remaining": "3", "ratelimit-reset": "42"}, False, 0.0),
        ({}, False, 60 / 25),  # no headers: OpenFIGI's documented keyless pace, 25 a minute
        ({}, True, 6 / 25),  # with a key, 25 per 6 seconds
    ],
)
def test_the_pause_between_requests_follows_the_rate_limit_headers_else_the_documented_pace(headers, keyed, pause):
    assert pause_after(headers, keyed) == pytest.approx(pause)


def test_an_equity_listing_is_preferred_to_another_sector_on_the_us_composite():
    listing = {
        "figi": "BBGFICTION01",
        "compositeFIGI": "BBGFICTION01",
        "exchCode": "US",
        "name": "FICTIONAL CO",
        "shareClassFIGI": "BBGFICTION02",
    }
    other = {**listing, "ticker": "FICT 1 C", "marketSector": "Corp"}
    equity = {**listing, "ticker": "FICT", "marketSector": "Equity"}
    assert choose_listing("000000000", [other, equity]).ticker == "FICT"
