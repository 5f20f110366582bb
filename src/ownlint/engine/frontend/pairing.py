"""The pairing of libcst's tree with CPython's `ast`, for positions.py: the
statements of a body, in order, with their `ast` counterparts (and the bodies
nested in each), and the expressions placed from `ast` alone (`_KINDS`), which
come one for one, in the same order, in both trees (`_by_order`). `NotFound`
where the trees do not line up."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import cast

import libcst as cst

from ownlint.engine.frontend.walk import walk

# expressions whose inner positions `ast` gives differently (before Python 3.12,
# the nodes inside an f-string carry positions relative to the string)
_OPAQUE: tuple[type, ...] = (cst.FormattedString,)
# small statements whose `value` is an expression, with their `ast` counterparts
_AST_VALUED: dict[type, type] = {
    cst.Expr: ast.Expr,
    cst.Assign: ast.Assign,
    cst.AnnAssign: ast.AnnAssign,
    cst.AugAssign: ast.AugAssign,
    cst.Return: ast.Return,
}


class NotFound(Exception):
    """A node the fast method cannot place."""


def _pairs(cst_body: Iterable[cst.CSTNode], ast_body: list[ast.stmt]) -> list[tuple[cst.CSTNode, ast.stmt]]:
    """libcst statements (each small statement of a line on its own) with their
    `ast` counterparts, in order; NotFound when `ast` has fewer."""
    it = iter(ast_body)
    out = []
    for stmt in cst_body:
        if type(stmt) is cst.SimpleStatementLine or type(stmt) is cst.SimpleStatementSuite:
            ones: Sequence[cst.CSTNode] = stmt.body
        else:
            ones = (stmt,)
        for one in ones:
            node = next(it, None)
            if node is None:
                raise NotFound()
            out.append((one, node))
    return out


def _suite(node: cst.CSTNode) -> list[cst.CSTNode]:
    if type(node) is cst.IndentedBlock:
        return list(node.body)
    if type(node) is cst.SimpleStatementSuite:
        return [cst.SimpleStatementLine(body=node.body)]
    return []


_BODY = operator.attrgetter("body")
_ORELSE = operator.attrgetter("orelse")
_FINALBODY = operator.attrgetter("finalbody")


def _bodies(stmt: cst.CSTNode) -> Iterable[tuple[list[cst.CSTNode], Callable[[ast.stmt], list[ast.stmt]]]]:
    """The statement lists inside a compound statement, each with how to get
    its counterpart from the statement's `ast` node."""
    if type(stmt) is cst.If:
        yield _suite(stmt.body), _BODY
        if type(stmt.orelse) is cst.If:
            yield [stmt.orelse], _ORELSE
        elif type(stmt.orelse) is cst.Else:
            yield _suite(stmt.orelse.body), _ORELSE
    elif type(stmt) is cst.For or type(stmt) is cst.While:
        yield _suite(stmt.body), _BODY
        if stmt.orelse is not None:
            yield _suite(stmt.orelse.body), _ORELSE
    elif type(stmt) is cst.Try or type(stmt) is cst.TryStar:
        yield _suite(stmt.body), _BODY
        handlers: Sequence[cst.ExceptHandler | cst.ExceptStarHandler] = stmt.handlers
        for i, handler in enumerate(handlers):
            yield _suite(handler.body), _nth_body("handlers", i)
        if stmt.orelse is not None:
            yield _suite(stmt.orelse.body), _ORELSE
        if stmt.finalbody is not None:
            yield _suite(stmt.finalbody.body), _FINALBODY
    elif type(stmt) is cst.With or type(stmt) is cst.FunctionDef or type(stmt) is cst.ClassDef:
        yield _suite(stmt.body), _BODY
    elif type(stmt) is cst.Match:
        for i, case in enumerate(stmt.cases):
            yield _suite(case.body), _nth_body("cases", i)


def _nth_body(field: str, i: int) -> Callable[[ast.stmt], list[ast.stmt]]:
    """How to get the body of the `i`-th handler (or case) of a statement's `ast` node."""
    return lambda node: getattr(node, field)[i].body


def _nested(stmt: cst.CSTNode, node: ast.stmt) -> list[tuple[list[cst.CSTNode], list[ast.stmt]]]:
    """The statement lists inside a compound statement, paired."""
    try:
        return [(body, counterpart(node)) for body, counterpart in _bodies(stmt)]
    except (IndexError, AttributeError):  # the two trees differ here
        raise NotFound() from None


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))


# expressions placed from `ast` alone: each libcst kind with its `ast`
# counterparts, which come one for one in the same order (sorted by start,
# the outer of two first), and a test an `ast` node of those types must pass
_KINDS: dict[type[cst.BaseExpression], tuple[tuple[type[ast.expr], ...], Callable[[ast.expr], bool] | None]] = {
    cst.Call: ((ast.Call,), None),
    cst.Subscript: ((ast.Subscript,), None),
    cst.Comparison: ((ast.Compare,), None),
    cst.Yield: ((ast.Yield, ast.YieldFrom), None),
    cst.Await: ((ast.Await,), None),
    cst.SimpleString: ((ast.Constant,), _is_text),
}
# libcst nodes below which the kinds no longer match one for one: `ast` gives
# the inside of an f-string positions of its own before Python 3.12, and
# makes one constant of adjacent strings
_UNMATCHED: dict[type, tuple[type, ...]] = {cst.SimpleString: (cst.ConcatenatedString,)}


def _header_roots(stmt: cst.CSTNode, node: ast.stmt) -> tuple[list[cst.CSTNode], list[ast.AST]] | None:
    """Where to look for a statement's expressions, in both trees: the whole
    of a small statement; the condition of an `if` or a `while`, the target
    and iterable of a `for`. None for anything else."""
    if isinstance(stmt, cst.BaseSmallStatement):
        return [stmt], [node]
    if (type(stmt) is cst.If or type(stmt) is cst.While) and (type(node) is ast.If or type(node) is ast.While):
        return [stmt.test], [node.test]
    if type(stmt) is cst.For and (type(node) is ast.For or type(node) is ast.AsyncFor):
        return [stmt.target, stmt.iter], [node.target, node.iter]
    return None


def _by_order(roots: tuple[list[cst.CSTNode], list[ast.AST]], kinds: set[type]) -> dict[type, dict[int, ast.expr]]:
    """For each of `kinds` in `_KINDS`, its libcst nodes (by id) under the
    roots paired with their `ast` counterparts; a kind whose nodes do not
    match one for one is left out."""
    kinds = kinds & _KINDS.keys()
    found: dict[type, list[cst.CSTNode]] = {k: [] for k in kinds}
    broken: set[type] = set()
    for cst_root in roots[0]:
        for m in walk(cst_root):
            kind = type(m)
            if kind in found:
                found[kind].append(m)
            elif kind in _OPAQUE:
                return {}
            else:
                broken.update(k for k in kinds if kind in _UNMATCHED.get(k, ()))
    wanted: dict[type, list[ast.expr]] = {}  # keyed by `_KINDS`' `ast` expression types
    for k in kinds - broken:
        for t in _KINDS[k][0]:
            wanted[t] = []
    for ast_root in roots[1]:
        for a in ast.walk(ast_root):
            bucket = wanted.get(type(a))
            if bucket is not None:
                bucket.append(cast(ast.expr, a))  # its type is one of `wanted`'s keys
    out: dict[type, dict[int, ast.expr]] = {}
    for k in kinds - broken:
        types, test = _KINDS[k]
        counterparts = [a for t in types for a in wanted[t] if test is None or test(a)]
        if len(counterparts) != len(found[k]):
            continue
        counterparts.sort(key=_source_order)
        out[k] = {id(c): a for c, a in zip(found[k], counterparts, strict=True)}
    return out


def _source_order(node: ast.expr) -> tuple[int, int, int, int]:
    assert node.end_lineno is not None and node.end_col_offset is not None  # CPython's parser sets both
    return (node.lineno, node.col_offset, -node.end_lineno, -node.end_col_offset)
