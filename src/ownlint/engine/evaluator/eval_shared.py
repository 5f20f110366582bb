"""The evaluator's shared interface: what each of its components sees of the
whole, and of the others (the way mypy's `checker_shared.py` gives the
expression checker a typed view of the type checker).

The evaluator (`typestate_eval.Evaluator`) runs one path state through the
expressions and statements of a function. It is made of components, one per
concern, each a plain class holding the evaluator as `ev: EvalShared`:

- `names` (typestate_names): binding names and fields, statements, deaths by
  rebinding and `del`;
- `exprs` (typestate_exprs): expressions other than calls, branches, returns;
- `calls` (typestate_calls): calls and the effects of their models (create,
  use, release), dispatching to the components below;
- `adoption` (typestate_adopt): adopting a native handle (transfer or keep), borrowing one;
- `replay` (typestate_replay) and `substitution` (substitution): a project
  function's summary replayed at a call;
- `objects` (objects): objects of project classes, their methods and `__del__`;
- `memory` (memory) and `arith` (memarith): host memory, buffers, mappings,
  and arithmetic on addresses;
- `iteration` (iteration): loop variables and what a loop frees;
- `address_maps` (address_maps): mapped address ranges;
- `keyed` (keyed): handles kept in containers under a key;
- `paths` (paths): what access paths (`bufs[0]`, `buf.handle`) hold, from one read to the next.

No component imports another: each reaches the others through the typed
attributes of `EvalShared` (`self.ev.names.bind(...)`), and each is seen by
the others only through its Protocol here (the methods the rest of the
evaluator calls; a method another component starts calling is added to it).
Every other method of a component is its own business.

What is shared, besides the components: the analysis running the evaluator
(`fa`, an `Analysis`), the models, the checkers' handlers (`on`, each with
its checker's place in `outs`, that checker's findings on this evaluator),
and what
changes per CFG element: the path state `st` (changed in place), the choices
of the forks taken (`choices`), and the statement being run (`site`, where
owners die). One evaluator serves a whole `FunctionAnalysis`, so a component
may keep `fa`, `models` and `on` as its own attributes (they never change),
but reads `self.ev.st`, `self.ev.choices` and `self.ev.site` each time. `expr` evaluates an expression (dispatching to the components'
`expr_<Class>` methods), and `report` is where checkers report
(`events.Findings`): a component calls a checker's handler as
`handler(event, self.ev.outs[i])`.
"""

from __future__ import annotations

from typing import Protocol

import libcst as cst

from ownlint.engine.checker_facts import CheckerOut
from ownlint.engine.evaluator.field_fates import FieldFate
from ownlint.engine.evaluator.typestate_base import RawViolation, Resolver, Unit
from ownlint.engine.events import Bound, Facts, Subscribers
from ownlint.engine.frontend.cfg import CFG
from ownlint.engine.frontend.names import ModuleNames
from ownlint.engine.modelling.model_types import AddressMap, CallModel, Unmap
from ownlint.engine.modelling.models import Adopt, Borrow, MapCall, ModelSet
from ownlint.engine.program.summaries import Outcome, OwnerDesc, Summary
from ownlint.engine.values.state import HState, PathState, Step
from ownlint.engine.values.values import At, Const, Dict, Instance, Obj, Span, Val


class Analysis(Protocol):
    """What the evaluator uses of the analysis it runs for (typestate_analysis.FunctionAnalysis)."""

    unit: Unit
    cfg: CFG
    models: ModelSet
    names: ModuleNames
    params: list[str]
    self_name: str | None
    resolver: Resolver | None
    outer_names: set[str]
    captured: dict[int, set[str]]
    interop_modules: tuple[str, ...]
    page_size: int | None
    creators: dict[Obj, str]
    violations: list[RawViolation] | None
    at: cst.CSTNode | None
    steps: int
    step_limit: int
    merged: bool
    forks: int
    FORK_BUDGET: int

    subscribers: Subscribers
    fields: dict[str, Obj]

    def over_budget(self) -> None: ...
    def field_object(self, attr: str) -> Obj: ...
    def entry_attribute(self, attr: str) -> Obj: ...
    def binds(self, name: str) -> bool: ...
    def global_object(self, name: str) -> Instance | None: ...
    def yielded_at(self, value: Val, st: PathState) -> None: ...
    def field_fate(self, attr: str, elements: bool) -> FieldFate | None: ...
    def assume(self, test: cst.BaseExpression, want: bool, st: PathState) -> PathState | None: ...
    def site_object(self, node: cst.CSTNode, role: str, index: int | str = 0) -> Obj: ...
    def instance_object(self, node: cst.CSTNode, cls: str, which: str = "") -> Instance: ...
    def path_object(self, text: str) -> At: ...
    def previous_object(self, obj: Obj) -> Obj: ...
    def step_of(self, node: cst.CSTNode, label: str) -> Step: ...


class Names(Protocol):
    """`typestate_names.NamesEval`, as the other components see it."""

    def bind(self, key: str, value: Val) -> None: ...
    def refs(self, obj: Obj) -> bool: ...
    def escape(self, value: Val) -> None: ...
    def stored(self, node: cst.CSTNode, value: Val, where: str) -> None: ...
    def outside(self, base: cst.BaseExpression) -> bool: ...
    def bind_target(self, target: cst.CSTNode, value: Val) -> None: ...
    def small_statement(self, node: cst.CSTNode) -> None: ...
    def forget(self, obj: Obj) -> None: ...


class Exprs(Protocol):
    """`typestate_exprs.ExprEval`, as the other components see it."""

    def capture(self, node: cst.CSTNode) -> None: ...
    def returned(self, value: Val, node: cst.Return) -> None: ...


class Calls(Protocol):
    """`typestate_calls.CallEval`, as the other components see it."""

    def guarded(self, qualified: str, modules: tuple[str, ...]) -> bool: ...
    def receiver_model(self, node: cst.Call, receiver: Val) -> CallModel | None: ...
    def new_owner(self, node: cst.CSTNode, kind: str, label: str) -> Obj: ...
    def use(
        self,
        value: Val,
        node: cst.CSTNode,
        spelled: str | cst.CSTNode,
        via: Summary | None = None,
        inner: Step | None = None,
    ) -> None: ...
    def free(
        self,
        value: Val,
        node: cst.CSTNode,
        spelled: str | cst.CSTNode,
        via: Summary | None = None,
        inner: Step | None = None,
    ) -> None: ...


class Adoption(Protocol):
    """`typestate_adopt.AdoptEval`, as the other components see it."""

    def adopt(
        self,
        adopt: Adopt,
        qualified: str,
        node: cst.Call,
        positional: list[tuple[cst.Arg, Val]],
        args: list[tuple[cst.Arg, Val]],
    ) -> Val: ...
    def transfer(
        self,
        obj: Obj,
        owner: Obj,
        node: cst.CSTNode,
        spelled: str | cst.CSTNode,
        via: Summary | None = None,
        inner: Step | None = None,
    ) -> None: ...
    def borrow(self, b: Borrow, owner_val: Val, node: cst.CSTNode, spelled: cst.CSTNode) -> Val: ...
    def lend(self, b: Borrow, owner_val: Val, node: cst.CSTNode, spelled: str) -> Val: ...


class Replay(Protocol):
    """`typestate_replay.ReplayEval`, as the other components see it."""

    def resume(self, item: cst.WithItem, held: Obj) -> bool: ...

    def apply(
        self,
        summary: Summary,
        node: cst.CSTNode,
        receiver: Val,
        args: list[tuple[cst.Arg, Val]],
        fields_at: str | None = None,
    ) -> Val: ...
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
    ) -> None: ...


class Substitution(Protocol):
    """`substitution.SubstituteEval`, as the other components see it."""

    def substitute(
        self, v: Val, bound: dict[int, tuple[cst.BaseExpression | None, Val]], prefix: str | None = None
    ) -> Val: ...


class Objects(Protocol):
    """`objects.ObjectsEval`, as the other components see it."""

    def read_property(self, obj: Instance, node: cst.Attribute) -> tuple[bool, Val]: ...
    def construct(self, node: cst.Call, qualified: str, args: list[tuple[cst.Arg, Val]]) -> Val: ...
    def finalizer(self, node: cst.Call, args: list[tuple[cst.Arg, Val]]) -> None: ...
    def may_detach(self) -> bool: ...
    def spared(self, key: str, value: Val) -> None: ...
    def call_method(self, node: cst.Call, obj: Instance, args: list[tuple[cst.Arg, Val]]) -> tuple[bool, Val]: ...
    def enter(self, obj: Instance, node: cst.CSTNode | None) -> Val: ...
    def exit(self, obj: Instance, node: cst.CSTNode) -> None: ...
    def on_entry_attribute(self, obj: Val, attr: str) -> Val: ...
    def attribute_key(self, prefix: str, attr: str) -> str | None: ...
    def replay_objects(
        self,
        outcome: Outcome,
        bound: dict[int, tuple[cst.BaseExpression | None, Val]],
        ret: Val,
        node: cst.CSTNode,
        summary: Summary,
    ) -> None: ...
    def forget_fields(self, obj: Instance) -> None: ...
    def temporaries(self, node: cst.CSTNode) -> None: ...
    def removed(self, base: cst.BaseExpression, container: Dict, key: Const) -> Val: ...
    def dies(self, obj: Instance, node: cst.CSTNode, cause: str) -> None: ...


class Memory(Protocol):
    """`memory.MemoryEval`, as the other components see it."""

    def memory_call(
        self, node: cst.Call, qualified: str, receiver: Val, args: list[tuple[cst.Arg, Val]]
    ) -> tuple[bool, Val]: ...
    def is_buffer(self, v: Val) -> bool: ...
    def keeps_views(self, v: Val) -> bool: ...
    def memory_attribute(self, node: cst.Attribute, base: Val) -> tuple[bool, Val]: ...
    def memory_subscript(self, base: Val, index: Val) -> tuple[bool, Val]: ...
    def set_field(self, target: cst.Attribute, value: Val) -> bool: ...
    def span_of(self, spec: MapCall, args: list[tuple[cst.Arg, Val]]) -> Span | None: ...
    def release_buffer(self, buf: Val, node: cst.CSTNode, how: str) -> None: ...


class Arith(Protocol):
    """`memarith.ArithEval`, as the other components see it."""

    def page_size(self) -> Val: ...
    def arith(self, op: cst.BaseBinaryOp, left: Val, right: Val) -> Val | None: ...


class Iteration(Protocol):
    """`iteration.IterationEval`, as the other components see it."""

    def keep_previous(self, obj: Obj) -> bool: ...
    def loop_variable(self, loop: cst.For) -> Obj | None: ...
    def loop_entered(self, loop: cst.For) -> None: ...


class AddressMaps(Protocol):
    """`address_maps.AddressMapEval`, as the other components see it."""

    def address_map_objects(self, node: cst.Call, spec: AddressMap | Unmap, positional: list[Val]) -> list[Obj]: ...
    def address_map(self, node: cst.Call, spec: AddressMap, positional: list[Val]) -> None: ...
    def unmap(self, node: cst.Call, spec: Unmap, positional: list[tuple[cst.Arg, Val]]) -> None: ...


class Keyed(Protocol):
    """`keyed.KeyedEval`, as the other components see it."""

    def key_handle(self, obj: Obj, key: Val, counted: bool) -> None: ...
    def keyed(self, key: Val) -> list[tuple[Obj, HState]]: ...
    def release_keyed(self, node: cst.Call, arg: cst.Arg, key: Val) -> None: ...


class Paths(Protocol):
    """`paths.PathsEval`, as the other components see it."""

    def read(self, node: cst.BaseExpression) -> Val: ...
    def rebound(self, key: str) -> None: ...
    def changed(self, node: cst.BaseExpression, contents: bool) -> None: ...
    def after_call(self, node: cst.Call, callee: str) -> None: ...
    def yielded(self) -> None: ...


def annotated_parameters(fa: Analysis) -> list[tuple[str, str]]:
    """The parameters of the analysed function (not `self`) whose annotation
    resolves through the module's imports to a name, each with that name
    (qualified); a string annotation is no name."""
    node = fa.cfg.node
    if type(node) is not cst.FunctionDef:
        return []
    out = []
    ps = node.params
    for param in (*ps.posonly_params, *ps.params, *ps.kwonly_params):
        name = param.name.value
        if param.annotation is None or name == fa.self_name or name not in fa.params:
            continue
        qualified = fa.names.qualify(param.annotation.annotation)
        if qualified is not None and qualified[0] != "?":
            out.append((name, qualified))
    return out


class EvalShared(Protocol):
    """The evaluator, as each of its components sees it (see the module docstring)."""

    fa: Analysis
    models: ModelSet
    on: Bound
    outs: list[CheckerOut]  # each checker's findings on this evaluator, by its place in `on`
    st: PathState
    choices: dict[cst.CSTNode, int]
    site: cst.CSTNode
    # the arguments of the call being evaluated, as `expr_Call` evaluated them (`events.CallPost`)
    call_args: tuple[tuple[cst.Arg, Val], ...]
    call_receiver: Val  # and the receiver of a method call (None: none, or not known)
    call_made: tuple[Obj, ...]  # and the handles its model's creations made
    call_mapped: tuple[Obj, ...]  # and the handles its map effects made
    call_method: bool  # and whether it calls a method (`x.m(...)`, `x` no module)
    call_callee: str  # and its qualified name ("?": unknown)
    subscript_base: Val  # the base of the subscript being evaluated, as evaluated (`events.Indexed`)

    names: Names
    exprs: Exprs
    calls: Calls
    adoption: Adoption
    replay: Replay
    substitution: Substitution
    objects: Objects
    memory: Memory
    arith: Arith
    iteration: Iteration
    address_maps: AddressMaps
    keyed: Keyed
    paths: Paths

    def expr(self, node: cst.BaseExpression) -> Val:
        """The value of `node` on this path (evaluating its calls: their effects happen)."""
        ...

    def call_pre(self, node: cst.Call, callee: str, args: tuple[tuple[cst.Arg, Val], ...], receiver: Val) -> None:
        """Publish `events.CallPre` of the call being evaluated."""
        ...

    def report(
        self,
        code: str,
        node: cst.CSTNode,
        handle: str | cst.CSTNode | None,
        facts: Facts = (),
        story: tuple[Step, ...] = (),
        obj: Obj | None = None,
    ) -> None:
        """A checker's finding on this path (see events.Findings)."""
        ...
