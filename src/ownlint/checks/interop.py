"""Capsules, threads, host tasks and interop inputs (OWN401-OWN403,
OWN501, OWN502, OWN602): what the events about these values mean."""

from __future__ import annotations

import libcst as cst

from ownlint.engine.cfg import source_of
from ownlint.engine.events import (
    THREAD_SAFE,
    AdoptCall,
    BorrowFrom,
    Checker,
    Consume,
    Export,
    Facts,
    Findings,
    Store,
    ToThread,
    inside,
    via,
)
from ownlint.engine.memvalues import parse_tag
from ownlint.engine.state import BORROWED, CONSUMED, TRANSFERRED
from ownlint.engine.values import Dict, Prop, Seq, Sym, Val


class InteropChecker(Checker):
    def on_consume(self, e: Consume, out: Findings) -> None:
        if e.state.kind == CONSUMED:  # OWN501: a capsule consumed a second time
            out.report("OWN501", e.node, e.spelled, via(e), inside(e, "consumed again here"), obj=e.obj)

    def on_export(self, e: Export, out: Findings) -> None:
        if e.state.prov == "explicit":  # OWN502: exported from an explicitly created context
            out.report("OWN502", e.node, e.spelled, (), e.state.story[:2])

    def on_to_thread(self, e: ToThread, out: Findings) -> None:
        # OWN403: a runtime-owned handle (transferred, or borrowed from an owner
        # that is not host memory) handed to another thread
        if e.state.kind not in (TRANSFERRED, BORROWED) or e.state.tag == THREAD_SAFE:
            return
        if e.owner is not None and parse_tag(e.owner.tag) is not None:
            return
        facts: Facts = (("api", e.api),)
        if e.owner is not None and e.owner.tag and e.owner.tag != "keep":  # the owner's kind, as its model names it
            facts += (("owner", e.owner.tag),)
        if e.state.kind == TRANSFERRED:
            facts += (("transferred", "yes"),)
        out.report("OWN403", e.node, None, facts, obj=e.obj)

    def on_store(self, e: Store, out: Findings) -> None:
        if e.state.tag == "native-mem":  # OWN402: a host task's native pointer outlives it
            out.report("OWN402", e.node, None, (("where", e.where),), obj=e.obj)

    def on_borrow_from(self, e: BorrowFrom, out: Findings) -> None:
        if e.owner.tag in e.borrow.unsupported:  # OWN401: get_native of a kind that has none
            call = e.borrow.function.rpartition(".")[2]
            out.report("OWN401", e.node, e.spelled, (("kind", e.owner.tag), ("call", call)), e.owner.story)

    def on_adopt_call(self, e: AdoptCall, out: Findings) -> None:
        adopt = e.adopt  # OWN602: inputs the specification rules out
        for a, v in e.args:
            if a.keyword is None:
                continue
            key = a.keyword.value
            if key in adopt.non_empty_keywords and _empty(v, a.value, adopt.empty_constructor_suffixes):
                facts = (("problem", "empty-devices"), ("detail", f"{key}={source_of(a.value)}"))
                out.report("OWN602", e.node, None, facts)
            if key in adopt.property_keywords:
                bad = _forbidden(v, adopt.forbidden_properties)
                if bad:
                    out.report("OWN602", e.node, None, (("problem", "compute-index"), ("detail", bad)))
        if adopt.native_memory_only and e.host_memory:
            out.report("OWN602", e.node, None, (("problem", "host-memory"),))


def _empty(v: Val, expr: cst.BaseExpression, constructors: tuple[str, ...]) -> bool:
    """`[]`, `()`, or a call with no argument of a constructor named with one of `constructors`' endings."""
    if v == Seq(()):
        return True
    return (
        type(expr) is cst.Call
        and not expr.args
        and (type(expr.func) is cst.Name or type(expr.func) is cst.Attribute)
        and (expr.func.value if isinstance(expr.func, cst.Name) else expr.func.attr.value).endswith(constructors)
    )


def _elements(v: Val) -> list[Val]:
    out = [v]
    if type(v) is Seq:
        for x in v.items:
            out.extend(_elements(x))
    elif type(v) is Dict:
        for _, x in v.items:
            out.extend(_elements(x))
    return out


def _forbidden(v: Val, names: tuple[str, ...]) -> str:
    """The forbidden property a property value names, or ""."""
    for element in _elements(v):
        if type(element) is Prop or type(element) is Sym:
            last = element.name.rpartition(".")[2]
            if last in names:
                return last
    return ""
