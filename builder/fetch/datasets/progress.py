"""Progress of one data-set download in bytes: a line each time another tenth arrives, so that a ~95 MB set is seen
to move; without a known size, a line every UNSIZED_STEP bytes."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str], None]
STEPS = 10  # lines per set: one per 10 %
UNSIZED_STEP = 16 << 20  # bytes between lines when the server does not say how many are coming


class Meter:
    """Says how far a download has come, in steps: `update` with the bytes on disk so far."""

    def __init__(self, name: str, total: int | None, start: int, progress: Progress) -> None:
        self.name, self.total, self.progress = name, total, progress
        self.step = self._step(start)

    def update(self, done: int) -> None:
        step = self._step(done)
        if step <= self.step:
            return
        self.step = step
        if self.total:
            self.progress(f"  {self.name}  {done:,} of {self.total:,} bytes ({100 * step // STEPS} %)")
        else:
            self.progress(f"  {self.name}  {done:,} bytes")

    def _step(self, done: int) -> int:
        return STEPS * done // self.total if self.total else done // UNSIZED_STEP
