"""The fetch client's pure parts: Retry-After in both its forms, and the pacer's spacing."""

from __future__ import annotations

import itertools
import time
from email.utils import formatdate

from builder.fetch.client import MAX_RETRY_AFTER, PACE_MARGIN, Pacer, retry_after_seconds


def test_retry_after_is_read_as_seconds_or_as_an_http_date():  # RFC 9110 §10.2.3
    assert retry_after_seconds({"Retry-After": "60"}) == 60.0
    assert retry_after_seconds({"retry-after": " 7 "}) == 7.0
    in_ten = retry_after_seconds({"Retry-After": formatdate(time.time() + 10, usegmt=True)})
    assert in_ten is not None and 8.0 <= in_ten <= 10.0
    assert retry_after_seconds({"Retry-After": formatdate(time.time() - 100, usegmt=True)}) == 0.0


def test_a_missing_or_unreadable_retry_after_is_none_and_a_huge_one_is_capped():
    assert retry_after_seconds({}) is None
    assert retry_after_seconds({"Retry-After": "soon"}) is None
    assert retry_after_seconds({"Retry-After": "86400"}) == MAX_RETRY_AFTER


async def test_the_pacer_spaces_request_starts_a_little_wider_than_the_rate():
    pacer = Pacer(20.0)
    starts = []
    for _ in range(6):
        await pacer.wait()
        starts.append(time.monotonic())
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    assert min(gaps) >= PACE_MARGIN / 20.0 - 0.002  # the event loop's clock may round a sleep by a millisecond


async def test_a_hold_delays_every_next_request():
    pacer = Pacer(100.0)
    await pacer.wait()
    pacer.hold(0.3)
    started = time.monotonic()
    await pacer.wait()
    assert time.monotonic() - started >= 0.29
