"""Asynchronous submission: the part of the evaluator (`typestate_eval.Evaluator`)
that follows memory an asynchronous call may still read.

A submission the models list (`[[submit]]`: `q.submit_async(kernel, args)`)
returns an event object at once; each owner of a kind `[async]` names found in
its argument positions (a list or tuple there: its elements) is *in flight*:
its `HState.inflight` holds the event. The event's `HState.after` holds the
events it waited for (its dependencies, and theirs). Waiting an event
(`ev.wait()`) completes it and everything in its `after`; a wait whose
receiver is no known event (`q.wait()`), or a wait function given anything
but a literal list of known events, completes every submission; handing the
arguments to a keep-alive method (`q._submit_keep_args_alive(args, evs)`)
ends their flight and lets them escape. An owner that dies in flight (deleted,
rebound, remade by the next loop iteration while its name still holds it, or
local when the function returns) is an `InFlightReleased` event.

Known limits: an owner that escaped (stored, passed to a call that may
retain it) is not known to die, so nothing is reported for it. An explicit
free or close of an owner in flight is not followed. Waits are not tied to
their queue: any `wait` on something that is not a known event counts as
waiting every submission (this can only lose findings).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ownlint.engine.cfg import source_of
from ownlint.engine.eval_shared import EvalShared
from ownlint.engine.events import InFlightReleased
from ownlint.engine.state import LIVE, OWNER, HState
from ownlint.engine.values import Obj, Seq, Val, objects_in

EVENT_TAG = "submission event"  # the tag of an event object a submission returns

if TYPE_CHECKING:
    from ownlint.engine.model_types import Submit


class AsyncEval:
    """Asynchronous submissions, the evaluator's `asynchronous` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.models = ev.models
        self.on = ev.on

    def async_call(
        self, node: cst.Call, qualified: str, receiver: Val, args: list[tuple[cst.Arg, Val]], method: bool
    ) -> tuple[bool, Val]:
        """A submission, a wait or a keep-alive: (True, its value); else (False, None)."""
        spec = self.models.asynchronous
        if method:
            assert type(node.func) is cst.Attribute
            name = node.func.attr.value
            submit = self.models.submits.get(name)
            if submit is not None:
                return True, self._submit(node, submit, args)
            if name in spec.wait_methods:
                events = [o for o in objects_in(receiver) if self._is_event(o)]
                self._complete(events or None)
                self._use_all(node, args)
                return True, None
            if name in spec.keep_alive_methods and args:
                for obj in objects_in(args[0][1]):
                    hs = self.ev.st.heap.get(obj)
                    if hs is not None and hs.inflight:
                        self.ev.st.heap[obj] = hs.but(inflight=frozenset())
                self._use_all(node, args)
                for _, v in args:
                    self.ev.names.escape(v)  # the runtime keeps them alive
                return True, None
        if qualified in spec.wait_functions:
            first = args[0][1] if args else None
            items = first.items if type(first) is Seq else ()
            events = [e for e in items if isinstance(e, Obj) and self._is_event(e)]
            self._complete(events if events and len(events) == len(items) else None)
            self._use_all(node, args)
            return True, None
        return False, None

    def _is_event(self, obj: Obj) -> bool:
        hs = self.ev.st.heap.get(obj)
        return hs is not None and hs.tag == EVENT_TAG

    def _use_all(self, node: cst.Call, args: list[tuple[cst.Arg, Val]]) -> None:
        for a, v in args:
            self.ev.calls.use(v, node, a.value)

    def _submit(self, node: cst.Call, submit: Submit, args: list[tuple[cst.Arg, Val]]) -> Val:
        memory: set[int] = set()  # indexes into `args` of the memory arguments
        deps: set[Obj] = set()
        position = 0
        for k, (a, v) in enumerate(args):
            if a.keyword is None and not a.star:
                is_memory, is_deps = position in submit.arguments, position == submit.dependencies
                position += 1
            else:
                word = a.keyword.value if a.keyword is not None else ""
                is_memory, is_deps = word in submit.argument_keywords, word in submit.dependency_keywords
            if is_memory:
                memory.add(k)
            elif is_deps:
                deps.update(o for o in objects_in(v) if self._is_event(o))
        after = set(deps)
        for d in deps:
            after |= self.ev.st.heap[d].after
        event = self.fa.site_object(node, "result")
        self.ev.names.forget(event)
        step = self.fa.step_of(node, "submitted here; it may still run")
        self.ev.st.heap[event] = HState(LIVE, False, (step,), tag=EVENT_TAG, after=frozenset(after))
        kinds = self.models.asynchronous.memory_owner_kinds
        for k, (a, v) in enumerate(args):
            self.ev.calls.use(v, node, a.value)
            inflight = [o for o in objects_in(v) if k in memory and self._may_die(o, kinds)]
            for o in inflight:
                hs = self.ev.st.heap[o]
                self.ev.st.heap[o] = hs.but(inflight=hs.inflight | {event})
            if not inflight:
                self.ev.names.escape(v)
        return event

    def _may_die(self, obj: Obj, kinds: set[str]) -> bool:
        hs = self.ev.st.heap.get(obj)
        return hs is not None and hs.kind == OWNER and not hs.escaped and not obj.on_entry and hs.tag in kinds

    def _complete(self, events: list[Obj] | None) -> None:
        """The submissions `events` (None: every one) and those they waited for are done."""
        heap = self.ev.st.heap
        done: set[Obj] = set()
        for e in events or ():
            done.add(e)
            done |= heap[e].after
        for obj, hs in list(heap.items()):
            if hs.inflight and (events is None or hs.inflight & done):
                left = frozenset() if events is None else hs.inflight - done
                heap[obj] = hs.but(inflight=left)

    # -- owners that die in flight --------------------------------------------------
    def dies_in_flight(self, obj: Obj, hs: HState, node: cst.CSTNode, name: str | None, how: str) -> None:
        """`obj` (an owner nothing else holds) dies at `node`: in flight, that is `InFlightReleased`."""
        if not hs.inflight or hs.reported:
            return
        submitted = tuple(
            self.ev.st.heap[e].story[0]
            for e in sorted(hs.inflight, key=repr)
            if e in self.ev.st.heap and self.ev.st.heap[e].story
        )
        event = InFlightReleased(obj, hs, node, name, how, submitted[:1])
        for handler in self.on["in_flight_released"]:
            handler(event, self.ev)

    def remade_in_flight(self, obj: Obj) -> None:
        """The site that made `obj` makes it again (`src = C()` run by the next
        loop iteration): if the statement rebinds the only names holding the
        old one while it is in flight, it dies here."""
        hs = self.ev.st.heap.get(obj)
        site = self.ev.site
        if hs is None or not hs.inflight or hs.kind != OWNER or hs.escaped or type(site) is not cst.Assign:
            return
        targets = {t.target.value for t in site.targets if type(t.target) is cst.Name}
        holders = {k for k, v in self.ev.st.env.items() if obj in objects_in(v)}
        if holders and holders <= targets:
            self.dies_in_flight(obj, hs, site, source_of(site.targets[0].target), "rebound")

    def frame_ends(self, node: cst.CSTNode, how: str = "returns") -> None:
        """`return` (or falling off the end, `how` "ends", at the last statement
        run): every local owner still in flight dies with the frame."""
        for obj, hs in list(self.ev.st.heap.items()):
            if hs.inflight and hs.kind == OWNER and not hs.escaped and not obj.on_entry:
                names = sorted(k for k, v in self.ev.st.env.items() if obj in objects_in(v) and "." not in k)
                self.dies_in_flight(obj, hs, node, names[0] if names else None, how)
