"""`ras`: publish research packs into immutable releases, check them, and serve them."""

from __future__ import annotations

import errno
import os
from dataclasses import replace
from datetime import date, datetime
from pathlib import Path
from typing import Any

import click

from builder.errors import ReleaseError, os_fault
from builder.export.tree import export_command
from builder.export.verify import verify_export
from builder.fetch.commands import fetch_command, securities_command
from builder.release.inventory import by_as_of, prune, release_summaries
from builder.release.ledger import LEDGER_FILE, verify_ledger
from builder.release.promote import promote, releases_lock
from builder.release.publish import build, publish, source_is_fixture
from builder.release.store import RELEASES_OPTION, current_release, verify_release
from builder.review.command import review_command
from builder.review.compare import GATE_MEANINGS
from builder.review.gates import NO_GATES, gate_check, gate_option, promotion_gates, publish_gates
from builder.sources.tree import resolve_source

SOURCE_OPTION = click.option(
    "--source",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="Source tree (packs.toml, securities.csv, sec13f/…). Default: the current folder when it holds "
    "packs.toml, else the embedded fictional fixture.",
)
FIXTURE_OPTION = click.option(
    "--fixture", "fixture", is_flag=True, help="Build the embedded fictional fixture (instead of --source)."
)
REPLACE_REAL_OPTION = click.option(
    "--replace-real-with-fixture",
    "replace_real",
    is_flag=True,
    help="Let a release of fictional fixture data replace a promoted release built from real sources.",
)
AS_OF_OPTION = click.option(
    "--as-of",
    "as_of",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="As-of date of the release. Default: packs.toml [source] as_of, else the newest filing date.",
)


def _progress(message: str) -> None:
    click.echo(message, err=True)


def _as_date(value: datetime | None) -> date | None:
    return value.date() if value is not None else None


class Commands(click.Group):
    """The `ras` group: what the operating system refuses anywhere below becomes one `Error: …` line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OSError as exc:
            if exc.errno == errno.EPIPE:  # stdout closed (`ras … | head`): click's own quiet exit
                raise
            raise os_fault(exc) from exc


@click.group(cls=Commands)
@click.version_option(package_name="research-artifact-service")
def main() -> None:
    """Research Artifact Service: read-only, versioned research packs from public filings. Never trades."""


def parse_share(text: str) -> float:
    """'1%', '0.5 %' or '0.01' as a fraction 0–1."""
    cleaned = text.strip()
    value = float(cleaned.rstrip("%").strip()) / 100 if cleaned.endswith("%") else float(cleaned)
    if not 0 <= value <= 1:
        raise ValueError(f"{text!r} is not a share between 0% and 100%")
    return value


def _share(_context: click.Context, _parameter: click.Parameter, value: str) -> float:
    try:
        return parse_share(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc


MAX_UNMAPPED_OPTION = click.option(
    "--max-unmapped-value",
    "max_unmapped",
    default="1%",
    show_default=True,
    callback=_share,
    help="Refuse the publish when CUSIPs without a ticker hold more than this share of a version's book value.",
)


WORKERS_OPTION = click.option(
    "--workers",
    type=click.IntRange(1, None),
    default=None,
    help="Processes reading the 13F files, building the quarters and rendering the answers; the release is the same "
    "bytes on any number.  [default: one per core]",
)


def _source(source: Path | None, fixture: bool) -> Path:
    """The source tree to build, named on the first line of the command's output."""
    chosen = resolve_source(source, fixture, Path.cwd())
    _progress(f"source: {chosen.description}")
    return chosen.path


PUBLISH_HELP = "\n\n".join(
    [
        "Build a release from the sources, check it against its gates and promote it atomically.",
        "A gate keeps the release built but not promoted (exit 3; `ras promote` then refuses it without "
        "--override-gates) when the review against the promoted release shows what it stops on:",
        *(f"{name}: {meaning}." for name, meaning in GATE_MEANINGS.items()),
    ]
)


@main.command("publish", help=PUBLISH_HELP)
@SOURCE_OPTION
@FIXTURE_OPTION
@RELEASES_OPTION
@AS_OF_OPTION
@MAX_UNMAPPED_OPTION
@click.option(
    "--gate",
    "asked_gates",
    default=None,
    metavar="GATES",
    callback=gate_option,
    help=f"Comma-separated gates (listed above); `{NO_GATES}` turns every gate off. Default: corporate-actions for "
    "real sources, none for the embedded fixture (fictional data).",
)
@REPLACE_REAL_OPTION
@WORKERS_OPTION
def publish_command(
    source: Path | None,
    fixture: bool,
    releases: Path,
    as_of: datetime | None,
    max_unmapped: float,
    asked_gates: frozenset[str] | None,
    replace_real: bool,
    workers: int | None,
) -> None:
    tree = _source(source, fixture)
    gates = publish_gates(asked_gates, source_is_fixture(tree))
    _progress(f"gates: {', '.join(sorted(gates)) or 'none'}")
    processes = workers or os.cpu_count() or 1
    check = gate_check(releases, gates, _progress, processes)
    release_id = publish(tree, releases, _as_date(as_of), _progress, max_unmapped, check, replace_real, processes)
    click.echo(release_id)


@main.command("build")
@SOURCE_OPTION
@FIXTURE_OPTION
@RELEASES_OPTION
@AS_OF_OPTION
@MAX_UNMAPPED_OPTION
@WORKERS_OPTION
def build_command(
    source: Path | None, fixture: bool, releases: Path, as_of: datetime | None, max_unmapped: float, workers: int | None
) -> None:
    """Build and write a release without promoting it; prints its id."""
    tree = _source(source, fixture)
    processes = workers or os.cpu_count() or 1
    click.echo(build(tree, releases, _as_date(as_of), _progress, max_unmapped=max_unmapped, workers=processes))


@main.command("promote")
@click.argument("release_id")
@RELEASES_OPTION
@REPLACE_REAL_OPTION
@click.option(
    "--override-gates",
    "override_gates",
    is_flag=True,
    help="Promote a release that a gate stopped when it was published (exit 3 without it), after reviewing it.",
)
def promote_command(release_id: str, releases: Path, replace_real: bool, override_gates: bool) -> None:
    """Point `current` at RELEASE_ID after verifying it; a release a gate stopped only with --override-gates."""
    with releases_lock(releases):
        overridden = promotion_gates(releases, release_id, override_gates)
        for warning in promote(releases, release_id, replace_real):
            _progress(f"warning: {warning}")
    for line in overridden:
        _progress(f"overrode gate {line}")
    click.echo(f"promoted {release_id}")


@main.command("verify")
@click.argument("release_id", required=False)
@RELEASES_OPTION
@click.option(
    "--export",
    "export",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Check the static tree `ras export` wrote into this folder instead of a release.",
)
def verify_command(release_id: str | None, releases: Path, export: Path | None) -> None:
    """Re-hash every file of a release (default: the promoted one) against its manifest, and check the ledger."""
    if export is not None:
        name, problems = verify_export(export)
        checks = [(f"export tree {name}", name, [f"{name}: {problem}" for problem in problems])]
    else:
        directory = releases / release_id if release_id else current_release(releases)
        if directory is None or not directory.is_dir():
            raise ReleaseError(f"no release {release_id or 'promoted'} in {releases}")
        name = directory.name
        checks = [
            (f"release {name}", name, [f"{name}: {problem}" for problem in verify_release(directory)]),
            (LEDGER_FILE, LEDGER_FILE, verify_ledger(releases)),
        ]  # its lines name the file and line already
    for _what, name, problems in checks:
        for line in problems or [f"{name}: ok"]:
            click.echo(line, err=bool(problems))
    failing = [what for what, _name, problems in checks if problems]
    count = sum(len(problems) for _what, _name, problems in checks)
    if failing:
        raise ReleaseError(
            f"{' and '.join(failing)} {'fail' if len(failing) > 1 else 'fails'} verification "
            f"({count} problem{'s' if count > 1 else ''})"
        )


@main.command("releases")
@RELEASES_OPTION
def releases_command(releases: Path) -> None:
    """List the releases, oldest as-of first (then build time): quarters, managers, warnings; `*` marks the promoted one."""
    summaries = by_as_of(release_summaries(releases))
    click.echo(f"{len(summaries)} release(s) in {releases}, oldest as-of first (then build time); * promoted")
    for summary in summaries:
        click.echo(summary.line())


@main.command("prune")
@click.option("--keep", type=click.IntRange(min=1), required=True, help="How many of the newest releases to keep.")
@RELEASES_OPTION
def prune_command(keep: int, releases: Path) -> None:
    """Remove the releases older (by as-of, then build time) than the newest KEEP; never the promoted one, never the
    ledger. Prints every release kept and removed."""
    with releases_lock(releases):
        for line in prune(releases, keep).lines(keep):
            click.echo(line)


@main.command("serve")
@RELEASES_OPTION
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8080, show_default=True, type=int)
@click.option(
    "--workers",
    default=1,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Server processes sharing one listening socket; up to the machine's cores is useful.",
)
@click.option(
    "--verify-every",
    "verify_every",
    default=600.0,
    show_default=True,
    type=click.FloatRange(min=1),
    help="Seconds between full re-hashes of the served release (a stat sweep every 5 s catches edits).",
)
@click.option(
    "--header-timeout",
    "header_timeout",
    type=click.FloatRange(min=0.1),
    default=None,
    help="Seconds a connection has to send a whole request head (server default: 10).",
)
@click.option(
    "--body-timeout",
    "body_timeout",
    type=click.FloatRange(min=0.1),
    default=None,
    help="Seconds a POST body has to arrive after its head; a slower one gets 400 and the connection is closed "
    "(server default: 10).",
)
@click.option(
    "--keepalive-timeout",
    "keepalive_timeout",
    type=click.FloatRange(min=0.1),
    default=None,
    help="Seconds an idle kept-alive connection stays open (server default: 30).",
)
@click.option(
    "--max-connections",
    "max_connections",
    type=click.IntRange(1),
    default=None,
    help="Open connections per worker; past it the oldest idle one is closed (server default: 1024).",
)
@click.option(
    "--mcp-allow-origin",
    "mcp_origins",
    multiple=True,
    metavar="ORIGIN",
    help="A browser origin (scheme://host[:port]) that may call the MCP endpoint /mcp; repeat for more. Without "
    "it only pages of this server addressed by IP or localhost may; clients that send no Origin always may.",
)
def serve_command(
    releases: Path, host: str, port: int, workers: int, verify_every: float, mcp_origins: tuple[str, ...], **guard: Any
) -> None:
    """Serve the promoted release over HTTP: REST GETs from its bytes, the two POSTs computed live, and the MCP
    tools at /mcp."""
    from server.mcp_http.origins import Origins  # the builder reaches into the server only here and in `mcp`, lazily
    from server.runner import Guard, run

    if not releases.is_dir():
        raise ReleaseError(f"releases directory {releases} does not exist; run `ras publish` first")
    try:
        origins = Origins.of(mcp_origins)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--mcp-allow-origin") from exc
    run(
        releases,
        host,
        port,
        workers,
        verify_every,
        replace(Guard(), **{k: v for k, v in guard.items() if v is not None}),
        origins,
    )


@main.command("mcp")
@RELEASES_OPTION
def mcp_command(releases: Path) -> None:
    """Serve the research tools to an MCP client over stdio (logs go to stderr)."""
    from server.mcp_server import run  # as in serve: the builder reaches into the server only here, lazily

    if not releases.is_dir():
        raise ReleaseError(f"releases directory {releases} does not exist; run `ras publish` first")
    run(releases)


main.add_command(export_command)
main.add_command(fetch_command)  # builder/fetch: the only commands that use the network
main.add_command(securities_command)
main.add_command(review_command)


if __name__ == "__main__":
    main()
