"""The lifetime of native handles (OWN101-OWN103, OWN201-OWN204): what a use,
a release, a transfer or a return means for a handle in the typestate the
analysis found it in. The analysis keeps the typestates; this checker only
decides which of these rules a typestate breaks (and reports at most one
per event, the most specific)."""

from __future__ import annotations

from ownlint.engine.events import Checker, Facts, Findings, Release, Return, Transfer, Use, inside, via
from ownlint.engine.values.state import BORROWED, FREED, OWNER_DEAD, TRANSFERRED, HState


def owner(e: Use | Release) -> Facts:
    """The fact `owner`: the kind of the object that owns the handle, as its
    model names it (`owner-kind`: "torch tensor", "SYCL context"), if known."""
    return (("owner", e.owner.tag),) if e.owner is not None and _named(e.owner) else ()


def _named(state: HState) -> bool:
    """An owner's tag is its kind; a handle's link to a keep owner is tagged "keep"."""
    return bool(state.tag) and state.tag != "keep"


class LifetimeChecker(Checker):
    def on_use(self, e: Use, out: Findings) -> None:
        kind = e.state.kind
        if kind == FREED:
            out.report("OWN203", e.node, e.spelled, via(e), inside(e, "used here"), obj=e.obj)
        elif kind in (TRANSFERRED, BORROWED):
            if e.owner is not None and e.owner.kind == OWNER_DEAD:
                story = e.owner.story[-1:] + inside(e, "used here")
                out.report("OWN102", e.node, e.spelled, via(e) + owner(e), story, obj=e.obj)
            elif kind == TRANSFERRED:
                out.report("OWN101", e.node, e.spelled, via(e) + owner(e), inside(e, "used here"), obj=e.obj)

    def on_release(self, e: Release, out: Findings) -> None:
        kind = e.state.kind
        if kind == FREED or (e.state.at_death and kind not in (TRANSFERRED, BORROWED)):
            out.report("OWN201", e.node, e.spelled, via(e), inside(e, "freed again here"), obj=e.obj)
        elif kind in (TRANSFERRED, BORROWED):
            taken = (("transferred", "yes"),) if kind == TRANSFERRED else ()
            out.report("OWN202", e.node, e.spelled, via(e) + owner(e) + taken, inside(e, "freed here"), obj=e.obj)
        elif e.owner_referenced:
            out.report("OWN204", e.node, e.spelled, via(e) + owner(e), inside(e, "freed here"), obj=e.obj)

    def on_transfer(self, e: Transfer, out: Findings) -> None:
        if e.state.kind == TRANSFERRED:
            out.report("OWN103", e.node, e.spelled, via(e), inside(e, "transferred again here"), obj=e.obj)
        elif e.state.kind == FREED:
            out.report("OWN203", e.node, e.spelled, via(e), inside(e, "used here"), obj=e.obj)

    def on_return(self, e: Return, out: Findings) -> None:
        if e.owner_dies and e.state.kind in (BORROWED, TRANSFERRED):
            out.report("OWN102", e.node, e.spelled, (), (e.step,), obj=e.obj)
