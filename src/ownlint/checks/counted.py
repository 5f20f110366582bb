"""Counted pairs (OWN205): a `push` effect adds one of its kind to a count the
path keeps (a context pushed on the thread's stack), a `pop` of that kind
takes the latest back; neither names a handle.

What this family knows of a path is one fact, `Pushed`: the pushes not
popped yet, in the order made, kept on the object of the first push's
first argument (the pushed context; a first push of a value the engine
does not follow is not followed). A push whose status the path finds
failed pushed nothing (`Assume.failed`); a pushed handle released (a context
destroyed while current) is popped with it. A path that ends normally with a
push left is OWN205 at its end, with the push in the story, when the
function itself calls a pop of that kind somewhere: one that only pushes
(an `__enter__`, a `push()` method paired with a `pop()` method) hands the
count to its caller, which is not followed. A pop with nothing pushed on
the path (the caller's push) is not followed either. Paths merged with
different pushes forget them (`Checker.join_facts`): no finding without proof.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ownlint.engine.events import Assume, CallPost, Checker, Findings, FrameEnd, Release
from ownlint.engine.modelling import effects as fx
from ownlint.engine.values.state import Step
from ownlint.engine.values.values import Obj, objects_in


@dataclass(frozen=True, slots=True)
class Push:
    """One push not popped: of `kind`, by the call `call` (its node's id) of
    `callee`, of the handle `obj` (its first argument's, if the engine follows it)."""

    kind: str
    call: int
    callee: str
    obj: Obj | None
    step: Step | None = field(default=None, compare=False, hash=False)


@dataclass(frozen=True, slots=True)
class Pushed:
    """The pushes of this path not popped yet, oldest first."""

    pushes: tuple[Push, ...]


class CountedChecker(Checker):
    def on_call_post(self, e: CallPost, out: Findings) -> None:
        if e.model is None:
            return
        for entry in e.model.entries:
            for effect in entry.effects:
                if type(effect) is fx.Push:
                    _push(e, effect.kind, out)
                elif type(effect) is fx.Pop:
                    _pop(effect.kind, out)

    def on_assume(self, e: Assume, out: Findings) -> None:
        """A push whose status says it failed pushed nothing."""
        if e.failed is None:
            return
        for obj, fact in list(out.facts()):
            if type(fact) is Pushed and any(p.call == e.failed for p in fact.pushes):
                left = tuple(p for p in fact.pushes if p.call != e.failed)
                out.set_fact(obj, Pushed(left) if left else None)

    def on_release(self, e: Release, out: Findings) -> None:
        """A pushed handle destroyed is popped with it (a context destroyed while current)."""
        holder, pushes = _holder(out)
        if holder is not None and any(p.obj == e.obj for p in pushes):
            left = tuple(p for p in pushes if p.obj != e.obj)
            out.set_fact(holder, Pushed(left) if left else None)

    def on_frame_end(self, e: FrameEnd, out: Findings) -> None:
        if e.how == "raise" or out.merged:
            return
        left = [p for _, fact in out.facts() if type(fact) is Pushed for p in fact.pushes]
        if not left:
            return
        popped = _popped_kinds(out)
        for push in left:
            if push.kind in popped:
                story = (push.step,) if push.step is not None else ()
                facts = (("how", "pushed"), ("kind", push.kind), ("made by", push.callee))
                out.report("OWN205", e.node, None, facts, story)
                return


def _push(e: CallPost, kind: str, out: Findings) -> None:
    """One more of `kind`: kept with the pushes already made on the path."""
    holder, pushes = _holder(out)
    positional = [v for a, v in e.args if a.keyword is None and not a.star]
    first = objects_in(positional[0]) if positional else ()
    pushed = first[0] if first else None
    if holder is None:
        holder = pushed
    if holder is None:
        return  # the path's first push, of nothing the engine follows: not followed
    callee = e.callee.rpartition(".")[2]
    push = Push(kind, id(e.node), callee, pushed, out.step(e.node, f"pushed by `{callee}` here"))
    out.set_fact(holder, Pushed((*pushes, push)))


def _pop(kind: str, out: Findings) -> None:
    """The latest push of `kind` on the path ends (none: the caller's, not followed)."""
    holder, pushes = _holder(out)
    if holder is None:
        return
    for i in range(len(pushes) - 1, -1, -1):
        if pushes[i].kind == kind:
            left = pushes[:i] + pushes[i + 1 :]
            out.set_fact(holder, Pushed(left) if left else None)
            return


def _holder(out: Findings) -> tuple[Obj | None, tuple[Push, ...]]:
    """The object the path's `Pushed` fact is kept on, and its pushes."""
    for obj, fact in out.facts():
        if type(fact) is Pushed:
            return obj, fact.pushes
    return None, ()


def _popped_kinds(out: Findings) -> set[str]:
    """The kinds the running function's own calls pop."""
    kinds: set[str] = set()
    for callee in out.callees():
        model = out.models.call(callee)
        if model is None:
            continue
        for entry in model.entries:
            kinds.update(x.kind for x in entry.effects if type(x) is fx.Pop)
    return kinds
