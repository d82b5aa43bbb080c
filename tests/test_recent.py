"""builder.recent.Recent, the one LRU table of the project's caches: its bounds, its order, and that no module keeps a
table of its own."""

from __future__ import annotations

import re
from pathlib import Path

from builder.recent import Recent

REPO = Path(__file__).resolve().parents[1]


def test_a_count_bound_drops_the_least_recently_used():
    table: Recent[str, int] = Recent(2)
    table.put("a", 1)
    table.put("b", 2)
    assert table.get("a") == 1  # a hit: "a" is now the most recent
    table.put("c", 3)
    assert list(table) == ["a", "c"] and table.get("b") is None and len(table) == 2


def test_a_byte_budget_drops_until_the_weight_fits_and_refuses_what_is_too_large():
    table: Recent[str, bytes] = Recent(budget=10, weight=lambda _key, body: len(body), largest=6)
    table.put("a", b"xxxx")
    table.put("b", b"yyyy")
    table.put("huge", b"z" * 7)  # over `largest`: never kept, and nothing dropped for it
    assert list(table) == ["a", "b"] and table.held == 8
    table.put("c", b"wwww")
    assert list(table) == ["b", "c"] and table.held == 8


def test_a_kept_key_is_only_made_recent_and_a_value_of_none_is_found_by_index():
    table: Recent[str, int | None] = Recent(2)
    table.put("none", None)
    table.put("b", 2)
    table.put("none", 5)  # the same key: made the most recent, its value kept
    assert list(table) == ["b", "none"] and table["none"] is None and "none" in table


def test_making_room_before_a_large_value_holds_one_fewer_and_pop_lets_go():
    table: Recent[str, bytes] = Recent(2, weight=lambda _key, body: len(body))
    table.put("a", b"12")
    table.put("b", b"345")
    table.make_room()
    assert list(table) == ["b"] and table.held == 3
    table.pop("b")
    table.pop("missing")
    assert len(table) == 0 and table.held == 0
    unbounded: Recent[int, int] = Recent()
    for number in range(1000):
        unbounded.put(number, number)
    unbounded.make_room()
    assert len(unbounded) == 1000


def test_no_module_keeps_an_lru_table_of_its_own():
    hand_rolled = re.compile(r"move_to_end\(|popitem\(last=False\)")
    found = [
        str(path.relative_to(REPO))
        for path in [*REPO.glob("builder/**/*.py"), *REPO.glob("server/**/*.py")]
        if path != REPO / "builder" / "recent.py" and hand_rolled.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []
