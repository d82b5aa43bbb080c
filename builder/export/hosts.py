"""`ras export --host`: the limits each static host publishes, checked against the planned tree before a byte of
it is written, so that no tree a host would reject is left without saying so.

The figures and where each comes from are in docs/deployment.md ("Static hosts and their limits").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from builder.api.contract import OPERATIONS
from builder.api.wire import API_PREFIX
from builder.errors import PublishError

MIB = 1024 * 1024
LISTED = 3  # answers (or groups of answers) named in the one line that says what breaks a limit
OVERRIDE = "--ignore-limits"


@dataclass(frozen=True, slots=True)
class Host:
    """What one host takes; None where it publishes no limit."""

    name: str
    source: str  # where the figures are published
    files: int | None = None  # files per site
    file_bytes: int | None = None  # bytes per file
    directory_files: int | None = None  # files in one directory
    redirects: int | None = None  # rules in `_redirects`
    header_rules: int | None = None  # rules in `_headers`
    variants: bool = True  # whether it serves the tree's .br/.gz files (Pages and Netlify compress on their own)


HOSTS = {
    host.name: host
    for host in (
        Host("nginx", "nginx serves files from disk: only the filesystem limits the tree"),
        Host(
            "cloudflare-pages",
            "developers.cloudflare.com/pages/platform/limits, /pages/configuration/redirects and /headers, Free plan",
            files=20_000,
            file_bytes=25 * MIB,
            redirects=2_100,
            header_rules=100,
            variants=False,
        ),
        Host(
            "netlify",
            "docs.netlify.com/site-deploys/overview (files per directory)",
            directory_files=54_000,
            variants=False,
        ),
        Host(
            "s3",
            "docs.aws.amazon.com/AmazonS3/latest/userguide/upload-objects.html (one PUT)",
            file_bytes=5 * 1024 * MIB,
        ),
    )
}
DEFAULT_HOST = "nginx"


def _template(path: str) -> re.Pattern[str]:
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(API_PREFIX + path)) + "$")


TEMPLATES = [(operation.id, _template(operation.path)) for operation in OPERATIONS if operation.method == "GET"]


def operation_of(target: str) -> str:
    """The operation id answering a request target (the target's path when none matches)."""
    path = urlsplit(target).path
    return next((name for name, pattern in TEMPLATES if pattern.match(path)), path)


def _megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB"


def _limit(size: int) -> str:
    return f"{size // MIB:,} MiB" if size % MIB == 0 else f"{size:,} bytes"


def _groups(counts: Counter[str]) -> str:
    return ", ".join(f"{name} {count:,}" for name, count in counts.most_common(LISTED))


def limit_problems(host: Host, sizes: Mapping[str, int], targets: Mapping[str, Sequence[str]]) -> list[str]:
    """What in the planned tree breaks `host`'s limits, one phrase per limit.

    `sizes`: path → bytes of every file the tree will hold; `targets`: object path → the request targets it answers.
    """
    problems = []
    by_operation: Counter[str] = Counter()  # files per operation: what precomputing fewer answers would remove
    for path in sizes:
        answered = targets.get(path.removesuffix(".gz").removesuffix(".br"))
        by_operation[operation_of(answered[0]) if answered else "other files"] += 1
    if host.files is not None and len(sizes) > host.files:
        problems.append(f"{len(sizes):,} files over its {host.files:,} ({_groups(by_operation)})")
    if host.directory_files is not None:
        folders = Counter(path.rsplit("/", 1)[0] if "/" in path else "." for path in sizes)
        for folder, count in sorted(folders.items()):
            if count > host.directory_files:
                problems.append(f"{count:,} files in {folder}/ over its {host.directory_files:,} per directory")
    if host.file_bytes is not None:
        over = sorted((size, path) for path, size in sizes.items() if size > host.file_bytes)
        if over:
            named = [f"{targets.get(path, [path])[0]} ({_megabytes(size)})" for size, path in reversed(over)]
            listed = ", ".join(named[:LISTED]) + (" …" if len(named) > LISTED else "")
            problems.append(f"{len(over)} files over its {_limit(host.file_bytes)} per file: {listed}")
    return problems


def too_large_line(host: Host, answers: Sequence[tuple[str, int]]) -> str:
    """The line saying which answers (request target, bytes; largest first) exceed `host`'s bytes per file and so
    are left to the app, which the host passes them to as its upstream."""
    named = ", ".join(f"{target} ({_megabytes(size)})" for target, size in answers[:LISTED])
    more = " …" if len(answers) > LISTED else ""
    return (
        f"{len(answers):,} answers over {host.name}'s {_limit(host.file_bytes or 0)} per file left to the app "
        f"(`ras serve` as the host's upstream answers them): {named}{more}"
    )


def rule_problems(host: Host, redirects: bytes, headers: bytes) -> list[str]:
    """`_redirects` and `_headers` rules past what `host` reads (it ignores the rest, silently)."""
    problems = []
    rules = [line for line in redirects.decode().splitlines() if line.strip() and not line.startswith("#")]
    if host.redirects is not None and len(rules) > host.redirects:
        problems.append(f"{len(rules):,} _redirects rules over its {host.redirects:,}")
    paths = [line for line in headers.decode().splitlines() if line.startswith("/")]
    if host.header_rules is not None and len(paths) > host.header_rules:
        problems.append(f"{len(paths):,} _headers rules over its {host.header_rules:,}")
    return problems


def refusal(host: Host, problems: Sequence[str]) -> str:
    """The one line naming what breaks the host's limits and what to do about it."""
    return (
        f"{host.name} would reject this tree: {'; '.join(problems)} ({host.source}). Export for another host "
        f"(--host {' or --host '.join(name for name in HOSTS if name != host.name)}), precompute fewer answers, or "
        f"leave those routes to `ras serve` as the host's upstream; {OVERRIDE} writes the tree anyway"
    )


def check_host(host: Host, problems: Sequence[str], ignore: bool) -> str | None:
    """Raise the refusal, or (told to write anyway) return it as a warning; None when the tree fits."""
    if not problems:
        return None
    if not ignore:
        raise PublishError(refusal(host, problems))
    return f"warning: {refusal(host, problems)}"
