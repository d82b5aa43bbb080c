"""The PackArtifact's JSON Schema (builder/schemas/pack-artifact.schema.json): load once, validate."""

from __future__ import annotations

import functools
from importlib import resources

import orjson
from jsonschema import Draft202012Validator

SCHEMA_FILE = "pack-artifact.schema.json"


def artifact_schema() -> dict:
    """The schema document itself (a fresh copy; callers may embed it)."""
    return orjson.loads(_schema_bytes())


@functools.cache
def _schema_bytes() -> bytes:
    return (resources.files("builder") / "schemas" / SCHEMA_FILE).read_bytes()


@functools.cache
def artifact_validator() -> Draft202012Validator:
    """The compiled 2020-12 validator, format `date` checked; built once per process."""
    schema = artifact_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def validate_artifact(artifact: object) -> None:
    """Raise ValueError naming the first failing path (in path order) when `artifact` breaks the schema."""
    errors = sorted(artifact_validator().iter_errors(artifact), key=lambda e: (e.json_path, e.message))
    if errors:
        first = errors[0]
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise ValueError(f"PackArtifact fails its schema at {first.json_path}: {first.message}{more}")
