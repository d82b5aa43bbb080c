"""Which request targets an export answers from files: the `mode=any` aliases are read back from the release's own
request keys, so planning an export decodes no artifact, and they are the very aliases the publish's enumeration of
its requests gives."""

from __future__ import annotations

from pathlib import Path

from builder.api.contract import OPERATIONS
from builder.export.routes import _answers_like, mode_aliases, served_routes
from builder.release.store import current_release, load_release
from builder.research.views import DEFAULT_MODE

EXPLANATION = "/api/v1/packs/13f-copycat/positions/{}/explanation"


def test_the_aliases_are_the_enumerated_requests_and_planning_decodes_no_artifact(published: Path):
    directory = current_release(published)
    assert directory is not None
    release = load_release(directory)
    aliases = sorted(mode_aliases(release))
    served = served_routes(release)
    assert release.data.artifacts.decoded == 0  # enumerating the explanations' tickers decoded the latest two

    enumerated = sorted(
        (alias, canonical)
        for operation in OPERATIONS
        if operation.method == "GET" and operation.view and operation.precompute is not None
        for params in operation.precompute(release.data)
        if "mode" not in params
        and _answers_like(operation, release, params, alias := operation.request_key({**params, "mode": DEFAULT_MODE}))
        == (canonical := operation.request_key(params))
    )
    assert release.data.artifacts.decoded > 0  # the enumeration above does decode: the check is not empty
    assert aliases == enumerated
    assert ("/api/v1/packs/13f-copycat/latest?mode=any", "/api/v1/packs/13f-copycat/latest") in aliases
    explained = [key for key in release.answers if key.endswith("/explanation")]  # the default view's, no query
    assert len(explained) > 20
    for canonical in explained:
        assert (f"{canonical}?mode=any", canonical) in aliases
    assert ("/api/v1/packs/congress-trades/latest?mode=any", "/api/v1/packs/congress-trades/latest") in aliases
    assert served.aliases == len(aliases)
