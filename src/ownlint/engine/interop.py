"""Threads and host tasks: the rest of the values the models describe, as a
component of the evaluator (capsules and context provenance are the interop
checker's own facts: checks/interop.py). It publishes events (events.py)
for the checkers; it decides no rule.

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

import libcst as cst

from ownlint.engine.eval_shared import EvalShared
from ownlint.engine.events import AdoptCall, Store, ToThread
from ownlint.engine.memvalues import parse_tag
from ownlint.engine.models import Adopt
from ownlint.engine.state import LIVE, LIVE_STATE, HState
from ownlint.engine.values import Addr, BufRef, Dict, Obj, Param, Seq, Val, objects_in

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
        threads = self.models.threads
        last = qualified.rpartition(".")[2]
        if method and last in self.models.host_task.native_mem_methods:
            return True, self.new_tagged(node, "native-mem", "the native memory pointer is taken here")
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
            host = parse_tag(self.ev.st.heap.get(handle, LIVE_STATE).tag) is not None
        event = AdoptCall(adopt, node, host, tuple(args))
        for handler in handlers:
            handler(event, self.ev)
