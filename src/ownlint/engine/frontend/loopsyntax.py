"""What a loop's syntax says about its names: the accumulators a loop
advances by the same amount in every iteration (iteration.py uses them)."""

from __future__ import annotations

from functools import lru_cache

import libcst as cst


@lru_cache(maxsize=256)  # by the loop node's identity; run at each entry to the loop
def accumulators(loop: cst.For) -> tuple[tuple[str, cst.BaseExpression], ...]:
    """`(name, d)` for each `name += d` at the top level of the
    body (so it runs once in every iteration that goes on) of a loop with no
    `continue` and no other assignment to `name` in its body."""
    found: list[tuple[str, cst.BaseExpression]] = []
    for stmt in loop.body.body:
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if (
                type(small) is cst.AugAssign
                and type(small.target) is cst.Name
                and type(small.operator) is cst.AddAssign
            ):
                found.append((small.target.value, small.value))
    if not found:
        return ()
    counts = _Assigned()
    loop.body.visit(counts)
    if counts.continues:
        return ()
    return tuple((n, d) for n, d in found if counts.names.get(n) == 1)


class _Assigned(cst.CSTVisitor):
    """The names assigned in a loop body (how often), and whether it has a `continue`
    of its own."""

    def __init__(self) -> None:
        self.names: dict[str, int] = {}
        self.continues = False

    def _add(self, target: cst.CSTNode) -> None:
        if type(target) is cst.Name:
            self.names[target.value] = self.names.get(target.value, 0) + 1
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._add(el.value)
        elif type(target) is cst.StarredElement:
            self._add(target.value)

    def visit_Continue(self, node: cst.Continue) -> None:
        self.continues = True

    def visit_For(self, node: cst.For) -> bool:
        self._add(node.target)
        node.body.visit(_Nested(self))
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_While(self, node: cst.While) -> bool:
        node.body.visit(_Nested(self))
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._add(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._add(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._add(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._add(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._add(node.name)

    def visit_Del(self, node: cst.Del) -> None:
        self._add(node.target)

    def visit_Global(self, node: cst.Global) -> None:
        self.continues = True  # a name shared with other code: not an accumulator

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.continues = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


class _Nested(_Assigned):
    """Inside a nested loop: its `continue` is its own; assignments still count."""

    def __init__(self, outer: _Assigned) -> None:
        super().__init__()
        self.names = outer.names
        self.outer = outer

    def visit_Continue(self, node: cst.Continue) -> None:
        pass

    def visit_Global(self, node: cst.Global) -> None:
        self.outer.continues = True

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.outer.continues = True


def runs_at_most_once(iterable: cst.BaseExpression) -> bool:
    """`range(...)` of integer literals with at most one element: the loop has
    no next iteration (the CFG builder leaves its back edge out)."""
    if type(iterable) is not cst.Call or type(iterable.func) is not cst.Name or iterable.func.value != "range":
        return False
    values: list[int] = []
    for a in iterable.args:
        v = a.value
        sign = 1
        if type(v) is cst.UnaryOperation and type(v.operator) is cst.Minus:
            v, sign = v.expression, -1
        if a.keyword is not None or a.star or type(v) is not cst.Integer:
            return False
        values.append(sign * int(v.value, 0))
    if not 1 <= len(values) <= 3 or (len(values) == 3 and values[2] == 0):
        return False
    return len(range(*values)) <= 1
