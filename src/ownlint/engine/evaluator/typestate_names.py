"""Names and statements: the part of the evaluator (`typestate_eval.Evaluator`)
that binds, rebinds and deletes names, runs simple statements, and makes
names forget an object a site makes again (recency)."""

from __future__ import annotations

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.evaluator.typestate_base import _match_captures, _mentions, _without, fold, target_key
from ownlint.engine.events import Bind, Death, Escape, Stored
from ownlint.engine.program.summaries import RETURN_KEY
from ownlint.engine.values import domain, equalities
from ownlint.engine.values.memvalues import is_buffer_tag
from ownlint.engine.values.state import OWNER, OWNER_DEAD
from ownlint.engine.values.values import (
    Addr,
    AIface,
    BufRef,
    Const,
    Instance,
    Lin,
    Obj,
    Ref,
    Seq,
    Span,
    Val,
    objects_in,
)


class NamesEval:
    """Binding and statements, the evaluator's `names` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.on = ev.on

    # -- names ---------------------------------------------------------------
    def bind(self, key: str, value: Val) -> None:
        st = self.ev.st
        if not domain.fits(value):
            self.escape(value)  # forgotten: whatever it held may be held elsewhere
            value = None
        st.conds.pop(key, None)
        st.conds.pop(f"{key} is None", None)
        if st.conds:
            equalities.forget(st.conds, key)
        self.ev.paths.rebound(key)
        old = st.env.get(key)
        if value is None:
            st.env.pop(key, None)
        else:
            st.env[key] = value
        if old is not None and old != value:
            if "." in key:
                self.ev.objects.spared(key, old)  # `__del__` frees what `key` holds then, not this
            self.drop(old, f"`{key}`", "deleted" if value is None else "rebound")
        if self.on["bind"]:
            event = Bind(key, old, value, self.ev.site)
            for handler, i in self.on["bind"]:
                handler(event, self.ev.outs[i])

    def refs(self, obj: Obj) -> bool:
        """Whether a local name (or `self.x`) still holds `obj`: a ctypes view of a
        buffer (`from_buffer`, or a `pointer()` to one) holds it too (ctypes keeps
        the source in the view's `_objects`)."""
        return any(obj in objects_in(v) or _views(v, obj) for k, v in self.ev.st.env.items() if k != RETURN_KEY)

    def drop(self, old: Val, name: str, how: str = "deleted") -> None:
        """A reference went away: an owner nobody else may hold dies here; any
        tracked object no local holds any more dies for the checkers (`Death`)."""
        deaths = self.on["death"]
        for obj in objects_in(old):
            if type(obj) is Instance:
                if not self.refs(obj):
                    self.ev.objects.dies(obj, self.ev.site, f"{name} {how} here")
                continue
            hs = self.ev.st.heap.get(obj)
            if obj.rooted:
                continue  # the path it was read from still holds it
            if deaths and hs is not None and not obj.on_entry and not self.refs(obj):
                event = Death(obj, hs, self.ev.site, how, name.strip("`"))
                for handler, i in deaths:
                    handler(event, self.ev.outs[i])
                hs = self.ev.st.heap.get(obj)
            if hs is not None and hs.kind == OWNER and not hs.escaped and not obj.on_entry and not self.refs(obj):
                if is_buffer_tag(hs.tag):
                    self.ev.memory.release_buffer(obj, self.ev.site, how)
                else:
                    self.ev.st.heap[obj] = hs.with_step(OWNER_DEAD, self.fa.step_of(self.ev.site, f"{name} dies here"))

    def escape(self, value: Val) -> None:
        """Something outside the locals may now hold the owners in `value`."""
        if value is None:  # most values: nothing tracked
            return
        escapes = self.on["escape"]
        for obj in objects_in(value):
            if escapes:
                event = Escape(obj, self.ev.st.heap.get(obj), self.ev.site)
                for handler, i in escapes:
                    handler(event, self.ev.outs[i])
            if type(obj) is Instance:
                self.ev.objects.forget_fields(obj)  # what else reaches it may change its attributes
                self.ev.st.env[obj.key] = None  # and may keep it alive: it does not die here (`dies`)
                continue
            hs = self.ev.st.heap.get(obj)
            if hs is not None and hs.kind == OWNER and not hs.escaped:
                self.ev.st.heap[obj] = hs.but(escaped=True)

    def stored(self, node: cst.CSTNode, value: Val, where: str) -> None:
        """`value` is kept where it outlives the function (`events.Stored`:
        `where` says how); each object in it (in its elements too) is published."""
        handlers = self.on["stored"]
        if not handlers or value is None:
            return
        for obj in dict.fromkeys(objects_in(value)):
            hs = self.ev.st.heap.get(obj)
            if hs is None or not hs.reported:
                event = Stored(obj, hs, node, where)
                for handler, i in handlers:
                    handler(event, self.ev.outs[i])

    def outside(self, base: cst.BaseExpression) -> bool:
        """Whether a container named by `base` was made outside this function."""
        while type(base) is cst.Attribute or type(base) is cst.Subscript:
            base = base.value
        if type(base) is not cst.Name:
            return False
        v = self.ev.st.env.get(base.value)
        return v is None or (isinstance(v, Obj) and v.on_entry)

    def bind_target(self, target: cst.CSTNode, value: Val) -> None:
        if type(target) is cst.Subscript or type(target) is cst.Attribute:
            self.ev.paths.changed(target, True)
        key = target_key(target, self.fa.self_name, self.ev.st.env)
        if key is not None:
            if value is None:
                # an unknown value is still one value: freeing it twice is a double free
                value = self.fa.site_object(target, "unknown")
                self.forget(value)
            if "." in key and type(value) is not Instance:  # an object of a project class is followed there
                self.escape(value)  # `self.x` outlives the method
                self.stored(self.ev.site, value, "attribute")
            elif key in self.fa.outer_names:
                self.escape(value)  # a global (or nonlocal) outlives the function
                self.stored(self.ev.site, value, "global")
            self.bind(key, value)
            return
        if type(target) is cst.Tuple or type(target) is cst.List:
            elems = value.items if type(value) is Seq else None
            for i, el in enumerate(target.elements):
                sub = elems[i] if elems is not None and i < len(elems) and type(el) is not cst.StarredElement else None
                inner = el.value
                self.bind_target(inner, sub)
            return
        if type(target) is cst.StarredElement:
            self.bind_target(target.value, None)
            return
        if type(target) is cst.MatchAs or type(target) is cst.MatchStar:
            if target.name is not None:
                self.bind(target.name.value, None)
            if type(target) is cst.MatchAs and target.pattern is not None:
                self.bind_target(target.pattern, None)
            return
        if isinstance(target, cst.MatchPattern):
            for child in target.children:
                if isinstance(child, (cst.MatchAs, cst.MatchStar, cst.MatchPattern)):
                    self.bind_target(child, None)
                else:
                    for captured in _match_captures(child):
                        self.bind(captured, None)
            return
        # a field of a local descriptor, or something stored away
        if type(target) is cst.Attribute and self.ev.memory.set_field(target, value):
            return
        self.escape(value)
        if type(target) is cst.Attribute:
            self.stored(self.ev.site, value, "attribute")
        elif type(target) is cst.Subscript and self.outside(target.value):
            self.stored(self.ev.site, value, "container")
        if type(target) is cst.Subscript:
            self.ev.expr(target.value)
        elif type(target) is cst.Attribute:
            self.ev.expr(target.value)

    def small_statement(self, node: cst.CSTNode) -> None:
        if type(node) is cst.Expr:
            self.ev.expr(node.value)
        elif type(node) is cst.Assign:
            value = self.ev.expr(node.value)
            for t in node.targets:
                self.bind_target(t.target, value)
        elif type(node) is cst.AnnAssign:
            if node.value is not None:
                self.bind_target(node.target, self.ev.expr(node.value))
        elif type(node) is cst.AugAssign:
            value = self.ev.expr(node.value)
            key = target_key(node.target, self.fa.self_name, self.ev.st.env)
            new = self.accumulate(node, key, value) if key is not None else None
            if new is None:
                self.escape(value)  # now in a value not followed (`bufs += [(h, d)]`)
            if key is not None:
                self.bind(key, new)
            else:
                self.bind_target(node.target, None)
        elif type(node) is cst.Del:
            self.delete(node.target)
        elif type(node) is cst.Import or type(node) is cst.ImportFrom:
            if isinstance(node.names, cst.ImportStar):
                return
            for alias in node.names:
                if alias.asname is not None and type(alias.asname.name) is cst.Name:
                    self.bind(alias.asname.name.value, None)
                else:
                    name = alias.name
                    while type(name) is cst.Attribute:
                        name = name.value  # type: ignore[assignment]
                    if type(name) is cst.Name:
                        self.bind(name.value, None)

    def accumulate(self, node: cst.AugAssign, key: str, value: Val) -> Val:
        """`off += d` / `off -= d` on an integer or address the analysis knows
        (an accumulator a loop advances); unknown for anything else."""
        op = _AUG_OPS.get(type(node.operator))
        old = self.ev.st.env.get(key)
        if op is None or old is None or isinstance(old, Obj):
            return None
        result = self.ev.arith.arith(op, old, value)
        if result is None and type(old) is Const and type(value) is Const:
            result = fold(op, old.value, value.value)
        return result

    def delete(self, target: cst.BaseExpression) -> None:
        key = target_key(target, self.fa.self_name, self.ev.st.env)
        if key is not None:
            self.bind(key, None)
        elif type(target) is cst.Tuple or type(target) is cst.List:
            for el in target.elements:
                self.delete(el.value)
        elif type(target) is cst.Subscript:
            self.ev.paths.changed(target, True)
            self.ev.expr(target.value)

    def forget(self, obj: Obj) -> None:
        """Recency: a site makes `obj` again, so names holding the old one forget it."""
        st = self.ev.st
        if obj in st.heap and self.ev.iteration.keep_previous(obj):
            return
        st.heap.pop(obj, None)
        env = st.env
        for k in env.holders.get(obj, ()):  # only the names that may hold it (store.py)
            v = env[k]
            if isinstance(v, Obj):  # most values: one object (as objects_in and _without have it)
                if v is obj:
                    del env[k]
                continue
            if obj in objects_in(v):
                nv = _without(v, obj)
                if nv is None:
                    del env[k]
                else:
                    env[k] = nv
            elif (type(v) is Addr or type(v) is BufRef or type(v) is AIface) and v.buffer is obj:
                del env[k]
        symbol = obj.symbol
        for o in st.heap.mapped:  # only the objects with a mapping
            hs = st.heap[o]
            m = hs.span
            assert m is not None
            addr, size = m.address, m.size
            if type(addr) is Addr and (addr.buffer is obj or _mentions(addr.offset, symbol)):
                addr = None
            if type(size) is Lin and _mentions(size.form, symbol):
                size = None
            if (addr, size) != (m.address, m.size):
                st.heap[o] = hs.but(span=Span(addr, size))


def _views(v: Val, obj: Obj) -> bool:
    while type(v) is Ref and v.how == "pointer":
        v = v.value
    return type(v) is BufRef and v.buffer is obj


_AUG_OPS: dict[type, cst.BaseBinaryOp] = {cst.AddAssign: cst.Add(), cst.SubtractAssign: cst.Subtract()}
