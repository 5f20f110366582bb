"""One generic loop iteration next to the one before it: what lets facts
carried from one iteration to the next be compared (a component of the evaluator).

- **The previous iteration's object.** A site that makes its object again
  while the old one is still reachable (a name holds it, it is a live
  mapping, or a kept object refers to it) renames the old one to the site's
  "previous" object (`Analysis.previous_object`) instead of forgetting it:
  `prev = cur` of the last iteration still holds a mapping, a handle, an
  owner, which the new one can then be compared with or outlive. An older
  "previous" object is forgotten (the recency of the old scheme, one
  iteration later), so each site has at most two objects.
- **The loop variable's advance.** `for i in range(a, b, step)` binds `i` to
  the same unknown integer each iteration; what the previous iteration
  computed from it is rewritten with `i - step` in place of `i` (exact), so
  `base + i*S` of the previous iteration is `base + i*S - step*S` next to the
  new `base + i*S`. The statement that evaluates the iterable forgets the
  variable first, so an earlier run of the whole loop is never taken for the
  previous iteration.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.evaluator.typestate_base import _index
from ownlint.engine.frontend.loopsyntax import accumulators
from ownlint.engine.values import linear
from ownlint.engine.values.memvalues import as_lin, lin_value
from ownlint.engine.values.state import FREED, HState
from ownlint.engine.values.store import Env, Heap
from ownlint.engine.values.values import (
    Addr,
    AIface,
    BufRef,
    Const,
    Dict,
    Lin,
    Obj,
    Off,
    OneOf,
    Ref,
    Seq,
    Site,
    Span,
    Struct,
    Val,
    parts,
    refs,
)


class Previous(Site):
    """A site's object of the previous loop iteration (never renamed again)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Previous({self.number})"


ObjMap = Callable[[Obj], Val]
FormMap = Callable[[linear.Lin], "linear.Lin | None"]


def _form(form: linear.Lin | None, fm: FormMap) -> linear.Lin | None:
    return None if form is None else fm(form)


def rewrite(v: Val, om: ObjMap, fm: FormMap) -> Val:
    """`v` with each object replaced by `om(obj)` and each form by `fm(form)`
    (None where a form cannot be rewritten: the value is then unknown)."""
    if v is None:
        return None
    if isinstance(v, Obj):
        return om(v)
    if type(v) is Lin:
        form = fm(v.form)
        return None if form is None else lin_value(form)
    if type(v) is Addr:
        return Addr(rewrite(v.buffer, om, fm), _form(v.offset, fm))
    if type(v) is Off:
        base, moved = om(v.base), fm(v.offset)
        return Off(base, moved) if isinstance(base, Obj) and moved is not None else None
    if type(v) is BufRef:
        return BufRef(rewrite(v.buffer, om, fm))
    if type(v) is AIface:
        return AIface(rewrite(v.buffer, om, fm), v.depth)
    if type(v) is Seq:
        return Seq(tuple(rewrite(x, om, fm) for x in v.items))
    if type(v) is OneOf:
        options = tuple(rewrite(x, om, fm) for x in v.options)
        return None if any(x is None for x in options) else OneOf(options)
    if type(v) is Dict:
        return Dict(tuple((k, rewrite(x, om, fm)) for k, x in v.items))
    if type(v) is Struct:
        return Struct(v.type, tuple((k, rewrite(x, om, fm)) for k, x in v.fields))
    if type(v) is Ref:
        return Ref(v.key, rewrite(v.value, om, fm), v.how)
    return v


def _rewrite_state(hs: HState, om: ObjMap, fm: FormMap) -> HState:
    changes: dict[str, object] = {}
    if hs.owner is not None:
        owner = om(hs.owner)
        changes["owner"] = owner if isinstance(owner, Obj) else None
    m = hs.span
    if m is not None:
        addr, size = rewrite(m.address, om, fm), rewrite(m.size, om, fm)
        if (addr, size) != (m.address, m.size):
            changes["span"] = Span(addr, size)
    return hs.but(**changes) if changes else hs


def _renamed_form(old: str, new: str) -> FormMap:
    def fm(form: linear.Lin) -> linear.Lin | None:
        if not any(old in m for m, _ in form):
            return form
        return linear.add((), tuple((tuple(sorted(new if x == old else x for x in m)), c) for m, c in form))

    return fm


def _shifted_form(symbol: str, step: linear.Lin) -> FormMap:
    """`symbol` -> `symbol - step`; None when that is not linear."""

    def fm(form: linear.Lin) -> linear.Lin | None:
        out: linear.Lin = ()
        for m, c in form:
            n = m.count(symbol)
            if n == 0:
                out = linear.add(out, ((m, c),))
                continue
            if n > 1:
                return None
            rest = tuple(x for x in m if x != symbol)
            term = linear.mul(((rest, c),), linear.add(linear.sym(symbol), step, -1))
            if term is None:
                return None
            out = linear.add(out, term)
        return out

    return fm


def _identity(o: Obj) -> Val:
    return o


def _has(v: Val, symbol: str) -> bool:
    """Whether a form inside `v` mentions `symbol`."""
    if type(v) is Lin:
        return _in_form(v.form, symbol)
    if type(v) is Addr:
        return (v.offset is not None and _in_form(v.offset, symbol)) or _has(v.buffer, symbol)
    if type(v) is Off:
        return _in_form(v.offset, symbol)
    if v is None or isinstance(v, Obj) or type(v) is Const:
        return False
    return any(_has(x, symbol) for x in parts(v))


def _in_form(form: linear.Lin, symbol: str) -> bool:
    return any(symbol in m for m, _ in form)


class IterationEval:
    """Keeps the previous iteration's objects and advances loop variables (mixed in)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.models = ev.models

    def keep_previous(self, obj: Obj) -> bool:
        """`obj`'s site makes it again: rename the old one to the site's previous
        object when something still reaches it; False when nothing does (it is
        forgotten as before)."""
        st = self.ev.st
        hs = st.heap.get(obj)
        if hs is None or type(obj) is Previous or not self._reachable(obj, hs):
            return False
        prev = self.fa.previous_object(obj)
        self.ev.names.forget(prev)  # the older one: recency, one iteration later
        creator = self.fa.creators.get(obj)
        if creator is not None:
            self.fa.creators[prev] = creator

        def om(o: Obj) -> Val:
            return prev if o is obj else o

        self._rewrite(om, _renamed_form(obj.symbol, prev.symbol))
        return True

    def _reachable(self, obj: Obj, hs: HState) -> bool:
        st = self.ev.st
        if hs.span is not None and hs.kind != FREED:
            return True
        held: set[Obj] = set()
        for v in st.env.values():
            refs(v, held)
        if obj in held:
            return True
        for o, other in st.heap.items():
            if o is obj:
                continue
            if other.owner is obj:
                return True
            m = other.span
            if m is not None and other.kind != FREED:
                refs(m.address, held)
                refs(m.size, held)
                if obj in held:
                    return True
        return False

    def _rewrite(self, om: ObjMap, fm: FormMap) -> None:
        st = self.ev.st
        st.env = Env({k: nv for k, nv in ((k, rewrite(v, om, fm)) for k, v in st.env.items()) if nv is not None})
        heap: dict[Obj, HState] = {}
        for o, hs in st.heap.items():
            key = om(o)
            if isinstance(key, Obj):
                heap[key] = _rewrite_state(hs, om, fm)
        st.heap = Heap(heap)

    def advance(self, var: Obj, step: linear.Lin) -> None:
        """The loop variable `var` (one unknown integer per iteration) moves on by
        `step`: what the previous iteration derived from it now reads `var - step`."""
        st = self.ev.st
        if var in st.heap:
            self.ev.names.forget(var)
            return
        shift = _shifted_form(var.symbol, step)
        fallback = Lin(linear.add(linear.sym(var.symbol), step, -1))

        def om(o: Obj) -> Val:
            return fallback if o is var else o

        self._rewrite(om, shift)

    def loop_variable(self, loop: cst.For) -> Obj | None:
        """A new iteration starts: the loop's counter advances by one, and the
        variable of `for <name> in range(...)` with a step that is the same every
        iteration (a literal or module constants) by its step; returns that
        variable (None for any other loop)."""
        counter = self.fa.site_object(loop, "iteration")
        if self._mentioned(counter.symbol):
            self.advance(counter, linear.const(1))
        step = self.range_step(loop)
        if step is None:
            return None
        var = self.fa.site_object(loop.target, "unknown")
        self.advance(var, step)
        return var

    def loop_entered(self, loop: cst.For) -> None:
        """The iterable of a `for` is evaluated: the loop starts afresh, so values
        from an earlier run of it are no previous iteration of this one. Each
        accumulator of the loop (`off += d` run once in every iteration, `d` the
        same in each) becomes `off0 + k*d`, `k` the loop's counter."""
        counter = self.fa.site_object(loop, "iteration")
        self._drop(counter.symbol)
        if self.range_step(loop) is not None:
            var = self.fa.site_object(loop.target, "unknown")
            self._drop(var.symbol)
            self.ev.names.forget(var)
        if (
            type(loop.target) is cst.Name
            and any(hs.span is not None and hs.kind != FREED for hs in self.ev.st.heap.values())
            and self._frees_each(loop.body, loop.target.value)
        ):
            self._freed_by_loop(loop.iter)
        for name, delta in accumulators(loop):
            start = as_lin(self.ev.st.env.get(name))
            d = as_lin(self.ev.expr(delta)) if self._fixed(delta) else None
            term = linear.mul(linear.sym(counter.symbol), d) if d is not None else None
            if start is not None and term is not None:
                value = lin_value(linear.add(start, term))
                if value is not None:
                    self.ev.st.env[name] = value

    def _frees_each(self, body: cst.BaseSuite, var: str) -> bool:
        """Whether every iteration frees the loop variable `var`: a top-level
        call of a release model on `var`, in a body of simple statements that
        cannot skip it (no break, continue, return or raise)."""
        if type(body) is not cst.IndentedBlock:
            return False
        found = False
        for stmt in body.body:
            if type(stmt) is not cst.SimpleStatementLine:
                return False
            for small in stmt.body:
                if type(small) in (cst.Break, cst.Continue, cst.Return, cst.Raise):
                    return False
                call = small.value if type(small) is cst.Expr else None
                if type(call) is not cst.Call:
                    continue
                model = self.models.call(self.fa.names.qualify(call.func) or "?")
                release = model.release if model is not None else None
                if release is None or release.key is not None:
                    continue
                positional = [a.value for a in call.args if a.keyword is None and not a.star]
                i = _index(release.handle, len(positional))
                arg = positional[i] if i is not None else None
                found = found or (type(arg) is cst.Name and arg.value == var)
        return found

    def _freed_by_loop(self, iterable: cst.BaseExpression) -> None:
        """The loop frees each element of `iterable` (RULES "Loops"): the live
        mappings it holds stop being live handles of this function. Those of
        a list or tuple literal are known; what a list built by `append`
        holds is not followed, so every live mapping is forgotten (this only
        loses findings, never makes one)."""
        st = self.ev.st
        if type(iterable) in (cst.List, cst.Tuple) and type(st.last) is Seq:
            held: set[Obj] = set()
            for item in st.last.items:
                refs(item, held)
        else:
            held = set(st.heap)
        gone = [o for o in held if (hs := st.heap.get(o)) is not None and hs.span is not None and hs.kind != FREED]
        for o in gone:
            del st.heap[o]

    def _mentioned(self, symbol: str) -> bool:
        st = self.ev.st
        return any(_has(v, symbol) for v in st.env.values()) or any(
            hs.span is not None and (_has(hs.span.address, symbol) or _has(hs.span.size, symbol))
            for hs in st.heap.values()
        )

    def _drop(self, symbol: str) -> None:
        """Forget every value that mentions `symbol`."""
        if not self._mentioned(symbol):
            return

        def fm(form: linear.Lin) -> linear.Lin | None:
            return None if any(symbol in m for m, _ in form) else form

        self._rewrite(_identity, fm)

    def range_step(self, loop: cst.For) -> linear.Lin | None:
        it = loop.iter
        if type(loop.target) is not cst.Name or type(it) is not cst.Call or type(it.func) is not cst.Name:
            return None
        if it.func.value != "range" or it.func.value in self.ev.st.env or self.fa.names.qualify(it.func) != "range":
            return None
        if not 1 <= len(it.args) <= 3 or any(a.keyword is not None or a.star for a in it.args):
            return None
        if len(it.args) < 3:
            return linear.const(1)
        arg = it.args[2].value
        if not self._fixed(arg):
            return None
        form = as_lin(self.ev.expr(arg))
        return form if form else None

    def _fixed(self, node: cst.BaseExpression) -> bool:
        """Whether `node` has one value for the whole loop: literals and module
        constants combined by arithmetic, with no call and no local name."""
        if type(node) is cst.Integer:
            return True
        if type(node) is cst.Name:
            return node.value not in self.ev.st.env and node.value not in self.fa.params
        if type(node) is cst.BinaryOperation:
            return self._fixed(node.left) and self._fixed(node.right)
        if type(node) is cst.UnaryOperation:
            return self._fixed(node.expression)
        return False
