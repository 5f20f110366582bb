"""Capsules, threads, host tasks and interop inputs (OWN401-OWN403,
OWN501, OWN502, OWN602): what the events about these values mean.

Capsules (OWN501) are this checker's own facts: the value of a call the
`[capsules]` section names a producer (`x.__dlpack__()`, `to_dlpack(x)`)
is a `Capsule`; a call whose model has the `Consume` effect consumes the
capsule at its argument, and a second consumption on the same path is the
finding. A parameter or field a function consumes is `ConsumedHere`, which
its callers replay on the capsule they passed (`Replayed`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

import libcst as cst

from ownlint.engine.cfg import source_of
from ownlint.engine.effects import Consume
from ownlint.engine.events import (
    THREAD_SAFE,
    AdoptCall,
    BorrowFrom,
    CallPost,
    Checker,
    Export,
    Facts,
    Findings,
    Replayed,
    Store,
    ToThread,
)
from ownlint.engine.memvalues import is_buffer_tag
from ownlint.engine.state import BORROWED, TRANSFERRED, Step
from ownlint.engine.values import Dict, Instance, Prop, Seq, Sym, Val, objects_in


@dataclass(frozen=True, slots=True)
class Capsule:
    """A capsule (OWN501): `consumed` once a consumer took it (first at
    `first`); `reported` once its second consumption was."""

    consumed: bool = False
    reported: bool = False
    first: Step | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class ConsumedHere:
    """A parameter or field the function consumes (at `at`): its callers consume what they pass."""

    at: Step | None = field(default=None, compare=False, hash=False)


class InteropChecker(Checker):
    @staticmethod
    def join_facts(a: Hashable, b: Hashable) -> Hashable | None:
        """A capsule consumed on one of two merged paths may be consumed (a loop's widening)."""
        if type(a) is Capsule and type(b) is Capsule:
            return a if a.consumed else b
        return None

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        if e.model is not None:
            for effect in e.model.effects:
                if type(effect) is Consume and len(e.args) > effect.arg:
                    self.consume(e, effect.arg, out)
        caps = out.models.capsules
        last = e.callee.rpartition(".")[2]
        if type(e.receiver) is Instance:
            return  # a method of a project class: its own
        if (e.method and last in caps.producer_methods) or (not e.method and last in caps.producer_functions):
            out.set_fact(out.result_object(e.node, "the capsule is made here"), Capsule())

    def consume(self, e: CallPost, i: int, out: Findings) -> None:
        arg, value = e.args[i]
        for obj in objects_in(value):
            fact = out.fact(obj)
            if obj.on_entry and type(fact) is not ConsumedHere:
                # a parameter may be a capsule: the callers replay this consumption
                out.set_fact(obj, ConsumedHere(out.step(e.node, "consumed here")))
            elif type(fact) is Capsule and not fact.reported:
                if fact.consumed:  # OWN501: a capsule consumed a second time
                    out.report("OWN501", e.node, arg.value, (), (fact.first,) if fact.first else (), obj=obj)
                    out.set_fact(obj, Capsule(True, True, fact.first))
                else:
                    out.set_fact(obj, Capsule(True, False, out.step(e.node, "first consumed here")))

    def on_replayed(self, e: Replayed, out: Findings) -> None:
        callee = out.fact_in(e.facts)
        fact = out.fact(e.obj)
        if type(callee) is not ConsumedHere or type(fact) is not Capsule or fact.reported:
            return
        at = callee.at
        name = e.via.name
        if fact.consumed:  # OWN501, the second consumption inside a helper
            inner = (Step(at.unit, at.node, f"consumed again here, inside `{name}`", at.stmt),) if at else ()
            first = (fact.first,) if fact.first else ()
            out.report("OWN501", e.node, e.spelled, (("via", name),), (*first, *inner), obj=e.obj)
            out.set_fact(e.obj, Capsule(True, True, fact.first))
        else:
            label = f"consumed here, inside `{name}`"
            step = Step(at.unit, at.node, label, at.stmt) if at else out.step(e.node, label)
            out.set_fact(e.obj, Capsule(True, False, step))

    def on_export(self, e: Export, out: Findings) -> None:
        if e.state.prov == "explicit":  # OWN502: exported from an explicitly created context
            out.report("OWN502", e.node, e.spelled, (), e.state.story[:2])

    def on_to_thread(self, e: ToThread, out: Findings) -> None:
        # OWN403: a runtime-owned handle (transferred, or borrowed from an owner
        # that is not host memory) handed to another thread
        if e.state.kind not in (TRANSFERRED, BORROWED) or e.state.tag == THREAD_SAFE:
            return
        if e.owner is not None and is_buffer_tag(e.owner.tag):
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
