"""The PackArtifact's JSON Schema (builder/schemas/pack-artifact.schema.json): load once, validate."""

from __future__ import annotations

import functools
from importlib import resources

import orjson
from jsonschema import Draft202012Validator

SCHEMA_FILE = "pack-artifact.schema.json"
DEFS = "#/$defs/"


def artifact_schema() -> dict:
    """The schema document itself (a fresh copy; callers may embed it)."""
    return orjson.loads(_schema_bytes())


@functools.cache
def _schema_bytes() -> bytes:
    return (resources.files("builder") / "schemas" / SCHEMA_FILE).read_bytes()


def _inline(node: object, defs: dict) -> object:
    """`node` with every local `#/$defs/…` reference replaced by its definition (the schema has no cycles)."""
    if isinstance(node, list):
        return [_inline(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    if set(node) == {"$ref"} and node["$ref"].startswith(DEFS):
        return _inline(defs[node["$ref"].removeprefix(DEFS)], defs)
    return {key: _inline(value, defs) for key, value in node.items()}


@functools.cache
def artifact_validator() -> Draft202012Validator:
    """The compiled 2020-12 validator, format `date` checked; built once per process."""
    schema = artifact_schema()
    Draft202012Validator.check_schema(schema)
    # Resolving a $ref costs more than the check it leads to: inlined, a large book validates in half the time.
    inlined = _inline({k: v for k, v in schema.items() if k != "$defs"}, schema["$defs"])
    return Draft202012Validator(inlined, format_checker=Draft202012Validator.FORMAT_CHECKER)


def validate_artifact(artifact: object) -> None:
    """Raise ValueError naming the first failing path (in path order) when `artifact` breaks the schema."""
    # Paths compare element by element; siblings share a container, so keys meet keys and indexes meet indexes.
    errors = sorted(artifact_validator().iter_errors(artifact), key=lambda e: (tuple(e.absolute_path), e.message))
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ValueError(f"PackArtifact fails its schema at {first.json_path}: {first.message}{more}")
