"""Scope collection: the bodies the analysis runs over (each function, method,
lambda and class body of a module, and the module's own), with the qualified
names that calls can reach."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import cast

import libcst as cst

from ownlint.engine.evaluator.typestate import literal
from ownlint.engine.frontend.cfg import CFG, CallRaises
from ownlint.engine.frontend.cfg_builder import build_class_cfg, build_function_cfg, build_lambda_cfg
from ownlint.engine.frontend.walk import (
    LEAVES,
    SIMPLE_LINES,
    children,
    compound_children,
    holds_statements,
    is_statement,
    statements,
)
from ownlint.engine.values.values import Const


@dataclass(slots=True)
class Scope:
    """A body the analysis runs over: a function, lambda, class or module body."""

    cfg: CFG
    params: list[str]
    self_name: str | None
    qualified: str = ""  # `mod.func`, `mod.Class.method`; "" where no call can reach it
    class_qualified: str | None = None  # for methods: `mod.Class`
    defaults: tuple[tuple[int, object], ...] = ()
    generator: bool = False  # a call only makes a generator: no effect at the call site
    # for a class body a call can reach: the class, qualified (`mod.Class`), and its bases as written
    defines: str = ""
    bases: tuple[cst.BaseExpression, ...] = ()
    # the graph built with no exception edges for calls to functions that may raise, where `cfg` has them
    plain: CFG | None = None


def _params(p: cst.Parameters) -> list[str]:
    out = [x.name.value for x in (*p.posonly_params, *p.params)]
    if type(p.star_arg) is cst.Param:
        out.append(p.star_arg.name.value)
    out += [x.name.value for x in p.kwonly_params]
    if p.star_kwarg is not None:
        out.append(p.star_kwarg.name.value)
    return out


def _defaults(p: cst.Parameters) -> tuple[tuple[int, object], ...]:
    out = []
    for i, x in enumerate((*p.posonly_params, *p.params)):
        if x.default is not None:
            lit = literal(x.default)
            if lit is not None:
                out.append((i, lit.value))
    return tuple(out)


def collect_scopes(
    module: cst.Module, modname: str, call_raises: CallRaises | None, source: str | None = None
) -> list[Scope]:
    """Every function, method, lambda and class body of a module, with the
    qualified names that calls can reach (`mod.f`, `mod.Class.m`), in the
    order of a depth-first walk.

    Given the `source`, and it has neither `lambda` nor `yield` anywhere, only
    compound statements are walked: nothing inside an expression or a simple
    statement can matter. Otherwise expressions are searched for lambdas and
    yields too, by a tighter loop (`_lambdas_and_yields`)."""
    full = source is None or "lambda" in source or "yield" in source
    kids = children if full else compound_children
    scopes: list[Scope] = []
    # (node, kind of the scope it is in, that scope's qualified name or None,
    # the function's Scope, the statement the node is in)
    stack: list[tuple[cst.CSTNode, str, str | None, Scope | None, cst.CSTNode | None]] = [
        (c, "module", modname, None, None) for c in reversed(kids(module))
    ]
    while stack:
        node, kind, outer, function, at = stack.pop()
        if full and not holds_statements(node):  # an expression, or a part of one
            _lambdas_and_yields(node, function, at, scopes, call_raises)
            continue
        inner_kind, inner_q, inner_function = kind, outer, function
        if is_statement(node):
            at = node
        if type(node) is cst.ClassDef or type(node) is cst.FunctionDef:
            q = (
                None
                if outer is None or kind == "function"
                else (f"{outer}.{node.name.value}" if outer else node.name.value)
            )
            if isinstance(node, cst.ClassDef):
                bases = tuple(a.value for a in node.bases if a.keyword is None and not a.star)
                scopes.append(Scope(build_class_cfg(node, call_raises), [], None, "", defines=q or "", bases=bases))
                inner_kind, inner_q, inner_function = "class", q, None
            else:
                params = _params(node.params)
                static = any(
                    type(d.decorator) is cst.Name and d.decorator.value == "staticmethod" for d in node.decorators
                )
                in_class = kind == "class"
                self_name = params[0] if in_class and params and not static else None
                scopes.append(
                    Scope(
                        build_function_cfg(node, call_raises=call_raises),
                        params,
                        self_name,
                        q or "",
                        outer if in_class else None,
                        _defaults(node.params),
                    )
                )
                inner_kind, inner_q, inner_function = "function", q, scopes[-1]
        stack.extend((c, inner_kind, inner_q, inner_function, at) for c in reversed(kids(node)))
    return scopes


def _lambdas_and_yields(
    node: cst.CSTNode,
    function: Scope | None,
    at: cst.CSTNode | None,
    scopes: list[Scope],
    call_raises: CallRaises | None,
) -> None:
    """In an expression (which holds no statement): a scope for each lambda, in
    the order of a depth-first walk; a yield outside any lambda makes
    `function` a generator (a yield in a lambda makes the lambda one)."""
    leaves = LEAVES
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Yield:
            if function is not None:
                function.generator = True
        elif kind is cst.Lambda:
            lam = cast(cst.Lambda, current)
            scopes.append(Scope(build_lambda_cfg(lam, call_raises=call_raises, stmt=at), _params(lam.params), None))
            for child in children(lam):  # before the lambda's siblings, as a walk would
                _lambdas_and_yields(child, None, at, scopes, call_raises)
            continue
        if kind not in leaves:
            stack.extend(reversed(children(current)))


def assignments(function: cst.CSTNode, self_name: str) -> Iterator[tuple[str, cst.Call | bool | None]]:
    """Each assignment of an attribute of `self_name` in `function` (not in
    the functions and classes it holds): (the attribute, what it assigns: the
    call when it is one, None for the literal None, False for anything else:
    another value, a target it is unpacked into, `del`, an augmented
    assignment, a `for` or `with` target)."""
    for stmt in statements(function, into_scopes=False):
        kind = type(stmt)
        if kind in SIMPLE_LINES:
            for small in cast(cst.SimpleStatementLine, stmt).body:
                yield from _assigned(small, self_name)
        elif kind is cst.For:
            yield from _targets(cast(cst.For, stmt).target, self_name, False)
        elif kind is cst.With:
            for item in cast(cst.With, stmt).items:
                if item.asname is not None:
                    yield from _targets(item.asname.name, self_name, False)


def _assigned(small: cst.BaseSmallStatement, self_name: str) -> Iterator[tuple[str, cst.Call | bool | None]]:
    kind = type(small)
    if kind is cst.Assign:
        assign = cast(cst.Assign, small)
        value = assign.value
        what: cst.Call | bool | None = (
            value if type(value) is cst.Call else None if type(value) is cst.Name and value.value == "None" else False
        )
        for t in assign.targets:
            yield from _targets(t.target, self_name, what)
    elif kind is cst.AnnAssign:
        ann = cast(cst.AnnAssign, small)
        if ann.value is not None:
            value = ann.value
            what = (
                value
                if type(value) is cst.Call
                else None
                if type(value) is cst.Name and value.value == "None"
                else False
            )
            yield from _targets(ann.target, self_name, what)
    elif kind is cst.AugAssign:
        yield from _targets(cast(cst.AugAssign, small).target, self_name, False)
    elif kind is cst.Del:
        yield from _targets(cast(cst.Del, small).target, self_name, False)


def _targets(
    target: cst.BaseExpression, self_name: str, what: cst.Call | bool | None
) -> Iterator[tuple[str, cst.Call | bool | None]]:
    if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == self_name:
        yield target.attr.value, what
    elif type(target) is cst.Tuple or type(target) is cst.List:
        for el in target.elements:
            yield from _targets(el.value, self_name, False)
    elif type(target) is cst.StarredElement:
        yield from _targets(target.value, self_name, False)


def dataclass_fields(
    node: cst.CSTNode, qualify: Callable[[cst.BaseExpression], str | None]
) -> tuple[tuple[str, ...], tuple[tuple[int, object], ...]] | None:
    """For a class decorated `@dataclass` (or `@dataclasses.dataclass(...)`,
    without `init=False`) whose body defines no `__init__`: the fields of the
    generated `__init__` (the annotated names of its body, in order, but
    `ClassVar`s), and the literal defaults by parameter index (`self` is 0).
    None for any other class. Fields inherited from a base dataclass are not
    known: such a class gets None too."""
    if type(node) is not cst.ClassDef:
        return None
    decorated = False
    for d in node.decorators:
        expr = d.decorator
        call = expr if type(expr) is cst.Call else None
        if qualify(call.func if call is not None else expr) != "dataclasses.dataclass":
            continue
        if call is not None and any(
            a.keyword is not None and a.keyword.value == "init" and literal(a.value) == Const(False) for a in call.args
        ):
            return None
        decorated = True
    if not decorated or any(a.keyword is None for a in node.bases):
        return None
    names: list[str] = []
    defaults: list[tuple[int, object]] = []
    for stmt in node.body.body:
        if type(stmt) is cst.FunctionDef and stmt.name.value == "__init__":
            return None
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is not cst.AnnAssign or type(small.target) is not cst.Name:
                continue
            annotation = small.annotation.annotation
            head = annotation.value if type(annotation) is cst.Subscript else annotation
            if (qualify(head) or "").rpartition(".")[2] in ("ClassVar", "InitVar"):
                continue
            names.append(small.target.value)
            if small.value is not None:
                value = literal(small.value)
                if value is not None:
                    defaults.append((len(names), value.value))
    return tuple(names), tuple(defaults)


def module_bindings(module: cst.Module) -> Iterator[tuple[str, cst.Call | None]]:
    """Each binding of a name at module level (not in the functions and classes
    it holds, whose own names it binds): (the name, the call when the binding
    is `name = call(...)` with one target, None for anything else)."""
    for stmt in statements(module, into_scopes=False):
        kind = type(stmt)
        if kind is cst.FunctionDef or kind is cst.ClassDef:
            yield cast(cst.FunctionDef | cst.ClassDef, stmt).name.value, None
        elif kind is cst.For:
            yield from _names(cast(cst.For, stmt).target)
        elif kind is cst.With:
            for item in cast(cst.With, stmt).items:
                if item.asname is not None:
                    yield from _names(item.asname.name)
        elif kind in SIMPLE_LINES:
            for small in cast(cst.SimpleStatementLine, stmt).body:
                if type(small) is cst.Assign:
                    if (
                        len(small.targets) == 1
                        and type(small.targets[0].target) is cst.Name
                        and type(small.value) is cst.Call
                    ):
                        yield small.targets[0].target.value, small.value
                        continue
                    for t in small.targets:
                        yield from _names(t.target)
                elif type(small) is cst.AnnAssign or type(small) is cst.AugAssign or type(small) is cst.Del:
                    yield from _names(small.target)
                elif (type(small) is cst.Import or type(small) is cst.ImportFrom) and not isinstance(
                    small.names, cst.ImportStar
                ):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname is not None else alias.name
                        head: cst.BaseExpression = bound
                        while type(head) is cst.Attribute:
                            head = head.value
                        yield from _names(head)


def _names(target: cst.BaseExpression) -> Iterator[tuple[str, None]]:
    if type(target) is cst.Name:
        yield target.value, None
    elif type(target) is cst.Tuple or type(target) is cst.List:
        for el in target.elements:
            yield from _names(el.value)
    elif type(target) is cst.StarredElement:
        yield from _names(target.value)
