"""ReleaseData's memos: a large value kept among the last few, one made `scoped` kept to the end of its block of
answers whatever comes after it, and let go then (a publish renders each group of answers in such a block)."""

from __future__ import annotations

from collections import Counter

from builder.api.data import LARGE_MEMO_SIZE, ReleaseData


def counting() -> tuple[ReleaseData, Counter[str]]:
    return ReleaseData({"packs": []}, {}), Counter()


def test_a_scoped_value_outlives_any_number_of_large_ones_until_its_block_ends():
    data, computed = counting()

    def book() -> str:
        computed["book"] += 1
        return "the latest pair's changes"

    with data.scoped():
        for mode in range(4):  # each mode's explanations make more large values than the LRU keeps
            assert data.memo("book", book, large=True, scoped=True) == "the latest pair's changes"
            for other in range(LARGE_MEMO_SIZE + 1):
                data.memo((mode, other), lambda: computed.update(["other"]), large=True)
        assert computed == {"book": 1, "other": 4 * (LARGE_MEMO_SIZE + 1)}
    data.memo("book", book, large=True, scoped=True)
    assert computed["book"] == 2  # let go with its block


def test_outside_a_block_a_scoped_value_is_a_large_one():
    data, computed = counting()

    def book() -> int:
        computed["book"] += 1
        return computed["book"]

    assert data.memo("book", book, large=True, scoped=True) == 1
    assert data.memo("book", book, large=True, scoped=True) == 1
    for other in range(LARGE_MEMO_SIZE):
        data.memo(other, lambda: None, large=True)
    assert data.memo("book", book, large=True, scoped=True) == 2  # evicted as the oldest large value
