"""The expression evaluator `_Eval`: one path state, evaluated in place.

Its methods come from mixins, by concern: names and statements
(typestate_names), expressions (typestate_exprs), calls and their effects
(typestate_calls), SYCL adopt/transfer/borrow (typestate_adopt), project
summaries (typestate_replay), objects of project classes (objects), host memory (memory), the rest of the
interop catalogue (interop) and asynchronous submissions (asynchronous). This module holds the class and `expr`, which
dispatches to the `expr_<Class>` methods.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ownlint.engine.address_maps import AddressMapEval
from ownlint.engine.asynchronous import AsyncEval
from ownlint.engine.cfg import source_of
from ownlint.engine.events import CallPost, Facts
from ownlint.engine.interop import InteropEval
from ownlint.engine.iteration import IterationEval
from ownlint.engine.keyed import KeyedEval
from ownlint.engine.memory import MemoryEval
from ownlint.engine.objects import ObjectsEval
from ownlint.engine.state import LIVE_STATE, Step
from ownlint.engine.typestate_adopt import AdoptEval
from ownlint.engine.typestate_base import RawViolation, literal
from ownlint.engine.typestate_calls import CallEval
from ownlint.engine.typestate_exprs import ExprEval
from ownlint.engine.typestate_names import NamesEval
from ownlint.engine.typestate_replay import ReplayEval
from ownlint.engine.values import Obj, Val

if TYPE_CHECKING:
    from ownlint.engine.state import PathState
    from ownlint.engine.typestate_base import Analysis

_UNKNOWN = object()
_EXPR: dict[type, object] = {}  # node class -> its `_Eval.expr_<Class>` method, or None


class _Eval(
    NamesEval,
    ExprEval,
    CallEval,
    AdoptEval,
    ReplayEval,
    ObjectsEval,
    MemoryEval,
    InteropEval,
    AsyncEval,
    IterationEval,
    AddressMapEval,
    KeyedEval,
):
    """Evaluates expressions and statements on one path state, in place."""

    def __init__(self, fa: Analysis, st: PathState, choices: dict[cst.CSTNode, int]) -> None:
        self.fa = fa
        self.st = st
        self.choices = choices
        self.models = fa.models
        self.on = fa.subscribers  # the checkers' handlers of each event (events.py)
        self.site: cst.CSTNode = fa.cfg.node  # the statement being run (owners die there)
        # the arguments of the call being evaluated, as `expr_Call` evaluated them (`CallPost`)
        self.call_args: tuple[tuple[cst.Arg, Val], ...] = ()

    # -- findings (events.Findings) --------------------------------------------
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
        if obj is not None:
            hs = self.st.heap.get(obj, LIVE_STATE)
            self.st.heap[obj] = hs.mark_reported()
            story = hs.story + story
        if self.fa.violations is not None:
            if self.models.references or self.models.reference_urls:
                facts = self._with_reference(node, story, facts)
            text = source_of(handle) if isinstance(handle, cst.CSTNode) else handle
            self.fa.violations.append(RawViolation(code, self.fa.unit.index, node, text, facts, story, stmt=self.fa.at))

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

    def call_post(self, node: cst.Call) -> Val:
        """The call evaluated, then `CallPost` published with its arguments
        (as `expr_Call` evaluated them) and its value."""
        outer, self.call_args = self.call_args, ()
        result = self.expr_Call(node)
        args, self.call_args = self.call_args, outer
        if type(node.func) is cst.Name and node.func.value in self.st.env:
            callee = "?"
        else:
            callee = self.fa.names.qualify(node.func) or "?"
        event = CallPost(node, callee, args, result)
        for handler in self.on["call_post"]:
            handler(event, self)
        return result

    # -- expressions ---------------------------------------------------------
    def expr(self, node: cst.BaseExpression) -> Val:
        fa = self.fa
        fa.steps += 1
        if fa.steps > fa.step_limit:
            fa.over_budget()
        kind = type(node)
        method = _EXPR.get(kind, _UNKNOWN)
        if method is _UNKNOWN:
            method = _EXPR[kind] = getattr(_Eval, "expr_" + kind.__name__, None)
        if method is not None:
            if kind is cst.Call and self.on["call_post"]:
                return self.call_post(node)  # type: ignore[arg-type]
            return method(self, node)  # type: ignore[no-any-return,operator]
        lit = literal(node)
        if lit is not None:
            return lit
        # anything else: evaluate the children for their calls; the value is unknown
        for child in node.children:
            if isinstance(child, cst.BaseExpression):
                self.expr(child)
            elif type(child) in (cst.Arg, cst.Element, cst.DictElement, cst.StarredDictElement):
                for sub in child.children:
                    if isinstance(sub, cst.BaseExpression):
                        self.expr(sub)
        return None
