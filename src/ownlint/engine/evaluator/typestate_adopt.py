"""Interop ownership: adopting a native handle (a model's adopt, with keep or
transfer), transferring it to an owner, and borrowing a handle from an
owner (a model's borrow), the evaluator's `adoption` component (see eval_shared)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.events import Adopting, Borrowed, Transfer
from ownlint.engine.frontend.cfg import source_of
from ownlint.engine.modelling.models import Adopt, Borrow
from ownlint.engine.values.state import (
    BORROWED,
    FREED,
    KEPT,
    LIVE,
    LIVE_STATE,
    OWNER,
    OWNER_DEAD,
    TRANSFERRED,
    HState,
    Step,
)
from ownlint.engine.values.values import Const, Dict, Lent, Obj, Sym, Val, objects_in

if TYPE_CHECKING:
    from ownlint.engine.program.summaries import Summary


class AdoptEval:
    """Adopt, transfer, borrow, the evaluator's `adoption` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.on = ev.on

    # -- interop --------------------------------------------------------------
    def ownership_of(self, adopt: Adopt, first: Val, args: list[tuple[cst.Arg, Val]]) -> str:
        """ "keep", "transfer", or "unknown" (the ownership spellings the models list)."""
        if adopt.fixed:
            return adopt.fixed
        own = adopt.ownership
        value: Val = None
        given = False
        for a, v in args:
            if a.keyword is not None and a.keyword.value in own.keywords:
                value, given = v, True
        if not given and type(first) is Dict:
            for k, v in first.items:
                if k in own.fields:
                    value, given = v, True
        if not given:
            return "transfer"
        word = None
        if type(value) is Const and isinstance(value.value, str):
            word = value.value.rpartition(".")[2]
        elif type(value) is Sym:
            word = value.name.rpartition(".")[2]
        if word in own.keep:
            return "keep"
        if word in own.transfer:
            return "transfer"
        return "unknown"

    def adopt(
        self,
        adopt: Adopt,
        qualified: str,
        node: cst.Call,
        positional: list[tuple[cst.Arg, Val]],
        args: list[tuple[cst.Arg, Val]],
    ) -> Val:
        """`make_*(h, ...)`: a new owner of `h`, or None when the call is not interop."""
        if not 0 <= adopt.handle < len(positional):
            return None
        spelled_node: cst.CSTNode = positional[adopt.handle][0].value
        first = positional[adopt.handle][1]
        handle = first
        record = type(first) is Dict
        if type(first) is Dict:
            handle = next((v for k, v in first.items if k in adopt.ownership.handle_fields), None)
        interop = (
            self.ev.calls.guarded(qualified, adopt.ownership.guard_modules)
            or record
            or any(a.keyword is not None and a.keyword.value in adopt.ownership.keywords for a, _ in args)
            or any(self.ev.st.heap.get(o, LIVE_STATE).tag == "native" for o in objects_in(handle))
        )
        if not interop:
            return None
        if self.on["adopting"]:
            event = Adopting(node, adopt, handle, tuple(args))
            for handler, i in self.on["adopting"]:
                handler(event, self.ev.outs[i])
        mode = self.ownership_of(adopt, first, args)
        owner = self.ev.calls.new_owner(node, adopt.owner_kind, "made here")
        spelled = spelled_node
        for obj in objects_in(handle):
            hs = self.ev.st.heap.get(obj, LIVE_STATE)
            if hs.reported:
                continue
            if mode == "transfer":
                self.transfer(obj, owner, node, spelled)
            elif mode == "keep":
                self.ev.calls.use(obj, node, spelled)
                hs = self.ev.st.heap.get(obj, LIVE_STATE)
                if not hs.reported and hs.kind in (LIVE, KEPT):
                    self.ev.st.heap[obj] = hs.with_step(
                        KEPT, self.fa.step_of(node, "adopted with `keep` here"), owner=owner
                    )
                    self.ev.st.heap[owner] = self.ev.st.heap[owner].but(owner=obj)
            else:  # unknown ownership: nothing may rest on it
                self.ev.calls.use(obj, node, spelled)
                if not self.ev.st.heap.get(obj, LIVE_STATE).reported:
                    self.ev.st.heap.pop(obj, None)
        return owner

    def transfer(
        self,
        obj: Obj,
        owner: Obj,
        node: cst.CSTNode,
        spelled: str | cst.CSTNode,
        via: Summary | None = None,
        inner: Step | None = None,
    ) -> None:
        hs = self.ev.st.heap.get(obj, LIVE_STATE)
        if hs.reported:
            return
        event = Transfer(obj, hs, node, spelled, via, inner)
        for handler, i in self.on["transfer"]:
            handler(event, self.ev.outs[i])
        if hs.kind in (TRANSFERRED, FREED):
            return  # taken over already, or gone: nothing changes
        where = inner if inner is not None else self.fa.step_of(node, "")
        label = f"ownership transferred here, inside `{via.name}`" if via is not None else "ownership transferred here"
        self.ev.st.heap[obj] = hs.with_step(TRANSFERRED, Step(where.unit, where.node, label, where.stmt), owner=owner)

    def borrow(self, b: Borrow, owner_val: Val, node: cst.CSTNode, spelled: cst.CSTNode) -> Val:
        """A borrow (`lend(q)`, `q.handle()`): a handle valid while `q` lives."""
        self.ev.calls.use(owner_val, node, spelled)
        return self.lend(b, owner_val, node, source_of(spelled))

    def lend(self, b: Borrow, owner_val: Val, node: cst.CSTNode, spelled: str) -> Val:
        """The handle `b` hands out of `owner_val` (a borrow here, or one a callee
        made of what the caller passed: `Lent`, replayed with the caller's object)."""
        objs = objects_in(owner_val)
        if len(objs) != 1:
            return None
        owner = objs[0]
        hs = self.ev.st.heap.get(owner)
        if owner.on_entry and (hs is None or hs.kind == LIVE):
            return Lent(owner, b)  # the caller knows whose handle it is (summaries.Lend)
        if hs is None or hs.kind not in (OWNER, OWNER_DEAD):
            return None  # not an object ownlint follows: nothing is known of its lifetime
        if hs.tag in b.unsupported:
            return self.lent(owner, hs, b, node, spelled, None)  # this kind of owner lends no handle
        if hs.owner is not None and hs.kind == OWNER:
            return self.lent(owner, hs, b, node, spelled, hs.owner)  # made with keep: the application's own handle
        result = self.fa.site_object(node, "adopted")
        self.ev.names.forget(result)
        self.ev.st.heap[result] = HState(
            BORROWED,
            False,
            (self.fa.step_of(node, f"borrowed from `{spelled}` here"),),
            owner=owner,
        )
        if hs.kind == OWNER and not hs.escaped and not self.ev.names.refs(owner):
            self.ev.st.heap[owner] = hs.with_step(
                OWNER_DEAD, self.fa.step_of(node, "a temporary: it dies at the end of this statement")
            )
        return self.lent(owner, hs, b, node, spelled, result)

    def lent(self, owner: Obj, hs: HState, b: Borrow, node: cst.CSTNode, spelled: str, handle: Val) -> Val:
        """`handle`, lent by `owner` (typestate `hs` before the borrow), published as `Borrowed`."""
        if self.on["borrowed"]:
            event = Borrowed(owner, hs, b, node, spelled, handle)
            for handler, i in self.on["borrowed"]:
                handler(event, self.ev.outs[i])
        return handle
