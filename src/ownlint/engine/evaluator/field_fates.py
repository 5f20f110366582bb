"""What a method may do to what one attribute of its object holds
(`self.<attr>`), read off its syntax and the models, without running it.

A method may let go of the attribute's value when it gives it (or a name
bound from it: `p = self.bufs[i]`, `for p in self.bufs`, or the name it was
set from: `self.h = h`) to a call whose
model releases, adopts, consumes or keeps that argument, to a call no model
knows (a function of the project, `weakref.finalize`, another object's
method), calls a method on it (`self.h.close()`), returns or yields it, or
stores it elsewhere. It only reads it when it gives it to a call whose model
reads its arguments, to a builtin (`len`, `print`), or adds to it
(`self.bufs.append(p)`). `del self.x` and `self.x = None` let go of
nothing. With `elements` (the attribute is a container of handles), the
whole container given to a method of another object (`ctx.run(self.bufs)`)
is taken as read: such a call uses the handles it lists; a function that may
free them (`free_all(self.bufs)`) still counts.

Where the answer is unsure, the method may let go: a checker that reports a
value kept in an attribute nothing lets go of reports no more than it proves.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

import libcst as cst

from ownlint.engine.frontend.names import ModuleNames
from ownlint.engine.frontend.walk import children, walk
from ownlint.engine.modelling import effects as fx
from ownlint.engine.modelling.model_types import CallModel, ModelSet


@dataclass(frozen=True, slots=True)
class FieldFate:
    """What the methods of a class may do to what one attribute holds:
    `lets_go`, those that may release or hand it off (none: it is kept for
    the object's life); `releasers`, those that give some attribute of the
    object to a model's release (`Class.method`, for messages); `cls`, the
    class's name."""

    cls: str
    lets_go: tuple[str, ...]
    releasers: tuple[str, ...]


# builtins that take a container or a value apart without keeping it
_TRANSPARENT = frozenset({"int", "list", "tuple", "iter", "reversed", "sorted", "enumerate", "zip", "dict", "set"})
_BUILTINS = frozenset(dir(builtins))
_CONSTANTS = frozenset({"None", "True", "False"})
# methods of a container that add to it, read it or drop elements (what they drop is the caller's)
_CONTAINER = frozenset(
    {
        "append",
        "appendleft",
        "extend",
        "insert",
        "add",
        "update",
        "setdefault",
        "index",
        "count",
        "get",
        "keys",
        "values",
        "items",
        "copy",
        "pop",
        "popitem",
        "remove",
        "clear",
        "discard",
    }
)
# the nodes a scan reads
_READ = frozenset({cst.Assign, cst.For, cst.CompFor, cst.WithItem, cst.Call, cst.Return, cst.Yield})
# effects by which a modelled call lets go of an argument it is given
_LETS_GO = (fx.Adopt, fx.Consume, fx.KeepAlive)


def statements(method: cst.FunctionDef) -> tuple[cst.CSTNode, ...]:
    """The nodes of `method` a scan reads (bindings, calls, returns, yields), in
    source order: walked once per method, kept by the caller."""
    return tuple(n for n in walk(method) if type(n) in _READ)


def lets_go(
    nodes: tuple[cst.CSTNode, ...], self_name: str, attr: str, names: ModuleNames, models: ModelSet, elements: bool
) -> bool:
    """Whether the method whose `statements` are `nodes` may release or hand off what `self.<attr>` holds."""
    return _Scan(self_name, attr, names, models, elements).run(nodes)


def releases_some_field(nodes: tuple[cst.CSTNode, ...], self_name: str, names: ModuleNames, models: ModelSet) -> bool:
    """Whether the method whose `statements` are `nodes` gives some `self.<x>` to a call whose model releases it."""
    for call in nodes:
        if type(call) is not cst.Call:
            continue
        model = _model(call, names, models)
        if model is None or not any(type(x) is fx.Release for x in model.effects):
            continue
        for arg in call.args:
            if _mentions_self(arg.value, self_name):
                return True
    return False


class _Scan:
    def __init__(self, self_name: str, attr: str, names: ModuleNames, models: ModelSet, elements: bool) -> None:
        self.self_name = self_name
        self.attr = attr
        self.names = names
        self.models = models
        self.elements = elements
        self.aliases: set[str] = set()
        self.whole: set[str] = set()  # aliases of the attribute itself (`bufs = self.bufs`)

    def run(self, nodes: tuple[cst.CSTNode, ...]) -> bool:
        for _ in range(2):  # names bound from names bound from the attribute
            for node in nodes:
                self._alias(node)
        for node in nodes:
            if type(node) is cst.Call and self._call_lets_go(node):
                return True
            if isinstance(node, (cst.Return, cst.Yield)) and node.value is not None:
                value = node.value
                if isinstance(value, cst.BaseExpression) and self._refers(value):
                    return True
            if isinstance(node, cst.Assign) and self._refers(node.value):
                if any(type(t.target) is not cst.Name for t in node.targets):
                    return True  # stored elsewhere (`other.h = self.h`, `d[k] = p`)
        return False

    def _alias(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Assign) and type(node.value) is cst.Name and node.value.value not in _CONSTANTS:
            if any(self._is_attr(t.target) for t in node.targets):
                self.aliases.add(node.value.value)  # `self.h = h`: what the method does to `h` it does to the field
                self.whole.add(node.value.value)
        if isinstance(node, cst.Assign) and self._refers(node.value):
            whole = self._is_attr(node.value) or (type(node.value) is cst.Name and node.value.value in self.whole)
            for t in node.targets:
                for name in _names(t.target):
                    self.aliases.add(name)
                    if whole:
                        self.whole.add(name)
        elif isinstance(node, (cst.For, cst.CompFor)) and self._refers(node.iter):
            self.aliases.update(_names(node.target))
        elif isinstance(node, cst.WithItem) and node.asname is not None and self._refers(node.item):
            self.aliases.update(_names(node.asname.name))

    def _is_attr(self, expr: cst.CSTNode) -> bool:
        return (
            type(expr) is cst.Attribute
            and expr.attr.value == self.attr
            and type(expr.value) is cst.Name
            and expr.value.value == self.self_name
        )

    def _refers(self, expr: cst.BaseExpression) -> bool:
        """Whether `expr` holds the attribute's value or part of it (not through a call, which is judged itself)."""
        stack: list[cst.CSTNode] = [expr]
        while stack:
            n = stack.pop()
            if self._is_attr(n) or (type(n) is cst.Name and n.value in self.aliases):
                return True
            if type(n) is cst.Call:
                if _builtin(n.func) in _TRANSPARENT:
                    stack.extend(a.value for a in n.args)
                elif type(n.func) is cst.Attribute and n.func.attr.value in _CONTAINER:
                    stack.append(n.func.value)  # `self.bufs.pop()`, `self.bufs.values()`
                continue
            if type(n) in (cst.Lambda, cst.FunctionDef):
                continue
            stack.extend(children(n))
        return False

    def _whole(self, expr: cst.BaseExpression) -> bool:
        return self._is_attr(expr) or (type(expr) is cst.Name and expr.value in self.whole)

    def _call_lets_go(self, call: cst.Call) -> bool:
        func = call.func
        if type(func) is cst.Attribute and self._refers(func.value):
            return func.attr.value not in _CONTAINER  # a method of the value itself (`self.h.close()`)
        given = [i for i, a in enumerate(call.args) if self._refers(a.value)]
        if not given:
            return False
        if _builtin(func) in _BUILTINS:
            return False
        model = _model(call, self.names, self.models)
        if model is not None:
            for x in model.effects:
                if isinstance(x, _LETS_GO):
                    return True
                if type(x) is fx.Release and (x.arg in given or any(call.args[i].keyword for i in given)):
                    return True
            return False
        if self.elements and not _is_function(func, self.names, self.self_name):
            return not all(self._whole(call.args[i].value) for i in given)
        return True


def _model(call: cst.Call, names: ModuleNames, models: ModelSet) -> CallModel | None:
    qualified = names.qualify(call.func) or "?"
    model = models.published(qualified) if qualified[0] != "?" else None
    if model is None and type(call.func) is cst.Attribute:
        model = models.method(call.func.attr.value)
    return model


def _is_function(func: cst.BaseExpression, names: ModuleNames, self_name: str) -> bool:
    """Whether the callee is a function or class by name (imported, of the module, a method of `self`),
    not a method of some other value."""
    depth = 0
    while type(func) is cst.Attribute:
        func, depth = func.value, depth + 1
    if type(func) is not cst.Name:
        return False
    head = func.value
    if head == self_name:
        return depth == 1  # `self.free_all(...)`, not `self.ctx.run(...)`
    return head in names.imports or head in names.functions or head in names.classes


def _builtin(func: cst.BaseExpression) -> str:
    return func.value if type(func) is cst.Name else ""


def _mentions_self(expr: cst.BaseExpression, self_name: str) -> bool:
    stack: list[cst.CSTNode] = [expr]
    while stack:
        n = stack.pop()
        if type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value == self_name:
            return True
        if type(n) is cst.Call:
            continue
        stack.extend(children(n))
    return False


def _names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return []
