"""Objects of project classes: an object whose class is known (built by
`x = C(...)`, bound by `with C(...) as x`) holds its attributes as env keys
`<key>.<attr>` (values.Instance). Building it replays `C.__init__`'s summary
with `self` bound to it, a method called on it replays `C.m`'s summary on its
attributes (as `self.m()` does inside a method), and a `with` block replays
`__enter__` and `__exit__`. Where anything else may reach the object (it is
passed to a call, stored, or a method that is not found is called on it), its
attributes are forgotten: nothing known, no finding. Releases at death:
`__del__` that frees `self.<attr>` on every outcome, or a finalizer
registered with a model release (`weakref.finalize(obj, lib.free, ctx, p)`),
marks the handle `at_death`, so an explicit release of it is a second one.
An object built here dies where its last reference goes (`del`, a rebound
name or attribute, a temporary at the end of its statement) unless anything
else may reach it: its class's `__del__` runs there, replayed on its
attributes (`dies`). The evaluator's `objects` component (see eval_shared)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ownlint.engine.evaluator.eval_shared import Analysis, EvalShared, annotated_parameters
from ownlint.engine.evaluator.typestate_base import _index, target_key
from ownlint.engine.frontend.cfg import source_of
from ownlint.engine.values.state import FREED, LIVE_STATE
from ownlint.engine.values.values import Const, Dict, Field, Instance, Val, objects_in

if TYPE_CHECKING:
    from ownlint.engine.program.summaries import Outcome, Summary


Bound = dict[int, tuple[cst.BaseExpression | None, Val]]  # a call's arguments, by the callee's parameter


def annotated_instances(fa: Analysis) -> dict[str, Instance]:
    """The parameters annotated with a project class (resolved through the
    module's imports) whose `__init__` resolves: each is bound on entry to an
    object of that class, `Instance(-1 - index)`, whose attributes are read as
    on-entry objects (`ObjectsEval.on_entry_attribute`)."""
    if fa.resolver is None:
        return {}
    out: dict[str, Instance] = {}
    for name, qualified in annotated_parameters(fa):
        if not qualified.rpartition(".")[2][:1].isupper():
            continue
        init = fa.resolver(cst.Call(cst.Name("__init__")), f"{qualified}.__init__", False)
        if init is not None and init.is_method:
            out[name] = Instance(-1 - fa.params.index(name), qualified)
    return out


class ObjectsEval:
    """Objects of project classes, the evaluator's `objects` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.models = ev.models
        # the objects built in the statement being run, to die at its end if nothing holds them,
        # and the path state they were built in
        self.fresh: list[tuple[Instance, str]] = []
        self.fresh_in: object = None
        self.died_in: tuple[cst.CSTNode, object] | None = None  # the last `dies` replay: where, on which state

    def method(self, cls: str, name: str, node: cst.Call) -> Summary | None:
        """The summary of `cls.name`, a function of the checked tree, or None."""
        resolver = self.fa.resolver
        return resolver(node, f"{cls}.{name}", False) if resolver is not None else None

    def construct(self, node: cst.Call, qualified: str, args: list[tuple[cst.Arg, Val]]) -> Val:
        """`C(...)` for a project class `C` with an `__init__`: the object it
        builds, its attributes set by `__init__`'s summary; None otherwise."""
        last = qualified.rpartition(".")[2]
        if not last[:1].isupper() or qualified[0] == "?":
            return None  # by convention a class is capitalised: a cheap filter before resolving
        init = self.method(qualified, "__init__", node)
        if init is None or not init.is_method:
            return None
        obj = self.fa.instance_object(node, qualified)
        self.forget_fields(obj)  # built again: the last one's attributes are not this one's
        self.ev.st.env.pop(obj.key, None)  # and nothing else reaches it yet
        if self.fresh_in is not self.ev.st:
            self.fresh, self.fresh_in = [], self.ev.st
        self.fresh.append((obj, "the temporary it built dies here"))
        for _, v in args:
            self.ev.names.escape(v)
        self.ev.replay.apply(init, node, obj, args, obj.key)
        for attr, dele in self.destroyed(qualified, node):
            key = f"{obj.key}.{attr}"
            self.at_death(self.ev.st.env.get(key), node, f"freed by `{dele.name}` when it dies", key)
        return obj

    def temporaries(self, node: cst.CSTNode) -> None:
        """The end of the statement `node`: an object it built that nothing holds dies."""
        if self.fresh_in is not self.ev.st:
            return
        fresh, self.fresh, self.fresh_in = self.fresh, [], None
        for obj, cause in fresh:
            if not self.ev.names.refs(obj):
                self.dies(obj, node, cause)

    def removed(self, base: cst.BaseExpression, container: Dict, key: Const) -> Val:
        """`d.pop(k)` on a dict with constant keys held by a name: the element
        leaves `d` and is the call's value; an object in it that nothing holds at
        the end of the statement dies then (`temporaries`)."""
        env = self.ev.st.env
        name = target_key(base, self.fa.self_name, env)
        value = next((v for k, v in container.items if k == key.value), None)
        if name is None or env.get(name) is not container:
            return value
        env[name] = Dict(tuple((k, v) for k, v in container.items if k != key.value))
        for obj in objects_in(value):
            if type(obj) is Instance:
                if self.fresh_in is not self.ev.st:
                    self.fresh, self.fresh_in = [], self.ev.st
                self.fresh.append((obj, f"removed from `{source_of(base)}` here"))
        return value

    def dies(self, obj: Instance, node: cst.CSTNode, cause: str) -> None:
        """The last reference to `obj` went away at `node` (`cause`, for the
        story: "`mem` deleted here"): its class's
        `__del__` (its own or inherited) runs there, its effects on `obj`'s
        attributes replayed. Nothing happens where anything else may reach
        `obj` (it escaped: its attributes were forgotten), for an object that
        existed before the function, or for a second death in one statement
        (each would fork the path at the same node)."""
        env = self.ev.st.env
        if obj.number < 0 or obj.key in env or type(node) is cst.Call or self.died_in == (node, self.ev.st):
            return
        dele = self.method(obj.cls, "__del__", cst.Call(cst.Name("__del__")))
        if dele is None or not dele.is_method or not dele.outcomes:
            return
        self.died_in = (node, self.ev.st)
        prefix = obj.key + "."
        heap = self.ev.st.heap
        for key in [k for k in env if k.startswith(prefix)]:
            if any((hs := heap.get(o)) is not None and hs.at_death == key for o in objects_in(env[key])):
                if any(heap[o].kind == FREED for o in objects_in(env[key]) if o in heap):
                    # released already, as a release before this very destructor (`at_death`):
                    # that release was the second one, this run of `__del__` is not a third
                    del env[key]
                    continue
            self.spared(key, env[key])  # what `__del__` releases now is not released a second time
        held = {o: heap.get(o) for k in env if k.startswith(prefix) for o in objects_in(env[k])}
        self.ev.replay.apply(dele, node, obj, [], obj.key)
        step = self.fa.step_of(node, f"{cause}: `{dele.name}` runs")
        for o, before in held.items():
            hs = heap.get(o)
            if hs is not None and hs is not before:
                heap[o] = hs.with_step(hs.kind, step)
        self.forget_fields(obj)
        env[obj.key] = None  # dead: nothing more runs on it

    def destroyed(self, cls: str, node: cst.CSTNode) -> list[tuple[str, Summary]]:
        """The attributes `cls`'s `__del__` (its own or inherited) frees on every
        path, with the `__del__`'s summary."""
        dele = self.method(cls, "__del__", node if type(node) is cst.Call else cst.Call(cst.Name("__del__")))
        if dele is None or not dele.is_method or not dele.outcomes:
            return []
        freed = set.intersection(*({a for a, hs, _ in o.fields if hs.kind == FREED} for o in dele.outcomes))
        return [(attr, dele) for attr in sorted(freed)]

    def finalizer(self, node: cst.Call, args: list[tuple[cst.Arg, Val]]) -> None:
        """`weakref.finalize(obj, release, *args)`: a model release of a handle
        among `args` is registered to run when `obj` dies."""
        positional = [(a, v) for a, v in args if a.keyword is None and not a.star]
        handle: Val = None
        if len(positional) >= 2 and not (type(fn := positional[1][0].value) is cst.Name and fn.value in self.ev.st.env):
            model = self.models.call(self.fa.names.qualify(fn) or "?")
            if model is not None and model.release is not None and model.release.key is None:
                i = _index(model.release.handle, len(positional) - 2)
                handle = positional[2 + i][1] if i is not None else None
        for _, v in args:
            if v is not handle:
                self.ev.names.escape(v)
        if self.may_detach():
            return  # `f.detach()` cancels the finalizer: the explicit release may be the only one
        self.at_death(handle, node, "released when its finalizer runs (registered here)", "finalizer")

    def may_detach(self) -> bool:
        """Whether this file may cancel a finalizer (`detach`), by its text."""
        source = self.fa.unit.source
        return not source or "detach" in source

    def at_death(self, value: Val, node: cst.CSTNode, label: str, how: str) -> None:
        """The handles in `value` are released when an object dies: by a
        finalizer (`how` = "finalizer"), or by `__del__` through the attribute
        `how` (the env key), so only while that attribute still holds them."""
        step = self.fa.step_of(node, label)
        for o in objects_in(value):
            hs = self.ev.st.heap.get(o, LIVE_STATE)
            if hs.kind != FREED and not hs.at_death:
                self.ev.st.heap[o] = hs.with_step(hs.kind, step, at_death=how)

    def spared(self, key: str, value: Val) -> None:
        """`key` no longer holds `value`: a `__del__` that frees `key` frees something else."""
        heap = self.ev.st.heap
        for o in objects_in(value):
            hs = heap.get(o)
            if hs is not None and hs.at_death == key:
                heap[o] = hs.but(at_death="")

    def call_method(self, node: cst.Call, obj: Instance, args: list[tuple[cst.Arg, Val]]) -> tuple[bool, Val]:
        """`x.m(...)` on an object of a project class: `C.m`'s summary replayed
        on its attributes; when `C.m` is not found, its attributes are forgotten."""
        assert type(node.func) is cst.Attribute
        summary = self.method(obj.cls, node.func.attr.value, node)
        if summary is None or not summary.is_method:
            self.forget_fields(obj)
            return False, None
        for _, v in args:
            self.ev.names.escape(v)
        for attr in {a for a, _ in summary.outcomes[0].rebinds} if summary.outcomes else ():
            if all(any(a == attr for a, _ in o.rebinds) for o in summary.outcomes):
                key = f"{obj.key}.{attr}"
                self.spared(key, self.ev.st.env.get(key))  # rebound by the method: `__del__` frees the new value
        return True, self.ev.replay.apply(summary, node, obj, args, obj.key)

    def read_property(self, obj: Instance, node: cst.Attribute) -> tuple[bool, Val]:
        """`x.attr` where `attr` is a `@property` of `x`'s class: (True, what
        its getter returns, its effects on `x`'s attributes replayed); (False,
        None) for any other attribute."""
        attr = node.attr.value
        summary = self.method(obj.cls, attr, cst.Call(node))
        if summary is None or not summary.is_property:
            return False, None
        return True, self.ev.replay.apply(summary, node, obj, [], obj.key)

    def enter(self, obj: Instance, node: cst.CSTNode | None) -> Val:
        """`with x as y`: what `__enter__` returns (its effects on `x`'s attributes replayed)."""
        if node is None:
            self.forget_fields(obj)
            return None
        summary = self.method(obj.cls, "__enter__", cst.Call(cst.Name("__enter__")))
        if summary is None or not summary.is_method:
            self.forget_fields(obj)
            return None
        return self.ev.replay.apply(summary, node, obj, [], obj.key)

    def exit(self, obj: Instance, node: cst.CSTNode) -> None:
        """The end of `with x`: `__exit__`'s effects on `x`'s attributes."""
        summary = self.method(obj.cls, "__exit__", cst.Call(cst.Name("__exit__")))
        if summary is None or not summary.is_method:
            self.forget_fields(obj)
            return
        self.ev.replay.apply(summary, node, obj, [], obj.key)

    def on_entry_attribute(self, obj: Val, attr: str) -> Val:
        """`<obj>.attr` where nothing in this function set it: for a parameter's
        object (`annotated_instances`) not yet forgotten, the object it held on
        entry (a `Field` named `<parameter>.<attr>`); otherwise unknown."""
        if type(obj) is not Instance or obj.number >= 0 or obj.key in self.ev.st.env:  # built here, forgotten
            return None
        if obj.entry:  # what `self.<entry>` held on entry: its attributes are fields of `self`
            key = f"{obj.key}.{attr}"
            value = self.ev.st.env[key] = self.fa.field_object(f"{obj.entry}.{attr}")
            site = self.ev.site
            for freed, dele in self.destroyed(obj.cls, site) if site is not None else ():
                if freed == attr:  # its class's `__del__` frees it when the object dies
                    self.at_death(value, site, f"freed by `{dele.name}` when it dies", key)
            return value
        value = self.ev.st.env[f"{obj.key}.{attr}"] = Field.of(f"{self.fa.params[-1 - obj.number]}.{attr}")
        return value

    def attribute_key(self, prefix: str, attr: str) -> str | None:
        """The env key of the callee's `self.<attr>` seen from a caller whose
        object is `prefix` (`attr` may be `inner.x`: an attribute of the object
        in the caller's `<prefix>.inner`); None where that object is not
        known to be one of a project class."""
        head, dot, rest = attr.partition(".")
        if not dot:
            return f"{prefix}.{attr}"
        env = self.ev.st.env
        key = f"{prefix}.{head}"
        if key not in env:
            if prefix != self.fa.self_name:
                return None
            env[key] = self.fa.entry_attribute(head)
        inner = env[key]
        if type(inner) is not Instance:
            return None
        return f"{inner.key}.{rest}"

    def replay_objects(
        self,
        outcome: Outcome,
        bound: Bound,
        ret: Val,
        node: cst.CSTNode,
        summary: Summary,
    ) -> None:
        """An argument that is an object of a project class (not escaped at the
        call): the callee's effects on its attributes, where the callee followed
        them (`Outcome.param_fields`); otherwise its attributes are forgotten."""
        followed = dict(outcome.param_fields)
        for i, (expr, value) in bound.items():
            if expr is None or type(value) is not Instance:
                continue
            if i not in followed:
                self.forget_fields(value)
                continue
            for attr, effect, owner in followed[i]:
                key = f"{value.key}.{attr}"
                if key in self.ev.st.env or self.on_entry_attribute(value, attr) is not None:
                    spelled = f"{source_of(expr)}.{attr}"
                    self.ev.replay.replay(
                        effect, owner, self.ev.st.env[key], ret, bound, node, spelled, summary, f"field {attr}"
                    )

    def forget_fields(self, obj: Instance) -> None:
        """Nothing is known any more of `obj`'s attributes (of a parameter's
        object, not even on entry: `obj.key` in env marks it forgotten)."""
        prefix = obj.key + "."
        env = self.ev.st.env
        if obj.number < 0:
            env[obj.key] = None
        conds = self.ev.st.conds
        for key in [k for k in env if k.startswith(prefix)]:
            self.spared(key, env.pop(key))
            conds.pop(key, None)
