"""Scope collection (engine/project.collect_scopes): the statement-only walk,
taken when the text has no `lambda` and no `yield`, finds every scope the
walk over all nodes finds."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from ownlint.engine.project import Scope, collect_scopes

FIXTURES = sorted((Path(__file__).resolve().parent / "fixtures").rglob("*.py"))

NESTED = """\
import ctypes

if ctypes:
    def in_if(a):
        def inner(b):
            return b
        return inner(a)
else:
    class InElse:
        def m(self, x):
            pass

try:
    def in_try(): pass
except Exception:
    def in_handler(): pass
finally:
    def in_finally(): pass

with open("x") as f:
    @staticmethod
    def in_with(y): pass

for i in range(3):
    def in_for(): pass
while False:
    def in_while(): pass

match 1:
    case 1:
        def in_case(): pass

class Outer:
    class Inner:
        def deep(self): pass
"""


def described(scopes: list[Scope]) -> list[tuple]:
    return [
        (s.cfg.node, tuple(s.params), s.self_name, s.qualified, s.class_qualified, s.defaults, s.generator)
        for s in scopes
    ]


def test_every_scope_below_compound_statements() -> None:
    module = cst.parse_module(NESTED)
    shortcut = collect_scopes(module, "m", None, NESTED)
    names = [getattr(s.cfg.node, "name", None) for s in shortcut]
    found = {n.value for n in names if isinstance(n, cst.Name)}
    assert found == {
        "in_if", "inner", "InElse", "m", "in_try", "in_handler", "in_finally", "in_with", "in_for",
        "in_while", "in_case", "Outer", "Inner", "deep",
    }
    assert described(shortcut) == described(collect_scopes(module, "m", None))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_same_scopes_as_the_full_walk(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    module = cst.parse_module(source)
    assert described(collect_scopes(module, "m", None, source)) == described(collect_scopes(module, "m", None))


@pytest.mark.parametrize("text", ["p", "(p)", "( p )", "a.b", "f(x,\n  y)", "lst[0]"])
def test_source_of_prints_what_libcst_prints_on_one_line(text: str) -> None:
    """A plain name is returned without printing; everything else is printed."""
    from ownlint.engine.cfg import source_of

    node = cst.parse_expression(text)
    assert source_of(node) == " ".join(cst.Module(body=[]).code_for_node(node).split())
