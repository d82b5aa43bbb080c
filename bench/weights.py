"""MCP byte weights: what an agent holds and reads from `ras mcp`, on the fixture and on a synthetic release.

Usage: `python -m bench.weights [--managers 500] [--quarters 3] [--positions 150] [--work DIR]`.
For the embedded fixture and a bench.synthetic tree of M managers: publish, start `python -m server.mcp_server`
over stdio and speak raw JSON-RPC to it (no SDK: the bytes on the wire), one call of each tool over the
complete dataset (the heaviest view), and compare_versions over the widest window too, then a resources/read of
every part each result links. It reports the tools/list message and its largest entry, each tool's text (the
first content block, what the agent reads) and whole result message, and the largest resources/read message; the
reference is the REST answer each result summarises. Sizes are deterministic (no clock in the trees or the answers): the machine's load changes
the seconds, never the bytes.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from bench import report, synthetic
from builder.api.contract import OPERATIONS
from builder.api.methods import view_of
from builder.release.publish import publish
from builder.release.store import LoadedRelease, current_release, load_release
from builder.research.versions import PACK_ID
from builder.research.views import DEFAULT_MODE
from builder.sources.tree import fixture_source

REPO = Path(__file__).resolve().parents[1]
LIST_BYTES, ENTRY_BYTES = 16 * 1024, 3 * 1024  # tools/list in all, and one tool's entry in it
LATEST_TEXT_BYTES, TEXT_BYTES = 9 * 1024, 16 * 1024  # what an agent reads from get_latest_pack, from any tool
RESULT_BYTES = 1024 * 1024  # a whole tool result: text, structured content and links
MESSAGE_BYTES = 8 * 1024 * 1024  # any one MCP message (the TypeScript SDK's stdio transport drops past 10 MiB)
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


def calls_for(release: LoadedRelease) -> list[tuple[str, dict[str, Any]]]:
    """One call of each tool over the complete dataset, with the ids of `release`."""
    data = release.data
    rows = view_of(data, data.versions[-1], [], DEFAULT_MODE)["tickers"]
    ticker = max(rows, key=lambda row: (row["holderCount"], row["value"]))["ticker"]  # the most explained one
    arguments = {
        "getLatestPack": {"packId": PACK_ID},
        "listPackVersions": {"packId": PACK_ID},
        "compareVersions": {"packId": PACK_ID, "from": data.versions[-2], "to": data.versions[-1]},
        "explainPosition": {"packId": PACK_ID, "ticker": ticker},
        "exportAuditTrail": {"packId": PACK_ID},
    }
    calls = [(op.tool, arguments.get(op.id, {})) for op in OPERATIONS if op.tool]
    if len(data.versions) > 2:  # the widest window: its trades inside, beside the net changes
        calls.append(("compare_versions", {"packId": PACK_ID, "from": data.versions[0], "to": data.versions[-1]}))
    return calls


class Session:
    """`python -m server.mcp_server` over stdio, spoken to in raw JSON-RPC lines."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The response to one request: its line's size in bytes (newline excluded) and its parsed result."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(orjson.dumps(message) + b"\n")
        self.process.stdin.flush()
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError(f"the server closed stdout during {method}")
            answer = orjson.loads(line)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return len(line) - 1, answer["result"]


@contextmanager
def session(releases: Path) -> Iterator[Session]:
    process = subprocess.Popen(
        [sys.executable, "-m", "server.mcp_server", "--releases", str(releases)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        talk = Session(process)
        talk.request("initialize", INITIALIZE)
        assert process.stdin is not None
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        yield talk
    finally:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=60)


def weigh(releases: Path) -> dict[str, Any]:
    """tools/list and every tool's text, result and largest resource message, with the REST bytes behind each."""
    release = load_release(current_release(releases))
    with session(releases) as talk:
        listed_bytes, listed = talk.request("tools/list", {})
        entries = {tool["name"]: len(orjson.dumps(tool)) for tool in listed["tools"]}
        tools = {}
        for name, arguments in calls_for(release):
            result_bytes, result = talk.request("tools/call", {"name": name, "arguments": arguments})
            assert not result.get("isError"), (name, result["content"][0]["text"][:300])
            links = [block for block in result["content"] if block["type"] == "resource_link"]
            reads = [talk.request("resources/read", {"uri": link["uri"]})[0] for link in links]
            tools[f"{name} (window)" if name in tools else name] = {
                "text": len(result["content"][0]["text"].encode()),
                "result": result_bytes,
                "parts": len(links),
                "largestRead": max(reads),
                "rest": sum(link["size"] for link in links),
            }
    return {"list": listed_bytes, "largestEntry": max(entries.values()), "entries": entries, "tools": tools}


def publish_synthetic(work: Path, params: synthetic.Params) -> Path:
    tree = work / f"weights-{params.managers}x{params.quarters}x{params.positions}"
    releases = tree.with_name(tree.name + "-releases")
    if not (releases / "current").exists():
        if not tree.exists():
            synthetic.write_tree(tree, params)
            packs = tree / "packs.toml"  # as many versions as the tree has quarters (8 when packs.toml is silent)
            packs.write_text(packs.read_text().replace("[copycat]\n", f"[copycat]\nversions = {params.quarters}\n", 1))
        publish(tree, releases, None, lambda _line: None)
    return releases


def publish_fixture(work: Path) -> Path:
    releases = work / "weights-fixture-releases"
    if not (releases / "current").exists():
        publish(fixture_source(), releases, None, lambda _line: None)
    return releases


def rows_and_targets(cases: dict[str, dict[str, Any]]) -> tuple[list[list[Any]], list[dict]]:
    rows, targets = [], []
    for case, weights in cases.items():
        rows.append([case, "tools/list", "", weights["list"], f"largest entry {weights['largestEntry']}", "", ""])
        for tool, w in weights["tools"].items():
            rows.append([case, tool, w["text"], w["result"], w["largestRead"], w["parts"], w["rest"]])
        tools = weights["tools"]
        most = max(w["result"] for w in tools.values())
        largest_read = max(w["largestRead"] for w in tools.values())
        targets += [
            report.target(
                f"{case}: tools/list ≤ 16 KB, each entry ≤ 3 KB",
                weights["list"] <= LIST_BYTES and weights["largestEntry"] <= ENTRY_BYTES,
                f"{weights['list']} B, {weights['largestEntry']} B",
            ),
            report.target(
                f"{case}: get_latest_pack text ≤ 9 KiB",
                tools["get_latest_pack"]["text"] <= LATEST_TEXT_BYTES,
                f"{tools['get_latest_pack']['text']} B",
            ),
            report.target(
                f"{case}: every tool's text ≤ 16 KB and result ≤ 1 MB",
                max(w["text"] for w in tools.values()) <= TEXT_BYTES and most <= RESULT_BYTES,
                f"text ≤ {max(w['text'] for w in tools.values())} B, result ≤ {most} B",
            ),
            report.target(
                f"{case}: every MCP message ≤ 8 MiB",
                max(largest_read, most) <= MESSAGE_BYTES,
                f"largest resources/read {largest_read} B ({largest_read / MESSAGE_BYTES:.2f}× the limit)",
            ),
        ]
    return rows, targets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.weights", description=__doc__.splitlines()[0])
    parser.add_argument("--managers", type=int, default=500)
    parser.add_argument("--quarters", type=int, default=3, help="3 gives a diff of one quarter and one of two")
    parser.add_argument("--positions", type=int, default=150)
    parser.add_argument("--work", type=Path, default=None, help="where trees and releases go (default: a temp dir)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        started = time.perf_counter()
        params = synthetic.Params(args.managers, args.quarters, args.positions)
        cases = {
            "fixture": weigh(publish_fixture(work)),
            f"{args.managers}x{args.quarters}x{args.positions}": weigh(publish_synthetic(work, params)),
        }
    rows, targets = rows_and_targets(cases)
    notes = [
        "Bytes of raw JSON-RPC lines from `python -m server.mcp_server` over stdio (newline excluded); text: the "
        "first content block; result: the whole tools/call message; largest read: the largest resources/read "
        "message of the result's links; REST bytes: the envelope those parts rebuild.",
        f"One call of each tool over the complete dataset (all managers, mode any); {time.perf_counter() - started:.0f} s "
        "in all, publishes included.",
    ]
    report.save(
        "weights",
        "MCP byte weights: tools/list, each tool's text and result, resource messages",
        ["release", "tool", "text B", "result B", "largest read B", "parts", "REST bytes"],
        rows,
        targets,
        notes,
        raw=cases,
    )
    return 0 if all(target["met"] for target in targets) else 1


if __name__ == "__main__":
    raise SystemExit(main())
