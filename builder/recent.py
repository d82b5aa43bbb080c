"""Recent: the values last used, bounded; the one LRU table of the project's caches.

A function's results are cached with the standard library's functools.lru_cache (explained._split, the server's
header sets); a table of what a caller computed or read under a key of its own (verified answer bodies, decoded
artifacts, a release's derived values, rendered answers) is a Recent: bounded by how many values it keeps, by their
total weight (bytes), or both, the least recently used dropped first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


def _one(_key: object, _value: object) -> int:
    return 1


class Recent(Generic[Key, Value]):
    """At most `entries` values (None: any number), and at most `budget` of their `weight` (None: no budget); a value
    weighing more than `largest` is not kept (one huge value must not flush the rest). A hit makes its value the most
    recent; the least recent are dropped when a new one needs the room."""

    def __init__(
        self,
        entries: int | None = None,
        *,
        budget: int | None = None,
        weight: Callable[[Key, Value], int] = _one,
        largest: int | None = None,
    ) -> None:
        self.entries, self.budget, self.weight, self.largest = entries, budget, weight, largest
        self.held = 0  # the weight of what is kept
        self._table: OrderedDict[Key, Value] = OrderedDict()

    def get(self, key: Key) -> Value | None:
        """The value kept under `key`, now the most recent; None when none is kept."""
        value = self._table.get(key)
        if value is not None:
            self._table.move_to_end(key)
        return value

    def __getitem__(self, key: Key) -> Value:
        """The value kept under `key` (which may be None), now the most recent; KeyError when none is kept."""
        value = self._table[key]
        self._table.move_to_end(key)
        return value

    def put(self, key: Key, value: Value) -> None:
        """Keep `value` under `key` as the most recent, then drop the least recent past the bounds; a key already
        kept is only made the most recent (its value is the same: what is cached is pure)."""
        if key in self._table:
            self._table.move_to_end(key)
            return
        weight = self.weight(key, value)
        if self.largest is not None and weight > self.largest:
            return
        self._table[key] = value
        self.held += weight
        self._shrink(self.entries, self.budget)

    def make_room(self) -> None:
        """Drop the least recent until one more value fits the count: before making a value too large to hold twice
        (a decoded artifact), not after."""
        if self.entries is not None:
            self._shrink(max(self.entries - 1, 0), None)

    def pop(self, key: Key) -> None:
        """Let go of the value under `key`, if any."""
        if key in self._table:
            self.held -= self.weight(key, self._table.pop(key))

    def items(self) -> Iterator[tuple[Key, Value]]:
        """Every key and value, the least recent first."""
        return iter(list(self._table.items()))

    def __contains__(self, key: object) -> bool:
        return key in self._table

    def __iter__(self) -> Iterator[Key]:
        return iter(list(self._table))

    def __len__(self) -> int:
        return len(self._table)

    def _shrink(self, entries: int | None, budget: int | None) -> None:
        table = self._table
        while table and ((entries is not None and len(table) > entries) or (budget is not None and self.held > budget)):
            key, value = table.popitem(last=False)
            self.held -= self.weight(key, value)
