"""Exports, context provenance, threads and host tasks: the rest of the
values the models describe, as a component of the evaluator (capsules are
the interop checker's own facts: checks/interop.py). It publishes events
(events.py) for the checkers; it decides no rule.

- `HState.prov == "explicit"` marks what was made on an explicitly created
  context; it flows through the carrier keywords a model lists (`queue=`,
  `buffer=` ...) and slices into arrays; exporting an object is `Export`.
- A value given to another thread is `ToThread`; one stored where it
  outlives the function is `Store`.
- The pointer from a model's native-memory method is tagged
  "native-mem".

Known limits:
- A host task is the function that calls a native-memory method; a helper it calls
  with the pointer is not followed.
- A property list built by a call other than a literal is seen through only
  when one of its arguments names a forbidden property.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from ownlint.engine.cfg import source_of
from ownlint.engine.eval_shared import EvalShared
from ownlint.engine.events import AdoptCall, Export, Store, ToThread
from ownlint.engine.memvalues import is_buffer_tag
from ownlint.engine.models import Adopt
from ownlint.engine.state import LIVE, LIVE_STATE, HState
from ownlint.engine.values import Addr, BufRef, Dict, Field, Obj, Param, Seq, Val, objects_in

_objs = objects_in


def _elements(v: Val) -> list[Val]:
    """A value and, for containers, every element in it."""
    out = [v]
    if type(v) is Seq:
        for x in v.items:
            out.extend(_elements(x))
    elif type(v) is Dict:
        for _, x in v.items:
            out.extend(_elements(x))
    return out


class InteropEval:
    """The interop catalogue, the evaluator's `interop` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.models = ev.models
        self.on = ev.on

    def tagged(self, v: Val, tag: str) -> bool:
        objs = _objs(v)
        return len(objs) == 1 and self.ev.st.heap.get(objs[0], LIVE_STATE).tag == tag

    def explicit(self, v: Val) -> bool:
        return any(self.ev.st.heap.get(o, LIVE_STATE).prov == "explicit" for x in _elements(v) for o in _objs(x))

    def new_tagged(self, node: cst.CSTNode, tag: str, label: str) -> Obj:
        obj = self.fa.site_object(node, "tagged")
        self.ev.names.forget(obj)
        self.ev.st.heap[obj] = HState(LIVE, False, (self.fa.step_of(node, label),), tag=tag)
        return obj

    # -- calls ------------------------------------------------------------------------
    def interop_call(
        self, node: cst.Call, qualified: str, receiver: Val, args: list[tuple[cst.Arg, Val]], method: bool
    ) -> tuple[bool, Val]:
        """Calls that export values, make executors and native-memory pointers,
        or hand values to threads; (handled, value)."""
        caps = self.models.capsules
        threads = self.models.threads
        last = qualified.rpartition(".")[2]
        if method and last in self.models.host_task.native_mem_methods:
            return True, self.new_tagged(node, "native-mem", "the native memory pointer is taken here")
        if (method and last in caps.export_methods) or (not method and last in caps.export_functions):
            # a method call's function is an attribute: `receiver.method`
            if method:
                self.check_export(node, receiver, cast(cst.Attribute, node.func).value)
            elif args:
                self.check_export(node, args[0][1], args[0][0].value)
        if qualified in threads.thread_constructors:
            for a, v in args:
                if a.keyword is not None and a.keyword.value in threads.argument_keywords:
                    self.to_thread(node, v, qualified)
            return True, None
        if qualified in threads.executor_constructors:
            for _, v in args:
                self.ev.calls.use(v, node, "")
            return True, self.new_tagged(node, "executor", "the executor is made here")
        if method and last in threads.executor_methods and self.tagged(receiver, "executor"):
            api = f"executor.{last}"
            for _, v in args[1:]:
                self.to_thread(node, v, api)
            return True, None
        return False, None

    def check_export(self, node: cst.CSTNode, value: Val, spelled: cst.CSTNode) -> None:
        for obj in _objs(value):
            hs = self.ev.st.heap.get(obj)
            if hs is not None:
                event = Export(obj, hs, node, source_of(spelled))
                for handler in self.on["export"]:
                    handler(event, self.ev)

    def provenance(self, node: cst.Call, qualified: str, args: list[tuple[cst.Arg, Val]], result: Val) -> Val:
        """What a call makes on an explicitly created context is explicit too
        (not a context built from a value the checkers made an object of: a capsule)."""
        caps = self.models.capsules
        last = qualified.rpartition(".")[2]
        explicit = last in caps.explicit_contexts and not (args and args[0][1] in self.ev.made_values)
        step_label = "an explicitly created context is made here"
        if not explicit:
            carried = [v for a, v in args if a.keyword is not None and a.keyword.value in caps.carrier_keywords]
            if last in caps.carrier_positional:
                carried += [v for a, v in args if a.keyword is None]
            explicit = any(self.explicit(v) for v in carried)
            step_label = "made on an explicitly created context here"
            if not explicit:
                return self.carried_from(node, result, carried)
        if not explicit:
            return result
        if not isinstance(result, Obj):
            result = self.fa.site_object(node, "explicit")
            self.ev.names.forget(result)
        hs = self.ev.st.heap.get(result, LIVE_STATE)
        self.ev.st.heap[result] = hs.but(prov="explicit", story=(*hs.story, self.fa.step_of(node, step_label)))
        return result

    def carried_from(self, node: cst.Call, result: Val, carried: list[Val]) -> Val:
        """Made on a parameter or field this function knows nothing of: explicit
        if the caller's is (`HState.prov` "of:param:<i>" / "of:field:<name>",
        resolved by `typestate_replay.materialize`)."""
        sources = [o for v in carried for o in _objs(v) if o.on_entry and not self.ev.st.heap.get(o, LIVE_STATE).prov]
        if len(sources) != 1 or (result is not None and not isinstance(result, Obj)):
            return result
        src = sources[0]
        prov = f"of:param:{src.index}" if type(src) is Param else f"of:field:{src.name}" if type(src) is Field else ""
        if not prov:
            return result
        if result is None:
            result = self.fa.site_object(node, "explicit")
            self.ev.names.forget(result)
        hs = self.ev.st.heap.get(result, LIVE_STATE)
        if hs.prov:
            return result
        self.ev.st.heap[result] = hs.but(prov=prov)
        return result

    def to_thread(self, node: cst.Call, value: Val, api: str) -> None:
        """A value handed to another thread or process (`api` says how)."""
        for element in _elements(value):
            for obj in _objs(element):
                hs = self.ev.st.heap.get(obj)
                if hs is None or hs.reported:
                    continue
                owner = self.ev.st.heap.get(hs.owner) if hs.owner is not None else None
                event = ToThread(obj, hs, owner, node, api)
                for handler in self.on["to_thread"]:
                    handler(event, self.ev)

    # -- host tasks -----------------------------------------------------------------------
    def escapes_task(self, node: cst.CSTNode, value: Val, where: str) -> None:
        """A value stored where it outlives the function (`where`: attribute, global, container, return, yield)."""
        for element in _elements(value):
            for obj in _objs(element):
                hs = self.ev.st.heap.get(obj)
                if hs is not None and not hs.reported:
                    event = Store(obj, hs, node, where)
                    for handler in self.on["store"]:
                        handler(event, self.ev)

    def outside(self, base: cst.BaseExpression) -> bool:
        """Whether a container named by `base` was made outside this function."""
        while type(base) is cst.Attribute or type(base) is cst.Subscript:
            base = base.value
        if type(base) is not cst.Name:
            return False
        v = self.ev.st.env.get(base.value)
        return v is None or (isinstance(v, Obj) and v.on_entry)

    # -- adoption inputs ----------------------------------------------------------------
    def check_inputs(self, adopt: Adopt, node: cst.Call, handle: Val, args: list[tuple[cst.Arg, Val]]) -> None:
        """An adopting call's arguments, for the checkers (with whether the handle is host memory)."""
        handlers = self.on["adopt_call"]
        if not handlers:
            return
        host = (type(handle) is Addr and not isinstance(handle.buffer, Param)) or type(handle) is BufRef
        if isinstance(handle, Obj):
            host = is_buffer_tag(self.ev.st.heap.get(handle, LIVE_STATE).tag)
        event = AdoptCall(adopt, node, host, tuple(args))
        for handler in handlers:
            handler(event, self.ev)
