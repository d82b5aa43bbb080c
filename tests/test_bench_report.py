"""bench/RESULTS.md is rebuilt from bench/results/ (git-ignored) without losing the sections it has no result for."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from bench import report

OLD = """# Benchmark results

intro

## Publish scaling

old publish figures

## POST latency and throughput

post figures kept from another machine

## Notes on the runs of a day

a notebook entry
"""


def test_a_new_result_replaces_its_section_in_place_and_the_others_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(report, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(report, "SUMMARY", tmp_path / "RESULTS.md")
    (tmp_path / "RESULTS.md").write_text(OLD)
    (tmp_path / "results").mkdir()
    for name, title, figure in (("publish", "Publish scaling", "new figure"), ("watch", "Release watcher", "0.05")):
        result = {
            "title": title,
            "command": f"python -m bench.{name}",
            "date": "2026-11-23 16:00",
            "headers": ["case"],
            "rows": [[figure]],
            "targets": [],
            "notes": [],
            "extra": "",
            "machine": {"nproc": 2, "cpu": "test", "memoryGiB": 1, "python": "3.11", "load1": 0.5},
        }
        (tmp_path / "results" / f"{name}.json").write_bytes(orjson.dumps(result))
    report.write_summary()
    text = (tmp_path / "RESULTS.md").read_text()
    titles = [line for line in text.splitlines() if line.startswith("## ")]
    assert titles == [
        "## Publish scaling",
        "## POST latency and throughput",
        "## Release watcher",
        "## Notes on the runs of a day",
    ]  # the notebook stays last
    assert "a notebook entry" in text
    assert "new figure" in text and "old publish figures" not in text
    assert "post figures kept from another machine" in text
