"""holding_row sets a HoldingRow's slots itself: the same record as the dataclass's own constructor makes."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from builder.records import HoldingRow, holding_row


def test_holding_row_makes_the_record_the_constructor_makes_field_by_field() -> None:
    values = (70_000, "NOTE CO", "NOTE 1% 2030", "00206R102", 5000, 4000, "PRN", "Call", "OTR", "3", 1, 2, 3)
    made = holding_row(*values)
    assert made == HoldingRow(*values) and hash(made) == hash(HoldingRow(*values))
    assert dataclasses.astuple(made) == values
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.value = 1  # type: ignore[misc]


def test_holding_row_takes_every_field_by_its_name_in_the_records_order() -> None:
    names = list(inspect.signature(holding_row).parameters)
    assert names == [field.name for field in dataclasses.fields(HoldingRow)] == list(HoldingRow.__slots__)
