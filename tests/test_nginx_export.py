"""`ras export` under a real nginx answers every precomputed GET exactly as `ras serve` does, and forwards the rest."""

from __future__ import annotations

import gzip
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import brotli
import orjson
import pytest
from click.testing import CliRunner

from builder.api.wire import MAX_LINE_BYTES
from builder.export import variants as export_variants
from builder.export.routes import mode_aliases
from builder.export.tree import export_command, export_release
from builder.release.publish import publish
from builder.sources.tree import fixture_source
from tests.conftest import quiet
from tests.servers import (
    STARTUP_SECONDS,
    Reply,
    fetch,
    free_port,
    nginx_binary,
    start_nginx,
    start_ras_serve,
    stop,
    wait_until_listening,
)

# Compared separately (Content-Length) or owned by each server's transport; every other field must be equal.
TRANSPORT_HEADERS = {"date", "server", "connection", "keep-alive", "content-length", "transfer-encoding"}
DECODERS = {"gzip": gzip.decompress, "br": brotli.decompress}
LATEST = "/api/v1/packs/13f-copycat/latest"
SAMPLE_STEP = 6  # HEAD and conditional cases on a sixth of the targets; the full walk checks every ETag
FAST_BROTLI = 4  # the test's export compresses in a fraction of the default quality's time; bytes still verified


@pytest.fixture(scope="module", autouse=True)
def fast_brotli() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(export_variants, "BROTLI_QUALITY", FAST_BROTLI)
        yield


@pytest.fixture(scope="module")
def export_root() -> Iterator[Path]:
    """A directory nginx's unprivileged workers can read (pytest's own tmp dirs are private to their owner)."""
    root = Path(tempfile.mkdtemp(prefix="ras-export-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def export(releases: Path, out: Path, listen: int, upstream_port: int) -> None:
    umask = os.umask(0o022)  # the tree is meant to be world-readable; do not inherit a stricter umask
    try:
        export_release(releases, out, listen, f"http://127.0.0.1:{upstream_port}", quiet)
    finally:
        os.umask(umask)


@pytest.fixture(scope="module")
def servers(published: Path, export_root: Path) -> Iterator[tuple[int, int]]:
    """(nginx port, ras serve port): a live `ras serve` over the session's release, and nginx on its export."""
    nginx_binary()
    app_port, nginx_port, log = free_port(), free_port(), export_root / "ras-serve.log"
    app = start_ras_serve(published, app_port, log)  # it starts while the export runs
    nginx = None
    try:
        export(published, export_root / "dist", nginx_port, app_port)
        wait_until_listening(app, app_port, log)
        nginx = start_nginx(export_root / "dist", nginx_port)
        yield nginx_port, app_port
    finally:
        stop(*(process for process in (nginx, app) if process is not None))


@pytest.fixture(scope="module")
def nginx_port(servers: tuple[int, int]) -> int:
    return servers[0]


@pytest.fixture(scope="module")
def app_port(servers: tuple[int, int]) -> int:
    return servers[1]


@pytest.fixture(scope="module")
def targets(release) -> dict[str, str]:
    """Every request target of routes.json plus its `mode=any` spellings → the canonical target (no POSTs)."""
    answered = {key: key for key in release.answers if key.startswith("/")}
    return {**answered, **dict(mode_aliases(release))}


@pytest.fixture(scope="module")
def ras_vary(app_port: int) -> bool:
    """Whether `ras serve` already sends Vary; until it does, nginx alone is held to `Vary: Accept-Encoding`."""
    return fetch(app_port, "/api/v1/health").headers.get("Vary") is not None


def header_fields(reply: Reply) -> dict[str, list[str]]:
    """Every header field but the transport ones, by lower-case name."""
    fields: dict[str, list[str]] = {}
    for name, value in reply.headers.items():
        if name.lower() not in TRANSPORT_HEADERS:
            fields.setdefault(name.lower(), []).append(value)
    return fields


def assert_same(target: str, ours: Reply, theirs: Reply, *, static: bool, ras_vary: bool) -> None:
    """Same status, body bytes and header fields; nginx's answers from files also say Vary."""
    assert (ours.status, ours.body) == (theirs.status, theirs.body), target
    mine, app = header_fields(ours), header_fields(theirs)
    if static and not ras_vary:
        assert mine.pop("vary", None) == ["Accept-Encoding"], target
    assert mine == app, target
    assert ours.headers.get("Server") == "nginx", target  # server_tokens off: no version
    if ours.status == 304:  # no Content-Length either: wrk and other clients would wait for a body
        assert all(ours.headers.get(name) is None for name in ("Content-Type", "Content-Encoding", "Content-Length"))


def test_every_precomputed_get_is_answered_like_ras_serve(nginx_port, app_port, targets, release, ras_vary):
    for target, canonical in sorted(targets.items()):
        ours, theirs = fetch(nginx_port, target), fetch(app_port, target)
        assert_same(target, ours, theirs, static=release.answers[canonical].status == 200, ras_vary=ras_vary)
        assert ours.headers.get("Content-Length") == theirs.headers.get("Content-Length"), target


@pytest.fixture(scope="module")
def sample(targets, release) -> list[str]:
    """Every SAMPLE_STEP-th target answered 200, for the cases the maps treat alike for every target."""
    return [target for target in sorted(targets) if release.answers[targets[target]].status == 200][::SAMPLE_STEP]


def test_head_is_answered_like_ras_serve(nginx_port, app_port, sample, ras_vary):
    for target in sample:
        ours, theirs = fetch(nginx_port, target, "HEAD"), fetch(app_port, target, "HEAD")
        assert_same(f"HEAD {target}", ours, theirs, static=True, ras_vary=ras_vary)
        assert ours.headers.get("Content-Length") == theirs.headers.get("Content-Length"), target


def test_304_for_an_exact_weak_listed_or_star_if_none_match_like_ras_serve(nginx_port, app_port, sample, ras_vary):
    for target in sample:
        current = fetch(app_port, target)
        etag = current.headers["ETag"]
        for header in (etag, f"W/{etag}", f'"0000", W/"1111",{etag} ', "*", '"not-this-one"', f'{etag[:-2]}"'):
            ours = fetch(nginx_port, target, If_None_Match=header)
            theirs = fetch(app_port, target, If_None_Match=header)
            assert_same(f"{target} If-None-Match: {header}", ours, theirs, static=True, ras_vary=ras_vary)


def test_gzip_and_brotli_variants_decompress_to_the_identity_bytes_under_their_own_etags(
    nginx_port, app_port, targets, sample
):
    for target in sorted(targets):
        identity = fetch(app_port, target)
        for coding, decode in DECODERS.items():
            ours = fetch(nginx_port, target, Accept_Encoding=f"{coding}, identity;q=0.5")
            assert ours.status == 200 and ours.headers["Content-Encoding"] == coding, target
            assert decode(ours.body) == identity.body, (target, coding)
            assert ours.headers["ETag"] == f'{identity.headers["ETag"][:-1]}-{coding}"', target
            assert ours.headers["Vary"] == "Accept-Encoding"
            if target not in sample:
                continue
            again = fetch(nginx_port, target, Accept_Encoding=coding, If_None_Match=f"W/{ours.headers['ETag']}")
            assert (again.status, again.body, again.headers["ETag"]) == (304, b"", ours.headers["ETag"]), target
            stale = fetch(nginx_port, target, Accept_Encoding=coding, If_None_Match=identity.headers["ETag"])
            assert stale.status == 200, "an identity ETag does not validate the compressed representation"


@pytest.mark.parametrize(
    ("accept_encoding", "coding"),
    [
        ("gzip, deflate, br", "br"),
        ("br;q=0, gzip", "gzip"),
        ("gzip;q=0.000, br;q=0", None),
        ("X-GZIP", "gzip"),
        ("gzip;q=0.5", "gzip"),
        ("deflate, *", None),
        ("identity", None),
        ("", None),
        ("brotli, gzipx", None),
    ],
)
def test_the_coding_is_chosen_by_accept_encoding_and_its_q_values(nginx_port, accept_encoding, coding):
    reply = fetch(nginx_port, LATEST, Accept_Encoding=accept_encoding)
    assert reply.status == 200 and reply.headers.get("Content-Encoding") == coding


def forwarded_requests(release) -> list[tuple[str, str, bytes | None, dict[str, str]]]:
    """(method, target, body, headers) of requests that no file answers."""
    first, second = sorted(m["id"] for m in release.data.index["copycat"]["managers"])[:2]
    json_body, as_json = orjson.dumps({"packId": "13f-copycat"}), {"Content_Type": "application/json"}
    long_query = "&".join([f"managers={first}"] * 2000)  # ~40 kB: past nginx's default buffers, within the app's
    preflight = {"Origin": "https://example.org", "Access_Control_Request_Method": "GET"}
    gets = [
        "/api/v1/packs/no-such-pack/latest",
        f"{LATEST}?managers={first},{second}",
        f"{LATEST}?{long_query}",
        f"{LATEST}?managers={second}&managers={first}&mode=overlap",
        f"{LATEST}?mode=sideways",
        f"{LATEST}?mode=overlap&mode=any",
        f"{LATEST}?colour=red",
        "/api/v1/no/such/route",
        "/API/V1/HEALTH",
        "/api/v1/pack%73",
        f"{LATEST}?mode=%6Fverlap",
    ]
    return [("GET", target, None, {}) for target in gets] + [
        ("POST", "/api/v1/ethos/compare", json_body, as_json),
        ("POST", "/api/v1/policy/validate", json_body, as_json),
        ("POST", "/api/v1/policy/validate", b" " * 100_000 + json_body, as_json),
        ("POST", "/api/v1/health", b"{}", as_json),
        ("DELETE", "/api/v1/packs", None, {}),
        ("OPTIONS", "/api/v1/health", None, preflight),
    ]


def test_errors_posts_subsets_and_other_spellings_are_forwarded_to_ras_serve(nginx_port, app_port, release, ras_vary):
    for method, target, body, headers in forwarded_requests(release):
        for encoding in ("identity", "gzip, br"):  # a file would have answered compressed
            ours = fetch(nginx_port, target, method, body, Accept_Encoding=encoding, **headers)
            theirs = fetch(app_port, target, method, body, Accept_Encoding=encoding, **headers)
            assert_same(f"{method} {target[:200]}", ours, theirs, static=False, ras_vary=ras_vary)
            if theirs.status == 200 and method == "GET":
                etag = theirs.headers["ETag"]
                revalidated = (fetch(port, target, If_None_Match=etag) for port in (nginx_port, app_port))
                assert_same(target, *revalidated, static=False, ras_vary=ras_vary)


MCP_HEADERS = {"Content_Type": "application/json", "Accept": "application/json", "MCP_Protocol_Version": "2025-11-25"}
MCP_MESSAGES = [
    ("POST", b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_health","arguments":{}}}'),
    ("POST", b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}'),
    ("POST", b'{"jsonrpc":"2.0","method":"notifications/initialized"}'),
    ("POST", b"[]"),
    ("GET", None),
]


def test_mcp_is_proxied_to_ras_serve_with_the_host_it_was_sent(nginx_port, app_port, ras_vary):
    """Every /mcp message is answered by the app, as it answers it directly; a browser page of the nginx's own
    address is admitted by the Host nginx passes on, a foreign origin refused."""
    for method, body in MCP_MESSAGES:
        ours, theirs = (fetch(port, "/mcp", method, body, **MCP_HEADERS) for port in (nginx_port, app_port))
        assert_same(f"{method} /mcp {body!r}", ours, theirs, static=False, ras_vary=ras_vary)
    ping = b'{"jsonrpc":"2.0","id":3,"method":"ping"}'
    own = fetch(nginx_port, "/mcp", "POST", ping, Origin=f"http://127.0.0.1:{nginx_port}", **MCP_HEADERS)
    assert own.status == 200 and own.headers["Access-Control-Allow-Origin"] == f"http://127.0.0.1:{nginx_port}"
    assert fetch(nginx_port, "/mcp", "POST", ping, Origin="https://evil.example", **MCP_HEADERS).status == 403


@pytest.mark.parametrize(
    ("headers", "static"),
    [
        ({"If-Match": '"nope"'}, False),
        ({"If-Unmodified-Since": "Mon, 01 Jan 2001 00:00:00 GMT"}, False),
        ({"Range": "bytes=0-9"}, True),
        ({"If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"}, True),
    ],
    ids=["if-match", "if-unmodified-since", "range", "if-modified-since"],
)
def test_preconditions_and_ranges_ras_serve_ignores_are_ignored_by_nginx_too(
    nginx_port, app_port, headers, static, ras_vary
):
    sent = {name.replace("-", "_"): value for name, value in headers.items()}
    ours, theirs = fetch(nginx_port, LATEST, **sent), fetch(app_port, LATEST, **sent)
    assert_same(f"{LATEST} {headers}", ours, theirs, static=static, ras_vary=ras_vary)


def raw_exchange(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send bytes as they are and read the whole reply (both servers close after refusing)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    status_line, *fields = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (field.partition(":") for field in fields)}
    return int(status_line.split()[1]), headers, body


OVER_NGINX_BUFFERS = "q" * (4 * MAX_LINE_BYTES)  # past the app's limit and nginx's own buffers (twice the app's)


@pytest.mark.parametrize(
    "request_bytes",
    [
        f"GET /api/v1/packs?{OVER_NGINX_BUFFERS} HTTP/1.1\r\nHost: x\r\n\r\n".encode(),
        f"GET /api/v1/packs HTTP/1.1\r\nHost: x\r\nX-Filler: {OVER_NGINX_BUFFERS}\r\n\r\n".encode(),
        b"HELLO THERE\r\n\r\n",
    ],
    ids=["request line", "header", "not http"],
)
def test_what_nginx_refuses_itself_is_the_envelope_ras_serve_sends(nginx_port, app_port, request_bytes):
    status, headers, body = raw_exchange(nginx_port, request_bytes)
    app_status, app_headers, app_body = raw_exchange(app_port, request_bytes)
    assert (status, body) == (app_status, app_body) == (400, app_body)
    assert orjson.loads(body)["error"]["code"] == "malformed_request"
    assert b"qqqq" not in body and headers["content-type"] == app_headers["content-type"]
    assert headers["access-control-allow-origin"] == "*" and headers["cache-control"] == app_headers["cache-control"]


def test_reexport_after_a_promotion_switches_site_to_a_complete_tree_that_nginx_serves_after_reload(
    releases_copy: Path, export_root: Path, servers
):
    out, port, dead_port = export_root / "switch", free_port(), free_port()  # no app behind this nginx
    shutil.copytree(export_root / "dist", out, symlinks=True, ignore=shutil.ignore_patterns("logs", "tmp"))
    export(releases_copy, out, port, dead_port)  # its compressed variants come from the copied tree
    first_tree, conf = (out / "site").resolve(), (out / "nginx.conf").read_bytes()
    process = start_nginx(out, port)
    try:
        old_health = fetch(port, "/api/v1/health")
        newer = publish(fixture_source(), releases_copy, a_day_later(releases_copy), quiet)
        export(releases_copy, out, port, dead_port)
        tree = (out / "site").resolve()
        assert tree != first_tree and first_tree.is_dir() and tree.name.startswith(newer)
        record = orjson.loads((tree / "export.json").read_bytes())
        written = sorted(
            p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file() and p.name != "export.json"
        )
        assert sorted(record["files"]) == written
        assert (out / "nginx.conf").read_bytes() == conf
        assert fetch(port, "/api/v1/health").body == old_health.body, "until a reload, the tree nginx loaded"
        subprocess.run([nginx_binary(), "-p", str(out), "-c", "nginx.conf", "-e", "stderr", "-s", "reload"], check=True)
        deadline = time.monotonic() + STARTUP_SECONDS
        while (health := fetch(port, "/api/v1/health")).body == old_health.body and time.monotonic() < deadline:
            time.sleep(0.05)
        assert orjson.loads(health.body)["data"]["releaseId"] == newer
        down = fetch(port, "/api/v1/policy/validate", "POST", b"{}")
        assert down.status == 503 and orjson.loads(down.body)["error"]["code"] == "release_unavailable"
        assert down.headers["Content-Type"] == "application/json" and down.headers["Cache-Control"] == "no-store"
    finally:
        stop(process)


def a_day_later(releases: Path) -> date:
    """An as-of date after the promoted release's, so the next publish is another release."""
    return date.fromisoformat((releases / "current").resolve().name[:10]) + timedelta(days=1)


def test_export_reports_counts_and_degrades_to_gzip_without_brotli(published: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setattr(export_variants, "brotli", None)
    result = CliRunner().invoke(export_command, ["--releases", str(published), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "request targets" in result.stderr and "compressed variants verified" in result.stderr
    assert (
        "brotli is not installed" in result.stderr and result.stdout.strip() == (published / "current").resolve().name
    )
    routes = (tmp_path / "out" / "site" / "nginx-routes.conf").read_text()
    assert not list((tmp_path / "out" / "site" / "objects").glob("*.br")) and "br\\s*;" not in routes
    assert list((tmp_path / "out" / "site" / "objects").glob("*.gz"))


def test_export_refuses_a_directory_without_a_release_and_an_upstream_with_a_path(published: Path, tmp_path: Path):
    missing = CliRunner().invoke(export_command, ["--releases", str(tmp_path / "none"), "--out", str(tmp_path / "o")])
    assert missing.exit_code == 1 and "Error: no promoted release" in missing.stderr
    arguments = ["--releases", str(published), "--upstream", "http://x/api", "--out", str(tmp_path / "o")]
    bad = CliRunner().invoke(export_command, arguments)
    assert bad.exit_code == 1 and "Error: --upstream must look like" in bad.stderr
