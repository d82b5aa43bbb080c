"""The product's claims on held-out real 13F filings, against what happened: with and without the Form 13F data sets.

Usage: `python -m bench.heldout_events CORPUS --truth TRUTH.csv [--work DIR] [--witnesses 20] [--publish-flag ...]`.

CORPUS is an operator's source tree of real filings (packs.toml, securities.csv, sec13f/<cik>/…) that no test uses;
TRUTH.csv says what happened in it (columns as the held-out corpus's truth.csv: `record` is corporate_action for an
event of the public record, trade for a trade the filings make certain, not_a_trade for a position that began or
ended through an event). The corpus is published twice, cold, with no corporate_actions.csv:
- bare: as it is, the pack's own books the only witnesses (what an operator gets with `ras fetch --no-datasets`);
- witnessed: beside Form 13F data sets holding its filings and FICTIONAL witnesses that went through the events of
  TRUTH.csv (bench.witnesses: the evidence real sets would give; no holding is attributed to a real firm).
For each: the real trades hidden (published as undecided or converted), the events published as trades (a change
of an event's security counted as bought or sold with no corporate action cited), the events decided that did not
happen, the paste lines offered, and the undecided changes (those saying "no evidence" apart). The corpus itself is
never part of the project.
"""

from __future__ import annotations

import argparse
import csv
import shutil
import subprocess
import sys
import zlib
from collections import Counter
from datetime import date
from pathlib import Path

import orjson

from bench.publish import released_artifacts
from bench.witnesses import Universe, witness_filings, write_witnessed
from builder.sources.tables.corporate_actions import COLUMNS, parse_corporate_actions
from builder.sources.tree import read_sources

KINDS = {  # the truth's words → corporate_actions.csv's kinds
    "split": "split",
    "reverse split": "split",
    "stock merger": "merger",
    "stock-and-cash merger": "merger",
    "exchange offer": "merger",
    "cash merger": "cash-merger",
    "spin-off": "spin-off",
    "class distribution": "spin-off",
    "rights": "spin-off",
    "cusip change": "exchange",
    "rename": "exchange",
}
TRADED = {"new", "added", "reduced", "exited"}
SPREAD = 4  # quarters ahead a witness may buy what the pack buys (bench.witnesses.Universe.spread)


def truth_rows(truth: Path, corpus: str) -> list[dict[str, str]]:
    with truth.open(newline="", encoding="utf-8") as file:
        return [row for row in csv.DictReader(file) if row["corpus"] == corpus]


def event_lines(rows: list[dict[str, str]]) -> str:
    """The truth's corporate actions as corporate_actions.csv (what the witnesses go through; never published). A
    security renamed on the day it spins another off (CONSOL into CNX and the new CONSOL, 2017) becomes both at once:
    one event, written as exchange legs (a recapitalisation into two securities)."""
    legs: dict[tuple[str, str], list[tuple[str, str, str, str]]] = {}
    for row in rows:
        kind = KINDS.get(row["kind"])
        if row["record"] != "corporate_action" or kind is None or not row["old_cusip"]:
            continue
        new = "" if kind == "cash-merger" or (kind == "split" and not row["new_cusip"]) else row["new_cusip"]
        ratio = "" if kind == "cash-merger" else f"{row['new_per_old'] or 1}:1"
        cash = row["cash_per_old"] if kind in ("merger", "cash-merger") and row["cash_per_old"] else ""
        if kind == "cash-merger" and not cash:
            cash = "1.00"  # the price is no part of the witnesses' books: they hold no shares after it
        found = legs.setdefault((row["effective"], row["old_cusip"]), [])
        if all(leg[1] != new for leg in found):
            found.append((kind, new, ratio, cash))
    lines = [",".join(COLUMNS)]
    for (effective, old), found in sorted(legs.items()):
        mixed = len({kind for kind, *_ in found}) > 1
        for kind, new, ratio, cash in found:
            lines.append(
                f"{effective},{'exchange' if mixed else kind},{old},{new},{ratio},{'' if mixed else cash},truth"
            )
    return "\n".join(lines) + "\n"


def witnessed(corpus: Path, rows: list[dict[str, str]], out: Path, witnesses: int) -> Path:
    """A copy of the corpus beside data sets of its filings and of fictional witnesses of its events."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(corpus, out)
    legs, problems = parse_corporate_actions(event_lines(rows), "truth.csv")
    if problems:
        raise SystemExit(f"truth.csv: {problems[0]}")
    sources, _ = read_sources(out)
    universe = Universe(witnesses, zlib.crc32(corpus.name.encode()), spread=SPREAD)  # a seed of the corpus's own
    found = witness_filings(sources.filings, legs, universe)
    write_witnessed(out, sources.filings, found)
    return out


def publish(tree: Path, releases: Path, flags: list[str]) -> str:
    shutil.rmtree(releases, ignore_errors=True)
    command = [sys.executable, "-m", "builder.cli", "publish", "--source", str(tree), "--releases", str(releases)]
    result = subprocess.run([*command, "--gate", "none", *flags], capture_output=True, text=True, check=False)
    if result.returncode:
        raise SystemExit(f"publish of {tree} failed:\n{result.stderr[-3000:]}")
    return result.stderr


def quarter(text: str) -> str:
    return date(int(text[:4]), int(text[4:6]), int(text[6:])).isoformat()


def measured(found: list[dict], rows: list[dict[str, str]]) -> dict:
    """What the release claims against the truth."""
    changes: dict[tuple[str, str, str], dict] = {}  # (quarter, cik, cusip) → the change of that entry
    for artifact in found:
        for manager in artifact["managers"]:
            for entry in (*manager["positions"], *manager["ended"]):
                changes[(artifact["quarter"], manager["cik"], entry["cusip"])] = entry["change"]
    kinds = Counter(c["kind"] for c in changes.values())
    rules = Counter(cand["rule"] for c in changes.values() for cand in c["candidates"])
    lines = sum(1 for c in changes.values() for cand in c["candidates"] if cand["record"])
    hidden = []
    for row in (r for r in rows if r["record"] == "trade"):
        cusip = row["old_cusip"] if row["kind"] == "exit" else row["new_cusip"]
        change = changes.get((quarter(row["quarter_after"]), row["manager_cik"].zfill(10), cusip))
        if change is None or change["kind"] not in TRADED:
            hidden.append(f"{row['quarter_after']} {cusip} {row['kind']}: {change and change['kind']}")
    as_trades = []
    for row in (r for r in rows if r["record"] in ("corporate_action", "not_a_trade")):
        for cusip in _read_as_trade(row):
            change = changes.get((quarter(row["quarter_after"]), row["manager_cik"].zfill(10), cusip))
            if change and change["kind"] in TRADED and change["cause"] == "trade" and _wrong(row, cusip, change):
                as_trades.append(f"{row['quarter_after']} {cusip} {change['kind']} ({row['description'][:60]})")
    events = {(r["old_cusip"], r["new_cusip"]) for r in rows if r["record"] == "corporate_action"}
    olds = {old for old, _ in events}
    derived = [r for a in found for r in a["corporateActions"] if r["derived"]]
    false = [f"{r['effective']} {r['kind']} {r['cusip']}>{r['newCusip'] or ''} {r['ratio'] or ''}" for r in derived
             if r["cusip"] not in olds]  # fmt: skip
    return {
        "changes": sum(kinds.values()),
        "undecided": kinds["undecided"],
        "noEvidence": rules["no-evidence"],
        "pasteLines": lines,
        "trades": sum(1 for r in rows if r["record"] == "trade"),
        "hiddenTrades": hidden,
        "eventsAsTrades": sorted(set(as_trades)),
        "decided": len(derived),
        "decidedFalse": false,
    }


def _read_as_trade(row: dict[str, str]) -> set[str]:
    """The CUSIPs whose change an event decides: a spin-off's child (its parent's change is the holder's own trade);
    a split's security; what a merger or rename ends and delivers."""
    kind = KINDS.get(row["kind"], "")
    if row["record"] == "not_a_trade":
        return {row["old_cusip"] or row["new_cusip"]}
    if kind == "spin-off":
        return {row["new_cusip"]} - {""}
    return {row["old_cusip"], row["new_cusip"]} - {""}


def _wrong(row: dict[str, str], cusip: str, change: dict) -> bool:
    """Whether a change counted as a trade, citing no corporate action, is the event read as one: a position that
    began or ended through it, or shares that moved by about what a split gave."""
    if row["record"] == "not_a_trade" or KINDS.get(row["kind"]) != "split" or cusip != row["old_cusip"]:
        return True
    before = int(row["shares_before"] or 0)
    ratio = float(row["new_per_old"] or 1)
    return (
        bool(before) and change["shareDelta"] is not None and abs(change["shareDelta"]) >= 0.5 * before * abs(ratio - 1)
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--truth", type=Path, required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/ras-heldout"))
    parser.add_argument("--witnesses", type=int, default=20)
    parser.add_argument("--publish-flag", action="append", default=[], help="passed to ras publish (repeatable)")
    args = parser.parse_args(argv)
    rows = truth_rows(args.truth, args.corpus.name)
    report = {}
    publish(args.corpus, args.work / "releases-bare", args.publish_flag)
    report["bare"] = measured(released_artifacts(args.work / "releases-bare" / "current"), rows)
    tree = witnessed(args.corpus, rows, args.work / "witnessed", args.witnesses)
    publish(tree, args.work / "releases-witnessed", args.publish_flag)
    report["witnessed"] = measured(released_artifacts(args.work / "releases-witnessed" / "current"), rows)
    print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
