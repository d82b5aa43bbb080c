"""Which browser origins may call `/mcp`, and the CORS headers they are answered with.

MCP (basic/transports, security warning): a server MUST validate the Origin header of every request, against
DNS rebinding: a page of evil.example whose name is made to resolve to 127.0.0.1 reaches a local server with
`Origin: http://evil.example:8080` and `Host: evil.example:8080`, so an origin that merely equals the Host proves
nothing. Admitted: a request without Origin (server-side clients send none), an origin given with
`--mcp-allow-origin`, and this very server addressed by a name no DNS answer can rebind (an IP literal or
localhost: the Origin equals the Host header). Everything else is 403. The data is public and no credentials are
taken, so the CORS answers never allow credentials.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
SCHEMES = tuple(DEFAULT_PORTS)
# What a browser client of the Streamable HTTP transport sends (Authorization: a proxy in front may ask for it)...
ALLOW_HEADERS = (
    "Accept, Authorization, Content-Type, Last-Event-ID, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Session-Id"
)
EXPOSE_HEADERS = "MCP-Protocol-Version, Mcp-Session-Id"  # ... and may read from an answer
ALLOW_METHODS = "GET, POST, DELETE"  # GET and DELETE are answered 405: a browser should see that answer
PREFLIGHT_MAX_AGE = "86400"


def origin_of(text: str) -> str:
    """`text` as an origin (scheme://host[:port], lower case); ValueError naming what is wrong with it."""
    url = urlsplit(text.strip())
    if url.scheme.lower() not in SCHEMES or not url.hostname:
        raise ValueError(f"{text!r} is not an origin: give scheme://host[:port], e.g. https://app.example.com")
    if url.path not in ("", "/") or url.query or url.fragment or url.username or url.password:
        raise ValueError(f"{text!r} is not an origin: an origin has no path, query, fragment or user")
    try:
        port = url.port
    except ValueError as exc:
        raise ValueError(f"{text!r} is not an origin: its port is not a number from 0 to 65535") from exc
    scheme, netloc = url.scheme.lower(), url.netloc.lower()
    if port == DEFAULT_PORTS[scheme]:  # a browser's Origin leaves the scheme's own port out
        netloc = netloc.rpartition(":")[0]
    return f"{scheme}://{netloc}"


def unrebindable(hostname: str) -> bool:
    """A name that is this machine however DNS answers: an IP literal, or localhost (RFC 6761 §6.3)."""
    if hostname == "localhost" or hostname.endswith(".localhost"):
        return True
    try:
        ipaddress.ip_address(hostname)
    except ValueError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Origins:
    """The origins allowed beside the server's own (`--mcp-allow-origin`)."""

    allowed: frozenset[str] = frozenset()

    @classmethod
    def of(cls, origins: Iterable[str]) -> Origins:
        return cls(frozenset(origin_of(origin) for origin in origins))

    def admits(self, origin: str, host: str | None) -> bool:
        """Whether a request with this Origin, sent to this Host, is served (one without Origin always is)."""
        text = origin.lower()
        if text in self.allowed:
            return True
        url = urlsplit(text)
        return (
            url.scheme in SCHEMES
            and url.hostname is not None
            and host is not None
            and url.netloc == host.lower()
            and unrebindable(url.hostname)
        )

    @staticmethod
    def cors(origin: str | None) -> dict[str, str]:
        """The CORS headers of an answer to an admitted request (none without Origin)."""
        if origin is None:
            return {}
        return {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Expose-Headers": EXPOSE_HEADERS,
            "Vary": "Origin",
        }

    @staticmethod
    def preflight(origin: str | None) -> dict[str, str]:
        """The headers of a preflight's 204 for an admitted origin."""
        return {
            **Origins.cors(origin),
            "Access-Control-Allow-Methods": ALLOW_METHODS,
            "Access-Control-Allow-Headers": ALLOW_HEADERS,
            "Access-Control-Max-Age": PREFLIGHT_MAX_AGE,
        }
