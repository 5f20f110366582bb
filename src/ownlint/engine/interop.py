"""Capsules, context provenance, threads and host tasks (rules OWN402,
OWN403, OWN501, OWN502, OWN602; `ownlint explain` documents each): the rest of the catalogue
that follows values, as a mixin of the evaluator.

- A capsule is an object tagged "capsule"; a consumer moves it to CONSUMED,
  and a second consumption is OWN501.
- `HState.prov == "explicit"` marks what was made on an explicitly created
  context; it flows through the carrier keywords (`sycl_queue=`, `buffer=`
  ...) and slices into arrays; exporting such an object is OWN502.
- A runtime-owned handle (TRANSFERRED, or BORROWED from an owner not made
  with keep) given to another thread is OWN403.
- The pointer from `get_native_mem` is tagged "native-mem"; storing it where
  it outlives the function that got it is OWN402.

Known limits:
- A host task is the function that calls `get_native_mem`; a helper it calls
  with the pointer is not followed.
- A property list built by a call other than a literal is seen through only
  when one of its arguments names a forbidden property.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import libcst as cst

from ownlint.engine.cfg import source_of
from ownlint.engine.memvalues import parse_tag
from ownlint.engine.models import Adopt
from ownlint.engine.state import BORROWED, CONSUMED, LIVE, TRANSFERRED, HState
from ownlint.engine.typestate_base import RawViolation
from ownlint.engine.values import Addr, BufRef, Dict, Obj, Prop, Seq, Sym, Val, objects_in

if TYPE_CHECKING:
    from ownlint.engine.models import ModelSet
    from ownlint.engine.state import PathState, Step
    from ownlint.engine.summaries import Summary
    from ownlint.engine.typestate_base import Analysis


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
    """The interop half of `_Eval` (mixed in; `self` is the evaluator)."""

    if TYPE_CHECKING:  # what the evaluator (typestate_eval._Eval, with MemoryEval) provides
        fa: Analysis
        st: PathState
        models: ModelSet

        def forget(self, obj: Obj) -> None: ...
        def use(
            self,
            value: Val,
            node: cst.CSTNode,
            spelled: str | cst.CSTNode,
            via: Summary | None = None,
            inner: Step | None = None,
        ) -> None: ...
        def report_plain(
            self,
            code: str,
            node: cst.CSTNode,
            handle: str | None,
            facts: tuple[tuple[str, str], ...] = (),
            story: tuple[Step, ...] = (),
        ) -> None: ...

    def tagged(self, v: Val, tag: str) -> bool:
        objs = _objs(v)
        return len(objs) == 1 and self.st.heap.get(objs[0], HState(LIVE)).tag == tag

    def explicit(self, v: Val) -> bool:
        return any(self.st.heap.get(o, HState(LIVE)).prov == "explicit" for x in _elements(v) for o in _objs(x))

    def new_tagged(self, node: cst.CSTNode, tag: str, label: str) -> Obj:
        obj = self.fa.site_object(node, "tagged")
        self.forget(obj)
        self.st.heap[obj] = HState(LIVE, False, (self.fa.step_of(node, label),), tag=tag)
        return obj

    # -- calls ------------------------------------------------------------------------
    def interop_call(
        self, node: cst.Call, qualified: str, receiver: Val, args: list[tuple[cst.Arg, Val]], method: bool
    ) -> tuple[bool, Val]:
        """Calls that make capsules, executors and native-memory pointers, or
        hand values to threads; (handled, value)."""
        caps = self.models.capsules
        threads = self.models.threads
        last = qualified.rpartition(".")[2]
        positional = [v for a, v in args if a.keyword is None and not a.star]
        if method and last in self.models.host_task.native_mem_methods:
            return True, self.new_tagged(node, "native-mem", "the native memory pointer is taken here")
        if (method and last in caps.producer_methods) or (not method and last in caps.producer_functions):
            exported = receiver if method else (positional[0] if positional else None)
            if (method and last in caps.export_methods) or (not method and last in caps.export_functions):
                # a method call's function is an attribute: `receiver.method`
                self.check_export(
                    node,
                    exported,
                    cast(cst.Attribute, node.func).value if method else node.args[0].value if node.args else node,
                )
            return True, self.new_tagged(node, "capsule", "the capsule is made here")
        if qualified in threads.thread_constructors:
            for a, v in args:
                if a.keyword is not None and a.keyword.value in threads.argument_keywords:
                    self.to_thread(node, v, qualified)
            return True, None
        if qualified in threads.executor_constructors:
            for _, v in args:
                self.use(v, node, "")
            return True, self.new_tagged(node, "executor", "the executor is made here")
        if method and last in threads.executor_methods and self.tagged(receiver, "executor"):
            api = f"executor.{last}"
            for _, v in args[1:]:
                self.to_thread(node, v, api)
            return True, None
        return False, None

    def consume_capsule(self, node: cst.Call, qualified: str, args: list[tuple[cst.Arg, Val]]) -> bool:
        """A consumer given a capsule renames it; True when one was consumed."""
        caps = self.models.capsules
        last = qualified.rpartition(".")[2]
        if last not in caps.consumers or not args:
            return False
        value = args[0][1]
        consumed = False
        for obj in _objs(value):
            hs = self.st.heap.get(obj)
            if obj.on_entry and (hs is None or hs.kind != CONSUMED):
                # a parameter may be a capsule: the callers replay this consumption
                step = self.fa.step_of(node, "consumed here")
                self.st.heap[obj] = (hs or HState(LIVE)).with_step(CONSUMED, step)
                continue
            if hs is None or hs.tag != "capsule":
                continue
            consumed = True
            if hs.reported:
                continue
            if hs.kind == CONSUMED:
                self.fa.report(self.st, "OWN501", node, obj, source_of(args[0][0].value))
            else:
                self.st.heap[obj] = hs.with_step(CONSUMED, self.fa.step_of(node, "first consumed here"))
        if not consumed and last in caps.export_functions:
            self.check_export(node, value, args[0][0].value)
        return consumed

    def check_export(self, node: cst.CSTNode, value: Val, spelled: cst.CSTNode) -> None:
        for obj in _objs(value):
            hs = self.st.heap.get(obj)
            if hs is not None and hs.prov == "explicit":
                if self.fa.violations is not None:
                    self.fa.violations.append(
                        RawViolation(
                            "OWN502", self.fa.unit.index, node, source_of(spelled), (), hs.story[:2], stmt=self.fa.at
                        )
                    )
                return

    def provenance(
        self, node: cst.Call, qualified: str, args: list[tuple[cst.Arg, Val]], result: Val, capsule_in: bool
    ) -> Val:
        """What a call makes on an explicitly created context is explicit too."""
        caps = self.models.capsules
        last = qualified.rpartition(".")[2]
        explicit = last in caps.explicit_contexts and not capsule_in
        step_label = "an explicitly created context is made here"
        if not explicit:
            carried = [v for a, v in args if a.keyword is not None and a.keyword.value in caps.carrier_keywords]
            if last in caps.carrier_positional:
                carried += [v for a, v in args if a.keyword is None]
            explicit = any(self.explicit(v) for v in carried)
            step_label = "made on an explicitly created context here"
        if not explicit:
            return result
        if not isinstance(result, Obj):
            result = self.fa.site_object(node, "explicit")
            self.forget(result)
        hs = self.st.heap.get(result, HState(LIVE))
        self.st.heap[result] = hs.but(prov="explicit", story=(*hs.story, self.fa.step_of(node, step_label)))
        return result

    def to_thread(self, node: cst.Call, value: Val, api: str) -> None:
        """OWN403: a runtime-owned handle handed to another thread or process."""
        for element in _elements(value):
            for obj in _objs(element):
                hs = self.st.heap.get(obj)
                if hs is None or hs.reported or hs.kind not in (TRANSFERRED, BORROWED):
                    continue
                owner = self.st.heap.get(hs.owner) if hs.owner is not None else None
                if owner is not None and owner.tag.startswith("buffer:"):
                    continue
                self.fa.report(self.st, "OWN403", node, obj, None, (("api", api),))

    # -- host tasks -----------------------------------------------------------------------
    def escapes_task(self, node: cst.CSTNode, value: Val, where: str) -> None:
        """OWN402: the native memory pointer (or a value derived from it) is stored
        where it outlives the host task."""
        for element in _elements(value):
            for obj in _objs(element):
                hs = self.st.heap.get(obj)
                if hs is not None and hs.tag == "native-mem" and not hs.reported:
                    self.fa.report(self.st, "OWN402", node, obj, None, (("where", where),))

    def outside(self, base: cst.BaseExpression) -> bool:
        """Whether a container named by `base` was made outside this function."""
        while type(base) is cst.Attribute or type(base) is cst.Subscript:
            base = base.value
        if type(base) is not cst.Name:
            return False
        v = self.st.env.get(base.value)
        return v is None or (isinstance(v, Obj) and v.on_entry)

    # -- invalid inputs (OWN602) ----------------------------------------------------------
    def check_inputs(self, adopt: Adopt, node: cst.Call, handle: Val, args: list[tuple[cst.Arg, Val]]) -> None:
        for a, v in args:
            if a.keyword is None:
                continue
            key = a.keyword.value
            if key in adopt.non_empty_keywords and _empty(v, a.value, adopt.empty_constructor_suffixes):
                self.report_plain(
                    "OWN602", node, None, (("problem", "empty-devices"), ("detail", f"{key}={source_of(a.value)}"))
                )
            if key in adopt.property_keywords:
                bad = _forbidden(v, adopt.forbidden_properties)
                if bad:
                    self.report_plain("OWN602", node, None, (("problem", "compute-index"), ("detail", bad)))
        if adopt.native_memory_only:
            host = type(handle) is Addr or type(handle) is BufRef
            if isinstance(handle, Obj):
                host = parse_tag(self.st.heap.get(handle, HState(LIVE)).tag) is not None
            if host:
                self.report_plain("OWN602", node, None, (("problem", "host-memory"),))


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


def _forbidden(v: Val, names: tuple[str, ...]) -> str:
    """The forbidden property a property value names, or ""."""
    for element in _elements(v):
        if type(element) is Prop or type(element) is Sym:
            last = element.name.rpartition(".")[2]
            if last in names:
                return last
    return ""
