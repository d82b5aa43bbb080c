"""Every name a benchmark imports from the project exists: the benchmarks run outside the suite, so a module moved
or a name renamed would otherwise surface only when someone runs them (bench.heldout imported publish from
builder.release.promote for a while after it moved to builder.release.publish)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
OURS = ("builder", "server", "bench", "tests")


def project_imports(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, name) of each `from <ours> import name` in `path`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in OURS and not node.level:
            found += [(node.lineno, node.module, alias.name) for alias in node.names]
    return found


@pytest.mark.parametrize("path", sorted((REPO / "bench").glob("*.py")), ids=lambda path: path.name)
def test_each_name_a_benchmark_imports_exists(path: Path):
    missing = []
    for line, module, name in project_imports(path):
        imported = importlib.import_module(module)
        if not hasattr(imported, name):
            try:
                importlib.import_module(f"{module}.{name}")  # a submodule: `from bench import report`
            except ModuleNotFoundError:
                missing.append(f"{path.name}:{line}: {module} has no {name}")
    assert not missing


def test_the_check_finds_a_moved_name(tmp_path: Path):
    script = tmp_path / "moved.py"
    script.write_text("from builder.release.promote import no_such_name\n", encoding="utf-8")
    [(line, module, name)] = project_imports(script)
    assert (line, module, name) == (1, "builder.release.promote", "no_such_name")
    assert not hasattr(importlib.import_module(module), name)
