"""Source positions of the nodes a finding names, cheaply.

libcst's `PositionProvider` regenerates the code of the whole module to
learn every node's position: measured here it costs more than the parse,
for a file that has one finding. Instead, the statements of the libcst tree
are matched, in order, with those of CPython's `ast` (whose C parser gives
each statement's line and column almost for free). A wanted call, string,
subscript, comparison, yield or await in a small statement (or in the
header of an `if`, `while` or `for`) takes the position of its `ast`
counterpart: the nodes of its kind there come one for one, in the same order,
in both trees (`_by_order`, in pairing.py). For any other node, `PositionProvider` runs over
just the statement that holds it (a compound statement's header, its body
stubbed out; about a millisecond), and its positions are shifted to the
statement's place. When anything does not line up, `NotFound` sends the
caller back to `PositionProvider` over the whole module.

CPython's parse of the whole file was still a tenth of a run on the dense
benchmark corpus, where half of the lines are in functions with nothing to
report. So when every wanted node comes with its statement, only the parts of
the file that hold one are parsed (`_sections`, in sections.py): the file is cut before each
top-level `def` and `class` (found as a line that starts with `def NAME`,
`async def NAME` or `class NAME`, in the order of the libcst tree, its
decorators' lines included), and each part is parsed on its own and must hold
exactly the statements the libcst tree has there, of the same kinds and
names. A line that only looks like a definition (inside a string) makes a
part that does not parse or does not match, and the whole file is parsed
instead.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

import libcst as cst

with warnings.catch_warnings():  # libcst.metadata's own DeprecationWarnings are not the user's concern
    warnings.simplefilter("ignore")
    from libcst.metadata import MetadataWrapper, PositionProvider

from ownlint.diagnostics import Span
from ownlint.engine.frontend.line_pieces import _line_pieces
from ownlint.engine.frontend.pairing import _AST_VALUED, _KINDS, NotFound, _by_order, _header_roots, _nested, _pairs
from ownlint.engine.frontend.sections import _sections
from ownlint.engine.frontend.walk import children
from ownlint.lines import split_lines

if TYPE_CHECKING:
    from libcst.metadata import CodeRange


def _header(stmt: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """A statement's nodes, not descending into nested statement lists."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        yield node
        for child in reversed(list(children(node))):
            if type(child) in (
                cst.IndentedBlock,
                cst.SimpleStatementSuite,
                cst.Else,
                cst.Finally,
                cst.ExceptHandler,
                cst.ExceptStarHandler,
                cst.MatchCase,
            ):
                if type(child) in (cst.ExceptHandler, cst.ExceptStarHandler):
                    stack.extend(
                        c for c in children(child) if type(c) not in (cst.IndentedBlock, cst.SimpleStatementSuite)
                    )
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
        line: cst.SimpleStatementLine | cst.BaseCompoundStatement = cst.SimpleStatementLine(body=[stmt])
    elif type(stmt) is cst.If or type(stmt) is cst.For or type(stmt) is cst.While:
        line = anchor = stmt.with_changes(body=_PASS, orelse=None, leading_lines=())
    elif type(stmt) is cst.With or type(stmt) is cst.FunctionDef or type(stmt) is cst.ClassDef:
        line = anchor = stmt.with_changes(body=_PASS, leading_lines=())
    else:
        raise NotFound()
    if indent:
        holder = cst.If(test=cst.Name("_"), body=cst.IndentedBlock(body=[line], indent=indent))
        return cst.Module(body=[holder]), anchor
    return cst.Module(body=[line]), anchor


def _positions_of(module: cst.Module) -> dict[cst.CSTNode, CodeRange]:
    """`PositionProvider`'s table for a small module (one statement: a fraction
    of a millisecond; 56 of them on the dense benchmark corpus)."""
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
    statement's header nodes to find theirs. With every node hinted, and no
    `tree` given, only the parts of the file that hold the hinted statements
    are parsed (see `_sections`)."""
    lines = split_lines(source)  # only \n, \r\n and \r end a line, as for the parser
    out: dict[cst.CSTNode, Span] = {}
    if module in wanted:  # the module itself (a module-level scope's note) spans the text: as libcst places it
        out[module] = Span(1, 1, len(lines) + 1 if source else 1, 1)
        wanted = {n: stmt for n, stmt in wanted.items() if n is not module}
        if not wanted:
            return out
    whole: list[tuple[list[cst.CSTNode], list[ast.stmt], int]] = []

    def whole_file() -> list[tuple[list[cst.CSTNode], list[ast.stmt], int]]:
        if not whole:
            with warnings.catch_warnings():  # warnings about the user's code are not ownlint's to print
                warnings.simplefilter("ignore")
                whole.append((list(module.body), (tree if tree is not None else ast.parse(source)).body, 0))
        return whole

    def chars(line: int, byte_col: int) -> int:
        # ast columns are UTF-8 byte offsets; spans count characters
        text = lines[line - 1] if line - 1 < len(lines) else ""
        if text.isascii():  # a byte is a character
            return min(byte_col, len(text))
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def place(stmt: cst.CSTNode, node: ast.stmt, off: int, nodes: Iterable[cst.CSTNode]) -> list[cst.CSTNode]:
        """Places `nodes` (in `stmt`'s header, paired with `node`, whose lines are
        `off` lines into the file); returns those it could not."""
        line0 = node.lineno + off
        col0 = chars(line0, node.col_offset)
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

    def span_of(node: ast.stmt | ast.expr, off: int) -> Span:
        assert node.end_lineno is not None and node.end_col_offset is not None  # CPython's parser sets both
        l1, l2 = node.lineno + off, node.end_lineno + off
        return Span(l1, chars(l1, node.col_offset) + 1, l2, chars(l2, node.end_col_offset) + 1)

    def fast(stmt: cst.CSTNode, node: ast.stmt, off: int, nodes: list[cst.CSTNode]) -> list[cst.CSTNode]:
        """Places a small statement, and the expressions of the kinds in
        `_KINDS` in it or in a compound statement's header, from `ast` alone;
        returns the rest."""
        roots = _header_roots(stmt, node)
        if roots is None:
            return nodes
        tables: dict[type, dict[int, ast.expr]] | None = None
        missed = []
        # the statement's own value (`f(x)`, `y = f(x)`, `return f(x)`): its
        # counterpart is the `ast` statement's value, with no walk
        value = getattr(stmt, "value", None)
        direct = getattr(node, "value", None) if _AST_VALUED.get(type(stmt)) is type(node) else None
        for n in nodes:
            kind = type(n)
            if n is stmt and isinstance(stmt, cst.BaseSmallStatement):
                out[n] = span_of(node, off)
            elif n is value and direct is not None and kind is cst.Call and not n.lpar and type(direct) is ast.Call:
                out[n] = span_of(direct, off)
            elif kind in _KINDS and not cast(cst.BaseExpression, n).lpar:  # `_KINDS` holds expression types
                if tables is None:
                    tables = _by_order(roots, {type(m) for m in nodes})
                found = tables.get(kind, {}).get(id(n))
                if found is None:
                    missed.append(n)
                else:
                    out[n] = span_of(found, off)
            else:
                missed.append(n)
        return missed

    def paired(
        roots: list[tuple[list[cst.CSTNode], list[ast.stmt], int]], holders: set[int] | None = None
    ) -> Iterable[tuple[cst.CSTNode, ast.stmt, int]]:
        """Each statement with its `ast` counterpart and line offset, in order;
        with `holders`, not inside the compound statements not in it."""
        stack = list(reversed(roots))
        while stack:
            cst_body, ast_body, off = stack.pop()
            for stmt, node in _pairs(cst_body, ast_body):
                yield stmt, node, off
                if holders is None or id(stmt) in holders:
                    stack.extend((c, a, off) for c, a in _nested(stmt, node))

    cut = None
    if tree is None and wanted and None not in wanted.values():
        hints = {h for h in wanted.values() if h is not None}  # all of them: none is None
        cut = _line_pieces(module, lines, hints) or _sections(module, lines, hints)
    roots, holders = cut if cut is not None else (whole_file(), None)

    # first the hinted nodes, each in its statement alone
    by_stmt: dict[cst.CSTNode, list[cst.CSTNode]] = {}
    for n, hint in wanted.items():
        if hint is not None:
            by_stmt.setdefault(hint, []).append(n)
    if by_stmt:
        for stmt, node, off in paired(roots, holders):
            hinted = by_stmt.pop(stmt, None)
            if hinted:
                try:
                    rest = fast(stmt, node, off, hinted)
                    if rest:
                        place(stmt, node, off, rest)
                except NotFound:
                    pass
                if not by_stmt:
                    break
    remaining = {n for n in wanted if n not in out}
    if not remaining:
        return out
    # then the others (a wrong hint, too): look for them in every statement's header
    for stmt, node, off in paired(whole_file()):
        mine = [n for n in _header(stmt) if n in remaining]
        if mine:
            if place(stmt, node, off, mine):
                raise NotFound()
            remaining.difference_update(mine)
            if not remaining:
                break
    return out  # the nodes it could place (a caller falls back for the rest)


__all__ = ["NotFound", "spans"]
