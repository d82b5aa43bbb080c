"""Which request targets an export answers from files: the release's 200 answers and their `mode=any` aliases.

Everything else (error answers, manager subsets, other spellings of a query) is left to the app, which
answers it from the same release; so a target is only listed when the app would give these very bytes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from builder.api.contract import OPERATIONS, Operation
from builder.api.params import resolve
from builder.api.wire import ApiError
from builder.export.config import SAFE_TARGET, Route
from builder.release.objects import object_path
from builder.release.store import LoadedRelease
from builder.research.views import DEFAULT_MODE


@dataclass(frozen=True, slots=True)
class Served:
    routes: list[Route]  # sorted by request target
    sizes: dict[str, int]  # sha256 → bytes of the answer (its object file in the release)
    aliases: int  # targets that are another spelling of a canonical one
    left: int  # precomputed answers left to the app (not 200, a target nginx cannot match exactly, or too large)
    too_large: list[tuple[str, int]]  # (first request target, bytes) of each answer over the host's bytes per file


def _answers_like(
    operation: Operation, release: LoadedRelease, params: Mapping[str, object], target: str
) -> str | None:
    """The canonical key the app resolves `target` to, as server/dispatch.py does; None for an error."""
    path = {p.name: str(params[p.name]) for p in operation.params if p.location == "path"}
    query = parse_qsl(urlsplit(target).query, keep_blank_values=True)
    try:
        return operation.request_key(resolve(operation, release.data, path, query))
    except ApiError:
        return None


def mode_aliases(release: LoadedRelease) -> Iterator[tuple[str, str]]:
    """(alias, canonical) for every default view requested with an explicit `mode=any` (contract §4.3 rule 3)."""
    for operation in OPERATIONS:
        if operation.method != "GET" or not operation.view or operation.precompute is None:
            continue
        for canonical, params in _precomputed(operation, release):
            if "mode" in params:
                continue
            alias = operation.request_key({**params, "mode": DEFAULT_MODE})
            if _answers_like(operation, release, params, alias) == canonical:  # preview packs: 400, not an alias
                yield alias, canonical


def _precomputed(operation: Operation, release: LoadedRelease) -> Iterator[tuple[str, dict[str, str | list[str]]]]:
    """(request key, parameters) of each of the release's answers to `operation`, read back from its keys: enumerated
    as a publish does (`operation.precompute`), the explanations' tickers would decode the latest two artifacts, a
    tenth of a 500-manager export. A key counts when the parameters read from it make that very key again."""
    template = re.escape(operation.route).replace(r"\{", "{").replace(r"\}", "}")
    path = re.compile(re.sub(r"{(\w+)}", r"(?P<\1>[^/?]+)", template))
    for key in release.answers:
        found = path.fullmatch(key.partition("?")[0])
        if found is None:
            continue
        params: dict[str, str | list[str]] = dict(found.groupdict())
        for name, value in parse_qsl(key.partition("?")[2], keep_blank_values=True):
            params[name] = value.split(",") if name == "managers" else value
        if operation.request_key(params) == key:
            yield key, params


def served_routes(release: LoadedRelease, file_bytes: int | None = None) -> Served:
    """Every request target nginx may answer from a file, with the sha256 of the answer (read from routes.json:
    the bytes are read, and checked against it, by whoever copies them). An answer over `file_bytes` (a static
    host's limit per file) is left to the app, as a manager subset is: the host passes it to `ras serve`."""
    found = {key: release.answers.route(key) for key in release.answers}
    targets = {
        key: route.sha256
        for key, route in found.items()
        if route is not None and route.status == 200 and SAFE_TARGET.match(key)
    }
    canonical = set(targets)
    aliases = {
        alias: targets[key] for alias, key in mode_aliases(release) if key in targets and SAFE_TARGET.match(alias)
    }
    targets.update({alias: sha for alias, sha in aliases.items() if alias not in targets})
    folded: dict[str, int] = {}
    for target in targets:
        folded[target.lower()] = folded.get(target.lower(), 0) + 1
    # nginx's map hash ignores case: targets equal but for case would collide there, so the app keeps them
    kept = {target: sha for target, sha in targets.items() if folded[target.lower()] == 1}
    sizes = {sha: (release.directory / object_path(sha)).stat().st_size for sha in sorted(set(kept.values()))}
    large = {sha for sha, size in sizes.items() if file_bytes is not None and size > file_bytes}
    first: dict[str, str] = {}  # each large answer's first request target, to name it
    for target, sha in sorted(kept.items()) if large else ():
        if sha in large:
            first.setdefault(sha, target)
    kept = {target: sha for target, sha in kept.items() if sha not in large}
    return Served(
        routes=[Route(target, sha) for target, sha in sorted(kept.items())],
        sizes={sha: size for sha, size in sizes.items() if sha not in large},
        aliases=sum(1 for target in kept if target in aliases),
        left=len(release.answers) - sum(1 for target in kept if target in canonical),
        too_large=sorted(((first[sha], sizes[sha]) for sha in large), key=lambda found: (-found[1], found[0])),
    )
