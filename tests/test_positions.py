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


def statement_of(module: cst.Module) -> dict[cst.CSTNode, cst.CSTNode]:
    """Each node's statement, as the analysis hints it: a small statement, or
    a compound statement for the nodes of its header."""
    out: dict[cst.CSTNode, cst.CSTNode] = {}
    for stmt in walk(module):
        if isinstance(stmt, cst.BaseSmallStatement):
            out.update((n, stmt) for n in walk(stmt))
        elif isinstance(stmt, cst.BaseCompoundStatement):
            out.update((n, stmt) for n in positions._header(stmt) if n not in out)
    return out


@pytest.mark.parametrize("hints", ["none", "right", "wrong"])
@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_fast_positions_equal_libcst_positions(path: Path, hints: str) -> None:
    source = path.read_text(encoding="utf-8")
    module = cst.parse_module(source)
    nodes = [n for n in walk(module) if isinstance(n, REPORTED)]
    stmts = statement_of(module)
    if hints == "none":
        wanted: dict[cst.CSTNode, cst.CSTNode | None] = dict.fromkeys(nodes)
    elif hints == "right":
        wanted = {n: stmts.get(n) for n in nodes}
    else:  # a wrong hint costs time, never a wrong position
        first = next(n for n in walk(module) if isinstance(n, cst.BaseSmallStatement))
        wanted = {n: first for n in nodes}
    expected = slow(module)
    fast = positions.spans(module, source, wanted)
    assert {n: expected[n] for n in fast} == fast
    # everything but string patterns of `match` cases (never reported) is placed the fast way
    in_patterns = {n for case in walk(module) if isinstance(case, cst.MatchCase) for n in walk(case.pattern)}
    assert wanted.keys() - in_patterns <= fast.keys()


@pytest.mark.parametrize(
    "source",
    [
        "x = f(g(a))(h(b), k=(m(c)))\n",
        "x = (f(a))\n",
        "y = f'{g(a)} {h(b)!r}' + k(c)\n",
        "z = [f(i) for i in g(a)] or (lambda: h(b))()\n",
        "w = f(\n    g(a),\n    h(\n        b),\n)\n",
        "s = 'é✓' + f(g('ü'))\n",
        "if a: v = f(a); g(b)\n",
        "for i in range(3):\n    del d[f(i)]\n",
    ],
)
def test_hinted_calls_in_tricky_statements(source: str) -> None:
    module = cst.parse_module(source)
    stmts = statement_of(module)
    wanted = {n: stmts.get(n) for n in walk(module) if isinstance(n, (cst.Call, cst.BaseSmallStatement))}
    fast = positions.spans(module, source, wanted)
    expected = slow(module)
    assert fast == {n: expected[n] for n in wanted}


def test_decorated_functions_and_unicode_columns() -> None:
    source = "import f\n\n@f.deco\ndef g(p):\n    s = 'é✓'; zeMemFree(c, p)\n    return p\n"
    module = cst.parse_module(source)
    fn = module.body[1]
    call = next(n for n in walk(module) if isinstance(n, cst.Call) and isinstance(n.func, cst.Name) and n.func.value == "zeMemFree")
    fast = positions.spans(module, source, {fn: None, call: None})
    assert fast[call] == slow(module)[call] == Span(5, 15, 5, 30)
    assert fast[fn].line == 4
