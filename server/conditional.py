"""Conditional GET (RFC 9110 §13.1.2): does an If-None-Match header match the current strong ETag?"""

from __future__ import annotations

import re

# entity-tag = [ weak ] opaque-tag; weak = "W/"; opaque-tag = DQUOTE *etagc DQUOTE (RFC 9110 §8.8.3)
ENTITY_TAG = re.compile(r'\s*(?:W/)?("[^"]*")\s*(?:,|$)')


def none_match(header: str | None, etag: str) -> bool:
    """True when the cached representation is current: `*`, or any listed tag equal by weak comparison.

    If-None-Match uses the weak comparison function (§13.1.2): `W/"x"` matches `"x"`.
    """
    if header is None:
        return False
    if header.strip() == "*":
        return True
    return any(match.group(1) == etag for match in ENTITY_TAG.finditer(header))
