"""Releases that run later (OWN201): a handle queued for release on a
finalizer queue (a model's `release-later`: numba-cuda's
`deallocations.add_item(driver.cuMemFree, ptr, size)`) is released when the
queue is flushed, at a time the program does not choose; releasing it
explicitly as well, before or after queuing it, releases it twice.

The family keeps its own fact of a handle (events.Findings.fact): `Queued`,
where it was queued. A release of a queued handle is OWN201 there, with the
queuing in the story; queuing a handle already released is OWN201 at the
queuing. Uses of a queued handle are fine: the queue releases it later.

Known limits: only a release function the models know (a `release` effect)
is followed as the queued release; a queue the program flushes or clears
without running the releases is not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from ownlint.engine.events import CallPost, CallPre, Checker, Findings, Release, inside, via
from ownlint.engine.modelling.effects import ReleaseLater
from ownlint.engine.values.state import FREED, Step
from ownlint.engine.values.values import Obj, Sym, objects_in


@dataclass(frozen=True, slots=True)
class Queued:
    """Queued for release later at `step`."""

    step: Step | None = field(default=None, compare=False, hash=False)


class FinalizerChecker(Checker):
    def on_call_pre(self, e: CallPre, out: Findings) -> None:
        """Queuing a handle released already (before the call uses it)."""
        for effect in _queued(e):
            for arg, obj in _handles(e, effect, out):
                state = out.state(obj)
                if state is not None and state.kind == FREED and not state.reported:
                    out.report("OWN201", e.node, arg.value, (("queued", "after"),), obj=obj)

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        for effect in _queued(e):
            step = out.step(e.node, "released later by its finalizer queue (queued here)")
            for _, obj in _handles(e, effect, out):
                state = out.state(obj)
                if (state is None or not state.reported) and out.fact(obj) is None:
                    out.set_fact(obj, Queued(step))

    def on_release(self, e: Release, out: Findings) -> None:
        fact = out.fact(e.obj)
        if type(fact) is not Queued or e.state.reported:
            return
        out.set_fact(e.obj, None)
        story = (*((fact.step,) if fact.step is not None else ()), *inside(e, "freed here"))
        out.report("OWN201", e.node, e.spelled, (*via(e), ("queued", "yes")), story, obj=e.obj)


def _queued(e: CallPre | CallPost) -> list[ReleaseLater]:
    if e.model is None:
        return []
    return [x for entry in e.model.entries for x in entry.effects if type(x) is ReleaseLater]


def _handles(e: CallPre | CallPost, effect: ReleaseLater, out: Findings) -> list[tuple[cst.Arg, Obj]]:
    """The handles the call queues for release, when the function it queues
    is a release the models know."""
    positional = [(a, v) for a, v in e.args if a.keyword is None and not a.star]
    if not (0 <= effect.by < len(positional) and 0 <= effect.handle < len(positional)):
        return []
    by = positional[effect.by][1]
    model = out.models.call(by.name) if type(by) is Sym else None
    if model is None or model.release is None or model.release.key is not None:
        return []
    arg, value = positional[effect.handle]
    return [(arg, obj) for obj in objects_in(value)]
