"""Source positions of the nodes a finding names, cheaply.

libcst's `PositionProvider` regenerates the code of the whole module to
learn every node's position: measured here it costs more than the parse,
for a file that has one finding. Instead, the statements of the libcst tree
are matched, in order, with those of CPython's `ast` (whose C parser gives
each statement's line and column almost for free); `PositionProvider` then
runs over just the statement that holds a wanted node (a compound
statement's header, its body stubbed out), and its positions are shifted to
the statement's place. When anything does not line up, `NotFound` sends the
caller back to `PositionProvider` over the whole module.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable

import libcst as cst
with warnings.catch_warnings():  # libcst.metadata's own DeprecationWarnings are not the user's concern
    warnings.simplefilter("ignore")
    from libcst.metadata import MetadataWrapper, PositionProvider

from ownlint.diagnostics import Span
from ownlint.lines import split_lines
from ownlint.engine.walk import children, walk

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


def _pairs(cst_body: Iterable[cst.CSTNode], ast_body: list[ast.stmt]) -> Iterable[tuple[cst.CSTNode, ast.stmt]]:
    """libcst statements with their `ast` counterparts, in order."""
    it = iter(ast_body)
    for stmt in cst_body:
        if type(stmt) in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
            for small in stmt.body:
                yield small, next(it)
        else:
            yield stmt, next(it)


def _suite(node: cst.CSTNode) -> list[cst.CSTNode]:
    if type(node) is cst.IndentedBlock:
        return list(node.body)
    if type(node) is cst.SimpleStatementSuite:
        return [cst.SimpleStatementLine(body=node.body)]
    return []


def _nested(stmt: cst.CSTNode, node: ast.stmt) -> Iterable[tuple[list[cst.CSTNode], list[ast.stmt]]]:
    """The statement lists inside a compound statement, paired."""
    if type(stmt) is cst.If:
        yield _suite(stmt.body), node.body  # type: ignore[attr-defined]
        if type(stmt.orelse) is cst.If:
            yield [stmt.orelse], node.orelse  # type: ignore[attr-defined]
        elif type(stmt.orelse) is cst.Else:
            yield _suite(stmt.orelse.body), node.orelse  # type: ignore[attr-defined]
    elif type(stmt) in (cst.For, cst.While):
        yield _suite(stmt.body), node.body  # type: ignore[attr-defined]
        if stmt.orelse is not None:
            yield _suite(stmt.orelse.body), node.orelse  # type: ignore[attr-defined]
    elif type(stmt) in (cst.Try, cst.TryStar):
        yield _suite(stmt.body), node.body  # type: ignore[attr-defined]
        for h, ah in zip(stmt.handlers, node.handlers):  # type: ignore[attr-defined]
            yield _suite(h.body), ah.body
        if stmt.orelse is not None:
            yield _suite(stmt.orelse.body), node.orelse  # type: ignore[attr-defined]
        if stmt.finalbody is not None:
            yield _suite(stmt.finalbody.body), node.finalbody  # type: ignore[attr-defined]
    elif type(stmt) in (cst.With, cst.FunctionDef, cst.ClassDef):
        yield _suite(stmt.body), node.body  # type: ignore[attr-defined]
    elif type(stmt) is cst.Match:
        for case, acase in zip(stmt.cases, node.cases):  # type: ignore[attr-defined]
            yield _suite(case.body), acase.body


def _header(stmt: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """A statement's nodes, not descending into nested statement lists."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(children(node))):
            if type(child) in (cst.IndentedBlock, cst.SimpleStatementSuite, cst.Else, cst.Finally, cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase):
                if type(child) in (cst.ExceptHandler, cst.ExceptStarHandler):
                    stack.extend(c for c in children(child) if type(c) not in (cst.IndentedBlock, cst.SimpleStatementSuite))
                continue
            if type(child) is cst.If and type(node) is cst.If:
                continue  # an elif is a statement of its own
            stack.append(child)


_PASS = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=[cst.Pass()])])


def _alone(stmt: cst.CSTNode, indent: str) -> tuple[cst.Module, cst.CSTNode]:
    """A module holding just `stmt` (a compound statement's header with its body
    stubbed out, sharing `stmt`'s own header nodes), at the indentation `indent`
    so that continuation lines come out where they are in the file; and the
    node standing for `stmt` in it."""
    if isinstance(stmt, cst.BaseSmallStatement):
        anchor: cst.CSTNode = stmt
        line: cst.BaseStatement = cst.SimpleStatementLine(body=[stmt])
    elif type(stmt) in (cst.If, cst.For, cst.While):
        line = anchor = stmt.with_changes(body=_PASS, orelse=None, leading_lines=())
    elif type(stmt) in (cst.With, cst.FunctionDef, cst.ClassDef):
        line = anchor = stmt.with_changes(body=_PASS, leading_lines=())
    else:
        raise NotFound()
    if indent:
        holder = cst.If(test=cst.Name("_"), body=cst.IndentedBlock(body=[line], indent=indent))
        return cst.Module(body=[holder]), anchor
    return cst.Module(body=[line]), anchor


def _positions_of(module: cst.Module) -> dict[cst.CSTNode, object]:
    """`PositionProvider`'s table for a small module, without the cost of a
    `MetadataWrapper` (about 2 ms each, which dominated); through the wrapper
    if libcst's internals ever change."""
    try:
        from libcst.metadata.position_provider import PositionProvidingCodegenState

        provider = PositionProvider()
        state = PositionProvidingCodegenState(
            default_indent=module.default_indent, default_newline=module.default_newline, provider=provider
        )
        module._codegen(state)
        return dict(provider._computed)
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - a libcst without these internals
        return dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))


def spans(
    module: cst.Module,
    source: str,
    wanted: dict[cst.CSTNode, cst.CSTNode | None],
    tree: ast.Module | None = None,
) -> dict[cst.CSTNode, Span]:
    """The span of each wanted node it can place; raises NotFound when the two
    trees do not line up.

    `wanted` maps each node to the statement it is in, when the caller knows
    (`None` when not). A node with a right hint costs the code generation of
    its statement only; the others (and any wrong hint) cost a walk over every
    statement's header nodes to find theirs."""
    if tree is None:
        with warnings.catch_warnings():  # warnings about the user's code are not ownlint's to print
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    lines = split_lines(source)  # only \n, \r\n and \r end a line, as for the parser

    def chars(line: int, byte_col: int) -> int:
        # ast columns are UTF-8 byte offsets; spans count characters
        text = lines[line - 1] if line - 1 < len(lines) else ""
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    out: dict[cst.CSTNode, Span] = {}

    def place(stmt: cst.CSTNode, node: ast.stmt, nodes: Iterable[cst.CSTNode]) -> list[cst.CSTNode]:
        """Places `nodes` (in `stmt`'s header, paired with `node`); returns those it could not."""
        line0, col0 = node.lineno, chars(node.lineno, node.col_offset)
        text = lines[line0 - 1] if line0 - 1 < len(lines) else ""
        indent = text[: len(text) - len(text.lstrip(" \t"))]
        alone, anchor = _alone(stmt, indent)
        table = _positions_of(alone)
        if stmt is not anchor:
            table[stmt] = table[anchor]
        origin = table[anchor].start
        shift = col0 - origin.column  # 0 but where the statement follows `if x:` on its line
        if type(stmt) is cst.If and text[col0 : col0 + 4] == "elif":
            shift += 2  # an `elif` comes out as `if` on its own
        missed = []
        for n in nodes:
            r = table.get(n)
            if r is None:
                missed.append(n)
                continue
            l1 = line0 + r.start.line - origin.line
            c1 = r.start.column + (shift if r.start.line == origin.line else 0)
            l2 = line0 + r.end.line - origin.line
            c2 = r.end.column + (shift if r.end.line == origin.line else 0)
            out[n] = Span(l1, c1 + 1, l2, c2 + 1)
        return missed

    def span_of(node: ast.AST) -> Span:
        l1, l2 = node.lineno, node.end_lineno  # type: ignore[attr-defined]
        return Span(l1, chars(l1, node.col_offset) + 1, l2, chars(l2, node.end_col_offset) + 1)  # type: ignore[attr-defined,arg-type]

    def fast(stmt: cst.CSTNode, node: ast.stmt, nodes: list[cst.CSTNode]) -> list[cst.CSTNode]:
        """Places a small statement, and the calls in it, from `ast` alone; returns the rest."""
        if not isinstance(stmt, cst.BaseSmallStatement):
            return nodes
        calls: list[cst.Call] | None = None
        missed = []
        # the statement's own value (`f(x)`, `y = f(x)`, `return f(x)`): its
        # counterpart is the `ast` statement's value, with no walk
        value = getattr(stmt, "value", None)
        direct = getattr(node, "value", None) if _AST_VALUED.get(type(stmt)) is type(node) else None
        for n in nodes:
            if n is stmt:
                out[n] = span_of(node)
            elif n is value and direct is not None and type(n) is cst.Call and not n.lpar and type(direct) is ast.Call:  # type: ignore[attr-defined]
                out[n] = span_of(direct)
            elif type(n) is cst.Call and not n.lpar:  # type: ignore[attr-defined]
                if calls is None:
                    calls = []
                    for m in walk(stmt):
                        if type(m) is cst.Call:
                            calls.append(m)  # type: ignore[arg-type]
                        elif type(m) in _OPAQUE:
                            calls = []  # a statement `ast` places differently: codegen it
                            break
                    ast_calls = sorted(
                        (c for c in ast.walk(node) if type(c) is ast.Call),
                        key=lambda c: (c.lineno, c.col_offset, -c.end_lineno, -c.end_col_offset),  # type: ignore[operator]
                    )
                    if len(ast_calls) != len(calls):
                        calls = []
                    index = {id(c): a for c, a in zip(calls, ast_calls)}
                found = index.get(id(n))
                if found is None:
                    missed.append(n)
                else:
                    out[n] = span_of(found)
            else:
                missed.append(n)
        return missed

    def paired() -> Iterable[tuple[cst.CSTNode, ast.stmt]]:
        stack: list[tuple[list[cst.CSTNode], list[ast.stmt]]] = [(list(module.body), tree.body)]
        while stack:
            cst_body, ast_body = stack.pop()
            try:
                pairs = list(_pairs(cst_body, ast_body))
            except StopIteration:
                raise NotFound() from None
            for stmt, node in pairs:
                yield stmt, node
                stack.extend(_nested(stmt, node))

    # first the hinted nodes, each in its statement alone
    by_stmt: dict[cst.CSTNode, list[cst.CSTNode]] = {}
    for n, hint in wanted.items():
        if hint is not None:
            by_stmt.setdefault(hint, []).append(n)
    if by_stmt:
        for stmt, node in paired():
            hinted = by_stmt.pop(stmt, None)
            if hinted:
                try:
                    rest = fast(stmt, node, hinted)
                    if rest:
                        place(stmt, node, rest)
                except NotFound:
                    pass
                if not by_stmt:
                    break
    remaining = {n for n in wanted if n not in out}
    if not remaining:
        return out
    # then the others: look for them in every statement's header
    for stmt, node in paired():
        mine = [n for n in _header(stmt) if n in remaining]
        if mine:
            if place(stmt, node, mine):
                raise NotFound()
            remaining.difference_update(mine)
            if not remaining:
                break
    return out  # the nodes it could place (a caller falls back for the rest)
