"""Leaks (OWN205): a handle a model's creator made that loses its last local
reference on a path that ends normally, neither released nor handed off.

What the checker knows of a handle on a path is its own fact:

- `Held`: made here (a `create` effect whose `lifetime` is "owned"), not
  released, not handed off;
- `Passed`: it went where this function loses sight of it (`Escape`) in the
  statement `site`. When that was an argument of a call, the call decides
  (`CallPost`, right after): a call whose model knows the callee (the same
  runtime's `cudaEventRecord(ev, s)`, `cuStreamSynchronize(s)`) reads its
  arguments and keeps none unless its effects adopt or consume one, so the
  handle is `Held` again; an unknown or project function, or a constructor,
  may keep it, and it is handed off (no fact), unless the handle comes back
  in the call's value. Anything else that escapes (stored in an attribute or
  a container, yielded, captured, returned) is handed off: a later event in
  another statement, or its death, finds it `Passed` still.

A handle `Held` when its last reference dies (`Death`: deleted, rebound, the
frame ends by a `return` or by falling off its end) leaks: OWN205 there.
Held when an exception leaves the frame, after a call that may raise
(`Held.risk`), it leaks on that exception: OWN206 at that call. Where the engine merges paths on
which a handle's facts differ (held on one, released on the other), the
fact is forgotten (`Checker.join_facts`): no finding without proof.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import libcst as cst

from ownlint.checks.parents import ended_with_parent
from ownlint.engine.events import (
    Bind,
    CallPost,
    CallPre,
    Checker,
    Death,
    Escape,
    Findings,
    FrameEnd,
    Release,
    Stored,
    Transfer,
)
from ownlint.engine.frontend.walk import children
from ownlint.engine.modelling import effects as fx
from ownlint.engine.values.iteration import Previous
from ownlint.engine.values.state import FREED, LIVE, HState, Step
from ownlint.engine.values.values import Obj, Ref, Seq, Site, Status, Val, objects_in

# effects by which a modelled call keeps a handle passed to it (a queued release: the queue releases it)
_KEEPS = (fx.Adopt, fx.Consume, fx.KeepAlive, fx.ReleaseLater)


@dataclass(frozen=True, slots=True)
class Held:
    """Made by the call `call` (its node's id) of `callee` (its last name),
    owned by this frame, neither released nor handed off; `risk` is the first
    call since then that may raise (OWN206), `risk_at` that call, `risk_id`
    its id (two paths with the same first risk have equal facts)."""

    call: int
    callee: str
    risk_id: int = 0
    risk: Step | None = field(default=None, compare=False, hash=False)
    risk_at: cst.CSTNode | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Mapped:
    """A mapping of memory this function made (`cudaHostRegister(a, n, f)`)
    that a model's call must end, made by the call `call` of `callee`;
    `spelled`: how that call names the memory."""

    call: int
    callee: str
    spelled: str


@dataclass(frozen=True, slots=True)
class Passed:
    """Gone out of sight in the statement `site` (its id): handed off, unless
    the call it was passed to in that statement reads it only (then `held` again)."""

    site: int
    held: Held


# methods that add an element to a container (`self.bufs.append(p)`)
_ADDS = frozenset({"append", "appendleft", "extend", "insert", "add"})


class LeakChecker(Checker):
    def on_call_pre(self, e: CallPre, out: Findings) -> None:
        """A handle added to a container field (`self.bufs.append(p)`), before
        the call hands it off; a call that ends the process (`sys.exit`, the
        models' `ends-process`) takes every handle held with it: none leaks there."""
        if e.callee in out.models.ends_process:
            for obj, fact in list(out.facts()):
                if type(fact) is Held:
                    out.set_fact(obj, None)
            return
        if e.model is None and e.method and e.callee.rpartition(".")[2] in _ADDS:
            key = e.callee.rpartition(".")[0]
            for _, value in e.args:
                for obj in objects_in(value):
                    _into_field(key, obj, e.node, True, out)

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        modelled_keeps = e.model is not None and any(isinstance(x, _KEEPS) for x in e.model.effects)
        keeps = e.model is None or modelled_keeps
        if e.model is None and not e.method:
            self._handed_back(e, out)
        if not out.models.never_raises(e.callee):
            _note_risk(e, out)
        returned = objects_in(e.result) if keeps else ()
        for _, value in e.args:
            for obj in objects_in(value):
                fact = out.fact(obj)
                if modelled_keeps and type(fact) is Held:  # an adopted handle is not always published as escaping
                    out.set_fact(obj, None)
                elif type(fact) is Passed:
                    out.set_fact(obj, None if keeps and obj not in returned else fact.held)
                elif type(fact) is Held and e.model is None and obj not in returned:
                    out.set_fact(obj, None)  # given to an unknown call that published no escape (a thread's `args`)
        if e.model is None or modelled_keeps:
            _mapped_given(e, out)
        if e.mapped and e.model is not None and any(type(x) is fx.MapRange and x.released_by for x in e.model.effects):
            # memory mapped already: this mapping fails as an overlap (OWN301's), nothing to end
            before = {hs.span.address for o, hs in out.spans() if o not in e.mapped and hs.kind == LIVE and hs.span}
            for obj in e.mapped:
                hs = out.state(obj)
                if hs is not None and hs.span is not None and isinstance(hs.span.address, Site):
                    spelled = _spelled(e, hs.span.address)
                    if hs.span.address in before or not out.local(spelled):
                        continue  # or memory given as no local name (`self.buf`): kept where it outlives the call
                    out.set_fact(obj, Mapped(id(e.node), e.callee.rpartition(".")[2], spelled))
        if e.made and e.model is not None and _owned(e.model.effects) and not _into_callers(e, out):
            held = Held(id(e.node), e.callee.rpartition(".")[2])
            for obj in e.made:
                if out.fact(obj) is None:  # not stored away by the call itself (`f(byref(self.h))`)
                    out.set_fact(obj, held)

    def _handed_back(self, e: CallPost, out: Findings) -> None:
        """A project function's value that holds a handle is a new handle at
        its caller: one the callee made and returned (its last fact there,
        `Passed` at its `return`, came back with it), or the handle inside a
        creation's status tuple given to a function whose value the analysis
        does not know (a status-checking wrapper: `check(cudaEventCreate())`
        returns the event)."""
        results = objects_in(e.result)
        if results:
            passed = {obj for _, value in e.args for obj in objects_in(value)}
            for obj in results:
                fact = out.fact(obj)
                if type(fact) is Passed and obj not in passed:
                    out.set_fact(obj, Held(id(e.node), e.callee.rpartition(".")[2]))
        if e.result is not None or len(e.args) != 1:
            return
        handles = _status_tuple_handles(e.args[0][1])
        fact = out.fact(handles[0]) if len(handles) == 1 else None
        if type(fact) is Passed:
            handle = out.result_object(e.node, f"created by `{fact.held.callee}` here")
            out.set_fact(handles[0], None)
            out.set_fact(handle, fact.held)

    def on_bind(self, e: Bind, out: Findings) -> None:
        """A handle put into a container (`bufs += [(h, d)]`, `pair = (s, e)`)
        is handed off: a container's elements are not followed. A handle
        stored in a field of `self` leaks there when no method of the class
        may let go of that field."""
        if isinstance(e.new, Obj) and "." in e.key:
            _into_field(e.key, e.new, e.node, False, out)
        if e.new is None or isinstance(e.new, Obj):
            return
        for obj in objects_in(e.new):
            fact = out.fact(obj)
            if type(fact) is Held:
                out.set_fact(obj, Passed(id(e.node), fact))

    def on_escape(self, e: Escape, out: Findings) -> None:
        fact = out.fact(e.obj)
        if type(fact) is Held:
            out.set_fact(e.obj, Passed(id(e.node), fact))
        elif type(fact) is Passed and fact.site != id(e.node):
            out.set_fact(e.obj, None)  # it went out of sight in an earlier statement

    def on_stored(self, e: Stored, out: Findings) -> None:
        """Memory kept where it outlives the function keeps its mappings."""
        _mapping_handed_off({e.obj}, out)

    def on_frame_end(self, e: FrameEnd, out: Findings) -> None:
        """A mapping (a host registration) of memory this function made that
        is still live when it returns or ends, the memory neither returned nor
        handed off, is never ended: OWN205 at the end."""
        if e.how == "raise" or out.merged:
            return
        returned = objects_in(e.value)
        for span, hs in list(out.spans()):
            fact = out.fact(span)
            if type(fact) is not Mapped or hs.kind != LIVE or hs.reported or hs.span is None:
                continue
            if hs.span.address not in returned and _memory_live(hs.span.address, out):
                out.set_fact(span, None)
                out.report("OWN205", e.node, fact.spelled, (("how", "mapping"), ("made by", fact.callee)), obj=span)

    def on_release(self, e: Release, out: Findings) -> None:
        out.set_fact(e.obj, None)

    def on_transfer(self, e: Transfer, out: Findings) -> None:
        out.set_fact(e.obj, None)

    def on_death(self, e: Death, out: Findings) -> None:
        if out.merged:
            return  # paths merged past the budget may have forgotten the name or container holding it
        fact = out.fact(e.obj)
        if e.frame == "raise":
            if type(fact) is Held and fact.risk is not None and fact.risk_at is not None and e.state.kind == LIVE:
                out.set_fact(e.obj, None)
                # at the first call that may raise since the creation (the rule's site), the function
                # the exception leaves as the story's last step
                end = out.step(e.node, "an exception leaves here, the handle unreleased")
                out.report(
                    "OWN206", fact.risk.node, e.name, (("made by", fact.callee),), (end,), obj=e.obj, at=fact.risk
                )
            return
        if type(fact) is not Held or e.state.kind != LIVE or type(e.node) is cst.FunctionDef:
            return  # not held, released in the engine's eyes (a loop's failed remake), or an exception leaves
        if e.name is not None and "." in e.name:
            return  # a field (`del self.h`): whether its class releases it is not followed
        remade = type(e.obj) is Previous and _contains(e.node, fact.call)
        if e.cause == "rebound" and not remade and (_contains(e.node, fact.call) or _calls(e.node, fact.callee)):
            # the same creator is called again, as tests do after a creation meant to fail (`assert
            # err == CUDA_ERROR_...`, which the analysis does not read as a failure): not followed.
            # A loop that makes it again (`remade`) loses the previous iteration's handle there.
            return
        out.set_fact(e.obj, None)
        if ended_with_parent(e.state):
            return  # its context or module was destroyed, and it with them
        out.report("OWN205", e.node, e.name, (("how", e.cause),), obj=e.obj)


def _mapped_given(e: CallPost, out: Findings) -> None:
    """The memory of a mapping given to a call that may keep it (an unknown or
    project function): the mapping goes with it."""
    spans = list(out.spans())  # most paths map nothing: then nothing is to be handed off
    if spans:
        given = {obj for _, value in e.args for obj in objects_in(value)}
        if given:
            _mapping_handed_off(given, out, spans)


def _mapping_handed_off(memory: set[Obj], out: Findings, spans: list[tuple[Obj, HState]] | None = None) -> None:
    for span, hs in spans if spans is not None else list(out.spans()):
        if type(out.fact(span)) is Mapped and hs.span is not None and hs.span.address in memory:
            out.set_fact(span, None)


def _memory_live(address: Val, out: Findings) -> bool:
    """Whether the mapped memory is not released (a reservation freed ends
    what is mapped in it, or the release fails)."""
    hs = out.state(address) if isinstance(address, Obj) else None
    return hs is None or hs.kind != FREED


def _spelled(e: CallPost, address: Obj) -> str:
    """How the call spells the memory it maps (the first argument that holds it)."""
    for arg, value in e.args:
        if address in objects_in(value) and type(arg.value) is cst.Name:
            return arg.value.value
    return ""


def _into_field(key: str, obj: Obj, node: cst.CSTNode, elements: bool, out: Findings) -> None:
    """The handle `obj` is stored in (with `elements`, added to) the field
    `key` of the running method's object at `node`: OWN205 there when no
    method of its class (its bases, the classes derived from it) may let go
    of what the field holds."""
    fact = out.fact(obj)
    if type(fact) is Passed and (elements or fact.site == id(node)):
        fact = fact.held  # an element also put in a local container (`binding = {"ptr": p}`)
    if type(fact) is not Held:
        return
    fate = out.field_fate(key, elements)
    if fate is None or fate.lets_go:
        return
    out.set_fact(obj, None)
    facts = (("how", "field"), ("class", fate.cls), ("releasers", ", ".join(fate.releasers)))
    out.report("OWN205", node, key, facts, obj=obj)


def _into_callers(e: CallPost, out: Findings) -> bool:
    """Whether the call writes what it makes into variables the caller
    passed: an out-parameter (`byref(x)`) of a name that is no local of the
    function (its parameter, whose object is the caller's, as in
    `init_c_var(T, lambda x: check(create(byref(x))))`, or a global). The
    caller holds the handle then; nothing is lost when the function ends."""
    keys = [v.key for _, v in e.args if type(v) is Ref and v.key is not None]
    return bool(keys) and all("." not in k and k[:1] != "<" and not out.local(k) for k in keys)


def _note_risk(e: CallPost, out: Findings) -> None:
    """The call `e` may raise: it is the first risk of each handle held with
    none yet, unless it checks that handle's own creation status (when that
    check raises, the creation failed and nothing was made)."""
    checked: set[int] | None = None  # made when some handle has no risk yet: most calls find none
    for obj, fact in list(out.facts()):
        if type(fact) is Held and fact.risk is None:
            if checked is None:
                checked = {status.call for _, value in e.args for status in _statuses(value)}
            if fact.call not in checked:
                out.set_fact(
                    obj, replace(fact, risk_id=id(e.node), risk=out.step(e.node, "may raise here"), risk_at=e.node)
                )


def _statuses(value: Val) -> list[Status]:
    """The statuses in an argument: a status, or a status tuple's first element."""
    if type(value) is Status:
        return [value]
    if type(value) is Seq and value.items and type(value.items[0]) is Status:
        return [value.items[0]]
    return []


def _contains(node: cst.CSTNode, target: int) -> bool:
    """Whether the node whose id is `target` is `node` or inside it."""
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) == target:
            return True
        stack.extend(children(n))
    return False


def _calls(node: cst.CSTNode, last_name: str) -> bool:
    """Whether `node` calls a function whose last name is `last_name`."""
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.Call:
            func = n.func
            name = func.attr.value if type(func) is cst.Attribute else func.value if type(func) is cst.Name else None
            if name == last_name:
                return True
        stack.extend(children(n))
    return False


def _status_tuple_handles(value: Val) -> list[Obj]:
    """The handles in a modelled call's `(status, ...)` tuple, or none."""
    if type(value) is Seq and value.items and type(value.items[0]) is Status:
        return [obj for item in value.items[1:] for obj in objects_in(item)]
    return []


def _owned(effects: tuple[fx.Effect, ...]) -> bool:
    """Whether the handles a call makes are the program's to release: every
    creation of its model is owned and named by no key (a keyed handle is
    counted by its key, not by the object)."""
    creates = [x for x in effects if type(x) is fx.Create]
    return bool(creates) and all(x.lifetime == "owned" and x.key is None for x in creates)
