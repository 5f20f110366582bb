"""Project functions: replaying a callee's summary at a call site (choose an
outcome, bind the arguments, apply its effects on each parameter and field,
materialize what it returns), the evaluator's `replay`
component (see eval_shared)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.evaluator.typestate_base import _Dead, _Fork
from ownlint.engine.events import Replayed
from ownlint.engine.frontend.cfg import source_of
from ownlint.engine.program.summaries import (
    EMPTY_OUTCOME,
    ENTRY,
    GLOBAL,
    Dead,
    Derived,
    Fresh,
    FromField,
    FromParam,
    InField,
    Known,
    Lend,
    NewInstance,
    Outcome,
    OwnerDesc,
    Returned,
    ValueDesc,
)
from ownlint.engine.values.state import FREED, KEPT, LIVE, LIVE_STATE, OWNER, OWNER_DEAD, TRANSFERRED, HState, Step
from ownlint.engine.values.values import Addr, Const, Field, Instance, Obj, Param, Span, Val, objects_in

if TYPE_CHECKING:
    from ownlint.engine.program.summaries import Summary


class ReplayEval:
    """Summary application, the evaluator's `replay` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.on = ev.on

    # -- project functions -------------------------------------------------------
    def apply(
        self,
        summary: Summary,
        node: cst.CSTNode,
        receiver: Val,
        args: list[tuple[cst.Arg, Val]],
        fields_at: str | None = None,
    ) -> Val:
        """Replay a summary at a call site: pick the outcome, then its effects in
        order; the callee's `self.x` is the caller's `<fields_at>.x` (by default
        its own `self.x`, for `self.m()`)."""
        bound = self.bind_arguments(summary, receiver, args)
        prefix = fields_at if fields_at is not None else self.fa.self_name if receiver is not None else None
        outcomes = [o for o in summary.outcomes if self.consistent(o, summary, bound, prefix)]
        if not summary.outcomes:
            raise _Dead()  # the callee never returns normally
        if not outcomes:
            outcomes = [EMPTY_OUTCOME]
        if len(outcomes) > 1 and node not in self.ev.choices and self.fa.forks >= self.fa.FORK_BUDGET:
            outcomes = outcomes[:1]  # past the budget of paths (see `branch`)
        if len(outcomes) > 1:
            if node not in self.ev.choices:
                self.fa.forks += len(outcomes) - 1
                raise _Fork(node, len(outcomes))
            outcome = outcomes[self.ev.choices[node]]
        else:
            outcome = outcomes[0]
        for i, truth in outcome.conds:
            expr = bound.get(i, (None, None))[0]
            if type(expr) is cst.Name:
                self.ev.st.conds.setdefault(expr.value, truth)  # correlate with the caller's own branches
        if prefix is not None:
            for attr, truth in outcome.field_conds:
                if attr[:2] != GLOBAL:
                    self.assume_field(prefix, receiver, attr, truth)
        if type(outcome.ret) is FromField and fields_at is not None and type(receiver) is Instance:
            self.entry_field(receiver, fields_at, outcome.ret.name)  # `return self.x` of an object here
        ret = self.materialize(outcome.ret, bound, node, summary, "return", prefix)
        for i, effect, owner in outcome.params:
            expr, value = bound.get(i, (None, None))
            spelled = expr if expr is not None else summary.params[i]
            self.replay(effect, owner, value, ret, bound, node, spelled, summary, f"parameter {i}", prefix)
        self.ev.objects.replay_objects(outcome, bound, ret, node, summary)
        if prefix is not None:
            env = self.ev.st.env
            for attr, effect, owner in outcome.fields:
                if attr[:2] == GLOBAL:
                    continue  # a module global's (`globals_of`)
                head, dot, rest = attr.partition(".")
                if dot:  # an attribute of the object in the callee's `self.<head>`
                    found = self.ev.objects.attribute_key(prefix, attr)
                    if found is None:
                        continue
                    key = found
                    if key not in env and self.ev.objects.on_entry_attribute(env[f"{prefix}.{head}"], rest) is None:
                        continue
                else:
                    key = f"{prefix}.{attr}"
                    if key not in env:
                        if fields_at is None:
                            env[key] = self.fa.field_object(attr)
                        elif self.ev.objects.on_entry_attribute(receiver, attr) is None:
                            continue  # an attribute of a project object that nothing known set
                spelled = f"{prefix}.{attr}" if fields_at is None else f"{_receiver(node, summary)}.{attr}"
                self.replay(effect, owner, env[key], ret, bound, node, spelled, summary, f"field {attr}", prefix)
            # every attribute the callee read is its value on entry: materialize all, then bind;
            # an address inside a buffer the callee left in an attribute comes last
            values = [
                (attr, self.materialize(desc, bound, node, summary, f"field {attr}", prefix))
                for attr, desc in outcome.rebinds
                if type(desc) is not InField and attr[:2] != GLOBAL
            ]
            for attr, value in values:
                target = self.ev.objects.attribute_key(prefix, attr)
                if target is not None:
                    self.ev.names.bind(target, value)
            for attr, desc in outcome.rebinds:
                if type(desc) is InField and attr[:2] != GLOBAL:
                    buf = self.ev.st.env.get(f"{prefix}.{desc.name}")
                    self.ev.names.bind(
                        f"{prefix}.{attr}", Addr(buf, desc.offset) if self.ev.memory.is_buffer(buf) else None
                    )
        if summary.unit == self.fa.unit.index and (outcome.fields or outcome.rebinds):
            self.globals_of(outcome, summary, bound, ret, node)
        return ret

    def entry_field(self, receiver: Instance, prefix: str, name: str) -> None:
        """The callee returns its `self.<name>` (`name` may be `inner.x`): where
        nothing here read that attribute of `receiver` yet, what it held on entry."""
        objects, env = self.ev.objects, self.ev.st.env
        head, dot, rest = name.partition(".")
        if not dot:
            if f"{prefix}.{name}" not in env:
                objects.on_entry_attribute(receiver, name)
            return
        key = objects.attribute_key(prefix, name)
        if key is not None and key not in env and "." not in rest:
            objects.on_entry_attribute(env.get(f"{prefix}.{head}"), rest)

    def globals_of(
        self,
        outcome: Outcome,
        summary: Summary,
        bound: dict[int, tuple[cst.BaseExpression | None, Val]],
        ret: Val,
        node: cst.CSTNode,
    ) -> None:
        """The callee's effects on the attributes of what the module globals
        of its module (this one) hold (`FunctionAnalysis.global_object`):
        replayed on the same objects here; an attribute it rebound holds what
        it left there, or is forgotten where that is not known here."""
        env = self.ev.st.env
        for attr, effect, owner in outcome.fields:
            if attr[:2] != GLOBAL:
                continue
            name, _, rest = attr[2:].partition(".")
            held = self.fa.global_object(name)
            if held is None or "." in rest:
                continue
            key = f"{held.key}.{rest}"
            if key not in env and self.ev.objects.on_entry_attribute(held, rest) is None:
                continue
            self.replay(effect, owner, env[key], ret, bound, node, f"{name}.{rest}", summary, f"field {attr}")
        for attr, desc in outcome.rebinds:
            if attr[:2] != GLOBAL:
                continue
            name, _, rest = attr[2:].partition(".")
            held = self.fa.global_object(name)
            if held is not None:
                known = type(desc) in (Known, Fresh, NewInstance, Derived)
                value = self.materialize(desc, bound, node, summary, f"field {attr}") if known else None
                self.ev.names.bind(f"{held.key}.{rest}", value)

    def resume(self, item: cst.WithItem, held: Obj) -> bool:
        """The end of `with gen(...) as x` for a `@contextmanager` generator `gen`
        of the project: what the code after its `yield` does to what it yielded
        (`held`), replayed here; False where nothing is known of it."""
        call = item.item
        resolver = self.fa.resolver
        if type(call) is not cst.Call or resolver is None or type(call.func) not in (cst.Name, cst.Attribute):
            return False
        qualified = self.fa.names.qualify(call.func)
        summary = resolver(call, qualified, False) if qualified is not None else None
        if summary is None or summary.resumed is None:
            return False
        spelled = item.asname.name if item.asname is not None else call
        hs = self.ev.st.heap.get(held)
        if hs is not None and not hs.reported and hs.kind != FREED:
            step = self.fa.step_of(item, f"`{summary.name}` runs on past its `yield` when this `with` block ends")
            self.ev.st.heap[held] = hs.with_step(hs.kind, step)
        self.replay(summary.resumed, None, held, None, {}, item, spelled, summary, "yielded")
        return True

    def bind_arguments(
        self, summary: Summary, receiver: Val, args: list[tuple[cst.Arg, Val]]
    ) -> dict[int, tuple[cst.BaseExpression | None, Val]]:
        bound: dict[int, tuple[cst.BaseExpression | None, Val]] = {}
        offset = 0
        if summary.is_method and receiver is not None:
            bound[0] = (None, receiver)
            offset = 1
        pos = 0
        for a, v in args:
            if a.star:
                break
            if a.keyword is None:
                bound[offset + pos] = (a.value, v)
                pos += 1
            elif a.keyword.value in summary.params:
                bound[summary.params.index(a.keyword.value)] = (a.value, v)
        for i, default in summary.defaults:
            bound.setdefault(i, (None, Const(default)))
        return bound

    def assume_field(self, prefix: str, receiver: Val, attr: str, truth: bool) -> None:
        """The callee assumed its `self.<attr>` truthy (or not) on entry: so does
        the caller of what it is here, and, where that is a field of the
        caller's own as it was on entry, so does the caller's outcome."""
        key = self.ev.objects.attribute_key(prefix, attr)
        if key is None:
            return
        env, conds = self.ev.st.env, self.ev.st.conds
        value = env.get(key)
        if type(value) is Const:
            return
        conds.setdefault(key, truth)
        name = attr if prefix == self.fa.self_name else None
        if type(receiver) is Instance and receiver.entry:
            name = f"{receiver.entry}.{attr}"
        if name is not None and (value is None or value is self.fa.fields.get(name)):
            conds.setdefault(f"{ENTRY}{name}", truth)

    def consistent(
        self,
        outcome: Outcome,
        summary: Summary,
        bound: dict[int, tuple[cst.BaseExpression | None, Val]],
        prefix: str | None,
    ) -> bool:
        """Whether the caller's knowledge allows the callee's assumptions (of its
        parameters, and of its `self.x` seen as the caller's `<prefix>.x`)."""
        conds = self.ev.st.conds
        for i, truth in outcome.conds:
            expr, value = bound.get(i, (None, None))
            if type(value) is Const:
                if bool(value.value) != truth:
                    return False
            elif type(expr) is cst.Name and expr.value in conds:
                if conds[expr.value] != truth:
                    return False
        if prefix is not None:
            for attr, truth in outcome.field_conds:
                if attr[:2] == GLOBAL:
                    continue
                key = self.ev.objects.attribute_key(prefix, attr)
                if key is None:
                    continue
                value = self.ev.st.env.get(key)
                if type(value) is Const:
                    if bool(value.value) != truth:
                        return False
                elif conds.get(key, truth) != truth:
                    return False
        return True

    def replay(
        self,
        effect: HState,
        owner: OwnerDesc,
        value: Val,
        ret: Val,
        bound: dict[int, tuple[cst.BaseExpression | None, Val]],
        node: cst.CSTNode,
        spelled: str | cst.CSTNode,
        summary: Summary,
        which: str,
        prefix: str | None = None,
    ) -> None:
        """Apply what the callee did to one parameter (or field: `which`), in
        its order (the callee's `self.x` is the caller's `<prefix>.x`)."""
        if effect.reported:
            return  # a bug wholly inside the callee, reported there
        if effect.first == "use":
            self.ev.calls.use(value, node, spelled, summary, effect.first_step)
        last = effect.story[-1] if effect.story else None
        if effect.facts and self.on["replayed"]:
            caller = self.caller(bound, prefix)
            for obj in objects_in(value):
                hs = self.ev.st.heap.get(obj)
                if hs is None or not hs.reported:
                    replayed = Replayed(obj, effect.facts, node, spelled, summary, last, which, caller)
                    for handler, i in self.on["replayed"]:
                        handler(replayed, self.ev.outs[i])
        if effect.kind == OWNER_DEAD and which.startswith("field ") and self.ev.memory.is_buffer(value):
            self.ev.memory.release_buffer(value, node, f"closed inside `{summary.name}`")
        if effect.kind == FREED:
            where = next((s for s in reversed(effect.story) if s.label.startswith(("first freed", "freed here"))), None)
            self.ev.calls.free(value, node, spelled, summary, where)
        elif effect.kind in (TRANSFERRED, KEPT):
            owner_obj = self.owner_for(owner, ret, bound, node, which, summary)
            for obj in objects_in(value):
                if effect.kind == TRANSFERRED:
                    self.ev.adoption.transfer(obj, owner_obj, node, spelled, summary, last)
                else:
                    hs = self.ev.st.heap.get(obj, LIVE_STATE)
                    if not hs.reported and hs.kind in (LIVE, KEPT):
                        step = (
                            Step(last.unit, last.node, f"adopted with `keep` here, inside `{summary.name}`", last.stmt)
                            if last
                            else self.fa.step_of(node, "adopted with `keep` here")
                        )
                        self.ev.st.heap[obj] = hs.with_step(KEPT, step, owner=owner_obj)

    def owner_for(
        self,
        desc: OwnerDesc,
        ret: Val,
        bound: dict[int, tuple[cst.BaseExpression | None, Val]],
        node: cst.CSTNode,
        which: str,
        summary: Summary,
    ) -> Obj:
        """The caller's object for the owner the callee linked a handle to
        (the handle the callee handed back as `which`)."""
        if type(desc) is Returned and isinstance(ret, Obj):
            return ret
        if type(desc) is FromParam:
            objs = objects_in(bound.get(desc.index, (None, None))[1])
            if len(objs) == 1:
                return objs[0]
        if type(desc) is Dead:
            obj = self.fa.site_object(node, "owner", which)
            self.ev.names.forget(obj)
            step = self.fa.step_of(node, f"the {desc.kind} made inside `{summary.name}` dies when it returns")
            self.ev.st.heap[obj] = HState(OWNER_DEAD, False, (*desc.story, step))
            return obj
        obj = self.fa.site_object(node, "owner", which)  # held somewhere the caller cannot see
        self.ev.names.forget(obj)
        self.ev.st.heap[obj] = HState(OWNER, escaped=True)
        return obj

    def materialize(
        self,
        desc: ValueDesc,
        bound: dict[int, tuple[cst.BaseExpression | None, Val]],
        node: cst.CSTNode,
        summary: Summary,
        which: str,
        prefix: str | None = None,
    ) -> Val:
        """The caller's value for what the callee handed back (as `which`: "return", "field x");
        the callee's `self.x` is the caller's `<prefix>.x`."""
        if type(desc) is FromParam:
            return bound.get(desc.index, (None, None))[1]
        if type(desc) is Derived:
            return self.ev.substitution.substitute(desc.value, bound)
        if type(desc) is FromField:
            holder = prefix if prefix is not None else self.fa.self_name
            key = f"{holder}.{desc.name}"
            if "." in desc.name and holder is not None and holder[:1] == "<":
                key = self.ev.objects.attribute_key(holder, desc.name) or key  # a field of a field's object
            return self.ev.st.env.get(key)
        if type(desc) is Lend:
            # the callee's borrow from what the caller passed: borrowed from the caller's object
            owner = self.materialize(desc.source, bound, node, summary, which, prefix)
            spelled = f"{_spelled(desc.source, bound, node, summary)}` inside `{summary.name}"
            return self.ev.adoption.lend(desc.borrow, owner, node, spelled)
        if type(desc) is Known:
            return desc.value
        if type(desc) is NewInstance:
            built = self.fa.instance_object(node, desc.cls, which)
            self.ev.objects.forget_fields(built)  # made again: the last one's attributes are not this one's
            for attr, inner in desc.attrs:
                value = self.materialize(inner, bound, node, summary, f"{which}.{attr}", prefix)
                self.ev.names.bind(f"{built.key}.{attr}", value)
            return built
        if type(desc) is Fresh:
            hs = desc.state
            obj = self.fa.site_object(node, "returned", which)
            self.ev.names.forget(obj)
            if desc.made_by is not None:  # what a model's creator made, in the callee: typed as it was there
                self.fa.creators[obj] = desc.made_by
            step = self.fa.step_of(node, f"returned by `{summary.name}` here")
            owner = (
                self.owner_for(desc.owner, None, bound, node, f"returned {which}", summary)
                if hs.owner is not None
                else None
            )
            span = hs.span
            if span is not None:
                # the callee mapped what the caller passed: in the caller's values
                span = Span(
                    self.ev.substitution.substitute(span.address, bound, prefix),
                    self.ev.substitution.substitute(span.size, bound),
                )
            self.ev.st.heap[obj] = HState(
                hs.kind,
                hs.reported,
                (*hs.story, step),
                tag=hs.tag,
                owner=owner,
                span=span,
                # a `__del__` key is the callee's; a finalizer holds where none may be detached
                at_death="finalizer" if hs.at_death == "finalizer" and not self.ev.objects.may_detach() else "",
                facts=hs.facts,  # the checkers' facts of it, carried unread
            )
            if hs.facts and self.on["replayed"]:
                last = hs.story[-1] if hs.story else None
                replayed = Replayed(obj, hs.facts, node, node, summary, last, which, self.caller(bound, prefix))
                for handler, i in self.on["replayed"]:
                    handler(replayed, self.ev.outs[i])
            return obj
        return None

    def caller(
        self, bound: dict[int, tuple[cst.BaseExpression | None, Val]], prefix: str | None
    ) -> Callable[[Val], Val]:
        """The caller's value of a callee's value (`events.Replayed.caller`):
        its parameters are what the caller passed, its `self.x` the caller's
        `<prefix>.x` (by default its own `self.x`)."""
        st = self.ev.st
        owner = prefix if prefix is not None else self.fa.self_name

        def value(v: Val) -> Val:
            if type(v) is Param:
                return bound.get(v.index, (None, None))[1]
            if type(v) is Field:
                return st.env.get(f"{owner}.{v.name}")
            return self.ev.substitution.substitute(v, bound, prefix)

        return value


def _receiver(node: cst.CSTNode, summary: Summary) -> str:
    """How the caller spells the object a method was called on (for messages)."""
    if type(node) is cst.Call and type(node.func) is cst.Attribute:
        receiver = node.func.value
        if type(receiver) is cst.Attribute:
            return source_of(receiver)  # `demo.decoder.teardown()`: `demo.decoder`
        if type(receiver) is cst.Name:
            return receiver.value
    if type(node) is cst.Attribute and type(node.value) is cst.Name:
        return node.value.value  # a property read: `mem.device_ptr`
    if type(node) is cst.WithItem and node.asname is not None and type(node.asname.name) is cst.Name:
        return node.asname.name.value
    return summary.params[0] if summary.params else "self"


def _spelled(
    source: FromParam | FromField,
    bound: dict[int, tuple[cst.BaseExpression | None, Val]],
    node: cst.CSTNode,
    summary: Summary,
) -> str:
    """How the caller spells the object a callee borrowed a handle from (for messages)."""
    if isinstance(source, FromField):
        return f"{_receiver(node, summary)}.{source.name}"
    expr = bound.get(source.index, (None, None))[0]
    return source_of(expr) if expr is not None else summary.params[source.index]
