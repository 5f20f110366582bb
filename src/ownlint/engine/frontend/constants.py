"""Module constants: the module-level names bound once to a literal, the page
size, or arithmetic on those, folded to their values; and aliases of a
model's success value (`OK = lib.Result.SUCCESS`), which stand for the
imported name they alias (`Sym`), so that `if err != OK:` tests a status as
`if err != lib.Result.SUCCESS:` does (status.py).

Known limits: a function's local of the same name is not told apart from the
module's alias when the alias is read through a compare (a local bound in the
function does shadow it, as for every constant)."""

from __future__ import annotations

import libcst as cst

from ownlint.engine.evaluator.typestate import fold, literal
from ownlint.engine.evaluator.typestate_base import Unit
from ownlint.engine.frontend.names import ModuleNames
from ownlint.engine.frontend.walk import walk
from ownlint.engine.modelling.models import ModelSet
from ownlint.engine.values import linear
from ownlint.engine.values.memory import as_lin, lin_value
from ownlint.engine.values.values import Const, Lin, Sym, Val, int_value


def module_constants(
    module: cst.Module, names: ModuleNames, models: ModelSet, page_size: int | None, source: str
) -> dict[str, Val]:
    """Module-level names bound exactly once, to a literal, the page size, or
    arithmetic on those (folded: sizes and offsets are known where they are used),
    and never declared `global` in a function (`_ctx = None` at the top of a
    module whose functions set `_ctx` is no constant)."""
    counts: dict[str, int] = dict.fromkeys(_declared_global(module) if "global" in source else (), 2)
    values: dict[str, cst.BaseExpression] = {}
    for stmt in module.body:
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if type(small) is cst.Assign:
                for t in small.targets:
                    if type(t.target) is cst.Name:
                        counts[t.target.value] = counts.get(t.target.value, 0) + 1
                        values[t.target.value] = small.value
            elif type(small) is cst.AnnAssign and type(small.target) is cst.Name and small.value is not None:
                counts[small.target.value] = counts.get(small.target.value, 0) + 1
                values[small.target.value] = small.value
    out: dict[str, Val] = {}
    for name, expr in values.items():
        if counts[name] != 1:
            continue
        v = _const_expr(expr, out, names, models, page_size)
        if v is not None:
            out[name] = v
    return out


def _declared_global(module: cst.Module) -> set[str]:
    """The names some function of the module declares `global` (it may bind them)."""
    return {x.name.value for n in walk(module) if type(n) is cst.Global for x in n.names}


def _const_expr(
    expr: cst.BaseExpression, known: dict[str, Val], names: ModuleNames, models: ModelSet, page_size: int | None
) -> Val:
    lit = literal(expr)
    if lit is not None:
        return lit
    mem = models.memory
    page: Val = Const(page_size) if page_size else Lin(linear.sym(linear.P))
    if type(expr) is cst.Name and expr.value in known:
        return known[expr.value]
    qualified = names.qualify(expr) if type(expr) in (cst.Name, cst.Attribute) else None
    if qualified is not None and qualified.rpartition(".")[2] in models.success:
        return Sym(qualified)  # an alias of a success value: its name, as an import of it evaluates
    if type(expr) is cst.Name:
        return None
    if type(expr) is cst.Attribute and qualified in mem.page_size:
        return page
    if type(expr) is cst.Call:
        q = names.qualify(expr.func)
        if q in mem.page_size_calls:
            return page
        if q in mem.page_size_sysconf and expr.args:
            arg = literal(expr.args[0].value)
            if arg is not None and str(arg.value) in mem.page_size_sysconf_names:
                return page
        return None
    if type(expr) is cst.BinaryOperation:
        a = _const_expr(expr.left, known, names, models, page_size)
        b = _const_expr(expr.right, known, names, models, page_size)
        if a is None or b is None:
            return None
        if type(a) is Const and type(b) is Const:
            return fold(expr.operator, a.value, b.value)
        la, lb = as_lin(a), as_lin(b)
        if la is None or lb is None:
            return None
        if type(expr.operator) is cst.Multiply:
            prod = linear.mul(la, lb)
            return lin_value(prod) if prod is not None else None
        if type(expr.operator) in (cst.Add, cst.Subtract):
            return lin_value(linear.add(la, lb, 1 if type(expr.operator) is cst.Add else -1))
        return None
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
        a = _const_expr(expr.expression, known, names, models, page_size)
        c = int_value(a)
        if c is not None:
            return Const(-c)
    return None


def import_constants(units: list[Unit]) -> None:
    """`from m import PAGE` of a constant of the project's module `m` is that
    constant in the importing module too (one level: a constant the importing
    module computes from it is not folded). A name the module binds itself wins."""
    by_module = {u.names.module: u for u in units}
    for unit in units:
        for local, full in sorted(unit.names.imports.items()):
            module, _, name = full.rpartition(".")
            source = by_module.get(module)
            if local in unit.constants or source is None or source is unit or name not in source.constants:
                continue
            if local in unit.names.functions or local in unit.names.classes:
                continue
            unit.constants[local] = source.constants[name]
