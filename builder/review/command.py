"""`ras review`: the review of a built release against the promoted one, on the terminal or as a page."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import click

from builder.api.data import ReleaseData
from builder.errors import ReleaseError
from builder.release.assemble import versions_facts
from builder.release.inventory import release_summaries
from builder.release.store import DEFAULT_RELEASES, RELEASES_OPTION, current_release, list_releases
from builder.review.compare import Reviewed, read_reviewed, review
from builder.review.page import review_page
from builder.review.shapes import Review
from builder.review.text import review_lines


def review_of(
    releases: Path,
    candidate: str | None,
    against: str | None,
    workers: int | None = None,
    held: ReleaseData | None = None,
) -> Review:
    """The review of `candidate` (default: the newest release written) against `against` (default: the promoted one),
    its versions read on `workers` processes (default: one per core); `held`: the candidate's data, when the caller
    holds it (a publish: its artifacts and what its build read of each, assemble.versions_facts), else its files."""
    if candidate is None:
        summaries = release_summaries(releases)
        if not summaries:
            raise ReleaseError(f"no release in {releases}; run `ras build` first")
        candidate = summaries[-1].release_id
    names = set(list_releases(releases))
    for name in (candidate, against):
        if name is not None and name not in names:
            raise ReleaseError(f"no release {name!r} in {releases}")
    base = releases / against if against else current_release(releases)
    option = "" if releases == DEFAULT_RELEASES else f" --releases {shlex.quote(str(releases))}"
    side = read_reviewed(releases / candidate)
    if held is not None:
        side = Reviewed(side.release_id, side.index, held.artifacts, versions_facts(held))
    return review(side, read_reviewed(base) if base is not None else None, option, workers or os.cpu_count() or 1)


@click.command("review")
@click.argument("candidate", required=False)
@click.option("--against", default=None, help="Release to compare with. Default: the promoted one.")
@click.option(
    "--html",
    "html",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the review as one self-contained HTML page (inline SVG charts, nothing fetched).",
)
@RELEASES_OPTION
def review_command(candidate: str | None, against: str | None, html: Path | None, releases: Path) -> None:
    """What CANDIDATE (default: the newest release written) changes relative to the promoted release."""
    result = review_of(releases, candidate, against)
    for line in review_lines(result):
        click.echo(line)
    if html is not None:
        temporary = html.with_name(f".{html.name}.{os.getpid()}")
        temporary.write_text(review_page(result), encoding="utf-8")
        os.replace(temporary, html)  # a page is whole or absent, like a release
        click.echo(f"wrote {html}", err=True)
