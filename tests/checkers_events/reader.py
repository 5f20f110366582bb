"""A checker that reads what `Findings` offers a checker besides reporting
(tests/test_generic_events.py): the models the analysis runs with, a step of
a story at a node, the objects it holds facts of on the path, and how the
frame ended where an object dies with it. It reports nothing; it appends one
line per event to `SEEN`."""

from __future__ import annotations

import libcst as cst

from ownlint.engine.events import CallPost, Checker, Death, Escape, Findings, FrameEnd
from ownlint.engine.frontend.cfg import source_of
from ownlint.engine.values.values import Obj

SEEN: list[str] = []


class Reader(Checker):
    def on_call_post(self, e: CallPost, out: Findings) -> None:
        if source_of(e.node.func) != "mark":
            return
        for arg, value in e.args:
            if isinstance(value, Obj):
                out.set_fact(value, f"marked as {source_of(arg.value)}")
        step = out.step(e.node, "marked here")
        modelled = "cuMemAlloc" in out.models.by_last_name
        SEEN.append(f"step {step.label} at {source_of(step.node)} in {type(step.stmt).__name__}; models: {modelled}")

    def on_frame_end(self, e: FrameEnd, out: Findings) -> None:
        SEEN.append(f"{e.how}: facts {sorted(str(fact) for _, fact in out.facts())}")

    def on_death(self, e: Death, out: Findings) -> None:
        if e.cause == "frame end":
            where = e.node.name.value if isinstance(e.node, cst.FunctionDef) else source_of(e.node)
            SEEN.append(f"death {e.name} with the frame ({e.frame}) at {where}")


class Escapes(Checker):
    """Records each object that escapes, and what each call returns."""

    def on_escape(self, e: Escape, out: Findings) -> None:
        SEEN.append(f"escape {e.obj!r} at {source_of(e.node)}")

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        SEEN.append(f"call {e.callee} returns {type(e.result).__name__}{' (a method)' if e.method else ''}")
