"""Source positions of the nodes a finding names, cheaply.

libcst's `PositionProvider` regenerates the code of the whole module to
learn every node's position: measured here it costs more than the parse,
for a file that has one finding. Instead, the statements of the libcst tree
are matched, in order, with those of CPython's `ast` (whose C parser gives
each statement's line and column almost for free). A wanted call, string,
subscript, comparison, yield or await in a small statement (or in the
header of an `if`, `while` or `for`) takes the position of its `ast`
counterpart: the nodes of its kind there come one for one, in the same order,
in both trees (`_by_order`). For any other node, `PositionProvider` runs over
just the statement that holds it (a compound statement's header, its body
stubbed out; about a millisecond), and its positions are shifted to the
statement's place. When anything does not line up, `NotFound` sends the
caller back to `PositionProvider` over the whole module.

CPython's parse of the whole file was still a tenth of a run on the dense
benchmark corpus, where half of the lines are in functions with nothing to
report. So when every wanted node comes with its statement, only the parts of
the file that hold one are parsed (`_sections`): the file is cut before each
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
import operator
import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, cast

import libcst as cst

with warnings.catch_warnings():  # libcst.metadata's own DeprecationWarnings are not the user's concern
    warnings.simplefilter("ignore")
    from libcst.metadata import MetadataWrapper, PositionProvider

from ownlint.diagnostics import Span
from ownlint.engine.walk import SIMPLE_LINES, children, walk
from ownlint.lines import split_lines

if TYPE_CHECKING:
    from libcst.metadata import CodeRange

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
        for one in stmt.body if type(stmt) in SIMPLE_LINES else (stmt,):  # type: ignore[attr-defined]
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
        return cast("dict[cst.CSTNode, CodeRange]", dict(provider._computed))  # computed eagerly: no lazy values
    except (ImportError, AttributeError, TypeError):  # pragma: no cover - a libcst without these internals
        return dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))


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
        if type(node) in SIMPLE_LINES:
            for small in node.body:  # type: ignore[attr-defined]
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
        elif type(stmt) in (cst.FunctionDef, cst.ClassDef) and stmt.name.value != node.name:  # type: ignore[attr-defined]
            return False
    return True


_AST_COMPOUND = tuple(t for kinds in _COMPOUND.values() for t in kinds)


def _is_text(node: ast.AST) -> bool:
    return isinstance(node.value, (str, bytes))  # type: ignore[attr-defined]


# expressions placed from `ast` alone: each libcst kind with its `ast`
# counterparts, which come one for one in the same order (sorted by start,
# the outer of two first), and a test an `ast` node of those types must pass
_KINDS: dict[type, tuple[tuple[type, ...], Callable[[ast.AST], bool] | None]] = {
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
    if type(stmt) in (cst.If, cst.While) and type(node) in (ast.If, ast.While):
        return [stmt.test], [node.test]  # type: ignore[attr-defined]
    if type(stmt) is cst.For and type(node) in (ast.For, ast.AsyncFor):
        return [stmt.target, stmt.iter], [node.target, node.iter]  # type: ignore[attr-defined]
    return None


def _by_order(roots: tuple[list[cst.CSTNode], list[ast.AST]], kinds: set[type]) -> dict[type, dict[int, ast.AST]]:
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
    wanted: dict[type, list[ast.AST]] = {}
    for k in kinds - broken:
        for t in _KINDS[k][0]:
            wanted[t] = []
    for ast_root in roots[1]:
        for a in ast.walk(ast_root):
            bucket = wanted.get(type(a))
            if bucket is not None:
                bucket.append(a)
    out: dict[type, dict[int, ast.AST]] = {}
    for k in kinds - broken:
        types, test = _KINDS[k]
        counterparts = [a for t in types for a in wanted[t] if test is None or test(a)]
        if len(counterparts) != len(found[k]):
            continue
        counterparts.sort(key=_source_order)
        out[k] = {id(c): a for c, a in zip(found[k], counterparts, strict=True)}
    return out


def _source_order(node: ast.AST) -> tuple[int, int, int, int]:
    return (node.lineno, node.col_offset, -node.end_lineno, -node.end_col_offset)  # type: ignore[attr-defined]


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
    defs = [i for i, stmt in enumerate(body) if type(stmt) in (cst.FunctionDef, cst.ClassDef)]
    if not defs:
        return None
    text = "\n".join(lines)
    heads = _HEAD.finditer(text)
    # the first line of each top-level definition, decorators included
    starts: list[int] = []
    number, counted = 1, 0
    for i in defs:
        stmt = body[i]
        want = (
            "def" if type(stmt) is cst.FunctionDef else "class",
            stmt.name.value,  # type: ignore[attr-defined]
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
        missing = len(stmt.decorators)  # type: ignore[attr-defined]
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
    for index, stmt in enumerate(body):
        found, holding = _hinted(stmt, wanted)
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

    out: dict[cst.CSTNode, Span] = {}

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

    def span_of(node: ast.AST, off: int) -> Span:
        l1, l2 = node.lineno + off, node.end_lineno + off  # type: ignore[attr-defined]
        return Span(l1, chars(l1, node.col_offset) + 1, l2, chars(l2, node.end_col_offset) + 1)  # type: ignore[attr-defined]

    def fast(stmt: cst.CSTNode, node: ast.stmt, off: int, nodes: list[cst.CSTNode]) -> list[cst.CSTNode]:
        """Places a small statement, and the expressions of the kinds in
        `_KINDS` in it or in a compound statement's header, from `ast` alone;
        returns the rest."""
        roots = _header_roots(stmt, node)
        if roots is None:
            return nodes
        tables: dict[type, dict[int, ast.AST]] | None = None
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
            elif kind in _KINDS and not n.lpar:  # type: ignore[attr-defined]
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
        cut = _sections(module, lines, set(wanted.values()))  # type: ignore[arg-type]
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
