"""Capsules, DLPack exports and interop inputs (OWN401, OWN501, OWN502,
OWN602): what the events about these values mean (threads and host tasks:
threads.py).

Capsules (OWN501) are this checker's own facts: the value of a call the
`[capsules]` section names a producer (`x.__dlpack__()`, `to_dlpack(x)`)
is a `Capsule`; a call whose model has the `Consume` effect consumes the
capsule at its argument, and a second consumption on the same path is the
finding. A parameter or field a function consumes is `ConsumedHere`, which
its callers replay on the capsule they passed (`Replayed`).

Context provenance (OWN502) is this checker's facts too: what a call the
section names an explicit context makes (`SyclContext(dev)`, not one built
from a capsule) is `Explicit`, and so is what a call makes from an explicit
value passed through a carrier keyword (`sycl_queue=q`, `buffer=mem`) or,
for the calls `carrier-positional` names, any positional argument; a
subscript of an explicit value (`x[1:]`) is explicit. Made in a function
from a parameter or field it knows nothing of, the value is `CarriedFrom`
that parameter or field, which its callers resolve when the value is handed
back to them (`Replayed`): explicit if what they passed there is. Exporting
an explicit value (the receiver of an `export-methods` method, the first
argument of an `export-functions` function) is the finding.

Known limits: provenance follows one level of helper (a value carried from
a parameter the caller itself knows nothing of is forgotten).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

import libcst as cst

from ownlint.engine.events import (
    Adopting,
    Borrowed,
    CallPost,
    Checker,
    Findings,
    Indexed,
    Replayed,
)
from ownlint.engine.frontend.cfg import source_of
from ownlint.engine.modelling.effects import Consume
from ownlint.engine.values.memvalues import is_buffer_tag
from ownlint.engine.values.state import Step
from ownlint.engine.values.values import (
    Addr,
    BufRef,
    Dict,
    Field,
    Instance,
    Obj,
    Param,
    Prop,
    Seq,
    Sym,
    Val,
    objects_in,
)


@dataclass(frozen=True, slots=True)
class Capsule:
    """A capsule (OWN501): `consumed` once a consumer took it (first at
    `first`); `reported` once its second consumption was."""

    consumed: bool = False
    reported: bool = False
    first: Step | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Explicit:
    """A value bound to an explicitly created context (OWN502); `story`: how it
    came to be (the steps a finding shows)."""

    story: tuple[Step, ...] = field(default=(), compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class CarriedFrom:
    """A value made in a function from its parameter or field `source`
    (values.Param, values.Field), of which the function knows nothing: as
    explicit as what its callers pass there."""

    source: Obj


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
        if type(e.receiver) is Instance:
            return  # a method of a project class: its own
        caps = out.models.capsules
        last = e.callee.rpartition(".")[2]
        if (e.method and last in caps.export_methods) or (not e.method and last in caps.export_functions):
            if e.method and type(e.node.func) is cst.Attribute:
                _export(e.node, e.receiver, e.node.func.value, out)
            elif not e.method and e.args:
                _export(e.node, e.args[0][1], e.args[0][0].value, out)
        _provenance(e, last, out)
        if (e.method and last in caps.producer_methods) or (not e.method and last in caps.producer_functions):
            out.set_fact(out.result_object(e.node, "the capsule is made here"), Capsule())

    def on_indexed(self, e: Indexed, out: Findings) -> None:
        """A slice or view of an explicit value keeps the context."""
        if e.value is None and isinstance(e.base, Obj):
            fact = out.fact(e.base)
            if type(fact) is Explicit:
                out.set_fact(out.result_object(e.node), Explicit(fact.story))

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
        if type(callee) is CarriedFrom or type(callee) is Explicit:
            _handed_back(e, callee, out)
            return
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

    def on_borrowed(self, e: Borrowed, out: Findings) -> None:
        owner = e.owner_state
        if owner.tag in e.borrow.unsupported:  # OWN401: get_native of a kind that has none
            call = e.borrow.function.rpartition(".")[2]
            out.report("OWN401", e.node, e.spelled, (("kind", owner.tag), ("call", call)), owner.story)

    def on_adopting(self, e: Adopting, out: Findings) -> None:
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
        if adopt.native_memory_only and _host_memory(e.handle, out):
            out.report("OWN602", e.node, None, (("problem", "host-memory"),))


def _export(node: cst.Call, value: Val, spelled: cst.CSTNode, out: Findings) -> None:
    """`value` exported through DLPack at `node`: OWN502 if it is bound to an explicit context."""
    for obj in objects_in(value):
        fact = out.fact(obj)
        if type(fact) is Explicit:
            out.report("OWN502", node, source_of(spelled), (), fact.story[:2])


def _explicit(v: Val, out: Findings) -> bool:
    return any(type(out.fact(o)) is Explicit for o in objects_in(v))


def _provenance(e: CallPost, last: str, out: Findings) -> None:
    """What a call makes on an explicitly created context is explicit too (a
    context built from a capsule is not: a context's own, rebuilt)."""
    caps = out.models.capsules
    first = e.args[0][1] if e.args else None
    label = "an explicitly created context is made here"
    explicit = last in caps.explicit_contexts and not (isinstance(first, Obj) and type(out.fact(first)) is Capsule)
    if not explicit:
        carried = [v for a, v in e.args if a.keyword is not None and a.keyword.value in caps.carrier_keywords]
        if last in caps.carrier_positional:
            carried += [v for a, v in e.args if a.keyword is None]
        if not carried:
            return
        label = "made on an explicitly created context here"
        if not any(_explicit(v, out) for v in carried):
            _carried_from(e, carried, out)
            return
    result = e.result
    if isinstance(result, Obj):
        state = out.state(result)
        out.set_fact(result, Explicit((*(state.story if state is not None else ()), out.step(e.node, label))))
    else:
        out.set_fact(out.result_object(e.node, label), Explicit((out.step(e.node, label),)))


def _carried_from(e: CallPost, carried: list[Val], out: Findings) -> None:
    """Made from the one parameter or field this function knows nothing of among `carried`."""
    sources = [
        o
        for v in carried
        for o in objects_in(v)
        if o.on_entry and type(out.fact(o)) is not Explicit and type(out.fact(o)) is not CarriedFrom
    ]
    if len(sources) != 1 or (e.result is not None and not isinstance(e.result, Obj)):
        return
    if type(sources[0]) is not Param and type(sources[0]) is not Field:
        return
    result = e.result if isinstance(e.result, Obj) else out.result_object(e.node)
    fact = out.fact(result)
    if type(fact) is not Explicit and type(fact) is not CarriedFrom:
        out.set_fact(result, CarriedFrom(sources[0]))


def _handed_back(e: Replayed, callee: Explicit | CarriedFrom, out: Findings) -> None:
    """A value a callee made and handed back: explicit as it was there (its
    story going on with the step of the call), or if what the caller passed
    for the parameter or field it was carried from is."""
    state = out.state(e.obj)
    if isinstance(callee, Explicit):
        out.set_fact(e.obj, Explicit((*callee.story, *(state.story[-1:] if state is not None else ()))))
    elif e.caller is not None and _explicit(e.caller(callee.source), out):
        out.set_fact(e.obj, Explicit(state.story if state is not None else ()))
    else:
        out.set_fact(e.obj, None)


def _host_memory(handle: Val, out: Findings) -> bool:
    """Whether an adopted handle is host memory: an address in a buffer (not a
    parameter's), a reference to a buffer, or an object the engine knows as a
    host buffer."""
    if isinstance(handle, Obj):
        state = out.state(handle)
        return state is not None and is_buffer_tag(state.tag)
    return (type(handle) is Addr and not isinstance(handle.buffer, Param)) or type(handle) is BufRef


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
