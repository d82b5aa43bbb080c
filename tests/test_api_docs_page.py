"""The browsable API reference at /docs: `ras serve` and the static export's nginx serve the same page, and a
real headless Chromium renders every operation of the served OpenAPI document, with no console error and no
request to anything but the server it came from."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from builder.cli import main
from builder.export import variants as export_variants
from builder.export.apidocs import api_docs_files
from tests.browser import open_page, png_colours
from tests.servers import fetch, free_port, running_server, start_nginx, stop

FAST_BROTLI = 4  # the export compresses in a fraction of the default quality's time; bytes still verified
RENDERED = "document.querySelectorAll('.opblock').length > 0"
OPERATION_IDS = (
    "JSON.stringify([...document.querySelectorAll('.opblock-summary-operation-id')].map(e => e.textContent.trim()))"
)


@pytest.fixture(scope="module")
def export_tree(published: Path) -> Iterator[Path]:
    """The fixture release exported once, into a directory nginx's unprivileged workers can read (pytest's own
    tmp dirs are private to their owner), its app upstream a port where nothing listens."""
    readable = Path(tempfile.mkdtemp(prefix="ras-docs-"))
    readable.chmod(0o755)
    umask = os.umask(0o022)  # the tree is meant to be world-readable
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(export_variants, "BROTLI_QUALITY", FAST_BROTLI)
            result = CliRunner().invoke(
                main,
                [
                    "export",
                    "--releases",
                    str(published),
                    "--out",
                    str(readable / "dist"),
                    "--listen",
                    str(free_port()),
                    "--upstream",
                    f"http://127.0.0.1:{free_port()}",
                ],
            )
    finally:
        os.umask(umask)
    assert result.exit_code == 0, result.output
    yield readable / "dist"
    shutil.rmtree(readable, ignore_errors=True)


@pytest.fixture(params=["ras serve", "nginx export"])
def origin(request, published: Path, export_tree: Path) -> Iterator[str]:
    """The base URL of `ras serve` over the fixture release, or of nginx over its export (with the app down:
    the page and the OpenAPI document are files of the tree)."""
    if request.param == "ras serve":
        with running_server(published) as (base, _):
            yield base
        return
    port = int(re.search(r"listen 127\.0\.0\.1:(\d+);", (export_tree / "nginx.conf").read_text())[1])
    process = start_nginx(export_tree, port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(process)


async def test_the_api_page_renders_every_operation_with_no_errors_and_no_request_elsewhere(
    origin: str, tmp_path: Path
):
    port = int(origin.rsplit(":", 1)[1])
    answer = fetch(port, "/api/v1/openapi.json")
    assert answer.status == 200, answer.body[:300]
    document = json.loads(answer.body)
    operations = {
        op["operationId"] for path in document["paths"].values() for op in path.values() if "operationId" in op
    }
    visit = await open_page(f"{origin}/docs", OPERATION_IDS, tmp_path / "profile", ready=RENDERED)
    assert visit.errors == []
    network = [url for url in visit.requests if not url.startswith("data:")]  # the stylesheet's inline icons
    assert network and all(url.startswith(f"{origin}/") for url in network), network
    assert f"{origin}/api/v1/openapi.json" in network
    rendered = json.loads(visit.value)
    assert sorted(rendered) == sorted(operations) and len(operations) == 11
    assert png_colours(visit.screenshot) > 16  # drawn, not a blank page


def test_ras_serve_answers_the_page_and_its_assets_with_strong_etags_and_304s(published: Path):
    with running_server(published) as (base, _):
        port = int(base.rsplit(":", 1)[1])
        page = fetch(port, "/docs")
        assert page.status == 200 and page.headers["Content-Type"] == "text/html; charset=utf-8"
        assert page.body == api_docs_files()["docs/index.html"]
        assert fetch(port, "/docs", If_None_Match=page.headers["ETag"]).status == 304
        script = fetch(port, "/docs/swagger-ui-bundle.js")
        assert script.status == 200 and script.headers["Content-Type"].startswith("text/javascript")
        assert script.headers["X-Content-Type-Options"] == "nosniff"
        missing = fetch(port, "/docs/nothing.js")
        assert missing.status == 404 and json.loads(missing.body)["error"]["code"] == "route_not_found"


def test_the_export_tree_holds_the_same_files_and_host_rules(export_tree: Path):
    out = export_tree
    site = out / "site"
    for path, body in api_docs_files().items():
        assert (site / path).read_bytes() == body, path
    assert "/docs  /docs/index.html  200" in (site / "_redirects").read_text().splitlines()
    headers = (site / "_headers").read_text()
    assert "/docs\n  Content-Type: text/html; charset=utf-8" in headers
    conf = (out / "nginx.conf").read_text()
    assert "location = /docs {" in conf and "location ^~ /docs/ {" in conf
    assert os.path.getsize(site / "docs" / "swagger-ui-bundle.js") > 500_000
