"""The light walk (engine/frontend/walk.py) finds exactly the code-carrying nodes."""

from __future__ import annotations

import dataclasses
import functools
import sysconfig
from pathlib import Path

import libcst as cst
import pytest
from trees import libcst_tree

from ownlint.engine.frontend import walk as walk_module
from ownlint.engine.frontend.walk import children, walk

FIXTURES = sorted((Path(__file__).resolve().parent / "fixtures").rglob("*.py"))
STDLIB = Path(sysconfig.get_paths()["stdlib"])
# modules of the running Python with a wide range of syntax (async, match,
# decorators, f-strings, comprehensions, annotations, star expressions)
SYNTAX = [
    STDLIB / name
    for name in ("ast.py", "dataclasses.py", "typing.py", "asyncio/tasks.py", "inspect.py", "re/_parser.py")
]

EVERYTHING = """
import a.b as c, d
from .e import (f as g, h)
from i import *
@dec(1)
async def k(p: int = 1, /, q=2, *r, s: "t" = 3, **u) -> list[int]:
    global v
    async with w as (x, y), z:
        async for aa in bb:
            await cc
    try:
        pass
    except* ValueError as dd:
        raise ee from ff
    else:
        yield gg
    finally:
        del hh[0], ii.jj
    match kk:
        case [1, *ll] | {"m": mm, **nn} if oo:
            pass
        case Point(x=0) as pp:
            pass
    return (lambda qq, *, rr=1: qq)(f"{ss!r:>{tt}}" "uu", b"vv", *ww, **xx) if yy else [zz async for zz in aaa if bbb]
class C(D, metaclass=E):
    x: int = 1
    y += ~z ** -1 @ w
    (a := b)
    assert c, d
    {e: f for e in g}
    {*h, i}
    j[1:2:3, ...] = k, l = 1.5j
    print(not m or n and o < p <= q is not r in s)
"""


def reference_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Every field, every item, kept where it is a node that is not trivia."""
    out: list[cst.CSTNode] = []
    for name in _fields(type(node)):
        value = getattr(node, name)
        for item in value if isinstance(value, (list, tuple)) else (value,):
            if isinstance(item, cst.CSTNode) and not isinstance(item, walk_module._TRIVIA):
                out.append(item)
    return out


@functools.cache
def _fields(kind: type[cst.CSTNode]) -> tuple[str, ...]:
    """The fields of a node class that `reference_children` reads: all but the skipped ones and whitespace
    (the same for every node of the class; `dataclasses.fields` per node was a tenth of this file's time)."""
    return tuple(
        f.name
        for f in dataclasses.fields(kind)
        if f.name not in walk_module._SKIP_FIELDS and "whitespace" not in f.name
    )


def reference_walk(node: cst.CSTNode, seen: dict[cst.CSTNode, list[cst.CSTNode]] | None = None) -> list[cst.CSTNode]:
    """Every node below `node`, itself first, in the order of `reference_children`; `seen`, when given,
    gets each node's reference children (for the comparison of `children`, made once per node)."""
    kids = reference_children(node)
    if seen is not None:
        seen[node] = kids
    return [node] + [n for child in kids for n in reference_walk(child, seen)]


@pytest.mark.parametrize("path", [*FIXTURES, *SYNTAX, None], ids=lambda p: p.name if p else "everything")
def test_walk_and_children_match_a_walk_of_every_field(path: Path | None) -> None:
    try:
        module = libcst_tree(path) if path else cst.parse_module(EVERYTHING)
    except (OSError, cst.ParserSyntaxError):
        pytest.skip("not parsed here")
    expected_children: dict[cst.CSTNode, list[cst.CSTNode]] = {}
    assert list(walk(module)) == reference_walk(module, expected_children)
    for node in walk(module):
        assert children(node) == expected_children[node]
