"""Held-out real filings asked through the official MCP Python SDK client, every number checked against a parse of
the filings of its own.

Usage: `python -m bench.heldout CORPUS [--versions 8] [--window 8] [--work DIR]`. CORPUS is a source tree of real
13F submission files that the tests do not use (packs.toml, securities.csv, sec13f/<cik>/…): it is published into a
releases directory under --work (never into the checkout), served by `python -m server.mcp_server` over stdio and,
for each manager, asked:
- its largest position at the latest version, held at each of the last --versions versions: its build-up over them
  in one explain_position call (history), each version's shares and dollars against the filings;
- its five largest exits inside the last --window quarters, each with its filing rows: list_pack_versions, then
  compare_versions over the window for the manager (two calls), each exit's quarter, shares, dollars and rows
  against the filings, and the text read within 16 KB;
and every diff spanning several quarters of the release against the sum of its consecutive diffs (tests.spanning).
The parse here reads each submission's SGML header and information table with the standard library (no code of
the service): long share rows (SH, no putCall) summed by CUSIP, a NEW HOLDINGS amendment added to its quarter and a
restatement replacing it, values in dollars (thousands for filings made before 2023-01-03), CUSIPs named by
securities.csv. An exit is a ticker held at one version and at none of the next.
"""

from __future__ import annotations

import argparse
import csv
import re
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import orjson
from mcp import ClientSession, StdioServerParameters, stdio_client

from bench import report
from builder.release.publish import publish
from builder.release.store import current_release, load_release
from builder.sources.tree import read_sources

PACK = "13f-copycat"
TEXT_BYTES = 16 * 1024  # what the two calls of the exits question may read
DOLLARS_FROM = date(2023, 1, 3)  # SEC: information tables in dollars from filings made on this day on
ROW = re.compile(r"<(?:\w+:)?infoTable>(.*?)</(?:\w+:)?infoTable>", re.S | re.I)
SECONDS = 900  # the whole walk over stdio: a hang must still end


def _field(text: str, name: str) -> str:
    found = re.search(rf"<(?:\w+:)?{name}>\s*(.*?)\s*</(?:\w+:)?{name}>", text, re.S | re.I)
    return found.group(1).strip() if found else ""


def _header(raw: str, key: str) -> str:
    found = re.search(re.escape(key) + r":\s*([^\n]+)", raw)
    return found.group(1).strip() if found else ""


@dataclass
class Book:
    """One manager's long share positions at one quarter end, as its filings state them: CUSIP → shares, dollars and
    the (accession, row) pairs behind them."""

    shares: dict[str, int] = field(default_factory=dict)
    dollars: dict[str, int] = field(default_factory=dict)
    rows: dict[str, list[tuple[str, int]]] = field(default_factory=dict)


def parse_filing(path: Path) -> tuple[str, date, date, str, Book]:
    """A submission file: its CIK, period, filing date, amendment type and long-share book."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    cik = _header(raw, "CENTRAL INDEX KEY").lstrip("0")
    period = date.fromisoformat(re.sub(r"(\d{4})(\d\d)(\d\d)", r"\1-\2-\3", _header(raw, "CONFORMED PERIOD OF REPORT")))
    filed = date.fromisoformat(re.sub(r"(\d{4})(\d\d)(\d\d)", r"\1-\2-\3", _header(raw, "FILED AS OF DATE")))
    accession = _header(raw, "ACCESSION NUMBER")
    amendment = _field(raw, "amendmentType").upper() if _field(raw, "isAmendment").lower() == "true" else ""
    scale = 1 if filed >= DOLLARS_FROM else 1000
    book = Book()
    for number, match in enumerate(ROW.finditer(raw), start=1):
        row = match.group(1)
        if _field(row, "sshPrnamtType").upper() != "SH" or _field(row, "putCall"):
            continue
        cusip = _field(row, "cusip").upper()
        book.shares[cusip] = book.shares.get(cusip, 0) + int(_field(row, "sshPrnamt").replace(",", ""))
        book.dollars[cusip] = book.dollars.get(cusip, 0) + int(float(_field(row, "value").replace(",", ""))) * scale
        book.rows.setdefault(cusip, []).append((accession, number))
    return cik, period, filed, amendment, book


def books_of(folder: Path) -> dict[date, Book]:
    """A manager's books by quarter end, its filings applied in filing order (new holdings add, others replace)."""
    filings = sorted((parse_filing(path) for path in folder.rglob("*.txt")), key=lambda f: (f[1], f[2]))
    books: dict[date, Book] = {}
    for _, period, _, amendment, book in filings:
        if "NEW HOLDINGS" in amendment and period in books:
            into = books[period]
            for cusip, shares in book.shares.items():
                into.shares[cusip] = into.shares.get(cusip, 0) + shares
                into.dollars[cusip] = into.dollars.get(cusip, 0) + book.dollars[cusip]
                into.rows.setdefault(cusip, []).extend(book.rows[cusip])
        else:
            books[period] = book
    return books


def by_ticker(book: Book, tickers: dict[str, str]) -> dict[str, tuple[int, int, list[tuple[str, int]]]]:
    """A book keyed as securities.csv names its CUSIPs (the CUSIP where it names none): shares, dollars, rows."""
    found: dict[str, tuple[int, int, list[tuple[str, int]]]] = {}
    for cusip, shares in book.shares.items():
        key = tickers.get(cusip, cusip)
        was = found.get(key, (0, 0, []))
        found[key] = (was[0] + shares, was[1] + book.dollars[cusip], was[2] + book.rows[cusip])
    return found


async def ask(releases: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """Each call's text bytes and structured answer, over stdio with the official SDK client."""
    server = StdioServerParameters(
        command=__import__("sys").executable, args=["-m", "server.mcp_server", "--releases", str(releases)]
    )
    found = []
    with anyio.fail_after(SECONDS):
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for tool, arguments in calls:
                result = await session.call_tool(tool, arguments)
                text = result.content[0].text
                assert not result.is_error, (tool, arguments, text[:300])
                found.append((len(text.encode()), orjson.loads(text)))
    return found


def tickers_of(tree: Path) -> dict[str, str]:
    with (tree / "securities.csv").open(newline="") as file:
        return {row["cusip"].upper(): row["ticker"] for row in csv.DictReader(file) if row.get("ticker")}


def managers_of(tree: Path) -> list[tuple[str, str]]:
    import tomllib

    packs = tomllib.loads((tree / "packs.toml").read_text())
    return [(manager["id"], str(manager["cik"])) for manager in packs["copycat"]["managers"]]


def build_up(
    manager: str, keyed: list[dict[str, tuple[int, int, list[tuple[str, int]]]]], versions: int
) -> tuple[str, tuple[str, dict[str, Any]]]:
    """The ticker of the manager's largest position at the latest version held at each of the last `versions`, and
    the one call that asks for its history."""
    held = set.intersection(*(set(book) for book in keyed[-versions:]))
    ticker = max(held, key=lambda t: (keyed[-1][t][1], t))
    return ticker, ("explain_position", {"packId": PACK, "ticker": ticker, "managers": [manager]})


def check_build_up(
    answer: dict[str, Any], ticker: str, quarters: list[str], keyed: list[dict[str, Any]], versions: int
) -> list[str]:
    """Where the history disagrees with the filings over the last `versions` versions."""
    history = answer["history"]
    (own,) = history["managers"]
    wrong = []
    for index in range(len(quarters) - versions, len(quarters)):
        shares, dollars, rows = keyed[index][ticker]
        at = history["quarters"].index(quarters[index])
        cited = own["rows"][at]
        if (own["shares"][at], own["values"][at]) != (shares, dollars):
            wrong.append(
                f"{quarters[index]} {ticker}: {own['shares'][at]} shares ${own['values'][at]} vs {shares} ${dollars}"
            )
        if cited is None or (cited["accession"], cited["row"]) not in rows:
            wrong.append(f"{quarters[index]} {ticker}: row {cited} not among {rows[:3]}")
    return wrong


def exits(keyed: list[dict[str, Any]], quarters: list[str], window: int) -> list[tuple[str, str, int, int, list]]:
    """The filings' exits inside the last `window` quarters, largest dollars first: (quarter, ticker, shares sold,
    dollars sold, the rows it ended)."""
    found = []
    for index in range(len(quarters) - window, len(quarters)):
        before, after = keyed[index - 1], keyed[index]
        for ticker in sorted(set(before) - set(after)):
            shares, dollars, rows = before[ticker]
            if shares:
                found.append((quarters[index], ticker, -shares, -dollars, rows))
    return sorted(found, key=lambda e: (e[3], e[0], e[1]))


def check_exits(
    answer: dict[str, Any], truth: list[tuple[str, str, int, int, list]], published: Any
) -> tuple[list, list[str]]:
    """The exits the answer lists, and where they disagree with the filings: a listed exit's quarter, shares, dollars
    or rows, and each of the filings' five largest it leaves out, with how the release published it
    (`published(quarter, ticker)`: its change's kind and cause)."""
    (own,) = answer["windowTrades"]
    listed = own["largest"].get("exited", [])
    filed = {(quarter, ticker): (shares, dollars, rows) for quarter, ticker, shares, dollars, rows in truth}
    wrong = []
    for trade in listed:
        shares, dollars, rows = filed.get((trade["quarter"], trade["ticker"]), (None, None, []))
        cited = (trade["rows"][0]["accession"], trade["rows"][0]["row"]) if trade["rows"] else None
        if (trade["shareDelta"], trade["tradedValue"]) != (shares, dollars):
            wrong.append(
                f"{trade['ticker']} {trade['quarter']}: {trade['shareDelta']} ${trade['tradedValue']} vs {shares} ${dollars}"
            )
        elif trade["rowCount"] != len(rows) or cited not in rows:
            wrong.append(f"{trade['ticker']} {trade['quarter']}: rows {trade['rowCount']} {cited} vs {rows[:3]}")
    said = {(trade["quarter"], trade["ticker"]) for trade in listed}
    for quarter, ticker, shares, dollars, _ in truth[: len(listed) or 5]:
        if (quarter, ticker) not in said:
            wrong.append(
                f"{ticker} {quarter} ({shares} shares, ${dollars}) left out: published {published(quarter, ticker)}"
            )
    return listed, wrong


def change_of(data: Any, quarter: str, manager: str, ticker: str) -> str:
    """How the release published a manager's change in a ticker at a quarter: kind, cause and what it cites."""
    version = next(v for v in data.versions if data.artifacts[v]["quarter"] == quarter)
    own = next(m for m in data.artifacts[version]["managers"] if m["id"] == manager)
    for entry in (*own["positions"], *own["ended"]):
        if entry["ticker"] == ticker:
            change = entry["change"]
            cited = "; ".join(a["text"] for a in change["corporateActions"])
            return f"{change['kind']} ({change['cause']}{': ' + cited if cited else ''})"
    return "no change"


def spanning(tree: Path, releases: Path) -> tuple[int, int]:
    """Every diff spanning several quarters against the sum of its consecutive diffs: (pairs, disagreements)."""
    from tests.spanning import Sums

    sources, _ = read_sources(tree)
    directory = current_release(releases)
    assert directory is not None
    data = load_release(directory).data
    sums, count = Sums(data, sources.securities), len(data.versions)
    pairs = [(older, newer) for older in range(count) for newer in range(older + 2, count)]
    return len(pairs), sum(len(sums.check(older, newer)) for older, newer in pairs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.heldout", description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="a source tree of real 13F filings the tests do not use")
    parser.add_argument("--versions", type=int, default=8, help="the versions a build-up spans")
    parser.add_argument("--window", type=int, default=8, help="the quarters of the exits' window (two years)")
    parser.add_argument("--work", type=Path, default=None, help="where the release goes (default: a temp dir)")
    args = parser.parse_args(argv)
    rows, targets, raw = [], [], {}
    with tempfile.TemporaryDirectory() as scratch:
        releases = (args.work or Path(scratch)) / f"heldout-{args.corpus.name}"
        started = time.perf_counter()
        if not (releases / "current").exists():
            publish(
                args.corpus, releases, None, lambda _line: None, max_unmapped=100.0
            )  # its securities.csv is partial
        published = time.perf_counter() - started
        directory = current_release(releases)
        assert directory is not None
        data = load_release(directory).data
        versions = list(data.versions)
        quarters = [data.artifacts[v]["quarter"] for v in versions]
        tickers = tickers_of(args.corpus)
        for manager, cik in managers_of(args.corpus):
            books = books_of(args.corpus / "sec13f" / cik)
            keyed = [by_ticker(books[date.fromisoformat(q)], tickers) for q in quarters]
            ticker, first = build_up(manager, keyed, args.versions)
            window = {"packId": PACK, "from": versions[-args.window - 1], "to": versions[-1], "managers": [manager]}
            calls = [first, ("list_pack_versions", {"packId": PACK}), ("compare_versions", window)]
            (history_bytes, history), (list_bytes, _), (diff_bytes, diff) = anyio.run(ask, releases, calls)
            wrong_history = check_build_up(history, ticker, quarters, keyed, args.versions)
            truth = exits(keyed, quarters, args.window)
            listed, wrong_exits = check_exits(diff, truth, lambda q, t, m=manager: change_of(data, q, m, t))
            read = list_bytes + diff_bytes
            raw[manager] = {
                "buildUp": {"ticker": ticker, "bytes": history_bytes, "wrong": wrong_history},
                "exits": {"listed": listed, "filings": [e[:4] for e in truth[:5]], "bytes": read, "wrong": wrong_exits},
            }
            rows.append([manager, f"{ticker}: {args.versions} versions, 1 call, {history_bytes} B", len(wrong_history)])
            rows.append([manager, f"5 largest exits of {args.window} quarters: 2 calls, {read} B", len(wrong_exits)])
            targets += [
                report.target(
                    f"{manager}: a build-up over {args.versions} versions equals the filings",
                    not wrong_history,
                    "; ".join(wrong_history[:3]) or "every share count, dollar value and row",
                ),
                report.target(
                    f"{manager}: five largest exits in 2 calls within 16 KB equal the filings",
                    not wrong_exits and read <= TEXT_BYTES,
                    f"{read} B; " + ("; ".join(wrong_exits[:3]) or "each quarter, ticker, shares, dollars and row"),
                ),
            ]
        pairs, disagreements = spanning(args.corpus, releases)
        rows.append(
            ["every manager", f"{pairs} diffs spanning several quarters against their quarters' sum", disagreements]
        )
        targets.append(
            report.target(
                "every spanning diff is the sum of its quarters",
                disagreements == 0,
                f"{disagreements} disagreements over {pairs} pairs",
            )
        )
    notes = [
        f"Corpus {args.corpus} (held out: managers and years the tests do not use); published in {published:.0f} s "
        "(0: the release of an earlier run, in --work).",
        "Through the official MCP Python SDK client over stdio; the filings parsed here with the standard library.",
    ]
    report.save(
        "heldout",
        f"Held-out real filings over MCP: {args.corpus.name}",
        ["manager", "question", "disagreements"],
        rows,
        targets,
        notes,
        raw=raw,
    )
    return 0 if all(target["met"] for target in targets) else 1


if __name__ == "__main__":
    raise SystemExit(main())
