"""`ras export --host` checks the host's published limits before writing: a tree over them is refused with one
`Error:` line naming what breaks them and what to do, or written with that line as a warning when told to.
The limits here are small fakes, so the fixture's release breaks them."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.export import hosts
from builder.export import tree as export_tree
from builder.export.apidocs import api_docs_files
from builder.export.config import DEFAULT_UPSTREAM, parse_upstream, render_headers, render_redirects
from builder.export.hosts import HOSTS, operation_of
from builder.export.routes import served_routes
from builder.export.tree import SITE, TREES
from builder.export.variants import CACHE
from builder.release.store import LoadedRelease

LIMITS = "developers.cloudflare.com/pages/platform/limits, /pages/configuration/redirects and /headers, Free plan"
REMEDY = (
    "Export for another host (--host nginx or --host netlify or --host s3), precompute fewer answers, or leave "
    "those routes to `ras serve` as the host's upstream; --ignore-limits writes the tree anyway"
)


def export(releases: Path, out: Path, *options: str):
    return CliRunner().invoke(
        main, ["export", "--releases", str(releases), "--out", str(out), "--workers", "1", *options]
    )


@pytest.fixture
def pages(monkeypatch: pytest.MonkeyPatch):
    """Cloudflare Pages with limits the fixture's tree breaks: set them with `pages(files=…, …)`."""

    def limit(**figures: int) -> None:
        free = replace(HOSTS["cloudflare-pages"], files=None, file_bytes=None, redirects=None, header_rules=None)
        monkeypatch.setitem(hosts.HOSTS, "cloudflare-pages", replace(free, **figures))

    return limit


def test_a_tree_over_the_file_count_is_refused_before_anything_is_written(
    published: Path, release: LoadedRelease, tmp_path: Path, pages
):
    served = served_routes(release)
    others = len(api_docs_files()) + 4  # _headers, _redirects, nginx-routes.conf, export.json
    first = {}
    for route in served.routes:  # sorted by target: each answer counts for the operation of its first target
        first.setdefault(route.sha256, operation_of(route.request))
    groups = Counter(first.values()) + Counter({"other files": others})
    pages(files=100)
    result = export(published, tmp_path / "dist", "--host", "cloudflare-pages")
    assert result.exit_code == 1
    line = result.stderr.strip().splitlines()[-1]
    largest = ", ".join(f"{name} {count:,}" for name, count in groups.most_common(3))
    assert line == (
        f"Error: cloudflare-pages would reject this tree: {len(served.sizes) + others:,} files over its 100 "
        f"({largest}) ({LIMITS}). {REMEDY}"
    )
    assert not (tmp_path / "dist" / SITE).exists()
    assert not (tmp_path / "dist" / TREES).exists()
    assert not (tmp_path / "dist" / CACHE).exists()  # nothing compressed either


def test_the_files_over_the_bytes_per_file_are_named_largest_first_and_answers_are_left_to_the_app(
    published: Path, release: LoadedRelease, tmp_path: Path, pages
):
    """Answers over the limit go to the app as manager subsets do (the host passes them to `ras serve`); what else
    breaks it (here the API reference's script) is refused, named largest first."""
    served = served_routes(release)
    first: dict[str, str] = {}
    for route in served.routes:
        first.setdefault(route.sha256, route.request)
    answers = sorted(((size, first[sha]) for sha, size in served.sizes.items() if size > 100_000), reverse=True)
    files = [(len(body), path) for path, body in api_docs_files().items()]
    upstream = parse_upstream(DEFAULT_UPSTREAM)
    files += [(len(render_redirects(release.release_id, served.routes, upstream)), "_redirects")]
    files += [(len(render_headers(release.release_id, served.routes)), "_headers")]
    over = sorted((item for item in files if item[0] > 100_000), reverse=True)
    assert len(answers) > 3 and over  # answers and the docs' scripts alike
    pages(file_bytes=100_000)
    result = export(published, tmp_path / "dist", "--host", "cloudflare-pages")
    assert result.exit_code == 1
    left = ", ".join(f"{target} ({size / 1e6:.1f} MB)" for size, target in answers[:3])
    assert (
        f"{len(answers)} answers over cloudflare-pages's 100,000 bytes per file left to the app (`ras serve` as the "
        f"host's upstream answers them): {left} …"
    ) in result.stderr.splitlines()
    line = result.stderr.strip().splitlines()[-1]
    named = ", ".join(f"{name} ({size / 1e6:.1f} MB)" for size, name in over[:3])
    assert f": {len(over)} files over its 100,000 bytes per file: {named} ({LIMITS})" in line


def test_a_tree_holds_no_answer_over_the_bytes_per_file_and_routes_each_to_the_app(
    published: Path, release: LoadedRelease, tmp_path: Path, pages, monkeypatch: pytest.MonkeyPatch
):
    limit = 150_000
    # the API reference's script (1.5 MB) is over this small fake limit too: the tree here leaves it out
    small_docs = {path: body for path, body in api_docs_files().items() if len(body) <= limit}
    monkeypatch.setattr(export_tree, "api_docs_files", lambda: small_docs)
    everything = served_routes(release)
    large = {sha for sha, size in everything.sizes.items() if size > limit}
    targets = {route.request for route in everything.routes if route.sha256 in large}
    assert large and len(large) < len(everything.sizes)
    pages(file_bytes=limit)
    result = export(published, tmp_path / "dist", "--host", "cloudflare-pages")
    assert result.exit_code == 0, result.output
    tree = (tmp_path / "dist" / SITE).resolve()
    sizes = {path.name: path.stat().st_size for path in (tree / "objects").iterdir()}
    assert sizes and max(sizes.values()) <= limit
    assert not large & {name.removesuffix(".json") for name in sizes}
    rules = (tree / "_redirects").read_text().splitlines()
    assert not [line for line in rules if any(sha in line for sha in large)]
    routed = set()  # the request targets the rules answer from a file: `path  name=value …  /objects/….json  200`
    for line in rules:
        if "  /objects/" in line:
            path, *query, _file, _status = line.split("  ")
            routed.add(path + ("?" + "&".join(query) if query else ""))
    assert routed and not routed & targets
    assert rules[-1] == f"/api/*  {DEFAULT_UPSTREAM}/api/:splat  200"  # what the host passes to `ras serve`
    record = orjson.loads((tree / "export.json").read_bytes())
    assert record["routes"] == len(everything.routes) - sum(1 for r in everything.routes if r.sha256 in large)
    assert f"{len(large)} answers over cloudflare-pages's 150,000 bytes per file left to the app" in result.stderr


def test_told_to_write_anyway_the_tree_is_written_and_the_line_is_a_warning(published: Path, tmp_path: Path, pages):
    pages(redirects=10, header_rules=5)
    result = export(published, tmp_path / "dist", "--host", "cloudflare-pages", "--ignore-limits")
    assert result.exit_code == 0, result.output
    tree = (tmp_path / "dist" / SITE).resolve()
    rules = [line for line in (tree / "_redirects").read_text().splitlines() if line.strip() and line[0] != "#"]
    headers = [line for line in (tree / "_headers").read_text().splitlines() if line.startswith("/")]
    warning = next(line for line in result.stderr.splitlines() if line.startswith("warning: "))
    assert warning.startswith(
        f"warning: cloudflare-pages would reject this tree: {len(rules):,} _redirects rules over its 10; "
        f"{len(headers):,} _headers rules over its 5 ({LIMITS})"
    )
    # Pages compresses on its own: the tree holds the answers and no .br/.gz variant of them
    assert not [path for path in (tree / "objects").iterdir() if path.suffix in (".br", ".gz")]
    assert orjson.loads((tree / "export.json").read_bytes())["encodings"] == []


def test_netlify_counts_the_files_of_one_directory(
    published: Path, release: LoadedRelease, tmp_path: Path, monkeypatch
):
    answers = len(served_routes(release).sizes)
    monkeypatch.setitem(hosts.HOSTS, "netlify", replace(HOSTS["netlify"], directory_files=answers - 1))
    result = export(published, tmp_path / "dist", "--host", "netlify")
    assert result.exit_code == 1
    assert f"{answers:,} files in objects/ over its {answers - 1:,} per directory (docs.netlify.com" in result.stderr


def test_a_tree_within_the_limits_is_written_without_a_word_about_them(published: Path, tmp_path: Path):
    result = export(published, tmp_path / "dist", "--host", "s3")
    assert result.exit_code == 0, result.output
    assert "would reject" not in result.stderr
    assert [path for path in ((tmp_path / "dist" / SITE).resolve() / "objects").iterdir() if path.suffix == ".br"]
