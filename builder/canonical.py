"""Canonical JSON bytes and their hashes: the one byte form every stage agrees on (no project imports)."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson


def canonical_json(payload: Any) -> bytes:
    """The one byte form of a payload: sorted keys, no whitespace, so equal content has equal bytes."""
    return orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def strong_etag(data: bytes) -> str:
    """A strong validator (RFC 9110 §8.8.3) derived from the bytes alone, so it survives promotions."""
    return f'"{sha256_hex(data)}"'
