"""Mappings given by an address and a size (`MapRange` effects) and ended
by a call naming their start address (`Unmap`).

A map call makes a mapping object at the call (typestate LIVE, its range in
`HState.span`, tagged `map:<kind>`), named in `CallPost.mapped`; whether it
may overlap another is the checkers' to say. An unmap call ends the live
mapping of the kinds it ends that starts at its address (a `Release` of the
mapping object); where none is live and one was ended before on the path,
the release is of that ended one (a second release, for the lifetime
checker). The address itself is not released: the memory, or the reserved
address range, is still there.

Addresses are compared as a base and an offset: an address inside a buffer
(`values.Addr`), or a tracked object (a reserved range, a parameter) at offset
0. A span keeps its address only where its start is known that way.

Known limits: a mapping a project helper makes and does not return is not
in its caller's state: the caller neither ends it nor sees its span.
"""

from __future__ import annotations

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.frontend.walk import walk
from ownlint.engine.modelling.model_types import AddressMap, Unmap
from ownlint.engine.values import linear
from ownlint.engine.values.state import FREED, LIVE, HState
from ownlint.engine.values.values import Addr, Obj, Span, Val


def _start(address: Val, spelled: cst.BaseExpression | None) -> tuple[Obj, linear.Lin] | None:
    """An address as a base object and an offset from it; None: unknown. An
    object stands for itself and for what is derived from it (`p + n` is `p`
    to every other check), so it is at offset 0 only where the argument is
    spelled without arithmetic."""
    if type(address) is Addr and isinstance(address.buffer, Obj) and address.offset is not None:
        return address.buffer, address.offset
    if isinstance(address, Obj) and spelled is not None and not _arithmetic(spelled):
        return address, linear.const(0)
    return None


def _arithmetic(expr: cst.BaseExpression) -> bool:
    return any(type(n) is cst.BinaryOperation or type(n) is cst.AugAssign for n in walk(expr))


def _argument(node: cst.Call, index: int) -> cst.BaseExpression | None:
    """The expression of the `index`-th positional argument of a call."""
    positional = [a.value for a in node.args if a.keyword is None and not a.star]
    return positional[index] if 0 <= index < len(positional) else None


def _kept_start(address: Val) -> tuple[Obj, linear.Lin] | None:
    """The start of a mapping already made: its address was kept only where
    its start was known (`address_map`)."""
    return (address, linear.const(0)) if isinstance(address, Obj) else None


def _same(a: linear.Lin, b: linear.Lin) -> bool:
    return linear.sign(linear.add(a, b, -1)) == 0


class AddressMapEval:
    """Mapped address ranges, the evaluator's `address_maps` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.models = ev.models
        self.on = ev.on

    def address_map_objects(self, node: cst.Call, spec: AddressMap | Unmap, positional: list[Val]) -> list[Obj]:
        """What the call may change: the mapping it makes, or the one it ends."""
        if isinstance(spec, AddressMap):
            return [self.fa.site_object(node, "mapped")]
        target = self.mapping_at(node, spec, positional)
        return [target] if target is not None else []

    def address_map(self, node: cst.Call, spec: AddressMap, positional: list[Val]) -> None:
        """A new mapping of `[address, address + size)`."""
        address = positional[spec.address] if 0 <= spec.address < len(positional) else None
        size = positional[spec.size] if spec.size is not None and 0 <= spec.size < len(positional) else None
        tag = f"map:{spec.kind}"
        start = _start(address, _argument(node, spec.address))
        obj = self.fa.site_object(node, "mapped")
        self.ev.names.forget(obj)
        step = self.fa.step_of(node, f"{spec.kind} made here")
        # the mapping keeps its address only where its start is known (see _start)
        kept = address if start is not None else None
        self.ev.st.heap[obj] = HState(LIVE, False, (step,), tag=tag, span=Span(kept, size))
        self.ev.call_mapped = (*self.ev.call_mapped, obj)

    def mapping_at(self, node: cst.Call, spec: Unmap, positional: list[Val]) -> Obj | None:
        """The mapping an unmap call ends: the live one of its kinds that starts at
        its address, else one that was ended already on this path (None: none)."""
        kinds = self.models.ended_by.get(spec.function.rpartition(".")[2], set())
        address = positional[spec.address] if 0 <= spec.address < len(positional) else None
        start = _start(address, _argument(node, spec.address))
        if start is None or not kinds:
            return None
        ended: Obj | None = None
        for obj, hs in list(self.ev.st.heap.items()):
            m = hs.span
            if m is None or not hs.tag.startswith("map:") or hs.tag[4:] not in kinds:
                continue
            other = _start(m.address, None) if type(m.address) is Addr else _kept_start(m.address)
            if other is None or other[0] is not start[0] or not _same(other[1], start[1]):
                continue
            if hs.kind != FREED:
                return obj
            ended = obj
        return ended

    def unmap(self, node: cst.Call, spec: Unmap, positional: list[tuple[cst.Arg, Val]]) -> None:
        """End the mapping that starts at the call's address."""
        target = self.mapping_at(node, spec, [v for _, v in positional])
        if target is not None:
            self.ev.calls.free(target, node, positional[spec.address][0].value)
