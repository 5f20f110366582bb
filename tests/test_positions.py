"""The fast positions (engine/positions.py) agree with libcst's PositionProvider."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from ownlint.diagnostics import Span
from ownlint.engine import positions
from ownlint.engine.walk import walk

FIXTURES = sorted((Path(__file__).resolve().parent / "fixtures").rglob("*.py"))
REPORTED = (cst.Call, cst.Return, cst.WithItem, cst.Assign, cst.Subscript, cst.Comparison, cst.SimpleString, cst.Expr)


def slow(module: cst.Module) -> dict[cst.CSTNode, Span]:
    table = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {n: Span(r.start.line, r.start.column + 1, r.end.line, r.end.column + 1) for n, r in table.items()}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fast_positions_equal_libcst_positions(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    module = cst.parse_module(source)
    wanted = {n for n in walk(module) if isinstance(n, REPORTED)}
    expected = slow(module)
    fast = positions.spans(module, source, wanted)
    assert {n: expected[n] for n in fast} == fast
    # everything but string patterns of `match` cases (never reported) is placed the fast way
    in_patterns = {n for case in walk(module) if isinstance(case, cst.MatchCase) for n in walk(case.pattern)}
    assert wanted - in_patterns <= fast.keys()


def test_decorated_functions_and_unicode_columns() -> None:
    source = "import f\n\n@f.deco\ndef g(p):\n    s = 'é✓'; zeMemFree(c, p)\n    return p\n"
    module = cst.parse_module(source)
    fn = module.body[1]
    call = next(n for n in walk(module) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "zeMemFree")
    fast = positions.spans(module, source, {fn, call})
    assert fast[call] == slow(module)[call] == Span(5, 15, 5, 30)
    assert fast[fn].line == 4
