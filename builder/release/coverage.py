"""How much of the published books has no ticker: unmapped CUSIPs and their share of value, with a limit."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from builder.errors import PublishError

# A book keyed by CUSIP is still correct but unreadable; past 1% of its value the map is missing real
# names (run `ras securities`), not the odd warrant or delisted line.
DEFAULT_MAX_UNMAPPED = 0.01


def unmapped_share(artifacts: Mapping[str, dict]) -> tuple[set[str], float, str]:
    """Unmapped CUSIPs of every version, and the largest share of a version's long-equity value they hold."""
    cusips: set[str] = set()
    worst, where = 0.0, ""
    for version, artifact in sorted(artifacts.items()):
        total = unmapped = 0
        for manager in artifact["managers"]:
            for position in manager["positions"]:
                total += position["value"]
                if not position["mapped"]:
                    unmapped += position["value"]
                    cusips.add(position["cusip"])
        if total and unmapped / total > worst:
            worst, where = unmapped / total, version
    return cusips, worst, where


def check_unmapped(artifacts: Mapping[str, dict], limit: float, progress: Callable[[str], None]) -> None:
    """Report the unmapped CUSIPs; refuse the publish when their share of a version passes `limit`."""
    cusips, worst, where = unmapped_share(artifacts)
    if not cusips:
        progress("every CUSIP of the published versions has a ticker")
        return
    share = f"{len(cusips)} unmapped CUSIPs, at most {worst:.2%} of a version's book value ({where})"
    if worst > limit:
        raise PublishError(
            f"{share}, above --max-unmapped-value {limit:.2%}: run `ras securities` or add them to securities.csv"
        )
    progress(f"{share}; within --max-unmapped-value {limit:.2%}")


def parse_share(text: str) -> float:
    """'1%', '0.5 %' or '0.01' as a fraction 0–1."""
    cleaned = text.strip()
    value = float(cleaned.rstrip("%").strip()) / 100 if cleaned.endswith("%") else float(cleaned)
    if not 0 <= value <= 1:
        raise ValueError(f"{text!r} is not a share between 0% and 100%")
    return value
