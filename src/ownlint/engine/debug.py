"""Text dumps of the analysis, for tests and for `ownlint debug` (mypyc-style
golden outputs): the CFG of a function, and the path states at each block."""

from __future__ import annotations

import libcst as cst

from ownlint.checks import CHECKERS
from ownlint.engine.evaluator.typestate import FunctionAnalysis, Unit
from ownlint.engine.frontend.cfg import CFG
from ownlint.engine.frontend.cfg_builder import build_function_cfg, build_module_cfg
from ownlint.engine.frontend.names import collect_names
from ownlint.engine.modelling.models import ModelSet, load_models
from ownlint.engine.program.summaries import RETURN_KEY
from ownlint.engine.values.state import PathState
from ownlint.engine.values.values import Const, Obj, Seq, Sym, Val


def _find(module: cst.Module, name: str) -> cst.FunctionDef:
    class Finder(cst.CSTVisitor):
        found: cst.FunctionDef | None = None

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if node.name.value == name and self.found is None:
                self.found = node

    f = Finder()
    module.visit(f)
    if f.found is None:
        raise KeyError(name)
    return f.found


def cfg_of(source: str, function: str | None = None) -> CFG:
    module = cst.parse_module(source)
    return build_module_cfg(module) if function is None else build_function_cfg(_find(module, function))


def dump_cfg(source: str, function: str | None = None) -> str:
    return cfg_of(source, function).dump()


def _show(v: Val, st: PathState) -> str:
    if isinstance(v, Obj):
        hs = st.heap.get(v)
        if hs is None:
            return "live"
        text = hs.kind + ("!" if hs.reported else "")
        if hs.owner is not None and hs.owner in st.heap:
            text += f"(owner {st.heap[hs.owner].kind})"
        return text
    if type(v) is Const:
        return repr(v.value)
    if type(v) is Seq:
        return "[" + ", ".join(_show(x, st) for x in v.items) + "]"
    if type(v) is Sym:
        return v.name
    if v is not None:
        return type(v).__name__.lower()
    return "?"


def dump_states(source: str, function: str, models: ModelSet | None = None) -> str:
    """The path states reaching each block of `function`: `name=state` for each
    local, `!` marking a handle already reported, then the assumed conditions."""
    module = cst.parse_module(source)
    fn = _find(module, function)
    unit = Unit(0, "<test>", module, collect_names(module, "test"))
    params = [p.name.value for p in fn.params.params]
    fa = FunctionAnalysis(unit, build_function_cfg(fn), models or load_models(), params, checkers=CHECKERS)
    fa.run()
    assert fa.solution is not None
    out: list[str] = []
    for bid in fa.cfg.reverse_postorder():
        states = fa.solution.ins.get(bid)
        if states is None:
            continue
        block = fa.cfg.blocks[bid]
        head = block.elems[0].text() if block.elems else f"({block.label or 'empty'})"
        out.append(f"B{bid} {head}")
        lines = []
        for st in states:
            env = " ".join(f"{k}={_show(v, st)}" for k, v in sorted(st.env.items()) if k != RETURN_KEY)
            conds = " ".join(f"{k}={'T' if v else 'F'}" for k, v in sorted(st.conds.items()))
            lines.append(f"  {env}" + (f"  | {conds}" if conds else ""))
        out.extend(sorted(lines))
    return "\n".join(out) + "\n"
