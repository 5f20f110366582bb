"""Substitution: a callee's values (over its parameters `Param(i)` and, for
methods, its `self.x` on entry `Field(x)`) in the caller's terms at a call
site: the evaluator's `substitution` component (see eval_shared), which
`typestate_replay.ReplayEval` calls."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.values import domain, linear
from ownlint.engine.values.memvalues import addr_value, as_lin, lin_value
from ownlint.engine.values.values import Addr, Field, Lin, Obj, Off, OneOf, Param, Val

if TYPE_CHECKING:
    import libcst as cst


class SubstituteEval:
    """Substitution of a callee's values, the evaluator's `substitution` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev

    def substitute(
        self, v: Val, bound: dict[int, tuple[cst.BaseExpression | None, Val]], prefix: str | None = None
    ) -> Val:
        """A callee's value in terms of its parameters (and, with `prefix`, its
        `self.x` as the caller's `<prefix>.x`), in the caller's terms."""
        if type(v) is Param and v.index in bound:
            return bound[v.index][1]
        if prefix is not None and type(v) is Addr and type(v.buffer) is Field:
            outer = self.ev.st.env.get(f"{prefix}.{v.buffer.name}")
            if self.ev.memory.is_buffer(outer):
                return Addr(outer, v.offset)
            if type(outer) is Addr and outer.offset is not None and v.offset is not None:
                return addr_value(outer.buffer, linear.add(outer.offset, v.offset))
            return None
        if prefix is not None and type(v) is Field:
            return self.ev.st.env.get(f"{prefix}.{v.name}")
        if prefix is not None and type(v) is Off and type(v.base) is Field:
            outer = self.ev.st.env.get(f"{prefix}.{v.base.name}")
            if type(outer) is not Addr:
                return None
            if outer.offset is None:
                return Addr(outer.buffer, None)
            return addr_value(outer.buffer, linear.add(outer.offset, v.offset))
        if type(v) is Lin and _mentions_param(v.form):
            form = self.substitute_form(v.form, bound)
            return lin_value(form) if form is not None else None
        if type(v) is OneOf:
            return domain.oneof([self.substitute(x, bound) for x in v.options])
        if type(v) is Off:
            outer = bound.get(v.base.index, (None, None))[1] if type(v.base) is Param else None
            delta = self.substitute_form(v.offset, bound)
            if type(outer) is Addr:
                if outer.offset is None or delta is None:
                    return Addr(outer.buffer, None)
                return addr_value(outer.buffer, linear.add(outer.offset, delta))
            if type(outer) is Off and delta is not None:
                moved = linear.add(outer.offset, delta)
                return Off(outer.base, moved) if domain.form_fits(moved) else outer.base
            if type(outer) is Param and delta is not None and _mentions_param(delta):
                return Off(outer, delta)  # the caller's own parameters: its callers substitute them
            return outer if isinstance(outer, Obj) and not self.ev.memory.is_buffer(outer) else None
        if type(v) is Addr and type(v.buffer) is Param:
            outer = bound.get(v.buffer.index, (None, None))[1]
            if self.ev.memory.is_buffer(outer):
                return Addr(outer, v.offset)
            if type(outer) is Addr and outer.offset is not None and v.offset is not None:
                return addr_value(outer.buffer, linear.add(outer.offset, v.offset))
            return None
        return v

    def substitute_form(
        self, form: linear.Lin, bound: dict[int, tuple[cst.BaseExpression | None, Val]]
    ) -> linear.Lin | None:
        """A form over the callee's parameter symbols, over the caller's values (None: unknown)."""
        out: linear.Lin = ()
        for monomial, coeff in form:
            term: linear.Lin | None = linear.const(coeff)
            for name in monomial:
                index = Param.index_of(name)
                if name == linear.P:
                    factor: linear.Lin | None = linear.sym(linear.P)
                elif index is not None and index in bound:
                    arg = bound[index][1]
                    factor = as_lin(arg)
                    if factor is None and isinstance(arg, Obj):
                        factor = linear.sym(arg.symbol)
                else:
                    return None  # an unknown of the callee's own
                if factor is None or term is None:
                    return None
                term = linear.mul(term, factor)
            if term is None:
                return None
            out = linear.add(out, term)
        return out if domain.form_fits(out) else None


def _mentions_param(form: linear.Lin) -> bool:
    return any(Param.index_of(name) is not None for m, _ in form for name in m)
