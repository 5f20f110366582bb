"""Calls: how the evaluator (`typestate_eval.Evaluator`) runs a call (models,
memory hooks, project summaries), and the effects a call has on
one object: use, free, create."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared, annotated_parameters
from ownlint.engine.evaluator.typestate_base import _deref, _index, target_key
from ownlint.engine.events import Release, Use
from ownlint.engine.modelling.effects import KeepAlive
from ownlint.engine.modelling.model_types import CallModel
from ownlint.engine.modelling.models import Create
from ownlint.engine.modelling.models import Release as Release_
from ownlint.engine.values import status
from ownlint.engine.values.state import (
    BORROWED,
    FREED,
    KEPT,
    LIVE,
    LIVE_STATE,
    OWNER,
    OWNER_DEAD,
    TRANSFERRED,
    HState,
    Step,
)
from ownlint.engine.values.values import (
    Addr,
    BufRef,
    Const,
    Dict,
    Instance,
    Obj,
    Param,
    Prop,
    Ref,
    Seq,
    Sym,
    Val,
    objects_in,
)

if TYPE_CHECKING:
    from ownlint.engine.evaluator.eval_shared import Analysis
    from ownlint.engine.program.summaries import Summary


def annotated_receivers(fa: Analysis) -> dict[Param, str]:
    """The parameters annotated with a class that some `receiver-of` lists
    (`def fill(mr: MemoryResource)`, the annotation resolved through the
    module's imports), each with that class: what the models say of a
    method on receivers the class made applies to them, as if the class had
    made them in the function (`CallEval.receiver_model`). The annotation is
    taken at its word; a string annotation, `Optional[X]` or `X | None` is
    not read, nor a parameter of a project class (`objects.annotated_instances`)."""
    if not fa.models.receiver_creators:
        return {}
    return {
        Param.of(fa.params.index(name)): qualified
        for name, qualified in annotated_parameters(fa)
        if fa.models.receives(qualified)
    }


class CallEval:
    """Calls and their effects, the evaluator's `calls` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.models = ev.models
        self.on = ev.on

    # -- calls ---------------------------------------------------------------
    def expr_Call(self, node: cst.Call) -> Val:
        fa = self.fa
        if type(node.func) is cst.Name and node.func.value in self.ev.st.env:
            qualified = "?"  # a local (a parameter, a variable) shadows any import
        else:
            qualified = fa.names.qualify(node.func) or "?"
        self.ev.call_callee = qualified
        models = self.models
        if qualified in models.out_parameter and node.args:
            arg = node.args[0].value
            how = "pointer" if qualified in models.memory.keeps_alive else "byref"
            value = self.ev.expr(arg)  # an assignment expression binds its name here
            if type(arg) is cst.NamedExpr:
                arg = arg.target  # `byref(x := T())` writes into what `x` names from now on
            return Ref(target_key(arg, fa.self_name, self.ev.st.env), value, how)
        receiver: Val = None
        receiver_store = False
        on_self = False
        method = type(node.func) is cst.Attribute
        if type(node.func) is cst.Attribute:
            receiver = self.ev.expr(node.func.value)  # the receiver is evaluated, not used
            receiver_store = node.func.attr.value in models.store_methods
            on_self = type(node.func.value) is cst.Name and node.func.value.value == fa.self_name
            if _is_super(node.func.value) and fa.self_name is not None:
                on_self, receiver = True, self.ev.st.env.get(fa.self_name)  # `super().m()`: `m` on `self`
            if type(receiver) is Sym:
                method = False  # `ll.lend(...)`: a module's function, not a method
        elif type(node.func) is not cst.Name:
            self.ev.expr(node.func)
        args = [(a, self.ev.expr(a.value)) for a in node.args]
        self.ev.call_args = tuple(args)
        self.ev.call_receiver = receiver if method else None
        self.ev.call_method = method
        if self.on["call_pre"]:
            self.ev.call_pre(node, qualified, self.ev.call_args, self.ev.call_receiver)
        if qualified in models.finalizers:
            self.ev.objects.finalizer(node, args)
            return None
        if type(receiver) is Instance:
            handled, value = self.ev.objects.call_method(node, receiver, args)
            if handled:
                return value
        elif type(receiver) is Dict and method and args and type(args[0][1]) is Const:
            assert type(node.func) is cst.Attribute
            if node.func.attr.value == "pop" and len(args) == 1:
                return self.ev.objects.removed(node.func.value, receiver, args[0][1])
        elif not method and fa.resolver is not None and qualified[-1:] != "?":
            built = self.ev.objects.construct(node, qualified, args)
            if built is not None:
                return built
        if method and models.release_methods and self.release_method(node, receiver):
            return None
        if qualified in models.derive:
            if not args:
                return None
            first = args[0][1]
            if type(first) is Ref or type(first) is BufRef or type(first) is Addr:
                return first  # a cast of a pointer is the same pointer
            return _deref(first)
        handled, value = self.ev.memory.memory_call(node, qualified, receiver, args)
        if handled:
            return value
        if method and models.by_method:
            assert type(node.func) is cst.Attribute
            by_name = models.method(node.func.attr.value)
            if by_name is not None and by_name.keep_alive is not None:
                return self.keep_alive(node, by_name.keep_alive, args)
        if models.is_inspection(qualified):
            return None
        if receiver_store:
            assert type(node.func) is cst.Attribute
            for _, v in args:
                self.ev.names.escape(v)
                if self.ev.names.outside(node.func.value):
                    self.ev.names.stored(node, v, "container")
            return None
        model = models.call(qualified)
        typed = self.receiver_model(node, receiver) if method else None
        if typed is not None:
            model = typed  # `x.m()` on an `x` that one of the method's creators made
        if model is not None and model.borrow is not None:
            b = model.borrow
            if (method and b.method == "any") or (method and b.method == "tracked" and self.is_owner(receiver)):
                return self.ev.adoption.borrow(b, receiver, node, node.func.value)  # type: ignore[attr-defined]
            positional = [v for a, v in args if a.keyword is None and not a.star]
            if (
                not method
                and 0 <= b.owner < len(positional)
                and (self.guarded(qualified, b.guard_modules) or self.is_owner(positional[b.owner]))
            ):
                return self.ev.adoption.borrow(b, positional[b.owner], node, node.args[b.owner].value)
        summary = fa.resolver(node, qualified, on_self) if fa.resolver is not None else None
        if summary is not None:
            for _, v in args:
                if type(v) is not Instance:  # an object of a project class: `apply` follows it
                    self.ev.names.escape(v)
            return self.ev.replay.apply(summary, node, receiver if on_self else None, args)
        positional_args = [(a, v) for a, v in args if a.keyword is None and not a.star]
        consumed: set[int] = set()  # positions of arguments the model accounts for
        result: Val = None
        span = None
        before: dict[Obj, HState | None] | None = None  # a status call: what it may change, as it was
        returned: dict[int, Val] = {}  # handles it returns, by element
        if model is not None and model.status:
            before = self.before_status(node, model.creates, model.release, positional_args)
            ranged = model.address_map or model.unmap
            if ranged is not None:
                for o in self.ev.address_maps.address_map_objects(node, ranged, [v for _, v in positional_args]):
                    before[o] = self.ev.st.heap.get(o)
            k = (
                _index(model.release.key, len(positional_args))
                if model.release and model.release.key is not None
                else None
            )
            if k is not None:
                before.update((o, hs) for o, hs in self.ev.keyed.keyed(positional_args[k][1]))
        if model is not None:
            if model.record:
                return Dict(tuple((a.keyword.value, v) for a, v in args if a.keyword is not None))
            if model.maps is not None:
                span = self.ev.memory.span_of(model.maps, args)
            if model.address_map is not None:
                self.ev.address_maps.address_map(node, model.address_map, [v for _, v in positional_args])
            if model.unmap is not None:
                self.ev.address_maps.unmap(node, model.unmap, positional_args)
            if model.adopt is not None:
                adopted = self.ev.adoption.adopt(model.adopt, qualified, node, positional_args, args)
                if adopted is not None:
                    consumed.add(model.adopt.handle)
                    result = adopted
            if model.release is not None and model.release.key is not None:
                i = _index(model.release.key, len(positional_args))
                if i is not None:
                    self.ev.keyed.release_keyed(node, *positional_args[i])
            elif model.release is not None:
                i = _index(model.release.handle, len(positional_args))
                if i is not None:
                    consumed.add(i)
                    self.free(positional_args[i][1], node, positional_args[i][0].value)
            for create in model.creates:
                if create.out is None:
                    handle = returned[create.result or 0] = self.create_result(node, create.kind, create.result or 0)
                    k = _index(create.key, len(positional_args)) if create.key is not None else None
                    if k is not None:
                        self.ev.keyed.key_handle(handle, positional_args[k][1], create.counted)
                    continue
                i = _index(create.out, len(positional_args))
                if i is not None:
                    consumed.add(i)
                    made = self.create(positional_args[i][1], node, create.kind, create.out)
                    if made is not None and span is not None:
                        self.ev.st.heap[made] = self.ev.st.heap[made].but(span=span)
                        self.ev.call_mapped = (*self.ev.call_mapped, made)
        for i, (a, v) in enumerate(positional_args):
            if i not in consumed:
                self.use(v, node, a.value)
                self.ev.names.escape(v)
        for a, v in args:
            if a.keyword is not None:
                self.use(v, node, a.value)
                self.ev.names.escape(v)
        if model is not None and model.owner_kind is not None:
            result = self.new_owner(node, model.owner_kind, "made here")
            self.fa.creators[result] = self.fa.names.qualify(node.func) or qualified
        last = qualified.rpartition(".")[2]
        if last in self.models.forbidden:
            return Prop(last)
        if result is None and model is None and any(type(v) is Prop for _, v in args):
            return Seq(tuple(v for a, v in args if a.keyword is None))  # a property list
        if result is None and model is not None and (before is not None or returned):
            outcome = status.made(node, before, self.ev.st) if before is not None else None
            result = status.result(outcome, model.status_index, returned)
        return result

    def keep_alive(self, node: cst.Call, keep: KeepAlive, args: list[tuple[cst.Arg, Val]]) -> Val:
        """A call that reads the arguments `keep` names until an event is
        waited (`keep-alive`): it uses every argument and keeps no reference to
        those (whoever owns them must keep them alive), so they do not escape;
        the rest do. Its value is a new object (the event)."""
        position = 0
        for a, v in args:
            if a.keyword is None and not a.star:
                kept = position in keep.arguments
                position += 1
            else:
                kept = a.keyword is not None and a.keyword.value in keep.argument_keywords
            self.use(v, node, a.value)
            if not kept:
                self.ev.names.escape(v)
        obj = self.fa.site_object(node, "result")
        self.ev.names.forget(obj)
        self.ev.st.heap[obj] = LIVE_STATE
        return obj

    def before_status(
        self,
        node: cst.Call,
        creates: tuple[Create, ...],
        release: Release_ | None,
        positional: list[tuple[cst.Arg, Val]],
    ) -> dict[Obj, HState | None]:
        """The objects a status call may change (what it releases, the handles it
        creates), with their states before it runs."""
        objs: list[Obj] = []
        if release is not None:
            i = _index(release.handle, len(positional))
            if i is not None:
                objs.extend(objects_in(positional[i][1]))
        for create in creates:
            if create.out is None:
                objs.append(self.fa.site_object(node, "created", f"result {create.result or 0}"))
            else:
                objs.append(self.fa.site_object(node, "created", create.out))
        return {o: self.ev.st.heap.get(o) for o in objs}

    def receiver_model(self, node: cst.Call, receiver: Val) -> CallModel | None:
        """What the models say of `x.m(...)` for the `x` at hand: an entry for
        the method `m` of receivers that `x`'s creator made (`receiver-of`)."""
        if not self.models.receiver_methods or not isinstance(receiver, Obj) or type(node.func) is not cst.Attribute:
            return None
        made_by = self.fa.creators.get(receiver)
        return self.models.receiver_method(node.func.attr.value, made_by) if made_by is not None else None

    def release_method(self, node: cst.Call, receiver: Val) -> bool:
        """`x.m()` that releases `x`: `m` is a release method of the creator that made `x`."""
        assert type(node.func) is cst.Attribute
        creators = self.models.release_methods.get(node.func.attr.value)
        made_by = self.fa.creators.get(receiver) if creators is not None and isinstance(receiver, Obj) else None
        if made_by is None or (made_by not in creators and made_by.rpartition(".")[2] not in creators):  # type: ignore[operator]
            return False
        again = self.models.idempotent_releases.get(node.func.attr.value, ())
        assert isinstance(receiver, Obj)
        if self.ev.st.heap.get(receiver, LIVE_STATE).kind == FREED and (
            made_by in again or made_by.rpartition(".")[2] in again
        ):
            return True  # released already, and a second call does nothing
        self.free(receiver, node, node.func.value)
        return True

    def is_owner(self, value: Val) -> bool:
        objs = objects_in(value)
        return len(objs) == 1 and self.ev.st.heap.get(objs[0], LIVE_STATE).kind in (OWNER, OWNER_DEAD)

    def guarded(self, qualified: str, modules: tuple[str, ...]) -> bool:
        """The precision guard: the callee's module is an interop module (`interop-modules`)."""
        module = qualified.rpartition(".")[0]
        words = (*modules, *self.fa.interop_modules)
        return any(w in module for w in words)

    def new_owner(self, node: cst.CSTNode, kind: str, label: str) -> Obj:
        obj = self.fa.site_object(node, "result")
        self.ev.names.forget(obj)
        self.ev.st.heap[obj] = HState(OWNER, False, (self.fa.step_of(node, f"{kind} {label}"),), tag=kind)
        return obj

    # -- effects on one object ---------------------------------------------------
    def use(
        self,
        value: Val,
        node: cst.CSTNode,
        spelled: str | cst.CSTNode,
        via: Summary | None = None,
        inner: Step | None = None,
    ) -> None:
        if value is None:  # most values: nothing tracked
            return
        handlers = self.on["use"]
        for obj in objects_in(value):
            hs = self.ev.st.heap.get(obj)
            if hs is not None and hs.reported:
                continue
            if hs is not None and handlers:
                owner = self.ev.st.heap.get(hs.owner) if hs.owner is not None else None
                event = Use(obj, hs, owner, node, spelled, via, inner)
                for handler, i in handlers:
                    handler(event, self.ev.outs[i])
                hs = _with_facts(hs, self.ev.st.heap.get(obj))
            if obj.on_entry and (hs is None or (hs.first is None and hs.kind not in (FREED, TRANSFERRED, BORROWED))):
                self.ev.st.heap[obj] = (hs or LIVE_STATE).with_first("use", self.fa.step_of(node, "used here"))

    def free(
        self,
        value: Val,
        node: cst.CSTNode,
        spelled: str | cst.CSTNode,
        via: Summary | None = None,
        inner: Step | None = None,
    ) -> None:
        for obj in objects_in(value):
            hs = self.ev.st.heap.get(obj, LIVE_STATE)
            if hs.reported:
                continue
            owner = self.ev.st.heap.get(hs.owner) if hs.owner is not None else None
            # a kept handle whose owner some local still holds: the owner uses it
            held = hs.kind == KEPT and owner is not None and owner.kind == OWNER and self.ev.names.refs(hs.owner)  # type: ignore[arg-type]
            event = Release(obj, hs, owner, held, node, spelled, via, inner)
            for handler, i in self.on["release"]:
                handler(event, self.ev.outs[i])
            hs = _with_facts(hs, self.ev.st.heap.get(obj))
            if hs.kind in (FREED, TRANSFERRED, BORROWED) or held:
                continue  # not the application's to release: nothing changes
            where = inner if inner is not None else self.fa.step_of(node, "")
            label = f"freed here, inside `{via.name}`" if via is not None else "freed here"
            step = Step(where.unit, where.node, label, where.stmt)
            if obj.on_entry:
                hs = hs.with_first("free", step)
            if via is not None and where.unit != self.fa.unit.index:
                # the free is in another file: the story shows the call here that leads to it
                hs = hs.with_step(FREED, self.fa.step_of(node, f"freed inside `{via.name}` here"))
            self.ev.st.heap[obj] = hs.with_step(FREED, step, owner=None)

    def create_result(self, node: cst.Call, kind: str, index: int) -> Obj:
        """A handle the call returns (alone, or as element `index` of a tuple)."""
        obj = self.fa.site_object(node, "created", f"result {index}")
        self.ev.names.forget(obj)
        verb = "allocated" if kind == "memory" else "created"
        self.ev.st.heap[obj] = HState(LIVE, False, (self.fa.step_of(node, f"{kind} {verb} here"),), tag="native")
        qualified = self.fa.names.qualify(node.func)
        if qualified is not None:
            self.fa.creators[obj] = qualified
        self.ev.call_made = (*self.ev.call_made, obj)
        return obj

    def create(self, value: Val, node: cst.Call, kind: str, out: int) -> Obj | None:
        if type(value) is not Ref or value.key is None:
            return None
        obj = self.fa.site_object(node, "created", out)
        self.ev.names.forget(obj)
        verb = "allocated" if kind == "memory" else "created"
        self.ev.st.heap[obj] = HState(LIVE, False, (self.fa.step_of(node, f"{kind} {verb} here"),), tag="native")
        self.ev.names.bind(value.key, obj)
        self.ev.call_made = (*self.ev.call_made, obj)
        return obj


def _with_facts(hs: HState, now: HState | None) -> HState:
    """`hs`, read before an event, with the facts checkers recorded during it."""
    return hs if now is None or now.facts is hs.facts else hs.but(facts=now.facts)


def _is_super(node: cst.BaseExpression) -> bool:
    """`super()`, as a method's bases are reached."""
    return type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "super" and not node.args
