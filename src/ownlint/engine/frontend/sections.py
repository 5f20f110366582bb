"""The parts of a file that hold the statements positions.py must place
(`_sections`): the file is cut before each top-level `def` and `class`, each
part is parsed on its own by CPython and must hold exactly the statements the
libcst tree has there (`_same_statements`)."""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable

import libcst as cst

from ownlint.engine.frontend.pairing import NotFound, _bodies, _pairs

_COMPOUND: dict[type, tuple[type, ...]] = {
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.If: (ast.If,),
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: (ast.While,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.Try: (ast.Try,),
    cst.Match: (ast.Match,),
}
if hasattr(ast, "TryStar"):  # Python 3.11
    _COMPOUND[cst.TryStar] = (ast.TryStar,)
# a line that begins a top-level definition
_HEAD = re.compile(r"^(async[ \t]+)?(def|class)[ \t]+([^\W\d]\w*)", re.MULTILINE)


def _hinted(stmt: cst.CSTNode, wanted: set[int]) -> tuple[list[cst.CSTNode], set[int]]:
    """The statements inside a top-level statement (itself included) whose
    `id` is in `wanted`: its small statements, or itself and those of its
    nested bodies; and the `id`s of the compound statements that hold them."""
    found: list[cst.CSTNode] = []
    holders: set[int] = set()
    stack: list[tuple[cst.CSTNode, tuple[int, ...]]] = [(stmt, ())]
    while stack:
        node, path = stack.pop()
        if type(node) is cst.SimpleStatementLine or type(node) is cst.SimpleStatementSuite:
            for small in node.body:
                if id(small) in wanted:
                    found.append(small)
                    holders.update(path)
            continue
        if id(node) in wanted:
            found.append(node)
            holders.update(path)
        inner = (*path, id(node))
        for body, _ in _bodies(node):
            stack.extend((c, inner) for c in reversed(body))
    return found, holders


def _same_statements(cst_body: list[cst.CSTNode], ast_body: list[ast.stmt]) -> bool:
    """Whether `ast_body` holds exactly `cst_body`'s statements: as many, each
    compound one of the same kind (and a definition of the same name)."""
    try:
        pairs = _pairs(cst_body, ast_body)
    except NotFound:
        return False
    if len(pairs) != len(ast_body):
        return False
    for stmt, node in pairs:
        if isinstance(stmt, cst.BaseSmallStatement):
            if isinstance(node, _AST_COMPOUND):
                return False
        elif type(node) not in _COMPOUND.get(type(stmt), ()):
            return False
        elif type(stmt) is cst.FunctionDef or type(stmt) is cst.ClassDef:
            # `node` is a definition too (the test above); isinstance says so to the type checker
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.name.value != node.name:
                return False
    return True


_AST_COMPOUND = tuple(t for kinds in _COMPOUND.values() for t in kinds)


def _sections(
    module: cst.Module, lines: list[str], hints: Iterable[cst.CSTNode]
) -> tuple[list[tuple[list[cst.CSTNode], list[ast.stmt], int]], set[int]] | None:
    """CPython's trees of just the parts of the file that hold a hinted
    statement: for each, the libcst statements of the part, `ast`'s, and the
    number of lines before the part; with the `id`s of the compound statements
    that hold a hinted statement (no other needs to be looked into). None
    where the file cannot be cut so (no top-level definition to cut at, a hint
    not found, a part that does not parse or does not match): then the whole
    file is parsed."""
    body: list[cst.CSTNode] = list(module.body)
    definitions = [
        (i, stmt) for i, stmt in enumerate(body) if type(stmt) is cst.FunctionDef or type(stmt) is cst.ClassDef
    ]
    if not definitions:
        return None
    defs = [i for i, _ in definitions]
    text = "\n".join(lines)
    heads = _HEAD.finditer(text)
    # the first line of each top-level definition, decorators included
    starts: list[int] = []
    number, counted = 1, 0
    for _, stmt in definitions:
        want = (
            "def" if type(stmt) is cst.FunctionDef else "class",
            stmt.name.value,
            type(stmt) is cst.FunctionDef and stmt.asynchronous is not None,
        )
        for head in heads:
            if (head[2], head[3], head[1] is not None) == want:
                break
        else:
            return None
        number += text.count("\n", counted, head.start())
        counted = head.start()
        first = number
        missing = len(stmt.decorators)
        while missing:
            first -= 1
            if first < 1 or (starts and first <= starts[-1]):
                return None
            if lines[first - 1].startswith("@"):
                missing -= 1
        if starts and first <= starts[-1]:
            return None
        starts.append(first)
    # the parts: before the first definition, then from each to the next
    bounds = [(0, defs[0], 1, starts[0])] if defs[0] > 0 else []
    for k, i in enumerate(defs):
        end_stmt = defs[k + 1] if k + 1 < len(defs) else len(body)
        end_line = starts[k + 1] if k + 1 < len(defs) else len(lines) + 1
        bounds.append((i, end_stmt, starts[k], end_line))
    part_of = {}  # a top-level statement's index -> its part
    for p, (a, b, _, _) in enumerate(bounds):
        for index in range(a, b):
            part_of[index] = p
    wanted = {id(h) for h in hints}
    needed: list[int] = []
    holders: set[int] = set()
    for index, top in enumerate(body):
        found, holding = _hinted(top, wanted)
        if found:
            if not needed or needed[-1] != part_of[index]:
                needed.append(part_of[index])
            wanted.difference_update(map(id, found))
            holders |= holding
            if not wanted:
                break
    if wanted:
        return None
    # neighbouring parts are parsed together
    runs: list[list[int]] = []
    for p in needed:
        if runs and runs[-1][-1] == p - 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    out = []
    with warnings.catch_warnings():  # warnings about the user's code are not ownlint's to print
        warnings.simplefilter("ignore")
        for run in runs:
            a, _, first, _ = bounds[run[0]]
            _, b, _, end = bounds[run[-1]]
            try:
                tree = ast.parse("\n".join(lines[first - 1 : end - 1]))
            except (SyntaxError, ValueError):
                return None
            if not _same_statements(body[a:b], tree.body):
                return None
            out.append((body[a:b], tree.body, first - 1))
    return out, holders
