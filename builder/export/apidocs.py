"""The browsable API reference: Swagger UI over the served OpenAPI document, from assets bundled in a package.

`ras serve` answers it at /docs and `ras export` writes the same files under docs/ of the static tree.
Every URL in it is relative (/docs → docs/swagger-ui.css, api/v1/openapi.json), so it works behind any
host or path prefix, and it asks nothing of another origin: no CDN, no public validator.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

PAGE = "docs/index.html"  # answered at /docs, its assets at /docs/<name>
ASSETS = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png")  # of the package's static/ folder
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
}
HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Research Artifact Service: API reference</title>
<link rel="icon" type="image/png" href="docs/favicon-32x32.png">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
"""
INIT = """// The OpenAPI document of the release being served, by a URL relative to this page (/docs).
window.ui = SwaggerUIBundle({
  url: "api/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  displayOperationId: true,
  docExpansion: "list",
  validatorUrl: null  // no badge from the public validator: the page asks nothing of another origin
});
"""


def _static() -> Path:
    """swagger-ui-py's static/ folder, found without importing the package (it imports web frameworks' glue)."""
    spec = importlib.util.find_spec("swagger_ui")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the swagger-ui-py package is not installed; `pip install swagger-ui-py`")
    return Path(next(iter(spec.submodule_search_locations))) / "static"


@functools.cache
def api_docs_files() -> dict[str, bytes]:
    """The page and its assets: path in the static tree (docs/…) → bytes."""
    static = _static()
    files = {PAGE: HTML.encode(), "docs/init.js": INIT.encode()}
    files.update({f"docs/{name}": (static / name).read_bytes() for name in ASSETS})
    return files


def content_type(path: str) -> str:
    return TYPES[Path(path).suffix]
