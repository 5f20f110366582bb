"""A checker that records every generic event it is given (tests/test_generic_events.py).

It reports nothing; it appends one line per event to `SEEN`, so a test can
read which events the engine published, in which order, with what."""

from __future__ import annotations

from collections.abc import Hashable

import libcst as cst

from ownlint.engine.events import (
    Adopting,
    Assume,
    Bind,
    Borrowed,
    CallPost,
    CallPre,
    Checker,
    Death,
    Escape,
    Findings,
    FrameEnd,
    Indexed,
    Release,
    Replayed,
    Stored,
    WithExit,
)
from ownlint.engine.frontend.cfg import source_of
from ownlint.engine.values.state import HState
from ownlint.engine.values.values import Obj, objects_in

SEEN: list[str] = []


def _line(node: cst.CSTNode) -> str:
    if isinstance(node, cst.FunctionDef):
        return f"def {node.name.value}"
    if isinstance(node, cst.Module):
        return "the module"
    return source_of(node).splitlines()[0]


class Recorder(Checker):
    def on_call_post(self, e: CallPost, out: Findings) -> None:
        effects = ",".join(type(x).__name__ for x in e.model.effects) if e.model is not None else "-"
        receiver = "receiver" if e.receiver is not None else "-"
        SEEN.append(
            f"call {e.callee} args={len(e.args)} result={'none' if e.result is None else 'value'} {receiver} {effects}"
        )

    def on_bind(self, e: Bind, out: Findings) -> None:
        SEEN.append(f"bind {e.key}")

    def on_escape(self, e: Escape, out: Findings) -> None:
        SEEN.append(f"escape at {_line(e.node)}")

    def on_death(self, e: Death, out: Findings) -> None:
        SEEN.append(f"death {e.name} {e.cause} at {_line(e.node)} ({e.state.kind})")

    def on_frame_end(self, e: FrameEnd, out: Findings) -> None:
        SEEN.append(f"frame-end {e.how} at {_line(e.node)}")

    def on_assume(self, e: Assume, out: Findings) -> None:
        subject = "obj" if e.obj is not None else "-"
        SEEN.append(f"assume {source_of(e.node)} {e.truth} {subject}")
        if e.failed is not None:
            SEEN.append(f"failed-status {source_of(e.node)} {e.truth}")


class Released(Checker):
    """Facts: remembers on each path which objects were released, and
    records one used as a truth value after (`if p:`)."""

    def on_release(self, e: Release, out: Findings) -> None:
        out.set_fact(e.obj, "released")

    def on_assume(self, e: Assume, out: Findings) -> None:
        if e.obj is not None and e.truth and out.fact(e.obj) == "released":
            SEEN.append(f"released, then tested: {source_of(e.node)}")


class Counted(Checker):
    """Facts with a join: counts the calls of `touch(p)` on each path (1, 2,
    ...); where the engine merges paths with different counts (a loop's
    widening), their join is "many". Records the count at each release."""

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        if source_of(e.node.func) == "touch":
            for _, value in e.args:
                if isinstance(value, Obj):
                    count = out.fact(value)
                    out.set_fact(value, 1 if count is None else count + 1 if isinstance(count, int) else count)

    def on_release(self, e: Release, out: Findings) -> None:
        SEEN.append(f"released after {out.fact(e.obj)}")

    @staticmethod
    def join_facts(a: Hashable, b: Hashable) -> Hashable | None:
        return "many"


class Made(Checker):
    """Records how many handles each call's model made, and which name holds the one an out-parameter got."""

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        if e.callee == "ctypes.byref":
            return
        line = f"made {len(e.made)} by {e.callee}"
        if any(obj not in objects_in(e.result) for obj in e.made):
            line += ", one out of its value"
        SEEN.append(line)


class Marks(Checker):
    """Facts on what a call made: marks each, and records the deaths of marked objects."""

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        for obj in e.made:
            out.set_fact(obj, "made")

    def on_release(self, e: Release, out: Findings) -> None:
        out.set_fact(e.obj, "released")

    def on_death(self, e: Death, out: Findings) -> None:
        SEEN.append(f"death of a {out.fact(e.obj)} handle at {_line(e.node)}")


class Tracked(Checker):
    """Facts of a value the engine knows nothing of: the value of `make()`
    becomes an object (`Findings.result_object`) with the fact "made"; a call
    of `mark(x)` marks what `x` holds (a parameter too), and a call of `look(x)`
    records the fact of what `x` holds. A project function that marked its
    parameter leaves the fact to its callers (`Replayed`)."""

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        name = source_of(e.node.func)
        if name == "make":
            out.set_fact(out.result_object(e.node), "made")
        for _, value in e.args:
            if not isinstance(value, Obj):
                continue
            if name == "mark":
                out.set_fact(value, "marked")
            elif name == "look":
                SEEN.append(f"look {source_of(e.node.args[0].value)}: {out.fact(value)}")

    def on_replayed(self, e: Replayed, out: Findings) -> None:
        callee = out.fact_in(e.facts)
        if e.which == "return" or e.which.startswith("field "):
            # what the callee made and handed back: a fact naming a parameter is resolved here
            if type(callee) is tuple and e.caller is not None:
                source = e.caller(callee[1])
                mark = out.fact(source) if isinstance(source, Obj) else None
                out.set_fact(e.obj, f"made of a {mark} value")
            SEEN.append(f"handed back as {e.which} by {e.via.name}: {out.fact(e.obj)}")
            return
        SEEN.append(
            f"replayed {source_of(e.spelled) if isinstance(e.spelled, cst.CSTNode) else e.spelled} via {e.via.name}: {callee}, was {out.fact(e.obj)}"
        )
        if callee is not None:
            out.set_fact(e.obj, callee)

    def on_indexed(self, e: Indexed, out: Findings) -> None:
        """A subscript of a marked value is a value of its own, "part of" it."""
        if isinstance(e.base, Obj) and out.fact(e.base) is not None:
            out.set_fact(out.result_object(e.node), f"part of a {out.fact(e.base)} value")


class Derived(Tracked):
    """`Tracked`, and `derive(p)` of a parameter `p` is a value whose fact names the parameter."""

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        super().on_call_post(e, out)
        if source_of(e.node.func) == "derive" and e.args and isinstance(e.args[0][1], Obj) and e.args[0][1].on_entry:
            out.set_fact(out.result_object(e.node), ("of", e.args[0][1]))


class Around(Checker):
    """Records each call before and after it runs, with the releases between."""

    def on_call_pre(self, e: CallPre, out: Findings) -> None:
        SEEN.append(f"pre {e.callee} args={len(e.args)} {'method' if e.method else '-'}")

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        SEEN.append(f"post {e.callee}")

    def on_release(self, e: Release, out: Findings) -> None:
        SEEN.append("release")


class Kept(Checker):
    """Records where objects are stored to outlive the function, and what borrows lend."""

    def on_stored(self, e: Stored, out: Findings) -> None:
        SEEN.append(f"stored {e.where} at {_line(e.node)}")

    def on_adopting(self, e: Adopting, out: Findings) -> None:
        handle = "an object" if isinstance(e.handle, Obj) else repr(e.handle)
        SEEN.append(f"adopting {handle} at {source_of(e.node.func)} with {len(e.args)} arguments")

    def on_borrowed(self, e: Borrowed, out: Findings) -> None:
        lent = "nothing" if e.handle is None else "a handle"
        SEEN.append(f"borrowed from {e.spelled} ({e.owner_state.kind}): {lent}, now {_kind(out.state(e.owner))}")


class Effects(Checker):
    """Records the effects of each call's model (`CallPost.model`), by callee."""

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        effects = ",".join(type(x).__name__ for x in e.model.effects) if e.model is not None else "-"
        SEEN.append(f"{e.callee}: {effects}; models {'known' if out.models is not None else '-'}")


class Merged(Checker):
    """Records, at each frame end, whether the paths reaching it were merged past the budget."""

    def on_frame_end(self, e: FrameEnd, out: Findings) -> None:
        SEEN.append(f"{e.how} merged={out.merged}")


class Returned(Checker):
    """Records, at each frame end, the value a `return` handed back, and
    which names the frame's locals are (`Findings.local`)."""

    def on_frame_end(self, e: FrameEnd, out: Findings) -> None:
        value = "none" if e.value is None else "object" if isinstance(e.value, Obj) else "value"
        names = [n for n in ("a", "p", "q") if out.local(n)]
        SEEN.append(f"{e.how} {value}; locals {names}")


class Exits(Checker):
    """Records the end of each `with` block: how its item is spelled, and what its value was."""

    def on_with_exit(self, e: WithExit, out: Findings) -> None:
        state = out.state(e.value) if isinstance(e.value, Obj) else None
        SEEN.append(f"exit {source_of(e.spelled)} at {_line(e.node)}: {state.kind if state is not None else '-'}")


class Ranges(Checker):
    """Records the handles a call's map effects made, whether each is among
    the path's objects that stand for an address range, whether a name holds
    it, its typestate, and the page size."""

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        for obj in e.mapped:
            hs = out.state(obj)
            listed = obj in [o for o, _ in out.spans()]
            kind = hs.kind if hs is not None else "-"
            SEEN.append(f"mapped by {e.callee}: listed {listed}, held {out.held(obj)}, {kind}, page {out.page_size}")


class Returns(Checker):
    """Facts of what a call made, and of the object a project function
    returns: replayed at its caller (`Replayed` of a returned object)."""

    def on_call_post(self, e: CallPost, out: Findings) -> None:
        for obj in e.made:
            out.set_fact(obj, "made")

    def on_replayed(self, e: Replayed, out: Findings) -> None:
        SEEN.append(f"replayed {_line(e.node)} via {e.via.name}: {out.fact_in(e.facts)}, holds {out.fact(e.obj)}")


def _kind(state: HState | None) -> str:
    return state.kind if state is not None else "nothing"


class Callees(Checker):
    """Records, at each end of a frame, the callees its function's own calls name."""

    def on_frame_end(self, e: FrameEnd, out: Findings) -> None:
        SEEN.append(f"{e.how} {' '.join(sorted(out.callees()))}")
