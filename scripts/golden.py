"""The golden map of the embedded fixture's release: what every later change must leave byte-identical, or say so.

Usage: `python -m scripts.golden` publishes the embedded fixture into a scratch directory and writes the map to
tests/golden/fixture-release.json; `--check` writes nothing and exits 1, listing what changed, was added or
vanished, when the committed map differs. tests/test_golden.py makes the same comparison over the session's
release. Regenerate only when a change means to change bytes, and say which in the commit message.

The map (sorted keys, one line a hash, so a diff of it is a review):
  requests  every precomputed request (routes.json's canonical key) → "<status> <sha256 of its body>"
  files     every other file of the release but the answer objects (artifacts, data/, routes.json) → sha256
  openapi   the served document is a request above; here the document without a release (the MCP server's
            and a client generator's before any release) → sha256 of its canonical bytes
  mcp       each tool's listing, input schema and output schema → sha256 of their canonical JSON
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson

from builder.api.openapi.document import openapi_document
from builder.canonical import canonical_json, sha256_hex
from builder.release.objects import OBJECT_PREFIX
from builder.release.publish import publish
from builder.release.store import MANIFEST, ROUTES, SEAL, current_release, load_release
from builder.sources.tree import fixture_source
from server.mcp_server.tools import tool_specs

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "fixture-release.json"
REGENERATE = "python -m scripts.golden"
Golden = dict[str, dict[str, str]]


def golden_map(release_dir: Path) -> Golden:
    """The map of one release directory (see the module docstring)."""
    release = load_release(release_dir)
    routes = orjson.loads((release_dir / ROUTES).read_bytes())
    manifest = orjson.loads((release_dir / MANIFEST).read_bytes())
    seal = orjson.loads((release_dir / SEAL).read_bytes())
    files = {**manifest["files"], **seal["files"]}
    assert release.data.openapi is not None, "a release always carries its OpenAPI document"
    mcp: dict[str, str] = {}
    for name, spec in tool_specs(release.data.openapi).items():
        listing = spec.tool.model_dump(mode="json", by_alias=True, exclude_none=True)
        mcp[f"{name} listing"] = _hash(listing)
        mcp[f"{name} input"] = _hash(spec.tool.input_schema)
        mcp[f"{name} output"] = _hash(spec.tool.output_schema)
    return {
        "requests": {key: f"{route['status']} {route['sha256']}" for key, route in routes.items()},
        "files": {path: sha256 for path, sha256 in files.items() if not path.startswith(OBJECT_PREFIX)},
        "openapi": {"withoutRelease": _hash(openapi_document())},
        "mcp": mcp,
    }


def _hash(value: Any) -> str:
    return sha256_hex(canonical_json(value))


def fixture_golden_map() -> Golden:
    """The map of a fresh release of the embedded fixture."""
    with tempfile.TemporaryDirectory(prefix="ras-golden-") as scratch:
        releases = Path(scratch)
        publish(fixture_source(), releases, None, lambda _line: None)
        directory = current_release(releases)
        assert directory is not None
        return golden_map(directory)


def read_golden(path: Path = GOLDEN) -> Golden:
    return orjson.loads(path.read_bytes())


def golden_bytes(golden: Golden) -> bytes:
    return orjson.dumps(golden, option=orjson.OPT_SORT_KEYS | orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)


def differences(expected: Golden, found: Golden) -> list[str]:
    """One line per entry that changed, was added or vanished, section by section; [] when the maps are equal."""
    lines = []
    for section in sorted(expected.keys() | found.keys()):
        was, now = expected.get(section, {}), found.get(section, {})
        lines += [f"changed  {section}: {key}" for key in sorted(was.keys() & now.keys()) if was[key] != now[key]]
        lines += [f"added    {section}: {key}" for key in sorted(now.keys() - was.keys())]
        lines += [f"vanished {section}: {key}" for key in sorted(was.keys() - now.keys())]
    return lines


def report(lines: list[str]) -> str:
    """What a failed comparison says: each difference, and how to accept them when they are meant."""
    return "\n".join(
        [
            f"{len(lines)} differences from {GOLDEN.relative_to(ROOT)}:",
            *lines,
            f"If every one is meant, regenerate with `{REGENERATE}` and say why in the commit message.",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed map; exit 1 on a difference")
    args = parser.parse_args(argv)
    found = fixture_golden_map()
    if args.check:
        lines = differences(read_golden(), found) if GOLDEN.exists() else [f"vanished {GOLDEN}"]
        if lines:
            print(report(lines), file=sys.stderr)
            return 1
        print(f"{GOLDEN.relative_to(ROOT)}: {sum(map(len, found.values()))} hashes, none changed")
        return 0
    GOLDEN.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN.write_bytes(golden_bytes(found))
    print(f"wrote {GOLDEN.relative_to(ROOT)}: {sum(map(len, found.values()))} hashes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
