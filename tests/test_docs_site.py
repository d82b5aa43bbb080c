"""The docs site builds with `mkdocs build --strict` (a dead link, anchor or page fails), and user docs stay user docs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.servers import REPO

USER_DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
README_MAX_LINES = 300  # a newcomer reads it in five minutes; everything else is a page of the site


def test_the_site_builds_strict_with_every_page_in_the_nav(tmp_path: Path):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(REPO)}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "WARNING" not in result.stderr, result.stderr[-3000:]
    built = {path.parent.name for path in (tmp_path / "site").glob("*/index.html")}
    assert {page.stem for page in USER_DOCS if page.parent.name == "docs" and page.stem != "index"} <= built
    for page in (tmp_path / "site").rglob("*.html"):  # no font, style or script from another origin
        assert not re.search(r"<(?:link|script)[^>]*(?:href|src)=\"https?://", page.read_text()), page
    cli = (tmp_path / "site" / "cli" / "index.html").read_text()
    for command in ("publish", "build", "review", "promote", "export", "serve", "mcp", "fetch", "securities"):
        assert f'id="ras-{command}"' in cli, command  # generated from the click commands, none left out


def test_the_readme_is_short():
    assert len((REPO / "README.md").read_text().splitlines()) <= README_MAX_LINES


def test_user_docs_name_no_issue_numbers_and_no_file_the_reader_lacks():
    for page in USER_DOCS:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\b[Ii]ssues? #?\d", text), page.name
        assert "§4" not in text and "service-contract" not in text and "shared/" not in text, page.name


def test_every_link_of_the_readme_names_a_file_of_the_checkout():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(((?!https?:)[^)#]+)", text)
    assert links and all((REPO / link).is_file() for link in links), links
