"""`ras export`: the promoted release as a static tree plus host configuration, switched in atomically.

OUT/
    nginx.conf                     release-independent; `nginx -p OUT -c nginx.conf` (includes site/nginx-routes.conf)
    site -> .releases/<tree>       the live tree, swapped with os.replace
    .releases/<release-id>.<digest>/
        objects/<sha256>.json      every 200 answer nginx serves itself, plus .json.gz and .json.br variants
        nginx-routes.conf          exact request target → object, coding, ETag and If-None-Match maps
        docs/                      the browsable API reference `ras serve` answers at /docs
        _headers, _redirects       the same tree on a static host (Netlify / Cloudflare Pages style)
        export.json                {releaseId, digest, routes, encodings, files: {path: sha256}}
    logs/, tmp/                    nginx's pid, logs and temporary files
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import click

from builder.atomic import exclusive, settle
from builder.canonical import canonical_json, sha256_hex
from builder.errors import PublishError, ReleaseError, escaped
from builder.export.apidocs import api_docs_files
from builder.export.config import (
    DEFAULT_LISTEN,
    DEFAULT_UPSTREAM,
    Upstream,
    parse_upstream,
    render_headers,
    render_nginx_conf,
    render_redirects,
    render_routes_conf,
)
from builder.export.hosts import (
    DEFAULT_HOST,
    HOSTS,
    OVERRIDE,
    Host,
    check_host,
    limit_problems,
    rule_problems,
    too_large_line,
)
from builder.export.routes import Served, served_routes
from builder.export.variants import BROTLI_MISSING, CACHE, EXTENSIONS, compress_all, encodings, levels, prune_cache
from builder.export.verify import OBJECTS, RECORD, SITE
from builder.export.write import STAGING_PREFIX, TREES, Tree, write_atomically, write_tree
from builder.release.objects import object_path
from builder.release.store import RELEASES_OPTION, current_release, load_release

Progress = Callable[[str], None]
NGINX_CONF = "nginx.conf"
ROUTES_CONF = "nginx-routes.conf"
RUNTIME_DIRS = ("logs", "tmp")  # nginx creates tmp/* itself, but not their parent, and never logs/
KEEP_TREES = 2  # the live tree and the one before it, which a running nginx answers from until its reload


@dataclass(frozen=True, slots=True)
class Settings:
    """How an export is made: for which host, on how many processes, and whether past the host's limits."""

    host: Host = HOSTS[DEFAULT_HOST]
    workers: int = 1
    ignore_limits: bool = False

    def codings(self) -> tuple[str, ...]:
        return encodings() if self.host.variants else ()


def plan_tree(releases: Path, upstream: Upstream, out: Path, settings: Settings, progress: Progress) -> Tree:
    """Load and verify the promoted release and render every file of its export tree (phase one): the host's
    limits are checked before anything is compressed; variants come from OUT's cache or are compressed."""
    directory = current_release(releases)
    if directory is None:
        raise ReleaseError(f"no promoted release in {releases}; run `ras publish` first")
    release = load_release(directory)
    served = served_routes(release, None if settings.ignore_limits else settings.host.file_bytes)
    progress(
        f"release {release.release_id}: {len(served.routes)} request targets ({served.aliases} aliases) answered "
        f"from files, {served.left} answers left to the app"
    )
    if served.too_large:
        progress(too_large_line(settings.host, served.too_large))
    codings = settings.codings()
    if settings.host.variants and "br" not in codings:
        progress(BROTLI_MISSING)
    files = dict(api_docs_files())  # the browsable API reference, as `ras serve` answers it at /docs
    files["_headers"] = render_headers(release.release_id, served.routes)
    files["_redirects"] = render_redirects(release.release_id, served.routes, upstream)
    warning = check_host(settings.host, host_problems(settings.host, served, files, codings), settings.ignore_limits)
    if warning:
        progress(warning)
    copies = object_copies(served, directory, out / CACHE, settings.workers, codings, progress)
    # The tree is named by what it holds, and its nginx maps name the tree: hash everything else first.
    hashes = {path: sha256_hex(body) for path, body in files.items()} | {p: sha for p, (sha, _) in copies.items()}
    routes = [[route.request, route.sha256] for route in served.routes]
    used = {coding: level for coding, level in levels().items() if coding in codings}
    digest = sha256_hex(
        canonical_json(
            {"files": dict(sorted(hashes.items())), "routes": routes, "encodings": list(codings), "levels": used}
        )
    )
    name = f"{release.release_id}.{digest[:12]}"
    files[ROUTES_CONF] = render_routes_conf(release.release_id, f"{TREES}/{name}", served.routes, codings)
    hashes[ROUTES_CONF] = sha256_hex(files[ROUTES_CONF])
    record = {
        "releaseId": release.release_id,
        "digest": digest,
        "routes": len(served.routes),
        "encodings": list(codings),
        "files": dict(sorted(hashes.items())),
    }
    files[RECORD] = canonical_json(record)
    return Tree(release.release_id, name, files, copies)


def host_problems(host: Host, served: Served, files: dict[str, bytes], codings: Sequence[str]) -> list[str]:
    """What of the planned tree breaks the host's limits. Variants are counted but not weighed: each is smaller
    than its answer, and the answer is weighed; the two files written last are counted as empty."""
    sizes = {path: len(body) for path, body in files.items()} | {ROUTES_CONF: 0, RECORD: 0}
    targets: dict[str, list[str]] = {}
    for route in served.routes:
        targets.setdefault(f"{OBJECTS}{route.sha256}.json", []).append(route.request)
    for sha256, size in served.sizes.items():
        sizes[f"{OBJECTS}{sha256}.json"] = size
        sizes.update({f"{OBJECTS}{sha256}.json{EXTENSIONS[coding]}": 0 for coding in codings})
    return limit_problems(host, sizes, targets) + rule_problems(host, files["_redirects"], files["_headers"])


def object_copies(
    served: Served, release: Path, cache: Path, workers: int, codings: Sequence[str], progress: Progress
) -> dict[str, tuple[str, Path]]:
    """objects/<sha256>.json for every answer served from a file and its compressed variants, each with the file
    (of the release, of the cache) that holds its checked bytes, to be copied into the tree."""
    sources = {sha256: release / object_path(sha256) for sha256 in served.sizes}
    compressed = compress_all(sources, served.sizes, codings, cache, workers, progress)
    copies: dict[str, tuple[str, Path]] = {}
    for sha256, source in sorted(sources.items()):
        copies[f"{OBJECTS}{sha256}.json"] = (sha256, source)
        copies.update({f"{OBJECTS}{sha256}.json{ext}": variant for ext, variant in compressed[sha256].items()})
    sizes = {
        ext: sum(path.stat().st_size for p, (_, path) in copies.items() if p.endswith(ext)) for ext in (".gz", ".br")
    }
    progress(
        f"objects: {len(sources)} answers, {sum(served.sizes.values())} bytes; {len(copies) - len(sources)} "
        f"compressed variants verified (gzip {sizes['.gz']} bytes, br {sizes['.br']} bytes)"
    )
    return copies


def switch_site(out: Path, tree: Path) -> list[str]:
    """Point OUT/site at the tree with one atomic rename: readers see the old tree or the new, never a mix.
    Raises before the rename, never after it: what fails after it is returned as warnings."""
    site = out / SITE
    if site.exists() and not site.is_symlink():
        raise PublishError(f"{escaped(site)}: exists and is not a symlink — move it away and export again")
    link = out / f".{SITE}-{os.getpid()}"
    try:
        if link.is_symlink():
            link.unlink()
        os.symlink(f"{TREES}/{tree.name}", link)
        os.replace(link, site)
    except BaseException:
        link.unlink(missing_ok=True)
        raise
    return settle(out, f"the switch of {SITE}")


def clean_staging(out: Path) -> list[str]:
    """Remove what interrupted exports left behind (only called under the lock): staging trees, and the
    temporary `site` link or nginx.conf of a run killed before its rename."""
    trees = out / TREES
    leftovers = [entry for entry in trees.iterdir() if entry.name.startswith(STAGING_PREFIX)] if trees.is_dir() else []
    leftovers += [entry for entry in out.iterdir() if entry.name.startswith((f".{SITE}-", f".{NGINX_CONF}-"))]
    for entry in leftovers:
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    return [entry.name for entry in leftovers]


def prune_trees(out: Path, live: Path) -> list[str]:
    """Remove all but the newest KEEP_TREES trees; the live one always stays."""
    others = [entry for entry in (out / TREES).iterdir() if entry.is_dir() and not entry.is_symlink() and entry != live]
    doomed = sorted(others, key=lambda entry: entry.stat().st_mtime, reverse=True)[KEEP_TREES - 1 :]
    for entry in doomed:
        shutil.rmtree(entry)
    return [entry.name for entry in doomed]


def kept_objects(out: Path) -> set[str]:
    """The sha256 of every answer a tree under OUT holds: their cached variants stay (a rollback's export
    compresses nothing), the others' go."""
    return {
        entry.name.split(".", 1)[0]
        for tree in (out / TREES).iterdir()
        if (tree / "objects").is_dir()
        for entry in (tree / "objects").iterdir()
    }


def export_release(
    releases: Path, out: Path, listen: int, upstream_url: str, progress: Progress, settings: Settings | None = None
) -> str:
    """Export the promoted release into OUT and switch OUT/site to it; returns the release id.
    `settings`: by default for nginx, compressing on one process per core."""
    upstream = parse_upstream(upstream_url)
    with exclusive(out, "export"):
        for name in clean_staging(out):
            progress(f"removed {name} left by an interrupted export")
        tree = plan_tree(releases, upstream, out, settings or Settings(workers=os.cpu_count() or 1), progress)
        target = write_tree(out, tree, progress)
        for name in RUNTIME_DIRS:
            (out / name).mkdir(exist_ok=True)
        changed = write_atomically(out / NGINX_CONF, render_nginx_conf(listen, upstream))  # the same for any tree
        warnings = switch_site(out, target)  # the last step that can fail: after it, only warnings
        try:
            removed = prune_trees(out, target)
        except OSError as exc:
            removed, warnings = (
                [],
                [
                    *warnings,
                    f"{escaped(exc.filename or out)}: an older tree not removed "
                    f"({exc.strerror}); the next export tries again",
                ],
            )
        dropped = prune_cache(out / CACHE, kept_objects(out))
    for line in warnings:
        progress(f"warning: {line}")
    progress(f"{SITE} -> {TREES}/{tree.name}; removed {len(removed)} older trees, {dropped} unused cached variants")
    progress(f"{NGINX_CONF} {'written' if changed else 'unchanged'}: 127.0.0.1:{listen}, upstream {upstream.url}")
    progress(f"start: nginx -p {out.resolve()} -c {NGINX_CONF}; after a re-export add -s reload")
    return tree.release_id


@click.command("export")
@RELEASES_OPTION
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("dist"),
    show_default=True,
    help="Export directory: nginx.conf, the `site` link and its trees.",
)
@click.option(
    "--listen",
    default=DEFAULT_LISTEN,
    show_default=True,
    type=click.IntRange(1, 65535),
    help="Port nginx listens on (127.0.0.1).",
)
@click.option(
    "--upstream",
    default=DEFAULT_UPSTREAM,
    show_default=True,
    help="Base URL of `ras serve`, which answers everything not precomputed.",
)
@click.option(
    "--host",
    "host",
    type=click.Choice(sorted(HOSTS)),
    default=DEFAULT_HOST,
    show_default=True,
    help="Where the tree is served: its published limits are checked before anything is written, and Pages and "
    "Netlify (which compress on their own) get no .br/.gz files.",
)
@click.option(OVERRIDE, "ignore_limits", is_flag=True, help="Write the tree even where it breaks the host's limits.")
@click.option(
    "--workers",
    type=click.IntRange(1, None),
    default=None,
    help="Processes compressing the answers.  [default: one per core]",
)
def export_command(
    releases: Path, out: Path, listen: int, upstream: str, host: str, ignore_limits: bool, workers: int | None
) -> None:
    """Export the promoted release as a static tree with nginx and static-host configuration."""
    settings = Settings(HOSTS[host], workers or os.cpu_count() or 1, ignore_limits)
    click.echo(export_release(releases, out, listen, upstream, lambda message: click.echo(message, err=True), settings))
