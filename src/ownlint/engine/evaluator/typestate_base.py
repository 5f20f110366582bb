"""What every part of the typestate analysis shares, importing none of them:
the records it produces (`RawViolation`, `Unit`), the exceptions that stop or
fork a path, and the value helpers (`literal`, `fold`, `target_key`,
`_objects_in`, ...). What the evaluator's components share is in
`eval_shared`.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, cast

import libcst as cst

from ownlint.engine.frontend.names import ModuleNames
from ownlint.engine.frontend.walk import children, names_used, statements, walk
from ownlint.engine.program.summaries import Summary
from ownlint.engine.values import domain
from ownlint.engine.values.state import Step
from ownlint.engine.values.values import Const, Dict, Instance, Obj, Ref, Seq, Val, objects_in

# Finds the summary of the project function a call reaches, or None.
Resolver = Callable[[cst.Call, str, bool], "Summary | None"]


@dataclass(frozen=True, slots=True)
class RawViolation:
    """A violation still holding syntax nodes (positions come later, if needed)."""

    code: str
    unit: int
    node: cst.CSTNode
    handle: str | None
    facts: tuple[tuple[str, str], ...]
    story: tuple[Step, ...]
    fix: tuple[Any, ...] = ()  # (edits with .node and .text, safe) when the finding offers one
    stmt: cst.CSTNode | None = None  # the statement `node` is in, if known (see Step.stmt)


@dataclass(slots=True)
class Unit:
    """One parsed file, as the analysis sees it."""

    index: int
    path: str
    module: cst.Module
    names: ModuleNames
    constants: dict[str, Val] = field(default_factory=dict)
    source: str = ""
    pieces: tuple[tuple[cst.Module, int], ...] = ()  # see incremental.Parsed; () = the module itself, from line 1
    tree: ast.Module | None = None  # CPython's tree of `source`, when one was made already
    # whether a `global` or `nonlocal` statement may be in it (there is none where the text has neither word)
    declares_outer: bool = field(init=False)

    def __post_init__(self) -> None:
        self.declares_outer = not self.source or "global" in self.source or "nonlocal" in self.source


class BudgetExceeded(Exception):
    """The analysis of one function went past its budget (see FunctionAnalysis)."""


class _Dead(Exception):
    """The path cannot go on: it called a function that never returns normally."""


class _Fork(Exception):
    """Evaluation reached a call with several possible outcomes: re-run per outcome."""

    def __init__(self, node: cst.CSTNode, n: int) -> None:
        self.node = node
        self.n = n


_ARITH: dict[type, Callable[[int, int], int]] = {  # on ints only: `fold` checks
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.FloorDivide: lambda a, b: a // b,
    cst.Modulo: lambda a, b: a % b,
    cst.LeftShift: lambda a, b: a << b,
    cst.BitOr: lambda a, b: a | b,
    cst.BitAnd: lambda a, b: a & b,
}


def fold(op: cst.BaseBinaryOp, a: object, b: object) -> Val:
    """Constant-fold `a op b` for small ints (and str +); None when unknown."""
    fn = _ARITH.get(type(op))
    if type(op) is cst.Power and isinstance(a, int) and isinstance(b, int) and 0 <= b <= 128:
        return domain.constant(a**b)
    if fn is None:
        return None
    if isinstance(a, bool) or isinstance(b, bool):
        return None
    if isinstance(a, int) and isinstance(b, int):
        if type(op) is cst.LeftShift and not 0 <= b <= 128:
            return None
        if type(op) in (cst.FloorDivide, cst.Modulo) and b == 0:
            return None
        return domain.constant(fn(a, b))
    if isinstance(a, str) and isinstance(b, str) and type(op) is cst.Add:
        return domain.constant(a + b)
    return None


def literal(node: cst.BaseExpression) -> Const | None:
    """The value of a literal number or string; None for anything else."""
    if type(node) is cst.Integer:
        try:
            return Const(int(node.value, 0))
        except ValueError:
            pass  # "010" and the like: literal_eval says what Python says
    elif type(node) is cst.SimpleString:
        text = node.value
        if len(text) >= 6 and text[:3] in ('"""', "'''"):  # no prefix (libcst checked the closing quotes)
            inner = text[3:-3]  # a docstring, say: its text, unless an escape or a CR needs Python's reading
            if "\\" not in inner and "\r" not in inner:
                return Const(inner)
        elif len(text) >= 2 and text[0] == text[-1] in "'\"":
            inner = text[1:-1]  # no prefix, and one quote each side: a plain string
            if text[0] not in inner and "\\" not in inner:
                return Const(inner)  # nothing to unescape, the common case: no parse needed
    if type(node) is cst.Integer or type(node) is cst.Float or type(node) is cst.Imaginary:
        try:
            return Const(ast.literal_eval(node.value))
        except (ValueError, SyntaxError):
            return None
    if type(node) is cst.SimpleString:
        try:
            if "\\" not in node.value:
                return Const(ast.literal_eval(node.value))
            with warnings.catch_warnings():  # an invalid escape is the user's business, not ownlint's output
                warnings.simplefilter("ignore")
                return Const(ast.literal_eval(node.value))
        except (ValueError, SyntaxError):
            return None
    if type(node) is cst.Name and node.value in ("True", "False", "None"):
        return Const({"True": True, "False": False, "None": None}[node.value])
    return None


def target_key(node: cst.CSTNode, self_name: str | None, env: dict[str, Val] | None = None) -> str | None:
    """The env key a target or argument names: `x`, or `self.x` in a method,
    or `<key>.x` for `b.x` where `b` holds an object of a project class (`env`)."""
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute and type(node.value) is cst.Name:
        if node.value.value == self_name:
            return f"{self_name}.{node.attr.value}"
        if env is not None:
            held = env.get(node.value.value)
            if type(held) is Instance:
                return f"{held.key}.{node.attr.value}"
    return None


_objects_in = objects_in


def _without(v: Val, obj: Obj) -> Val:
    """`v` with every occurrence of `obj` forgotten."""
    if v is obj:
        return None
    if type(v) is Seq:
        return Seq(tuple(_without(x, obj) for x in v.items))
    if type(v) is Dict:
        return Dict(tuple((k, _without(x, obj)) for k, x in v.items))
    if type(v) is Ref:
        return Ref(v.key, _without(v.value, obj), v.how)
    return v


def _mentions(form: object, symbol: str) -> bool:
    return isinstance(form, tuple) and any(symbol in m for m, _ in form)


def _via(summary: Summary | None) -> tuple[tuple[str, str], ...]:
    return (("via", summary.name),) if summary is not None else ()


def _inner(step: Step | None, summary: Summary | None, label: str) -> tuple[Step, ...]:
    if step is None or summary is None:
        return ()
    return (Step(step.unit, step.node, f"{label}, inside `{summary.name}`", step.stmt),)


def _declared_outer(node: cst.CSTNode) -> set[str]:
    """Names a function declares `global` or `nonlocal` (not in nested functions)."""
    if type(node) is not cst.FunctionDef:
        return set()
    return {
        x.name.value
        for n in statements(node.body, into_scopes=False)
        if type(n) is cst.Global or type(n) is cst.Nonlocal
        for x in n.names
    }


_EXPRESSION: dict[type, bool] = {}  # node class -> is an expression (isinstance on libcst's ABCs is slow)


def _binding_sites(body: cst.CSTNode, walrus: bool) -> Iterator[cst.CSTNode]:
    """The nodes of `body` that can bind a name of its function: every node
    (not in nested scopes); without `walrus` (the file has no `:=`), none
    inside an expression, where only an assignment expression binds."""
    if walrus:
        yield from walk(body, into_scopes=False)
        return
    expression = _EXPRESSION
    stack = [body]
    while stack:
        n = stack.pop()
        yield n
        kind = type(n)
        if (kind is cst.FunctionDef or kind is cst.ClassDef) and n is not body:
            continue
        below = []
        for c in children(n):
            known = expression.get(type(c))
            if known is None:
                known = expression[type(c)] = isinstance(c, cst.BaseExpression)
            if not known:
                below.append(c)
        stack.extend(reversed(below))


def bound_names(node: cst.CSTNode, walrus: bool = True) -> set[str]:
    """The names a function binds itself (its locals, its parameters aside):
    assignment, `for`, `with ... as`, `except ... as`, walrus, `del`, import,
    `def` and `class` targets, not in nested functions, lambdas, classes or
    comprehensions (whose names are their own); `walrus`: its file may hold an
    assignment expression (`:=`). Names it declares `global` or
    `nonlocal` are among them where it assigns them (`_declared_outer` says
    which are the outer scope's)."""
    if type(node) is not cst.FunctionDef:
        return set()
    out: set[str] = set()
    for n in _binding_sites(node.body, walrus):
        kind = type(n)
        if kind is cst.AssignTarget:
            _target_names(cast(cst.AssignTarget, n).target, out)
        elif kind is cst.AnnAssign or kind is cst.AugAssign:
            _target_names(cast(cst.AnnAssign, n).target, out)
        elif kind is cst.For:
            _target_names(cast(cst.For, n).target, out)
        elif kind is cst.AsName:
            _target_names(cast(cst.AsName, n).name, out)
        elif kind is cst.NamedExpr:
            _target_names(cast(cst.NamedExpr, n).target, out)
        elif kind is cst.Del:
            _target_names(cast(cst.Del, n).target, out)
        elif kind is cst.ImportAlias:
            alias = cast(cst.ImportAlias, n)
            if alias.asname is None:
                head: cst.BaseExpression = alias.name
                while type(head) is cst.Attribute:
                    head = head.value
                _target_names(head, out)
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            out.add(cast(cst.FunctionDef, n).name.value)
        elif kind is cst.MatchAs or kind is cst.MatchStar:
            name = cast(cst.MatchAs, n).name
            if name is not None:
                out.add(name.value)
    return out


def _target_names(target: cst.BaseExpression, out: set[str]) -> None:
    """The plain names `target` binds (those of a tuple or list target too)."""
    kind = type(target)
    if kind is cst.Name:
        out.add(cast(cst.Name, target).value)
    elif kind is cst.Tuple or kind is cst.List:
        for el in cast(cst.Tuple, target).elements:
            _target_names(el.value, out)
    elif kind is cst.StarredElement:
        _target_names(cast(cst.StarredElement, target).value, out)


def _names_in(node: cst.CSTNode) -> set[str]:
    return names_used(node)


def _deref(v: Val) -> Val:
    return v.value if type(v) is Ref else v


def _index(i: int, n: int) -> int | None:
    j = i if i >= 0 else n + i
    return j if 0 <= j < n else None


def _match_captures(node: cst.CSTNode) -> list[str]:
    return [
        n.name.value for n in walk(node) if (type(n) is cst.MatchAs or type(n) is cst.MatchStar) and n.name is not None
    ]
