"""JSON Schema from the types that declare a wire shape: a `TypedDict` of str, int, float, bool, `Literal`, string
enums, `list`, `dict` (keyed maps), unions (`X | None`) and other TypedDicts, with `Annotated[..., Keywords(...)]`
for constraints and markers (KEY, TYPE_LIST, ONE_OF, BARE, UNPROMISED) for how a field is written.

Three faces of one type. `object_schemas` gives OpenAPI components: closed objects (`additionalProperties: false`),
every field required but the `NotRequired` ones, a type named among the components (or elsewhere) a `$ref`, any
other TypedDict inline. `json_schema` gives a standalone JSON Schema document with `$defs`, each definition
described by its type's docstring (the PackArtifact's). `compact_schema` gives an MCP output schema: open
objects, types without constraints, a list of objects or a nested object promising only the fields marked `KEY`
(all its fields when none is). Descriptions of the OpenAPI document are not written here: it takes them from its
glossary by component and field name (builder.api.openapi.glossary).
"""

from __future__ import annotations

import enum
import functools
import types
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
    get_type_hints,
)
from typing import is_typeddict as _is_typeddict

Schema = dict[str, Any]
COMPONENTS = "#/components/schemas/"
PRIMITIVES: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


class Keywords:
    """JSON Schema keywords a field's `Annotated` type adds to its type's schema, in the order given."""

    def __init__(self, **keywords: Any) -> None:
        self.keywords = keywords


class Key:
    """Marks a field an agent keys a list's items by: the compact schema requires it of each item."""


class TypeList:
    """Marks a union of JSON types to write as one list of types (`{"type": ["number", "null"]}`), not an anyOf."""


class OneOf:
    """Marks a union of TypedDicts told apart by a field of Literal values: a `oneOf`, not an anyOf, and among
    OpenAPI components one with a discriminator (value → the branch's component), which generators type as a
    union a check of that field narrows."""

    def __init__(self, field: str) -> None:
        self.field = field


class Unpromised:
    """Marks a field whose compact schema promises an object and nothing of its fields (they are the REST answer's
    business: a view, a methodology)."""


class Bare:
    """Marks a Literal (or a string enum) of several values to write as `{"enum": [...]}` alone, None allowed among them (the
    PackArtifact schema's style), not as a string enum."""


KEY = Key()
TYPE_LIST = TypeList()
ONE_OF = OneOf("kind")
BARE = Bare()
UNPROMISED = Unpromised()
DEFS = "#/$defs/"
Shape = TypeVar("Shape")
Date = Annotated[str, Keywords(format="date")]  # ISO 8601 calendar date
Count = Annotated[int, Keywords(minimum=0)]
Sha256 = Annotated[str, Keywords(pattern="^[0-9a-f]{64}$")]
Fraction = Annotated[float, Keywords(minimum=0, maximum=1)]


def picked(shape: type[Shape], source: Mapping[str, Any]) -> Shape:
    """The fields of the TypedDict `shape`, in its order, taken from `source` (a record, a REST answer); a
    NotRequired field only where `source` has it."""
    typeddict: type = shape  # hashable, as every class is
    required = _required_names(typeddict)
    # cast: a dict made from a TypedDict's own annotations is of that TypedDict, which no type checker can follow
    return cast(Shape, {name: source[name] for name in shape.__annotations__ if name in required or name in source})


@functools.cache
def _required_names(shape: Hashable) -> frozenset[str]:
    """`_required` of `shape` as a set, resolved once per shape (picked runs thousands of times a publish, and
    resolving a TypedDict's hints is most of its cost)."""
    return frozenset(_required(shape))


def object_schemas(
    components: Mapping[str, Any], elsewhere: Mapping[Any, str] | None = None, *, docstrings: bool = False
) -> dict[str, Schema]:
    """Each TypedDict of `components` as a closed object, in order; a field of a type named here is a `$ref`, and
    so is one of a type (a TypedDict or an Annotated alias) `elsewhere` names, whose schema is written elsewhere.
    `docstrings`: each TypedDict described by its docstring (else the glossary describes it)."""
    style = _Style({**(elsewhere or {}), **{shape: name for name, shape in components.items()}}, COMPONENTS, docstrings)
    return {name: _definition(shape, style) for name, shape in components.items()}


@dataclass(frozen=True, slots=True)
class _Style:
    """Where a field's `$ref` points: the types that have a name, and where the names live."""

    names: Mapping[Any, str]
    prefix: str
    docstrings: bool = False

    def ref(self, hint: Any) -> Schema:
        return {"$ref": self.prefix + self.names[hint]}


def _closed(shape: Any, style: _Style) -> Schema:
    fields = _fields(shape)
    properties = {name: _schema(hint, style) for name, hint in fields.items()}
    schema: Schema = {"type": "object", "additionalProperties": False, "properties": properties}
    required = _required(shape)
    if required:
        schema["required"] = required
    return schema


def _schema(hint: Any, style: _Style) -> Schema:
    if hint in style.names:
        return style.ref(hint)
    hint, extras = _unwrap(hint)
    origin, args = get_origin(hint), get_args(hint)
    if hint in PRIMITIVES:
        schema: Schema = {"type": PRIMITIVES[hint]}
    elif origin is Literal and len(args) == 1:
        schema = {"const": args[0]}
    elif origin is Literal and any(isinstance(extra, Bare) for extra in extras):
        schema = {"enum": list(args)}
    elif origin is Literal:
        schema = {"type": "string", "enum": list(_strings(args))}
    elif isinstance(hint, type) and issubclass(hint, enum.Enum):
        values = list(_strings(tuple(member.value for member in hint)))
        schema = (
            {"enum": values} if any(isinstance(extra, Bare) for extra in extras) else {"type": "string", "enum": values}
        )
    elif origin is list:
        schema = {"type": "array", "items": _schema(args[0], style)}
    elif origin is dict:  # a map keyed by ids: the keys' schema (an open id lists the known ones as examples)
        schema = {"type": "object"}
        if args[0] is not str:  # any name: no propertyNames
            schema["propertyNames"] = _schema(args[0], style)
        schema["additionalProperties"] = True if args[1] is Any else _schema(args[1], style)
    elif origin in (Union, types.UnionType) and any(isinstance(extra, TypeList) for extra in extras):
        schema = {"type": [PRIMITIVES[arg] for arg in args]}
    elif origin in (Union, types.UnionType):
        branches = [_schema(arg, style) for arg in args]
        one_of = next((extra for extra in extras if isinstance(extra, OneOf)), None)
        schema = {"oneOf" if one_of else "anyOf": branches}
        if one_of and style.prefix == COMPONENTS:
            schema["discriminator"] = {"propertyName": one_of.field, "mapping": _mapping(args, one_of.field, style)}
    elif hint in style.names:  # a named type wrapped in Annotated keywords of its own
        schema = style.ref(hint)
    elif _is_typeddict(hint):
        schema = _closed(hint, style)
    else:
        raise TypeError(f"no JSON Schema for {hint!r}")
    for keywords in extras:
        if isinstance(keywords, Keywords):
            schema.update(keywords.keywords)
    return schema


def json_schema(root: Any, definitions: Mapping[str, Any], head: Mapping[str, Any]) -> Schema:
    """A JSON Schema document of the TypedDict `root`: `head` ($schema, $id, title), then `root` as a closed object
    with `definitions` as its `$defs` (a field of one of their types is a `$ref`); each TypedDict described by its
    docstring."""
    style = _Style({hint: name for name, hint in definitions.items()}, DEFS, docstrings=True)
    defs = {name: _definition(hint, style) for name, hint in definitions.items()}
    return {**head, **_described(root, _closed(root, style)), "$defs": defs}


def _definition(hint: Any, style: _Style) -> Schema:
    """A named type written out: a TypedDict as a closed object (described by its docstring in a JSON Schema
    document), anything else (a union of components, an alias) as its schema."""
    if _is_typeddict(hint):
        return _described(hint, _closed(hint, style)) if style.docstrings else _closed(hint, style)
    own = {shape: name for shape, name in style.names.items() if shape is not hint}  # itself written out, not a $ref
    return _schema(hint, _Style(own, style.prefix, style.docstrings))


def _mapping(branches: tuple[Any, ...], field: str, style: _Style) -> dict[str, str]:
    """Each value of `field` → the reference of the branch whose Literal holds it."""
    return {
        value: style.prefix + style.names[branch]
        for branch in branches
        for value in get_args(_unwrap(_fields(branch)[field])[0])
    }


def _described(shape: Any, schema: Schema) -> Schema:
    return {"description": " ".join(shape.__doc__.split()), **schema} if shape.__doc__ else schema


def compact_schema(shape: Any) -> Schema:
    """An MCP output schema of the TypedDict `shape`: its fields typed, the required ones named."""
    fields = _fields(shape)
    properties = {name: compact_type(hint) for name, hint in fields.items()}
    return {"type": "object", "properties": properties, "required": _required(shape)}


def compact_type(hint: Any) -> Schema:
    """The compact schema of one field's type (a nested TypedDict: its KEY fields typed, all of them when none is
    marked, none required)."""
    hint, extras = _unwrap(hint)
    origin, args = get_origin(hint), get_args(hint)
    if any(isinstance(extra, Unpromised) for extra in extras):
        return {"type": "object"}
    if hint in PRIMITIVES:
        return {"type": PRIMITIVES[hint]}
    if origin is Literal:
        return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
    if origin is list and _is_typeddict(_unwrap(args[0])[0]):
        return {"type": "array", "items": {"type": "object", "required": _keys(_unwrap(args[0])[0])}}
    if origin is list:
        return {"type": "array", "items": compact_type(args[0])}
    if origin in (Union, types.UnionType) and len(args) == 2 and type(None) in args:
        (kind,) = (compact_type(arg)["type"] for arg in args if arg is not type(None))
        return {"type": [kind, "null"]}
    if _is_typeddict(hint):
        promised = _marked(hint) or list(_fields(hint))
        properties = {name: compact_type(h) for name, h in _fields(hint).items() if name in promised}
        return {"type": "object", "properties": properties}
    if origin is dict or hint is dict:
        return {"type": "object"}
    raise TypeError(f"no compact schema for {hint!r}")


def _keys(shape: Any) -> list[str]:
    """The fields a list of `shape` promises of each item: those marked KEY, else every required one."""
    return _marked(shape) or _required(shape)


def _marked(shape: Any) -> list[str]:
    """The fields of `shape` marked KEY, in order."""
    return [name for name, hint in _fields(shape).items() if any(isinstance(extra, Key) for extra in _unwrap(hint)[1])]


def _required(shape: Any) -> list[str]:
    """The required fields of `shape`, in order. Read from the resolved hints: under `from __future__ import
    annotations`, Python 3.11's __required_keys__ cannot see a NotRequired written as a string."""
    wrappers = {name: get_origin(hint) for name, hint in _fields(shape).items()}
    return [
        name
        for name, wrapper in wrappers.items()
        if wrapper is Required or (wrapper is not NotRequired and name in shape.__required_keys__)
    ]


def _fields(shape: Any) -> dict[str, Any]:
    if not _is_typeddict(shape):
        raise TypeError(f"{shape!r} is not a TypedDict")
    return get_type_hints(shape, include_extras=True)


def _unwrap(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    """`hint` without Annotated, Required and NotRequired, and the Annotated metadata it carried (outermost last)."""
    extras: tuple[Any, ...] = ()
    while get_origin(hint) in (Annotated, Required, NotRequired):
        if get_origin(hint) is Annotated:
            extras = hint.__metadata__ + extras
            hint = hint.__origin__
        else:
            hint = get_args(hint)[0]
    return hint, extras


def _strings(values: tuple[Any, ...]) -> tuple[str, ...]:
    if not all(isinstance(value, str) for value in values):
        raise TypeError(f"an enum of strings only: {values!r}")
    return values
