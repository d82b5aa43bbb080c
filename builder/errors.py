"""The CLI's error family: each becomes one clean `Error: …` line and a non-zero exit, no traceback."""

from __future__ import annotations

from collections.abc import Sequence

import click

from builder.records import SourceProblem


class PublishError(click.ClickException):
    """A publish, build, promote or verify step that cannot go on; nothing is promoted."""

    exit_code = 1


class SourceError(PublishError):
    """Every fatal problem found in the source tree, reported at once."""

    def __init__(self, problems: Sequence[SourceProblem]) -> None:
        self.problems = tuple(problems)
        if len(self.problems) == 1:
            message = str(self.problems[0])
        else:
            lines = "\n".join(f"  {problem}" for problem in self.problems)
            message = f"{len(self.problems)} problems in the sources:\n{lines}"
        super().__init__(message)


class ReleaseError(PublishError):
    """A release that is missing, incomplete or fails its manifest."""
