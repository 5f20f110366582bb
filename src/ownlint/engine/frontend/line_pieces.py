"""The lines of just the statements positions.py must place, when the libcst
tree alone tells where every statement is (`_line_pieces`).

A statement takes at least one line for each line before it (blank lines and
comments, decorators) and for its own first line, and one for each clause
(`else:`, `except:`, `finally:`, `case`) and nested statement; a lone string
(a docstring) takes as many more as it holds line ends. Counted so, a
statement spans lines only where it counts short (a call continued on the
next line, a header split over lines), so where the counts over the whole
module add up to the number of lines in the file, every count is exact and
so is every statement's first line. Then only the hinted statements' lines
are parsed by CPython (one `if 1:` above each indented one, a compound
statement's body stubbed with `pass`), all in one go: on the dense benchmark
corpus a third of what `_sections` parses. Where the counts do not add up
(most files with statements over several lines), or a hinted statement is
one this cannot cut out, the caller cuts at definitions instead.
"""

from __future__ import annotations

import ast
import itertools
import warnings
from collections.abc import Iterable
from typing import cast

import libcst as cst

from ownlint.engine.frontend.pairing import NotFound
from ownlint.engine.frontend.sections import _same_statements

# the compound statements whose header line, with its body stubbed, parses on its own
_HEADERS = (cst.If, cst.For, cst.While, cst.With, cst.FunctionDef, cst.ClassDef)
_Found = list[tuple[cst.CSTNode, int]]


def _lines_of(stmt: cst.BaseStatement, first: int, wanted: set[int], found: _Found) -> int:
    """How many lines `stmt` (which starts at line `first`) takes at least,
    appending to `found` each statement in `wanted` (by `id`; for a small
    statement, its line) with the line its own text starts on. NotFound for a
    hinted statement this cannot cut out."""
    if type(stmt) is cst.SimpleStatementLine:
        n = len(stmt.leading_lines)
        if not wanted.isdisjoint(map(id, stmt.body)):
            found.append((stmt, first + n))
        return n + 1 + _string_lines(stmt)
    compound = cast(cst.BaseCompoundStatement, stmt)  # libcst's only other kind of statement
    n = len(compound.leading_lines)
    if type(stmt) is cst.FunctionDef or type(stmt) is cst.ClassDef:
        n += sum(len(d.leading_lines) + 1 for d in stmt.decorators) + len(stmt.lines_after_decorators)
    if id(stmt) in wanted:
        if not isinstance(stmt, _HEADERS):
            raise NotFound()
        found.append((stmt, first + n))
    n += 1  # the header line
    if type(stmt) is cst.Match:
        for case in stmt.cases:
            n += _clause(case, first + n, wanted, found)
        return n + len(stmt.footer)
    n += _body(compound.body, first + n, wanted, found)
    for handler in getattr(stmt, "handlers", ()):
        n += _clause(handler, first + n, wanted, found)
    orelse = getattr(stmt, "orelse", None)
    if type(orelse) is cst.If:
        if id(orelse) in wanted:
            raise NotFound()  # an `elif` does not parse on its own
        n += _lines_of(orelse, first + n, wanted, found)
    elif orelse is not None:
        n += _clause(orelse, first + n, wanted, found)
    finalbody = getattr(stmt, "finalbody", None)
    if finalbody is not None:
        n += _clause(finalbody, first + n, wanted, found)
    return n  # in source order: body, handlers, `else`, `finally`


def _clause(
    clause: cst.Else | cst.ExceptHandler | cst.ExceptStarHandler | cst.Finally | cst.MatchCase,
    first: int,
    wanted: set[int],
    found: _Found,
) -> int:
    """The lines of an `else`, `except`, `finally` or `case` clause: its header line and body."""
    n = len(clause.leading_lines) + 1
    return n + _body(clause.body, first + n, wanted, found)


def _body(suite: cst.BaseSuite, first: int, wanted: set[int], found: _Found) -> int:
    if type(suite) is cst.IndentedBlock:
        n = 0
        for stmt in suite.body:
            n += _lines_of(stmt, first + n, wanted, found)
        return n + len(suite.footer)
    if not wanted.isdisjoint(map(id, suite.body)):
        raise NotFound()  # `if x: f()`: on the header's line
    return 0


def _line_pieces(
    module: cst.Module, lines: list[str], hints: Iterable[cst.CSTNode]
) -> tuple[list[tuple[list[cst.CSTNode], list[ast.stmt], int]], set[int]] | None:
    """CPython's trees of just the hinted statements' lines, in `_sections`'
    form: for each, the libcst statement line (or compound statement), its
    `ast` counterparts, and the number of lines to add to theirs; no compound
    statement needs looking into. None where the counts of lines do not add up
    or a piece does not parse or match."""
    wanted = {id(h) for h in hints}
    found: _Found = []
    try:
        total = len(module.header) + len(module.footer)
        for top in module.body:
            total += _lines_of(top, 1 + total, wanted, found)
    except NotFound:
        return None
    if total != len(lines) or not found:
        return None
    text: list[str] = []
    shapes: list[tuple[bool, int]] = []  # each piece: whether an `if 1:` holds it; its `ast` statements
    for stmt, line in found:
        if isinstance(stmt, cst.SimpleStatementLine):
            piece, count, stub = lines[line - 1 : line + _string_lines(stmt)], len(stmt.body), False
        else:  # a compound statement's header line
            piece, count, stub = [lines[line - 1]], 1, type(getattr(stmt, "body", None)) is cst.IndentedBlock
        indent = piece[0][: len(piece[0]) - len(piece[0].lstrip(" \t"))]
        text += ["if 1:", *piece] if indent else piece
        if stub:
            text.append(indent + " pass")
        shapes.append((bool(indent), count))
    with warnings.catch_warnings():  # warnings about the user's code are not ownlint's to print
        warnings.simplefilter("ignore")
        try:
            tree = ast.parse("\n".join(text))
        except (SyntaxError, ValueError):
            return None
    out: list[tuple[list[cst.CSTNode], list[ast.stmt], int]] = []
    nodes = iter(tree.body)
    for (stmt, line), (held, count) in zip(found, shapes, strict=True):
        if held:
            holder = next(nodes, None)
            ast_body = holder.body if isinstance(holder, ast.If) else []
        else:
            ast_body = list(itertools.islice(nodes, count))
        if not ast_body or not _same_statements([stmt], ast_body):
            return None
        out.append(([stmt], ast_body, line - ast_body[0].lineno))
    if next(nodes, None) is not None:
        return None
    return out, set()


def _string_lines(line: cst.SimpleStatementLine) -> int:
    """The line ends inside a statement line that is a lone string (a docstring)."""
    only = line.body[0]
    if type(only) is cst.Expr and type(only.value) is cst.SimpleString and len(line.body) == 1:
        return only.value.value.count("\n")
    return 0
