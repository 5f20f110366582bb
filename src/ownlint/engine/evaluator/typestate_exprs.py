"""Expressions: the `expr_<Class>` methods of the evaluator
(`typestate_eval.Evaluator`, whose `expr` dispatches to them), expression-level
branches (`branch` forks the path), captures by nested functions, and what
a `return` does to the handles and mappings it hands back."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import cast

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.evaluator.typestate_base import _Dead, _Fork, _names_in, fold, literal, target_key
from ownlint.engine.events import Return
from ownlint.engine.frontend.cfg import may_raise, source_of
from ownlint.engine.values import domain, status
from ownlint.engine.values.state import OWNER, OWNER_DEAD
from ownlint.engine.values.values import At, Const, Dict, Instance, Lin, Obj, OneOf, Seq, Status, Sym, Val, objects_in


class ExprEval:
    """Expression evaluation, the evaluator's `exprs` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.models = ev.models
        self.on = ev.on

    # -- expressions ---------------------------------------------------------
    def expr_Name(self, node: cst.Name) -> Val:
        if node.value in self.ev.st.env:
            return self.ev.st.env[node.value]
        lit = literal(node)
        if lit is not None:
            return lit
        if node.value in self.fa.unit.constants:
            return self.fa.unit.constants[node.value]
        if node.value in self.fa.names.imports:
            return Sym(self.fa.names.imports[node.value])
        held = self.fa.global_object(node.value)
        if held is not None:
            return held
        return self._outer(node)

    def _outer(self, node: cst.Name) -> Val:
        """A name the function does not bind, read before anything here bound it:
        an enclosing function's variable (a closure's) or a module global, the
        same object at each read until it may have changed (an access path of
        its own, paths.py: a call no model describes may rebind a global).
        Not a builtin, nor a function or class of the module (values that hold
        no handle), nor a local read where this path has not bound it yet."""
        name = node.value
        fa = self.fa
        if fa.binds(name) or name in fa.names.functions or name in fa.names.classes or hasattr(builtins, name):
            return None
        return self.ev.paths.read(node)

    def expr_Attribute(self, node: cst.Attribute) -> Val:
        key = target_key(node, self.fa.self_name, self.ev.st.env)
        if key is not None:
            if key not in self.ev.st.env:
                if key[0] == "<":  # an attribute of a project object that nothing here set
                    held = self.ev.st.env.get(source_of(node.value))
                    if type(held) is Instance:
                        found, value = self.ev.objects.read_property(held, node)
                        if found:
                            return value
                    return self.ev.objects.on_entry_attribute(held, node.attr.value)
                self.ev.st.env[key] = self.fa.entry_attribute(node.attr.value)
            return self.ev.st.env[key]
        if type(node.value) is cst.Name and node.value.value not in self.ev.st.env:
            held = self.fa.global_object(node.value.value)
            if held is not None:  # an attribute of what a module global holds
                key = f"{held.key}.{node.attr.value}"
                if key in self.ev.st.env:
                    return self.ev.st.env[key]
                found, value = self.ev.objects.read_property(held, node)
                return value if found else self.ev.objects.on_entry_attribute(held, node.attr.value)
        head = node.value
        while type(head) is cst.Attribute:
            head = head.value
        if type(head) is cst.Name and head.value not in self.ev.st.env and head.value not in self.fa.unit.constants:
            # a dotted name from an import or a global: a symbol (`ownership.keep`)
            qualified = self.fa.names.qualify(node)
            if qualified in self.models.memory.page_size:
                return self.ev.arith.page_size()
            return Sym(qualified) if qualified is not None else self.ev.paths.read(node)
        base = self.ev.expr(node.value)
        if type(base) is Instance:  # `C(...).x`, `self.inner.attr`, `f().attr`: a set attribute, or a property
            key = f"{base.key}.{node.attr.value}"
            if key in self.ev.st.env:
                return self.ev.st.env[key]
            found, value = self.ev.objects.read_property(base, node)
            if found:
                return value
        handled, value = self.ev.memory.memory_attribute(node, base)
        if handled:
            return value
        if type(base) is At:
            return self.ev.paths.read(node)  # a field of what a path holds: a path of its own
        lent = self.borrowed_attribute(node, base, ())
        if lent is not None:
            return lent
        if node.attr.value in self.models.derive_attributes and objects_in(base):
            return base
        return self.ev.paths.read(node)

    def borrowed_attribute(self, node: cst.CSTNode, base: Val, path: tuple[str | int, ...]) -> Val:
        """`mem._pointer` (path `()`), or `a.iface["data"][0]` (the attribute's base
        `base`, the subscripts `path`), of an owner of a kind the model names:
        a handle borrowed from it ([[borrow-attribute]])."""
        attr = node
        while type(attr) is cst.Subscript:
            attr = attr.value
        if type(attr) is not cst.Attribute:
            return None
        spec = self.models.borrow_attributes.get(attr.attr.value)
        if spec is None or spec.path != path or len(objects_in(base)) != 1:
            return None
        hs = self.ev.st.heap.get(objects_in(base)[0])
        if hs is None or hs.kind not in (OWNER, OWNER_DEAD) or (spec.owner_kinds and hs.tag not in spec.owner_kinds):
            return None
        return self.ev.adoption.borrow(spec.borrow, base, node, attr.value)

    def _borrow_path(self, node: cst.Subscript) -> tuple[bool, Val]:
        """`a.iface["data"][0]` whose attribute and constant subscripts a
        [[borrow-attribute]] names: (True, the borrowed handle or None); else
        (False, None), with nothing evaluated."""
        path: list[str | int] = []
        head: cst.BaseExpression = node
        while type(head) is cst.Subscript:
            if len(head.slice) != 1 or type(head.slice[0].slice) is not cst.Index:
                return False, None
            key = literal(head.slice[0].slice.value)
            if type(key) is not Const or not isinstance(key.value, (str, int)):
                return False, None
            path.insert(0, key.value)
            head = head.value
        if type(head) is not cst.Attribute or head.attr.value not in self.models.borrow_attributes:
            return False, None
        if self.models.borrow_attributes[head.attr.value].path != tuple(path):
            return False, None
        return True, self.borrowed_attribute(node, self.ev.expr(head.value), tuple(path))

    def expr_Subscript(self, node: cst.Subscript) -> Val:
        if self.models.borrow_attributes:
            handled, lent = self._borrow_path(node)
            if handled:
                return lent
        base = self.ev.subscript_base = self.ev.expr(node.value)
        index: Val = None
        sliced = False
        for el in node.slice:
            if type(el.slice) is cst.Index:
                index = self.ev.expr(el.slice.value)
            else:  # a Slice, BaseSlice's other kind
                sliced = True
                sl = cast(cst.Slice, el.slice)
                for part in (sl.lower, sl.upper, sl.step):
                    if part is not None:
                        self.ev.expr(part)
        if type(base) is At and not sliced:
            return self.ev.paths.read(node)  # an element of what a path holds: a path of its own
        if sliced and self.ev.memory.keeps_views(base):
            return base  # a slice of an array owner: a view of the same memory
        handled, value = self.ev.memory.memory_subscript(base, index)
        if handled:
            return value
        if isinstance(base, Obj) and not self.ev.memory.is_buffer(base):
            self.ev.calls.use(base, node, node.value)
            return None if sliced else self.ev.paths.read(node)
        if type(index) is Const:
            i = index.value
            if type(base) is Seq and type(i) is int and -len(base.items) <= i < len(base.items):
                return base.items[i]
            if type(base) is Dict:
                for k, v in base.items:
                    if k == i:
                        return v
        return None if sliced else self.ev.paths.read(node)

    def expr_BinaryOperation(self, node: cst.BinaryOperation) -> Val:
        left = self.ev.expr(node.left)
        right = self.ev.expr(node.right)
        value = self.ev.arith.arith(node.operator, left, right)
        if value is not None:
            return value
        if isinstance(left, Obj) and type(node.operator) in (cst.Add, cst.Subtract):
            return left  # pointer arithmetic derives from the pointer
        if type(left) is Const and type(right) is Const:
            return fold(node.operator, left.value, right.value)
        if type(left) is OneOf or type(right) is OneOf:
            options: list[Val] = []
            for a in left.options if type(left) is OneOf else (left,):
                for b in right.options if type(right) is OneOf else (right,):
                    v = self.ev.arith.arith(node.operator, a, b)
                    if v is None and type(a) is Const and type(b) is Const:
                        v = fold(node.operator, a.value, b.value)
                    if v is None:
                        return None
                    options.append(v)
            return domain.oneof(options)
        return None

    def expr_UnaryOperation(self, node: cst.UnaryOperation) -> Val:
        v = self.ev.expr(node.expression)
        if type(v) is Const:
            if type(node.operator) is cst.Minus and isinstance(v.value, (int, float)) and not isinstance(v.value, bool):
                return Const(-v.value)
            if type(node.operator) is cst.Not:
                return Const(not v.value)
        return None

    def branch(self, node: cst.CSTNode, test: cst.BaseExpression, n: int = 2) -> int:
        """Take one way through an expression-level branch: fork the path, then
        assume `test` held (choice 0) or failed (choice 1) on this copy."""
        choice = self.ev.choices.get(node)
        if choice is None:
            if self.fa.forks < self.fa.FORK_BUDGET:
                self.fa.forks += n - 1
                raise _Fork(node, n)
            # past the budget of paths: one way only, the first the path can take
            # (findings on the other ways are lost, none invented)
            choice = 0 if self.fa.assume(test, True, self.ev.st) is not None else 1
        refined = self.fa.assume(test, choice == 0, self.ev.st)
        if refined is None:
            raise _Dead()
        if refined is not self.ev.st:
            self.ev.st.conds = refined.conds
        return choice

    def expr_BooleanOperation(self, node: cst.BooleanOperation) -> Val:
        left = self.ev.expr(node.left)
        if not may_raise(node.right):
            self.ev.expr(node.right)
            return None
        # `a and b` stops where `a` fails; `a or b` where it holds
        stops = 1 if type(node.operator) is cst.And else 0
        if self.branch(node, node.left) == stops:
            return left
        return self.ev.expr(node.right)

    def expr_IfExp(self, node: cst.IfExp) -> Val:
        self.ev.expr(node.test)
        if not (may_raise(node.body) or may_raise(node.orelse)):
            # a choice between plain values is one merged value: a fact that could
            # be either (`own = keep if b else transfer`) is unknown, and no finding
            # may rest on it (findings rest on proof, not suspicion)
            a, b = self.ev.expr(node.body), self.ev.expr(node.orelse)
            if a == b:
                return a
            if all(type(x) is Const or type(x) is Lin or type(x) is OneOf for x in (a, b)):
                return domain.oneof((a, b))  # sizes and the like: checks need every one to fail
            return None
        if self.branch(node, node.test) == 0:
            return self.ev.expr(node.body)
        return self.ev.expr(node.orelse)

    def expr_NamedExpr(self, node: cst.NamedExpr) -> Val:
        value = self.ev.expr(node.value)
        self.ev.names.bind_target(node.target, value)
        return value

    def expr_Tuple(self, node: cst.Tuple) -> Val:
        return self._seq(node.elements)

    def expr_List(self, node: cst.List) -> Val:
        return self._seq(node.elements)

    def _seq(self, elements: Sequence[cst.BaseElement]) -> Val:
        vals = []
        starred = False
        for el in elements:
            vals.append(self.ev.expr(el.value))
            starred = starred or type(el) is cst.StarredElement
        return None if starred else Seq(tuple(vals))

    def expr_Dict(self, node: cst.Dict) -> Val:
        items = []
        known = True
        for el in node.elements:
            if type(el) is cst.DictElement:
                k = self.ev.expr(el.key)
                v = self.ev.expr(el.value)
                if type(k) is Const:
                    items.append((k.value, v))
                else:
                    known = False
            else:
                self.ev.expr(el.value)
                known = False
        return Dict(tuple(items)) if known else None

    def expr_Lambda(self, node: cst.Lambda) -> Val:
        self.capture(node)
        return None  # analysed as a function of its own

    def capture(self, node: cst.CSTNode) -> None:
        """A nested function or lambda may keep the owners it names alive."""
        if not any(hs.kind == OWNER and not hs.escaped for hs in self.ev.st.heap.values()):
            return
        names = self.fa.captured.get(id(node))
        if names is None:
            names = self.fa.captured[id(node)] = _names_in(node)
        for name in names:
            if name in self.ev.st.env:
                self.ev.names.escape(self.ev.st.env[name])

    def expr_Yield(self, node: cst.Yield) -> Val:
        self.ev.paths.yielded()
        if isinstance(node.value, cst.BaseExpression):
            value = self.ev.expr(node.value)
            self.fa.yielded_at(value, self.ev.st)
            self.ev.names.stored(node, value, "yield")
            self.ev.names.escape(value)
        elif node.value is not None:
            self.ev.expr(node.value.item)
        return None

    def returned(self, value: Val, node: cst.Return) -> None:
        """`return value`: each object handed back (`Return`: with whether its
        owner, local to this frame, dies as it returns)."""
        returned = set(objects_in(value))
        self.ev.names.stored(node, value, "return")
        handlers = self.on["return"]
        for obj in returned if handlers else ():
            hs = self.ev.st.heap.get(obj)
            if hs is None or hs.reported:
                continue
            owner = self.ev.st.heap.get(hs.owner) if hs.owner is not None else None
            dies = (
                owner is not None
                and hs.owner is not None
                and not hs.owner.on_entry
                and hs.owner not in returned
                and (owner.kind == OWNER_DEAD or (owner.kind == OWNER and not owner.escaped))
            )
            step = self.fa.step_of(node, "its owner dies when the function returns")
            event = Return(obj, hs, dies, node, node.value, step)
            for handler, i in handlers:
                handler(event, self.ev.outs[i])
        self.ev.names.escape(value)

    def _skip(self, node: cst.BaseExpression) -> Val:
        return None

    # comprehensions are scopes of their own (see Known limits)
    expr_ListComp = expr_SetComp = expr_DictComp = expr_GeneratorExp = _skip

    def expr_FormattedString(self, node: cst.FormattedString) -> Val:
        for part in node.parts:
            if type(part) is cst.FormattedStringExpression:
                self.ev.expr(part.expression)  # shown, not used
        return None

    def expr_Comparison(self, node: cst.Comparison) -> Val:
        left = right = self.ev.expr(node.left)
        for c in node.comparisons:
            right = self.ev.expr(c.comparator)
        left, right = status.alone(left), status.alone(right)
        if type(left) is Status or type(right) is Status:
            return status.compare(node, left, right, self.models.success)
        return None
