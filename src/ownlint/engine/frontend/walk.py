"""A light walk over libcst trees.

libcst's `CSTVisitor` rebuilds every node it passes (`_visit_and_replace_children`),
and `node.children` does the same: measured on the standard library, one
visitor pass costs more than the parse. ownlint only reads trees, so it walks
the dataclass fields directly and skips the whitespace and punctuation nodes
that carry no code.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterator

import libcst as cst
from libcst import MaybeSentinel

# nodes that hold only layout: never walked into
_TRIVIA: tuple[type, ...] = (
    cst.BaseParenthesizableWhitespace,
    cst.EmptyLine,
    cst.TrailingWhitespace,
    cst.Newline,
    cst.Comment,
    cst.Comma,
    cst.Semicolon,
    cst.Colon,
    cst.Dot,
    cst.AssignEqual,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.BaseAugOp,
    cst.ImportStar,
)
_SKIP_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "whitespace_before",
        "whitespace_after",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
    }
)
_FIELDS: dict[type, tuple[str, ...]] = {}
_CODE: dict[type, bool] = {}  # node class -> carries code (is not trivia); isinstance on ABCs is slow
# node classes with no field that can hold code (`Name`, `Integer`, operators):
# a walk yields them without looking inside (filled in as classes are met)
LEAVES: set[type] = set()
_NOT_CODE: tuple[type, ...] = (str, bool, int, float, type(None), MaybeSentinel, *_TRIVIA)


def _is_code(value: object) -> bool:
    kind = type(value)
    known = _CODE.get(kind)
    if known is None:
        known = _CODE[kind] = isinstance(value, cst.CSTNode) and not isinstance(value, _TRIVIA)
    return known


def _may_hold_code(annotation: object) -> bool:
    """Whether a field of this type can hold a node that carries code (when in
    doubt, it can)."""
    if typing.get_origin(annotation) is typing.Literal:
        return False
    args = typing.get_args(annotation)
    if args:  # Sequence[X], Optional[X], Union[X, Y]
        return any(_may_hold_code(a) for a in args)
    if isinstance(annotation, type):
        return not issubclass(annotation, _NOT_CODE)
    return True


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS[kind] = tuple(
        f.name
        for f in dataclasses.fields(kind)
        if f.name not in _SKIP_FIELDS and "whitespace" not in f.name and _may_hold_code(f.type)
    )
    if not names:
        LEAVES.add(kind)
    return names


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The code-carrying children of `node`, in source order."""
    out: list[cst.CSTNode] = []
    _add_children(node, out)
    return out


def _add_children(node: cst.CSTNode, out: list[cst.CSTNode]) -> None:
    """Appends the code-carrying children of `node` to `out`, in source order."""
    names = _FIELDS.get(type(node))
    if names is None:
        names = _fields(type(node))
    code = _CODE
    for name in names:
        value = getattr(node, name)
        kind = type(value)
        if kind is list or kind is tuple:
            for item in value:
                known = code.get(type(item))
                if known or (known is None and _is_code(item)):
                    out.append(item)
        else:
            known = code.get(kind)
            if known or (known is None and _is_code(value)):
                out.append(value)


# what holds statements: a walk for statements need not look anywhere else
_STATEMENT_HOLDERS: tuple[type, ...] = (
    cst.Module,
    cst.BaseStatement,
    cst.BaseSmallStatement,
    cst.BaseSuite,
    cst.Else,
    cst.Finally,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.MatchCase,
)
_HOLDS: dict[type, bool] = {}


def holds_statements(node: cst.CSTNode) -> bool:
    """Whether `node` is a statement or can hold one (the module, a suite,
    `else`, `finally`, a handler, a `case`); anything else is (part of) an
    expression."""
    kind = type(node)
    known = _HOLDS.get(kind)
    if known is None:
        known = _HOLDS[kind] = isinstance(node, _STATEMENT_HOLDERS)
    return known


def statement_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The children of `node` that are statements or hold them (suites,
    `else`, `finally`, handlers, `case`s), in source order."""
    holds = _HOLDS
    found = []
    for child in children(node):
        known = holds.get(type(child))
        if known or (known is None and holds_statements(child)):
            found.append(child)
    return found


def compound_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """`statement_children` without the simple statement lines and suites:
    what can hold a `def` or a `class`."""
    return [c for c in statement_children(node) if type(c) not in SIMPLE_LINES]


_STATEMENT: dict[type, bool] = {}  # node class -> is a statement (isinstance on ABCs is slow)


def is_statement(node: cst.CSTNode) -> bool:
    """Whether `node` is a small statement or a compound one (a line of small
    statements is neither: it holds them)."""
    kind = type(node)
    known = _STATEMENT.get(kind)
    if known is None:
        known = _STATEMENT[kind] = issubclass(kind, (cst.BaseSmallStatement, cst.BaseCompoundStatement))
    return known


# the statements that hold small statements (`x = 1; f(x)`) rather than a body
SIMPLE_LINES: tuple[type, ...] = (cst.SimpleStatementLine, cst.SimpleStatementSuite)


def statements(node: cst.CSTNode, into_scopes: bool = True) -> Iterator[cst.CSTNode]:
    """The statements at or below `node` (with the suites, `else`, `finally`,
    handler and `case` nodes between them), never looking into an expression;
    with `into_scopes=False`, not into nested functions and classes."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if not into_scopes and current is not node and type(current) in (cst.FunctionDef, cst.ClassDef):
            continue
        stack.extend(reversed(statement_children(current)))


def walk(node: cst.CSTNode, into_scopes: bool = True) -> Iterator[cst.CSTNode]:
    """`node` and everything below it, depth first in source order; with
    `into_scopes=False`, not into nested functions, lambdas and classes."""
    stack = [node]
    leaves = LEAVES
    scopes = () if into_scopes else (cst.FunctionDef, cst.Lambda, cst.ClassDef)
    while stack:
        current = stack.pop()
        yield current
        kind = type(current)
        if kind in leaves or (kind in scopes and current is not node):
            continue
        # pushed onto the stack in source order, then turned round so that they pop in it
        mark = len(stack)
        _add_children(current, stack)
        if len(stack) - mark > 1:
            stack[mark:] = stack[mark:][::-1]


def names_used(node: cst.CSTNode) -> set[str]:
    return {n.value for n in walk(node) if type(n) is cst.Name}
