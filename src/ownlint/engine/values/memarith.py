"""Integers and addresses of host memory: linear forms over the page size
(linear.py), addresses inside buffers, `A | B` flags, and `base + offset` of
parameters kept for callers (`Off`); the evaluator's `arith`
component."""

from __future__ import annotations

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.values import domain, linear
from ownlint.engine.values.memvalues import addr_value, as_lin, lin_value
from ownlint.engine.values.values import Addr, Const, Field, Flags, Lin, Obj, Off, Param, Sym, Val


class ArithEval:
    """Arithmetic on memory values, the evaluator's `arith` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa

    # -- integers and addresses -------------------------------------------------
    def page_size(self) -> Val:
        size = self.fa.page_size
        return Const(size) if size else Lin(linear.sym(linear.P))

    def symbol_for(self, v: Val) -> linear.Lin | None:
        """An unknown integer as a symbol (by the object holding it), or None."""
        return linear.sym(v.symbol) if isinstance(v, Obj) else None

    def arith(self, op: cst.BaseBinaryOp, left: Val, right: Val) -> Val | None:
        """`left op right` on forms and addresses; None when not about memory."""
        if type(op) is cst.BitOr:
            names: set[str] = set()
            for side in (left, right):
                if type(side) is Sym:
                    names.add(side.name)
                elif type(side) is Flags:
                    names.update(side.names)
                else:
                    return None
            return Flags(tuple(sorted(names)))
        if type(left) is Addr and type(op) in (cst.Add, cst.Subtract):
            delta = as_lin(right)
            if delta is None and isinstance(right, Obj) and not right.on_entry and right not in self.ev.st.heap:
                delta = self.symbol_for(right)  # an unknown integer (a loop variable): one symbol
            if delta is None or left.offset is None:
                return Addr(left.buffer, None)
            return addr_value(left.buffer, linear.add(left.offset, delta, 1 if type(op) is cst.Add else -1))
        if type(left) is Off and type(op) in (cst.Add, cst.Subtract):
            delta = as_lin(right)
            moved = linear.add(left.offset, delta, 1 if type(op) is cst.Add else -1) if delta is not None else None
            return Off(left.base, moved) if moved is not None and domain.form_fits(moved) else left.base
        a, b = as_lin(left), as_lin(right)
        if type(left) is Field and type(op) in (cst.Add, cst.Subtract) and b is not None and domain.form_fits(b):
            # `self.base + offset`: kept for the caller to re-root at its object's attribute
            return Off(left, b if type(op) is cst.Add else linear.add((), b, -1))
        if type(op) is cst.Add and type(left) is Param and not self.ev.memory.is_buffer(left):
            # `base + offset` of parameters: kept for the caller to substitute
            delta = b if b is not None else self.symbol_for(right) if type(right) is Param else None
            if delta is not None and _mentions_param(delta) and domain.form_fits(delta):
                return Off(left, delta)
        if a is None and b is None:
            return None
        if type(op) is cst.Multiply:
            a = a if a is not None else self.symbol_for(left)
            b = b if b is not None else self.symbol_for(right)
            if a is None or b is None:
                return None
            product = linear.mul(a, b)
            return lin_value(product) if product is not None else None
        if a is None or b is None:
            return None
        if type(op) is cst.Add:
            return lin_value(linear.add(a, b))
        if type(op) is cst.Subtract:
            return lin_value(linear.add(a, b, -1))
        return None


def _mentions_param(form: linear.Lin) -> bool:
    return any(Param.index_of(name) is not None for m, _ in form for name in m)
