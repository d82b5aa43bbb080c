"""A book's Holdings and SourceRows are made by their slots' setters: the records their dataclass constructors make."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

from builder.research.changes.carry import Lot
from builder.research.holdings import Holding, SourceRow, _holding, _source_row

ROWS = (SourceRow("0000950123-24-000001", 3), SourceRow("0000950123-24-000001", 9))


def test_source_row_makes_the_record_the_constructor_makes() -> None:
    made = _source_row("0000950123-24-000001", 17)
    assert made == SourceRow("0000950123-24-000001", 17) and hash(made) == hash(SourceRow("0000950123-24-000001", 17))
    assert dataclasses.astuple(made) == ("0000950123-24-000001", 17)


def test_holding_makes_the_record_the_constructor_makes_field_by_field() -> None:
    values = ("00206R102", 4000, 120_000, 2, "AT&T INC", "Call", "SH", ROWS)
    made = _holding(*values)
    assert made == Holding(*values) and hash(made) == hash(Holding(*values))
    assert tuple(getattr(made, field.name) for field in dataclasses.fields(Holding)) == values
    assert not made.long_equity  # a call option
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.shares = 1  # type: ignore[misc]


def test_a_long_equity_holding_is_the_lot_the_change_rules_read() -> None:
    made = _holding("00206R102", 4000, 120_000, 2, "AT&T INC", None, "SH", ROWS)
    assert isinstance(made, Lot) and made.long_equity
    assert (made.cusip, made.shares, made.value, made.rows, made.issuer) == ("00206R102", 4000, 120_000, 2, "AT&T INC")


@pytest.mark.parametrize(("maker", "record"), [(_source_row, SourceRow), (_holding, Holding)])
def test_each_maker_takes_every_field_by_its_name_in_the_records_order(maker, record) -> None:
    names = list(inspect.signature(maker).parameters)
    assert names == [field.name for field in dataclasses.fields(record)]
