"""Each enumeration of the wire and the records is declared in one place: its module spells its values, and every
other module takes them from there (a Literal made of it, the enum itself, or a set read with get_args).

The scan reads every string collection of builder/ and server/ (a Literal's values, a tuple, list or set of strings)
and names each one, outside an enumeration's home, that spells enough of its values to be a second declaration."""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterator
from pathlib import Path
from typing import Any, get_args, get_origin

import pytest

from builder import records
from builder.api import shapes
from builder.research import agent, schema, views
from builder.research.changes import BOUGHT, CHANGE_KINDS, SOLD
from builder.research.methods import audit, ethos, explained, policy
from builder.research.previews import pack
from builder.research.previews import shapes as preview_shapes

REPO = Path(__file__).resolve().parents[1]
# Every enumeration, by name, with the module that declares it.
ENUMERATIONS: dict[str, tuple[Any, str]] = {
    "ChangeKind": (schema.ChangeKind, "builder/research/schema.py"),
    "Cause": (schema.Cause, "builder/research/schema.py"),
    "CandidateRule": (schema.CandidateRule, "builder/research/schema.py"),
    "TickerAsOf": (schema.TickerAsOf, "builder/research/schema.py"),
    "ActionKind": (records.ActionKind, "builder/records.py"),
    "Amendment": (records.Amendment, "builder/records.py"),
    "ValueUnit": (records.ValueUnit, "builder/records.py"),
    "FormType": (records.FormType, "builder/records.py"),
    "ShareType": (records.ShareType, "builder/records.py"),
    "PutCall": (records.PutCall, "builder/records.py"),
    "Origin": (records.Origin, "builder/records.py"),
    "Mode": (views.Mode, "builder/research/views.py"),
    "Signal": (policy.Signal, "builder/research/methods/policy.py"),
    "Normalisation": (ethos.Normalisation, "builder/research/methods/ethos.py"),
    "AuditEventKind": (audit.AuditEventKind, "builder/research/methods/audit.py"),
    "ViewStatus": (explained.ViewStatus, "builder/research/methods/explained.py"),
    "ProducedBy": (preview_shapes.ProducedBy, "builder/research/previews/shapes.py"),
    "HealthStatus": (shapes.HealthStatus, "builder/api/shapes.py"),
    "PackLabel": (pack.PackLabel, "builder/research/previews/pack.py"),
    "PackFeature": (shapes.PackFeature, "builder/api/shapes.py"),
    "PackStatus": (shapes.PackStatus, "builder/api/shapes.py"),
}
SPELLED = 3  # this many values of an enumeration in one collection (or all, if it has fewer) declare it again


def values(declared: Any) -> frozenset[str]:
    """The values of a Literal (flattened: a Literal made of Literals) or of a string enum."""
    if isinstance(declared, type) and issubclass(declared, enum.Enum):
        return frozenset(member.value for member in declared)
    assert get_origin(declared) is not None, declared
    return frozenset(value for value in get_args(declared) if isinstance(value, str))


def collections(tree: ast.AST) -> set[tuple[int, frozenset[str]]]:
    """Each string collection of a module: its line and the strings it spells."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            items = node.elts
        else:
            continue
        strings = frozenset(
            item.value for item in items if isinstance(item, ast.Constant) and isinstance(item.value, str)
        )
        if len(strings) >= 2:
            found.add((node.lineno, strings))
    return found


def spellings() -> Iterator[tuple[str, int, frozenset[str]]]:
    for path in sorted([*REPO.glob("builder/**/*.py"), *REPO.glob("server/**/*.py")]):
        if "fixture" in path.parts:
            continue
        for line, strings in collections(ast.parse(path.read_text(encoding="utf-8"))):
            yield path.relative_to(REPO).as_posix(), line, strings


@pytest.mark.parametrize("name", ENUMERATIONS)
def test_each_enumeration_is_spelled_in_its_own_module_only(name):
    declared, home = ENUMERATIONS[name]
    members = values(declared)
    assert len(members) >= 2, name
    again = [
        f"{path}:{line} {sorted(strings)}"
        for path, line, strings in spellings()
        if path != home and strings <= members and len(strings) >= min(SPELLED, len(members))
    ]
    assert not again, f"{name} is declared in {home}, and spelled again at: {again}"


def test_the_scan_finds_a_declaration_where_it_is():
    found = [(path, strings) for path, _, strings in spellings() if path == "builder/research/schema.py"]
    assert any(strings == {"quarter-end", "current", "unmapped"} for _, strings in found)


def test_the_sets_the_code_tests_kinds_with_are_read_from_the_declarations():
    assert CHANGE_KINDS == ("new", "added", "reduced", "unchanged", "exited", "converted", "undecided", "unknown")
    assert {"new", "added"} == BOUGHT and {"reduced", "exited"} == SOLD
    assert values(schema.Traded) == BOUGHT | SOLD and values(schema.Traded) < values(schema.TradeKind)
    assert values(schema.MeasuredKind) == values(schema.ChangeKind) - {"unknown"}
    assert values(schema.TradeCause) < values(schema.Cause)
    assert values(schema.BookRule) < values(schema.CandidateRule)
    assert values(schema.CandidateRule) - values(schema.BookRule) == {  # the rules a witness must bear out, and none
        "split",
        "same-issuer",
        "same-value",
        "distribution",
        "cash-merger",
        "no-evidence",
    }


def test_the_agent_glossary_says_what_each_change_kind_means():
    assert set(CHANGE_KINDS) <= set(agent.GLOSSARY)
