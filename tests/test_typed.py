"""builder.typed: a TypedDict's two JSON Schemas (OpenAPI component, MCP compact output) and its projection."""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import pytest

from builder.typed import (
    BARE,
    KEY,
    ONE_OF,
    TYPE_LIST,
    UNPROMISED,
    Count,
    Date,
    Keywords,
    compact_schema,
    json_schema,
    object_schemas,
    picked,
)


class Item(TypedDict):
    id: Annotated[str, KEY]
    size: Count
    note: str | None


class Part(TypedDict):
    day: Date
    ratio: float


class Closed(TypedDict):
    kind: Literal["a", "b"]
    fixed: Literal[False]
    items: list[Item]
    tags: Annotated[list[str], Keywords(uniqueItems=True)]
    part: Part
    later: NotRequired[int]


class Shape(Closed):
    extra: dict[str, Any]


def test_a_component_is_a_closed_object_naming_its_required_fields_and_referring_to_other_components():
    schemas = object_schemas({"Closed": Closed, "Item": Item})
    shape = schemas["Closed"]
    assert list(shape) == ["type", "additionalProperties", "properties", "required"]
    assert shape["required"] == ["kind", "fixed", "items", "tags", "part"]
    assert shape["properties"]["kind"] == {"type": "string", "enum": ["a", "b"]}
    assert shape["properties"]["fixed"] == {"const": False}
    assert shape["properties"]["items"] == {"type": "array", "items": {"$ref": "#/components/schemas/Item"}}
    assert shape["properties"]["tags"] == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    assert shape["properties"]["part"]["properties"]["day"] == {"type": "string", "format": "date"}
    assert schemas["Item"]["properties"]["size"] == {"type": "integer", "minimum": 0}
    assert schemas["Item"]["properties"]["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}


class Colour(enum.StrEnum):
    RED = "red"
    BLUE = "blue"


Known = Annotated[str, Keywords(examples=["x", "y"])]  # an open id: any string, the known ones as examples


class Keyed(TypedDict):
    colour: Colour
    weights: dict[Known, Annotated[float, Keywords(minimum=0)]]
    values: dict[str, Annotated[float | None, TYPE_LIST]]


def test_a_string_enum_a_keyed_map_and_a_type_list_union_have_their_json_schema():
    properties = object_schemas({"Keyed": Keyed})["Keyed"]["properties"]
    assert properties["colour"] == {"type": "string", "enum": ["red", "blue"]}
    assert properties["weights"] == {
        "type": "object",
        "propertyNames": {"type": "string", "examples": ["x", "y"]},
        "additionalProperties": {"type": "number", "minimum": 0},
    }
    assert properties["values"]["additionalProperties"] == {"type": ["number", "null"]}


class Raw(TypedDict):
    data: bytes


def test_a_type_with_no_json_schema_is_refused_by_name():
    with pytest.raises(TypeError, match="no JSON Schema for <class 'bytes'>"):
        object_schemas({"Raw": Raw})


def test_a_map_keyed_by_any_name_has_no_property_names_and_a_map_of_anything_takes_any_value():
    properties = object_schemas({"Shape": Shape, "Item": Item})["Shape"]["properties"]
    assert properties["extra"] == {"type": "object", "additionalProperties": True}


Stamp = Annotated[str, Keywords(pattern="^[0-9]+$")]  # a named definition of another document


class Trade(TypedDict):
    """A trade."""

    kind: Annotated[Literal["buy", "sell", None], BARE]
    stamp: Stamp
    size: Count


class Gift(TypedDict):
    kind: Literal["gift"]
    stamp: Stamp | None


Move = Annotated[Trade | Gift, ONE_OF]


class Book(TypedDict):
    """A book of moves."""

    moves: list[Move]


def test_a_field_of_a_type_named_elsewhere_is_a_reference_even_an_annotated_alias():
    schemas = object_schemas({"Gift": Gift}, {Stamp: "OtherStamp"})
    assert schemas["Gift"]["properties"]["stamp"] == {
        "anyOf": [{"$ref": "#/components/schemas/OtherStamp"}, {"type": "null"}]
    }


def test_a_json_schema_document_defines_its_named_types_once_described_by_their_docstrings():
    head = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Book"}
    document = json_schema(Book, {"stamp": Stamp, "trade": Trade, "gift": Gift, "move": Move}, head)
    assert list(document)[:3] == ["$schema", "title", "description"]
    assert document["description"] == "A book of moves."
    assert document["properties"]["moves"] == {"type": "array", "items": {"$ref": "#/$defs/move"}}
    defs = document["$defs"]
    assert defs["stamp"] == {"type": "string", "pattern": "^[0-9]+$"}
    assert defs["move"] == {"oneOf": [{"$ref": "#/$defs/trade"}, {"$ref": "#/$defs/gift"}]}
    assert defs["trade"]["description"] == "A trade."
    assert defs["trade"]["properties"]["kind"] == {"enum": ["buy", "sell", None]}
    assert defs["trade"]["properties"]["stamp"] == {"$ref": "#/$defs/stamp"}
    assert "description" not in defs["gift"]


def test_a_compact_schema_is_open_types_only_and_its_lists_promise_their_key_fields():
    schema = compact_schema(Shape)
    assert "additionalProperties" not in schema
    assert schema["required"] == ["kind", "fixed", "items", "tags", "part", "extra"]
    properties = schema["properties"]
    assert properties["kind"] == {"enum": ["a", "b"]}
    assert properties["items"] == {"type": "array", "items": {"type": "object", "required": ["id"]}}
    assert properties["tags"] == {"type": "array", "items": {"type": "string"}}
    assert properties["part"] == {
        "type": "object",
        "properties": {"day": {"type": "string"}, "ratio": {"type": "number"}},
    }
    assert properties["extra"] == {"type": "object"}
    assert compact_schema(Item)["properties"]["note"] == {"type": ["string", "null"]}


def test_picked_takes_the_shape_fields_in_its_order_and_leaves_the_rest():
    record = {"note": None, "size": 3, "id": "x", "path": "/secret"}
    assert list(picked(Item, record).items()) == [("id", "x"), ("size", 3), ("note", None)]


class Listing(TypedDict):
    id: str
    quarter: NotRequired[Date]
    latest: bool


def test_picked_takes_a_not_required_field_only_where_the_record_has_it_and_a_required_one_always():
    assert list(picked(Listing, {"latest": True, "id": "a", "sha": "0"})) == ["id", "latest"]
    assert list(picked(Listing, {"latest": True, "quarter": "2026-06-30", "id": "a"})) == ["id", "quarter", "latest"]
    with pytest.raises(KeyError):
        picked(Listing, {"quarter": "2026-06-30", "id": "a"})


class Brief(TypedDict):
    count: Annotated[int, KEY]
    total: Annotated[int, KEY]
    note: str


class Answer(TypedDict):
    brief: Brief
    view: Annotated[Brief, UNPROMISED]


def test_a_nested_object_promises_its_key_fields_and_an_unpromised_one_only_that_it_is_an_object():
    properties = compact_schema(Answer)["properties"]
    assert properties["brief"] == {
        "type": "object",
        "properties": {"count": {"type": "integer"}, "total": {"type": "integer"}},
    }
    assert properties["view"] == {"type": "object"}


class Sale(TypedDict):
    """A sale."""

    kind: Literal["sale", "gift"]


class Swap(TypedDict):
    kind: Literal["swap"]


class Ledger(TypedDict):
    entry: Annotated[Sale | Swap, ONE_OF]


def test_a_one_of_union_of_components_has_a_discriminator_from_each_branch_kind_to_its_component():
    schemas = object_schemas({"Ledger": Ledger, "Sale": Sale, "Swap": Swap}, docstrings=True)
    assert schemas["Ledger"]["properties"]["entry"] == {
        "oneOf": [{"$ref": "#/components/schemas/Sale"}, {"$ref": "#/components/schemas/Swap"}],
        "discriminator": {
            "propertyName": "kind",
            "mapping": {
                "sale": "#/components/schemas/Sale",
                "gift": "#/components/schemas/Sale",
                "swap": "#/components/schemas/Swap",
            },
        },
    }
    assert schemas["Sale"]["description"] == "A sale."
    assert "description" not in schemas["Swap"]
