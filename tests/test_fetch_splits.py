"""`ras fetch` fills corporate_actions.csv with the splits of held securities from the Massive stand-in."""

from __future__ import annotations

import csv
import json
from datetime import date
from decimal import Decimal

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.fetch.splits import Split, split_rows
from builder.release.objects import artifact_of
from builder.release.publish import publish
from builder.release.store import ARTIFACT_SUFFIX, current_release
from builder.sources.tables.securities import parse_securities
from tests.conftest import quiet
from tests.fetching import SINCE, USER_AGENT, empty_tree
from tests.standin import serving
from tests.standin_edgar import Edgar
from tests.standin_massive import DEPRECATED, KEY, Massive


def fetch(root, edgar: str, massive: str, key: str | None, since: str = SINCE):
    args = [
        "fetch",
        "--no-datasets",
        "--source",
        str(root),
        "--edgar-url",
        edgar,
        "--massive-url",
        massive,
        "--massive-rate",
        "20",
        "--since",
        since,
        "--user-agent",
        USER_AGENT,
    ]
    return CliRunner().invoke(
        main, args, env={"MASSIVE_API_KEY": key, "RAS_SEC_USER_AGENT": None, "RAS_EDGAR_URL": None}
    )


@pytest.fixture(scope="module")
def fetched(tmp_path_factory):
    root = empty_tree(tmp_path_factory.mktemp("splits") / "source")
    massive = Massive()
    with serving(Edgar.berkshire().app()) as edgar, serving(massive.app()) as base:
        first = fetch(root, edgar, base, KEY)
        rows_after_first = (root / "corporate_actions.csv").read_text()
        again = fetch(root, edgar, base, KEY)
    return root, massive, first, rows_after_first, again


def records(root) -> list[dict]:
    return list(csv.DictReader((root / "corporate_actions.csv").read_text(encoding="utf-8").splitlines()))


def test_the_splits_of_held_securities_become_records_citing_the_kept_page(fetched):
    root, _, first, _, _ = fetched
    assert first.exit_code == 0, first.output
    assert [(r["effective"], r["kind"], r["cusip"], r["ratio"]) for r in records(root)] == [
        ("2013-09-09", "split", "23918K108", "2:1"),
        ("2014-01-22", "split", "57636Q104", "10:1"),
        ("2014-06-09", "split", "037833100", "7:1"),
        ("2014-07-02", "split", "891027104", "3:2"),
        ("2015-03-19", "split", "92826C839", "4:1"),
        ("2020-08-31", "split", "037833100", "4:1"),
    ]  # Netflix, Tesla and Alphabet split too, but Berkshire never filed them
    source = records(root)[-1]["source"]
    assert source.startswith("Massive splits: AAPL 4:1 executed 2020-08-31 (corporate_actions/massive/splits-")
    page = root / source.rsplit("(", 1)[1].rstrip(")")
    assert {"ticker": "AAPL", "execution_date": "2020-08-31"}.items() <= next(
        r for r in json.loads(page.read_bytes())["results"] if r["ticker"] == "AAPL"
    ).items()
    assert (
        "splits: 9 executed" in first.output and "6 of held securities, 6 new in corporate_actions.csv" in first.output
    )


def test_the_key_goes_in_a_header_and_every_page_is_asked_for(fetched):
    _, massive, _, _, _ = fetched
    asked = [s for s in massive.log.seen if s.path == "/stocks/v1/splits"]
    assert len(asked) == 6 and {s.status for s in asked} == {200}  # 9 splits in the window, 3 a page, twice


def test_the_deprecated_endpoint_is_never_asked(fetched):
    _, massive, _, _, _ = fetched
    assert DEPRECATED not in massive.log.paths() and set(massive.log.paths()) == {"/stocks/v1/splits"}


def test_next_url_is_followed_on_the_given_base_not_on_massives_host(fetched):
    root, massive, _, _, _ = fetched
    first = json.loads(next((root / "corporate_actions" / "massive").glob("splits-*-001.json")).read_bytes())
    assert first["next_url"].startswith("https://api.massive.com/stocks/v1/splits?cursor=")
    assert len(massive.log.seen) == 6  # pages 2 and 3 came from the stand-in all the same


def test_stock_dividends_are_left_out_and_reverse_splits_written(tmp_path):
    root = empty_tree(tmp_path / "source")
    # Synthetic entries (not public facts): a stock dividend and a reverse split of securities Berkshire held.
    massive = Massive(
        splits=(
            ("AAPL", "2020-07-01", 100, 105, "stock_dividend"),
            ("KO", "2020-07-02", 10, 1, "reverse_split"),
            ("AAPL", "2020-08-31", 1, 4, "forward_split"),
        )
    )
    with serving(Edgar.berkshire().app()) as edgar, serving(massive.app()) as base:
        result = fetch(root, edgar, base, KEY, since="2020-06-01")
    assert result.exit_code == 0, result.output
    assert [(r["effective"], r["cusip"], r["ratio"]) for r in records(root)] == [
        ("2020-07-02", "191216100", "1:10"),
        ("2020-08-31", "037833100", "4:1"),
    ]
    assert "1 stock dividends or other adjustments left out" in result.output


def test_a_second_fetch_adds_no_row_twice(fetched):
    root, _, _, rows_after_first, again = fetched
    assert again.exit_code == 0, again.output
    assert (root / "corporate_actions.csv").read_text() == rows_after_first
    assert "6 of held securities, 0 new in corporate_actions.csv" in again.output


def test_the_fetched_records_turn_apples_split_into_what_berkshire_sold(fetched, tmp_path):
    root, *_ = fetched
    releases = tmp_path / "releases"
    publish(root, releases, None, quiet)
    artifact = artifact_of(
        next(
            (current_release(releases) / "artifacts" / "13f-copycat").glob(
                f"multi-manager-2020-09-30-*{ARTIFACT_SUFFIX}"
            )
        ).read_bytes()
    )
    change = next(p for p in artifact["managers"][0]["positions"] if p["ticker"] == "AAPL")["change"]
    assert (change["kind"], change["shareDelta"], change["cause"]) == (
        "reduced",
        -36_326_710,
        "trade-and-corporate-action",
    )
    assert change["corporateActions"][0]["source"].startswith("Massive splits: AAPL 4:1 executed 2020-08-31")


def test_without_a_key_nothing_is_asked_and_the_operator_is_told(tmp_path):
    root = empty_tree(tmp_path / "source")
    massive = Massive()
    with serving(Edgar.berkshire().app()) as edgar, serving(massive.app()) as base:
        result = fetch(root, edgar, base, None, since="2020-06-01")
    assert result.exit_code == 0, result.output
    assert "splits: MASSIVE_API_KEY is not set, none fetched; write corporate_actions.csv by hand" in result.output
    assert massive.log.seen == [] and not (root / "corporate_actions.csv").exists()


def test_a_refused_key_is_one_error_line(tmp_path):
    root = empty_tree(tmp_path / "source")
    with serving(Edgar.berkshire().app()) as edgar, serving(Massive().app()) as base:
        result = fetch(root, edgar, base, "wrong-key", since="2020-06-01")
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith("Error: ")
    assert "HTTP 401 from Massive" in result.output


def test_a_ticker_names_the_cusip_that_had_it_on_the_execution_day():
    securities, _ = parse_securities(
        "cusip,ticker,name,valid_from,valid_to\n"
        "30303M102,FB,FACEBOOK INC,2012-05-18,2022-06-08\n30303M102,META,META PLATFORMS INC,2022-06-09,\n"
        "037833100,AAPL,APPLE INC,,\n",
        "securities.csv",
    )
    splits = [
        Split("FB", date(2020, 1, 2), Decimal(1), Decimal(2), "p.json"),
        Split("META", date(2020, 1, 2), Decimal(1), Decimal(3), "p.json"),
        Split("AAPL", date(2020, 8, 31), Decimal("1.0"), Decimal("4.0"), "p.json"),
    ]
    rows = split_rows(splits, securities, {"30303M102", "037833100"})
    assert [(r[0], r[2], r[4]) for r in rows] == [
        ("2020-01-02", "30303M102", "2:1"),
        ("2020-08-31", "037833100", "4:1"),
    ]


def test_a_split_listed_twice_is_one_row():
    securities, _ = parse_securities("cusip,ticker,name\n037833100,AAPL,APPLE INC\n", "securities.csv")
    twice = [Split("AAPL", date(2020, 8, 31), Decimal(1), Decimal(4), page) for page in ("p1.json", "p2.json")]
    assert len(split_rows(twice, securities, {"037833100"})) == 1
