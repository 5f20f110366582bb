"""Names and statements: the part of the evaluator (`typestate_eval._Eval`)
that binds, rebinds and deletes names, runs simple statements, and makes
names forget an object a site makes again (recency)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ownlint.engine import domain
from ownlint.engine.memvalues import parse_tag
from ownlint.engine.state import OWNER, OWNER_DEAD, Val
from ownlint.engine.summaries import RETURN_KEY
from ownlint.engine.typestate_base import _match_captures, _mentions, _objects_in, _without, target_key

if TYPE_CHECKING:
    from ownlint.engine.state import PathState
    from ownlint.engine.typestate_base import Analysis


class NamesEval:
    """Binding and statements, as a mixin of `_Eval` (`self` is the evaluator)."""

    if TYPE_CHECKING:  # what the rest of the evaluator (typestate_eval._Eval) provides
        fa: Analysis
        site: cst.CSTNode
        st: PathState

        def escapes_task(self, node: cst.CSTNode, value: Val, where: str) -> None: ...
        def expr(self, node: cst.BaseExpression) -> Val: ...
        def outside(self, base: cst.BaseExpression) -> bool: ...
        def release_buffer(self, buf: Val, node: cst.CSTNode, how: str, name: str) -> None: ...
        def set_field(self, target: cst.Attribute, value: Val) -> bool: ...

    # -- names ---------------------------------------------------------------
    def bind(self, key: str, value: Val) -> None:
        st = self.st
        if isinstance(value, tuple) and not domain.fits(value):
            self.escape(value)  # forgotten: whatever it held may be held elsewhere
            value = None
        st.conds.pop(key, None)
        st.conds.pop(f"{key} is None", None)
        old = st.env.get(key)
        if value is None:
            st.env.pop(key, None)
        else:
            st.env[key] = value
        if old is not None and old != value:
            self.drop(old, f"`{key}`", "deleted" if value is None else "rebound")

    def refs(self, obj: int) -> bool:
        """Whether a local name (or `self.x`) still holds `obj`."""
        return any(obj in _objects_in(v) for k, v in self.st.env.items() if k != RETURN_KEY)

    def drop(self, old: Val, name: str, how: str = "deleted") -> None:
        """A reference went away: an owner nobody else may hold dies here."""
        for obj in _objects_in(old):
            hs = self.st.heap.get(obj)
            if hs is not None and hs.kind == OWNER and not hs.escaped and obj >= 0 and not self.refs(obj):
                if parse_tag(hs.tag) is not None:
                    self.release_buffer(obj, self.site, how, name.strip("`"))
                else:
                    self.st.heap[obj] = hs.with_step(OWNER_DEAD, self.fa.step_of(self.site, f"{name} dies here"))

    def escape(self, value: Val) -> None:
        """Something outside the locals may now hold the owners in `value`."""
        if value is None:  # most values: nothing tracked
            return
        for obj in _objects_in(value):
            hs = self.st.heap.get(obj)
            if hs is not None and hs.kind == OWNER and not hs.escaped:
                self.st.heap[obj] = hs.but(escaped=True)

    def bind_target(self, target: cst.CSTNode, value: Val) -> None:
        key = target_key(target, self.fa.self_name)
        if key is not None:
            if value is None:
                # an unknown value is still one value: freeing it twice is a double free
                value = self.fa.site_object(target, 2)
                self.forget(value)
            if "." in key:
                self.escape(value)  # `self.x` outlives the method
                self.escapes_task(self.site, value, "attribute")
            elif key in self.fa.outer_names:
                self.escapes_task(self.site, value, "global")
            self.bind(key, value)
            return
        if type(target) is cst.Tuple or type(target) is cst.List:
            elems = value[1] if isinstance(value, tuple) and value and value[0] == "seq" else None
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
                    for sub in _match_captures(child):
                        self.bind(sub, None)
            return
        # a field of a local descriptor, or something stored away
        if type(target) is cst.Attribute and self.set_field(target, value):
            return
        self.escape(value)
        if type(target) is cst.Attribute:
            self.escapes_task(self.site, value, "attribute")
        elif type(target) is cst.Subscript and self.outside(target.value):
            self.escapes_task(self.site, value, "container")
        if type(target) is cst.Subscript:
            self.expr(target.value)
        elif type(target) is cst.Attribute:
            self.expr(target.value)

    def small_statement(self, node: cst.CSTNode) -> None:
        if type(node) is cst.Expr:
            self.expr(node.value)
        elif type(node) is cst.Assign:
            value = self.expr(node.value)
            for t in node.targets:
                self.bind_target(t.target, value)
        elif type(node) is cst.AnnAssign:
            if node.value is not None:
                self.bind_target(node.target, self.expr(node.value))
        elif type(node) is cst.AugAssign:
            self.expr(node.value)
            key = target_key(node.target, self.fa.self_name)
            if key is not None:
                self.bind(key, None)
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

    def delete(self, target: cst.BaseExpression) -> None:
        key = target_key(target, self.fa.self_name)
        if key is not None:
            self.bind(key, None)
        elif type(target) is cst.Tuple or type(target) is cst.List:
            for el in target.elements:
                self.delete(el.value)
        elif type(target) is cst.Subscript:
            self.expr(target.value)

    def forget(self, obj: int) -> None:
        """Recency: a site makes `obj` again, so names holding the old one forget it."""
        st = self.st
        st.heap.pop(obj, None)
        for k, v in list(st.env.items()):
            if v is None:
                continue
            if isinstance(v, int):  # most values: one object (as _objects_in and _without have it)
                if v == obj:
                    del st.env[k]
                continue
            if obj in _objects_in(v):
                nv = _without(v, obj)
                if nv is None:
                    del st.env[k]
                else:
                    st.env[k] = nv
            elif isinstance(v, tuple) and v and v[0] in ("addr", "bufref", "aiface") and v[1] == obj:
                del st.env[k]
        symbol = f"#{obj}"
        for o, hs in list(st.heap.items()):
            m = hs.mapping
            if m is None:
                continue
            addr, size = m[0], m[1]
            if (
                isinstance(addr, tuple)
                and addr
                and addr[0] == "addr"
                and (addr[1] == obj or _mentions(addr[2], symbol))
            ):
                addr = None
            if isinstance(size, tuple) and size and size[0] == "lin" and _mentions(size[1], symbol):
                size = None
            if (addr, size) != (m[0], m[1]):
                st.heap[o] = hs.but(mapping=(addr, size, *m[2:]))
