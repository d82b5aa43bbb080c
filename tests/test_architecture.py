"""The house rules, checked over the real import graph of builder/ and server/ (ast, every import statement).

Stages: sources (bytes → records) → research (records → payloads) → api (the operation table) → release
→ export; server serves releases. An import points down that list, never up, and never in a circle.
"""

from __future__ import annotations

import ast
import importlib
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
# STYLE.md: modules under ~300 lines; past this a module holds two concepts. Counted in statements (logical lines:
# no blank, comment or continuation line), which the formatter's layout does not change: the largest module, at 340
# lines before `ruff format`, was 245 statements.
MAX_MODULE_STATEMENTS = 250
MAX_PACKAGE_MODULES = 10  # a package whose top level lists more has stages of its own to show
# builder.typed declares wire shapes (TypedDict → JSON Schema): research returns payload types declared with it.
# builder.selection is a record as builder.records is (the managers packs.toml's `largest` chose), in a module of its own.
NEUTRAL = (  # what every stage may import
    "builder.records",
    "builder.errors",
    "builder.canonical",
    "builder.typed",
    "builder.selection",
)
# Each stage and the project packages it must not import.
FORBIDDEN = {
    "builder.sources": ("builder.research", "builder.api", "builder.release", "builder.export", "server"),
    "builder.research": ("builder.api", "builder.release", "builder.export", "server"),
    "builder.api": ("builder.release", "builder.export", "server"),
    "builder.release": ("builder.export", "builder.review", "server"),
    "builder.export": ("server",),
    "builder.review": ("builder.export", "server"),  # reads releases: above release, beside export
}
# builder.fetch (the network: EDGAR, OpenFIGI) sits beside sources: it may read files with the sources'
# parsers, and no stage imports it; only the CLI's `fetch` and `securities` commands reach it.
FETCH = "builder.fetch"
FORBIDDEN[FETCH] = ("builder.research", "builder.api", "builder.release", "builder.export", "server")
for _stage in ("builder.sources", "builder.research", "builder.api", "builder.release", "builder.export"):
    FORBIDDEN[_stage] += (FETCH,)
# MCP: `ras mcp` (server.mcp_server) needs nothing of HTTP; /mcp (server.mcp_http) is mounted by the app, never
# the other way round, and answers with server.mcp_server's tools.
FORBIDDEN["server.mcp_server"] = ("server.mcp_http", "server.app", "server.runner")
FORBIDDEN["server.mcp_http"] = ("server.app", "server.runner")
LAZY_SERVER_COMMANDS = {"serve_command", "mcp_command"}  # the CLI's only way into server/


@dataclass(frozen=True, slots=True)
class Edge:
    importer: str  # dotted module name
    imported: str  # dotted module name (a submodule when `from package import submodule`)
    names: tuple[str, ...]  # names taken from it ((): the module itself)
    line: int
    function: str | None  # the enclosing function of a lazy import, None at module level


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    paths = [*REPO.glob("builder/**/*.py"), *REPO.glob("server/**/*.py")]
    return {module_name(path): path for path in paths}


MODULES = project_modules()


def _is_project(name: str) -> bool:
    return name.split(".")[0] in ("builder", "server")


def _resolve(importer: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = importer.split(".")
    package = package if MODULES[importer].name == "__init__.py" else package[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, *([node.module] if node.module else [])])


def edges_of(module: str) -> Iterator[Edge]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    functions: dict[ast.AST, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                functions.setdefault(inner, node.name)
    for node in ast.walk(tree):
        function = functions.get(node)
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _is_project(alias.name):
                    yield Edge(module, alias.name, (), node.lineno, function)
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, node)
            if not _is_project(source):
                continue
            submodules = [a.name for a in node.names if f"{source}.{a.name}" in MODULES]
            for name in submodules:
                yield Edge(module, f"{source}.{name}", (), node.lineno, function)
            names = tuple(a.name for a in node.names if a.name not in submodules)
            if names:
                yield Edge(module, source, names, node.lineno, function)


GRAPH = [edge for module in sorted(MODULES) for edge in edges_of(module)]


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _where(edge: Edge) -> str:
    return f"{MODULES[edge.importer].relative_to(REPO)}:{edge.line} imports {edge.imported}"


def test_the_graph_is_read_from_every_module():
    assert {
        "builder.sources.previews",
        "builder.research.previews.build",
        "builder.api.contract",
        "server.app",
    } <= MODULES.keys()
    assert any(e.importer == "builder.release.build" and e.imported == "builder.sources.tree" for e in GRAPH)
    assert any(e.importer == "builder.api.contract" and e.imported == "builder.api.handlers" for e in GRAPH)


@pytest.mark.parametrize("stage", sorted(FORBIDDEN))
def test_no_stage_imports_a_later_stage(stage):
    wrong = [
        _where(edge)
        for edge in GRAPH
        if _within(edge.importer, stage) and any(_within(edge.imported, later) for later in FORBIDDEN[stage])
    ]
    assert wrong == []


def test_research_imports_only_records_neutral_modules_itself_and_source_record_types():
    wrong = []
    for edge in GRAPH:
        if not _within(edge.importer, "builder.research") or _within(edge.imported, "builder.research"):
            continue
        if edge.imported in NEUTRAL:
            continue
        if _within(edge.imported, "builder.sources") and edge.names:
            module = importlib.import_module(edge.imported)
            if all(isinstance(getattr(module, name), type) or name.isupper() for name in edge.names):
                continue  # record types (classes, enums) and the format's constants
        wrong.append(f"{_where(edge)} {', '.join(edge.names) or '(module)'}")
    assert wrong == []


def test_nothing_in_builder_imports_server_but_the_clis_lazy_serve_and_mcp_commands():
    reaching = [edge for edge in GRAPH if _within(edge.importer, "builder") and _within(edge.imported, "server")]
    assert [_where(e) for e in reaching if e.importer != "builder.cli" or e.function not in LAZY_SERVER_COMMANDS] == []
    assert {e.function for e in reaching} == LAZY_SERVER_COMMANDS


def test_there_is_no_import_circle():
    targets: dict[str, set[str]] = {module: set() for module in MODULES}
    for edge in GRAPH:
        if edge.imported in MODULES:
            targets[edge.importer].add(edge.imported)
    circles = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(targets[module]):
            if state.get(target) == 1:
                circles.append(" → ".join([*path[path.index(target) :], target]))
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(MODULES):
        if module not in state:
            visit(module, [module])
    assert circles == []


def statements(path: Path) -> int:
    """The module's logical lines: each ends in a NEWLINE token, whatever its layout over physical lines."""
    with path.open("rb") as source:
        return sum(1 for token in tokenize.tokenize(source.readline) if token.type == tokenize.NEWLINE)


def test_no_module_is_over_the_size_of_one_concept():
    long = {name: n for name, path in MODULES.items() if (n := statements(path)) > MAX_MODULE_STATEMENTS}
    assert long == {}


def test_no_package_lists_more_than_ten_modules_at_its_top_level():
    packages = {module_name(path) for path in MODULES.values() if path.name == "__init__.py"}
    crowded = {}
    for package in packages:
        directory = MODULES[package].parent
        count = sum(1 for path in directory.glob("*.py") if path.name != "__init__.py")
        if count > MAX_PACKAGE_MODULES:
            crowded[package] = count
    assert crowded == {}


def test_every_package_says_what_comes_in_and_what_goes_out():
    packages = [path for path in MODULES.values() if path.name == "__init__.py" and path.parent.name != "fixture"]
    silent = [str(path.relative_to(REPO)) for path in packages if not ast.get_docstring(ast.parse(path.read_text()))]
    assert silent == []
