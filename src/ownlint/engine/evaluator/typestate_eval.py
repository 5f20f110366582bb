"""The expression evaluator `Evaluator`: one path state, evaluated in place.

It is composed of components, one per concern, each a plain class holding the
evaluator through the interface of `eval_shared` (which lists them and says
what they share). This module builds them, holds what changes per CFG element
(`begin`), and holds `expr`, which dispatches to the components'
`expr_<Class>` methods, and `report`, where checkers report.
"""

from __future__ import annotations

from collections.abc import Callable
from types import MethodType

import libcst as cst

from ownlint.engine.evaluator.eval_shared import (
    AddressMaps,
    Adoption,
    Analysis,
    Arith,
    Calls,
    Exprs,
    Iteration,
    Keyed,
    Memory,
    Names,
    Objects,
    Paths,
    Replay,
    Substitution,
)
from ownlint.engine.evaluator.field_fates import FieldFate
from ownlint.engine.evaluator.objects import ObjectsEval
from ownlint.engine.evaluator.typestate_adopt import AdoptEval
from ownlint.engine.evaluator.typestate_base import RawViolation, literal
from ownlint.engine.evaluator.typestate_calls import CallEval
from ownlint.engine.evaluator.typestate_exprs import ExprEval
from ownlint.engine.evaluator.typestate_names import NamesEval
from ownlint.engine.evaluator.typestate_replay import ReplayEval
from ownlint.engine.events import CallPost, CallPre, Facts, Indexed
from ownlint.engine.frontend.cfg import source_of
from ownlint.engine.frontend.names import ModuleNames
from ownlint.engine.frontend.walk import children
from ownlint.engine.modelling.model_types import CallModel
from ownlint.engine.program.substitution import SubstituteEval
from ownlint.engine.values.address_maps import AddressMapEval
from ownlint.engine.values.iteration import IterationEval
from ownlint.engine.values.keyed import KeyedEval
from ownlint.engine.values.memarith import ArithEval
from ownlint.engine.values.memory import MemoryEval
from ownlint.engine.values.paths import PathsEval
from ownlint.engine.values.state import LIVE, LIVE_STATE, HState, PathState, Step
from ownlint.engine.values.values import Obj, Val

ExprMethod = Callable[[cst.BaseExpression], Val]

# node class -> (the component, its unbound `expr_<Class>` method): the components with such methods
_EXPR_METHODS: dict[type, tuple[str, Callable[..., Val]]] = {
    getattr(cst, name[len("expr_") :]): (attr, method)
    for attr, cls in (("exprs", ExprEval), ("calls", CallEval))
    for name, method in vars(cls).items()
    if name.startswith("expr_")
}


class Evaluator:
    """Evaluates expressions and statements on one path state, in place. One
    is made per `FunctionAnalysis`; `begin` points it at the element to run."""

    def __init__(self, fa: Analysis, st: PathState, choices: dict[cst.CSTNode, int]) -> None:
        self.fa = fa
        self.st = st
        self.choices = choices
        self.models = fa.models
        # the checkers' handlers of each event, each with its checker's place in `outs`, and each
        # checker's findings on this evaluator (events.Subscribers.indexed, .outs): read on every call
        self.on = fa.subscribers.indexed
        self.outs = fa.subscribers.outs(self)
        self.site: cst.CSTNode = fa.cfg.node  # the statement being run (owners die there)
        # the arguments of the call being evaluated, as `expr_Call` evaluated them (`CallPost`)
        self.call_args: tuple[tuple[cst.Arg, Val], ...] = ()
        self.call_receiver: Val = None
        self.call_callee = "?"
        self.call_made: tuple[Obj, ...] = ()
        self.call_mapped: tuple[Obj, ...] = ()
        self.call_method = False
        # what the models say of the call `call_pre` last told of: (call, receiver, model), read again by `call_post`
        self.call_model: tuple[cst.Call, Val, CallModel | None] | None = None
        self.made: Obj | None = None  # the call's value a checker made an object (`result_object`)
        self.subscript_base: Val = None  # the base of the subscript being evaluated (`Indexed`)
        self._callees: frozenset[str] | None = None  # `callees`, once asked
        self.names: Names = NamesEval(self)
        self.exprs: Exprs = ExprEval(self)
        self.calls: Calls = CallEval(self)
        self.adoption: Adoption = AdoptEval(self)
        self.replay: Replay = ReplayEval(self)
        self.substitution: Substitution = SubstituteEval(self)
        self.objects: Objects = ObjectsEval(self)
        self.memory: Memory = MemoryEval(self)
        self.arith: Arith = ArithEval(self)
        self.iteration: Iteration = IterationEval(self)
        self.address_maps: AddressMaps = AddressMapEval(self)
        self.keyed: Keyed = KeyedEval(self)
        self.paths: Paths = PathsEval(self)
        # node class -> the bound `expr_<Class>` method of the component evaluating it, bound when
        # first met (most functions meet few of the classes)
        self._expr: dict[type, ExprMethod] = {}

    def close(self) -> None:
        """Drop what this evaluator holds, once its analysis has ended: its
        components and the checkers' views hold it back (a cycle each), which
        reference counting alone would never free, so each function's
        evaluator, with the path states it last saw, would wait for the
        cyclic collector (measured: 900,000 objects over the dense corpus)."""
        self.__dict__.clear()

    def begin(self, st: PathState, choices: dict[cst.CSTNode, int], site: cst.CSTNode) -> None:
        """Run the next CFG element (its statement: `site`) on `st`, with the forks' `choices`."""
        self.st = st
        self.choices = choices
        self.site = site

    # -- findings (events.Findings) --------------------------------------------
    def report(
        self,
        code: str,
        node: cst.CSTNode,
        handle: str | cst.CSTNode | None,
        facts: Facts = (),
        story: tuple[Step, ...] = (),
        obj: Obj | None = None,
        at: Step | None = None,
    ) -> None:
        """A checker's finding on this path (see events.Findings)."""
        if obj is not None:
            hs = self.st.heap.get(obj, LIVE_STATE)
            self.st.heap[obj] = hs.mark_reported()
            story = hs.story + story
        if self.fa.violations is not None:
            if self.models.references or self.models.reference_urls:
                facts = self._with_reference(node, story, facts)
            text = source_of(handle) if isinstance(handle, cst.CSTNode) else handle
            # at a step recorded earlier on this path: its node, in the statement it was recorded in
            stmt = self.fa.at if at is None else at.stmt
            if at is not None:
                node = at.node
            self.fa.violations.append(RawViolation(code, self.fa.unit.index, node, text, facts, story, stmt=stmt))

    @property
    def merged(self) -> bool:
        """Whether the paths reaching this point were merged past the path budget."""
        return self.fa.merged

    def step(self, node: cst.CSTNode, label: str) -> Step:
        """A step of a story: `label` at `node`, in the statement being run."""
        return self.fa.step_of(node, label)

    def held(self, obj: Obj) -> bool:
        """Whether a local name (or a view it holds) still holds `obj`."""
        return self.names.refs(obj)

    def local(self, name: str) -> bool:
        """Whether `name` is a local variable bound on this path, not a parameter."""
        return name in self.st.env and "." not in name and not name.startswith("<") and name not in self.fa.params

    def field_fate(self, key: str, elements: bool) -> FieldFate | None:
        """What the methods of this method's class may do to what `key` (`self.x`) holds
        (events.Findings.field_fate)."""
        fa = self.fa
        attr = key[len(fa.self_name) + 1 :] if fa.self_name is not None and key.startswith(fa.self_name + ".") else ""
        if not attr or "." in attr:
            return None
        return fa.field_fate(attr, elements)

    def callees(self) -> frozenset[str]:
        """The qualified callees of the running function's own calls (events.Findings.callees)."""
        if self._callees is None:
            self._callees = frozenset(_callees(self.fa.cfg.node, self.fa.names))
        return self._callees

    @property
    def page_size(self) -> int | None:
        """The page size the analysis assumes (None: symbolic)."""
        return self.fa.page_size

    def _with_reference(self, node: cst.CSTNode, story: tuple[Step, ...], facts: Facts) -> Facts:
        """`facts` and where the API of the call involved is specified, and the page
        documenting it: the finding's call, else the latest call of the story in
        this file whose model names either."""
        unit = self.fa.unit.index
        models = self.models
        for at in (node, *(s.node for s in reversed(story) if s.unit == unit)):
            qualified = self.fa.names.qualify(at.func) if type(at) is cst.Call else None
            if qualified is None:
                continue
            reference, url = models.reference_of(qualified), models.reference_url_of(qualified)
            if reference is not None:
                facts = (*facts, ("reference", f"{reference}: `{qualified.rpartition('.')[2]}`"))
            if url is not None:
                facts = (*facts, ("reference_url", url))
            if reference is not None or url is not None:
                return facts
        return facts

    def call_post(self, node: cst.Call, evaluate: ExprMethod) -> Val:
        """The call evaluated, then `CallPost` published with its arguments
        (as `expr_Call` evaluated them) and its value."""
        outer = self.call_callee, self.call_args, self.call_receiver, self.call_made, self.call_mapped, self.call_method
        self.call_callee, self.call_args, self.call_receiver, self.call_made, self.call_mapped, self.call_method = (
            "?",
            (),
            None,
            (),
            (),
            False,
        )
        result = evaluate(node)
        self.paths.after_call(node, self.call_callee)
        callee, args, receiver = self.call_callee, self.call_args, self.call_receiver
        made, mapped, method = self.call_made, self.call_mapped, self.call_method
        self.call_callee, self.call_args, self.call_receiver, self.call_made, self.call_mapped, self.call_method = outer
        handlers = self.on["call_post"]
        if not handlers:
            return result
        known = self.call_model
        if known is not None and known[0] is node and known[1] is receiver:
            model = known[2]  # as `call_pre` found it
        else:
            model = self.model_of(node, callee, receiver)
        event = CallPost(node, callee, args, result, receiver, model, made, method, mapped)
        return self.publish_value(handlers, event, result)

    def model_of(self, node: cst.Call, callee: str, receiver: Val = None) -> CallModel | None:
        """What the models say of a call (`CallPost.model`): with `receiver`,
        what they say of that receiver's method first."""
        model = self.calls.receiver_model(node, receiver) if receiver is not None else None
        if model is not None:
            return model
        model = self.models.published(callee) if callee != "?" else None
        if model is None and type(node.func) is cst.Attribute:
            model = self.models.method(node.func.attr.value)
        return model

    def call_pre(self, node: cst.Call, callee: str, args: tuple[tuple[cst.Arg, Val], ...], receiver: Val) -> None:
        """`CallPre`: the call's callee, arguments and receiver are evaluated."""
        model = self.model_of(node, callee, receiver)
        self.call_model = (node, receiver, model)
        event = CallPre(node, callee, args, receiver, model, self.call_method)
        for handler, i in self.on["call_pre"]:
            handler(event, self.outs[i])

    def indexed(self, node: cst.Subscript, evaluate: ExprMethod) -> Val:
        """The subscript evaluated, then `Indexed` published with its base
        (as `expr_Subscript` evaluated it) and its value."""
        outer, self.subscript_base = self.subscript_base, None
        value = evaluate(node)
        base, self.subscript_base = self.subscript_base, outer
        return self.publish_value(self.on["indexed"], Indexed(node, base, value), value)

    def publish_value(self, handlers: tuple[tuple[Callable[..., None], int], ...], event: object, value: Val) -> Val:
        """Publish `event` about an expression's value: a checker may make it
        an object (`result_object`), which is then the expression's value."""
        outer, self.made = self.made, None
        for handler, i in handlers:
            handler(event, self.outs[i])
        made, self.made = self.made, outer
        return value if made is None else made

    def result_object(self, node: cst.Call | cst.Subscript, label: str = "") -> Obj:
        """The call's (or subscript's) value as a fresh object (events.Findings.result_object)."""
        obj = self.fa.site_object(node, "value")
        if self.made is not obj:
            self.names.forget(obj)
            self.st.heap.pop(obj, None)
            if label:
                self.st.heap[obj] = HState(LIVE, False, (self.fa.step_of(node, label),))
            self.made = obj
        return obj

    def state(self, obj: Obj) -> HState | None:
        """The typestate of `obj` on this path (events.Findings.state)."""
        return self.st.heap.get(obj)

    # -- expressions ---------------------------------------------------------
    def expr(self, node: cst.BaseExpression) -> Val:
        fa = self.fa
        fa.steps += 1
        if fa.steps > fa.step_limit:
            fa.over_budget()
        kind = type(node)
        method = self._expr.get(kind)
        if method is None and kind in _EXPR_METHODS:
            attr, unbound = _EXPR_METHODS[kind]
            method = self._expr[kind] = MethodType(unbound, getattr(self, attr))
        if method is not None:
            if type(node) is cst.Call and self.on["call_post"]:
                return self.call_post(node, method)
            if type(node) is cst.Subscript and self.on["indexed"]:
                return self.indexed(node, method)
            return method(node)
        lit = literal(node)
        if lit is not None:
            return lit
        # anything else: evaluate the children for their calls; the value is unknown
        for child in children(node):  # libcst's `node.children` rebuilds the node
            if isinstance(child, cst.BaseExpression):
                self.expr(child)
            elif type(child) in (cst.Arg, cst.Element, cst.DictElement, cst.StarredDictElement):
                for sub in children(child):
                    if isinstance(sub, cst.BaseExpression):
                        self.expr(sub)
        return None


def _callees(fn: cst.CSTNode, names: ModuleNames) -> set[str]:
    """The qualified callees of the calls in `fn`, outside nested functions and classes."""
    out: set[str] = set()
    stack = children(fn)
    while stack:
        node = stack.pop()
        if type(node) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        if type(node) is cst.Call:
            qualified = names.qualify(node.func)
            if qualified is not None:
                out.add(qualified)
        stack.extend(children(node))
    return out
