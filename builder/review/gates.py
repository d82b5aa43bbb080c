"""The publish gates: which ones a publish asks for, the verdict it records, and the refusal `ras promote` reads.

A gated publish reviews the release it wrote against the promoted one and records the verdict beside it, in
releases/.gates/<release id>.json, before it promotes or stops: {releaseId, manifestSha256 (the seal's, so the
record names the exact bytes it judged), against (the release it was compared with), gates (those asked),
stopped ([{gate, reason}])}. Canonical JSON, fsynced and renamed into place. `ras promote` reads that fact and
never reviews again: the promoted release may have moved since, and the gate's answer was given then.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import click
import orjson

from builder.api.data import ReleaseData
from builder.atomic import fsync_directory
from builder.canonical import canonical_json
from builder.errors import PublishError, at_path
from builder.release.inputs import TEMPORARY_PREFIX  # the next publish removes one a kill left
from builder.release.store import GATE_VERDICTS, SEAL
from builder.review.command import review_of
from builder.review.compare import GATES, tripped
from builder.review.text import review_lines

# On for real sources: an undecided change is a claim the filings alone cannot back, so a person decides it before
# agents read it. The other gates are the operator's choice; the fixture's fictional data is stopped by none.
DEFAULT_GATES = frozenset({"corporate-actions"})
NO_GATES = "none"  # `--gate none`: every gate off


class GateRefused(PublishError):
    """A release a gate stopped: `ras publish` built and kept it, `ras promote` refuses it without --override-gates."""

    exit_code = 3


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the gates a publish asked for said of the release it wrote."""

    release_id: str
    manifest_sha256: str
    against: str | None  # the promoted release it was compared with, None when nothing was promoted
    gates: tuple[str, ...]  # the gates asked, sorted
    stopped: tuple[tuple[str, str], ...]  # (gate, reason) of each gate that stopped it

    def lines(self) -> list[str]:
        return [reason for _gate, reason in self.stopped]


def publish_gates(asked: frozenset[str] | None, fixture: bool) -> frozenset[str]:
    """The gates of a publish: those asked for (`--gate`), else DEFAULT_GATES, or none for fixture data."""
    if asked is not None:
        return asked
    return frozenset() if fixture else DEFAULT_GATES


def gate_option(_context: click.Context, _parameter: click.Parameter, value: str | None) -> frozenset[str] | None:
    """`--gate`, checked as click reads it: the gates named (`none`: no gate), None when not given."""
    if value is None:
        return None
    return frozenset() if value.strip() == NO_GATES else parse_gates(value)


def parse_gates(value: str) -> frozenset[str]:
    gates = frozenset(name.strip() for name in value.split(",") if name.strip())
    unknown = sorted(gates - GATES)
    if unknown:
        raise click.BadParameter(
            f"unknown gate(s) {', '.join(unknown)}; known: {', '.join(sorted(GATES))} (or {NO_GATES})",
            param_hint="--gate",
        )
    return gates


def gate_check(
    releases: Path, gates: frozenset[str], progress: Callable[[str], None], workers: int = 1
) -> Callable[[str, ReleaseData | None], None]:
    """The check publish runs between writing a release and promoting it: it records the verdict, then raises
    GateRefused when a gate stopped the release. With no gate asked it only removes an earlier verdict of the same
    release (this publish promotes it: what an earlier one recorded no longer holds). `workers`: processes reading
    the versions of the review; `held`, when given, the release's data as the publish holds it."""

    def check(release_id: str, held: ReleaseData | None = None) -> None:
        if not gates:
            (releases / GATE_VERDICTS / f"{release_id}.json").unlink(missing_ok=True)
            return
        started = time.perf_counter()
        result = review_of(releases, release_id, None, workers, held)
        lines = tripped(result, gates)
        against = f"the promoted release {result['against']}" if result["against"] else "no promoted release"
        progress(
            f"reviewed {release_id} against {against} in {time.perf_counter() - started:.1f} s: "
            + (f"{len(lines)} gate(s) stop it" if lines else f"no gate stops it ({', '.join(sorted(gates))})")
        )
        stopped = tuple((line.split(":", 1)[0], line) for line in lines)
        write_verdict(
            releases,
            Verdict(
                release_id, _sealed_manifest(releases, release_id), result["against"], tuple(sorted(gates)), stopped
            ),
        )
        if not lines:
            return
        for line in review_lines(result):
            progress(line)
        raise GateRefused(
            f"release {release_id} is built and kept but not promoted ({'; '.join(lines)}); "
            f"review it with `ras review {release_id}`, then `ras promote {release_id} --override-gates`"
        )

    return check


def promotion_gates(releases: Path, release_id: str, override: bool) -> list[str]:
    """Before `ras promote`: GateRefused naming each gate that stopped the release at its publish, unless
    `override`; then the lines of the gates overridden ([] when none stopped it)."""
    verdict = read_verdict(releases, release_id)
    if verdict is None:
        # No verdict recorded: written by `ras build` (its gate is `ras review`), published with no gate, or published
        # before publishes recorded verdicts. Nothing stopped it, so it is promoted as before.
        return []
    if not verdict.stopped:
        return []
    if not override:
        names = ", ".join(gate for gate, _reason in verdict.stopped)
        raise GateRefused(
            f"release {release_id} was stopped by the {names} gate(s) when it was published "
            f"({'; '.join(verdict.lines())}); review it with `ras review {release_id}`, then give --override-gates "
            f"to promote it anyway"
        )
    return verdict.lines()


def write_verdict(releases: Path, verdict: Verdict) -> None:
    """Record the verdict durably (fsynced, renamed into place) before the publish stops or promotes."""
    folder = releases / GATE_VERDICTS
    folder.mkdir(exist_ok=True)
    path = folder / f"{verdict.release_id}.json"
    temporary = folder / f"{TEMPORARY_PREFIX}{path.name}-{os.getpid()}"
    record = {
        "releaseId": verdict.release_id,
        "manifestSha256": verdict.manifest_sha256,
        "against": verdict.against,
        "gates": list(verdict.gates),
        "stopped": [{"gate": gate, "reason": reason} for gate, reason in verdict.stopped],
    }
    try:
        with at_path(temporary), open(temporary, "wb") as handle:
            handle.write(canonical_json(record))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    fsync_directory(folder)


def read_verdict(releases: Path, release_id: str) -> Verdict | None:
    """The verdict recorded for the release, None when none was. A record that cannot be read, or that judged other
    bytes than the release now sealed, stops it as a gate would: what its gates said is not known."""
    path = releases / GATE_VERDICTS / f"{release_id}.json"
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _unknown(release_id, f"{path} cannot be read ({exc.strerror})")
    try:
        record = orjson.loads(data)
        stopped = tuple((str(s["gate"]), str(s["reason"])) for s in record["stopped"])
        verdict = Verdict(
            record["releaseId"], record["manifestSha256"], record["against"], tuple(record["gates"]), stopped
        )
    except (orjson.JSONDecodeError, KeyError, TypeError) as exc:
        return _unknown(release_id, f"{path} is not a gate verdict ({exc})")
    if verdict.release_id != release_id or verdict.manifest_sha256 != _sealed_manifest(releases, release_id):
        return _unknown(release_id, f"{path} judged other bytes than release {release_id} holds")
    return verdict


def _unknown(release_id: str, reason: str) -> Verdict:
    return Verdict(release_id, "", None, (), (("unknown-verdict", f"unknown-verdict: {reason}"),))


def _sealed_manifest(releases: Path, release_id: str) -> str:
    """The manifest sha256 the release's seal vouches for ("" when the seal cannot be read: verify says why)."""
    try:
        return str(orjson.loads((releases / release_id / SEAL).read_bytes())["manifestSha256"])
    except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
        return ""
