"""builder.typed: a TypedDict's two JSON Schemas (OpenAPI component, MCP compact output) and its projection."""

from __future__ import annotations

import enum
from typing import Annotated, Any, Literal, NotRequired, TypedDict

import pytest

from builder.typed import KEY, TYPE_LIST, Count, Date, Keywords, compact_schema, object_schemas, picked


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


def test_a_type_with_no_json_schema_is_refused_by_name():
    with pytest.raises(TypeError, match="no JSON Schema"):
        object_schemas({"Shape": Shape, "Item": Item})  # extra: dict[str, Any] has no closed schema


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
