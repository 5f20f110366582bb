"""Host memory as Python values: buffers, views of them, addresses inside
them, descriptors, and the address range a descriptor-driven map effect
covers. What a mapping of that memory means is the checkers' (they follow
`CallPost.mapped` and `HState.span`).

The values it adds to the evaluator (values.py describes them all): `Lin`
(an integer as a linear form over the page size), `Addr` (an address inside
a buffer object), `BufRef` (a ctypes view of a buffer), `AIface`
(`arr.__array_interface__`), `Struct` (a ctypes descriptor, by value) and
`Flags` (`A | B` of flag symbols).

A buffer is an owner object (it dies when its last name goes, unless
something else may hold it, or when it is closed) tagged `buffer`, or
`array` where its slices and view methods are views of it (an array of a
`view-modules` module); where its memory came from, and what that means,
is the checkers'. The handle a
`MapDescriptor` effect writes stands for the range the chained extension
structure gives (`HState.span`); a span whose address or size is a parameter
of the function gets the caller's values where the summary is replayed.

Known limits:
- A span made in a loop is kept next to the previous iteration's (kept by
  iteration.py) only where the offset moves by a `for ... in range(...)`
  variable or an accumulator the loop advances once per iteration; a `while`
  loop's offsets, and spans two iterations back, are forgotten.
      while off < end: map_range(ctx, base + off, 2 * P); off += P   # no relation
- A method's spans over `self.<field>` are not seen by the caller
  (summaries describe objects, not fields' memory).
      s.map_header(); s.map_body()                              # not related
- A constant imported from another module of the project is not folded.
      from mapping import PAGE; map_window(ctx, base, PAGE, 4 * PAGE)  # size unknown
- Aliases of a descriptor are copies: `d2 = desc; d2.flags = RO` does not
  change `desc`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ownlint.engine.evaluator.eval_shared import EvalShared
from ownlint.engine.evaluator.typestate_base import target_key
from ownlint.engine.modelling.models import MapCall
from ownlint.engine.values import domain
from ownlint.engine.values.memvalues import ARRAY, BUFFER, is_buffer_tag, linked
from ownlint.engine.values.memvalues import as_lin as as_lin  # re-exported: other modules import them from here
from ownlint.engine.values.memvalues import lin_value as lin_value
from ownlint.engine.values.state import LIVE_STATE, OWNER, OWNER_DEAD, HState
from ownlint.engine.values.values import (
    Addr,
    AIface,
    BufRef,
    Const,
    Field,
    Obj,
    Param,
    Ref,
    Span,
    Struct,
    Sym,
    Val,
)

if TYPE_CHECKING:
    pass


class MemoryEval:
    """Host memory, the evaluator's `memory` component (see eval_shared)."""

    def __init__(self, ev: EvalShared) -> None:
        self.ev = ev
        self.fa = ev.fa
        self.models = ev.models
        self.on = ev.on

    # -- calls --------------------------------------------------------------------
    def memory_call(
        self, node: cst.Call, qualified: str, receiver: Val, args: list[tuple[cst.Arg, Val]]
    ) -> tuple[bool, Val]:
        """Handle a call the memory model knows; (handled, value)."""
        mem = self.models.memory
        first = args[0][1] if args else None
        last = qualified.rpartition(".")[2]
        method = type(node.func) is cst.Attribute
        if qualified in mem.page_size_calls:
            return True, self.ev.arith.page_size()
        if qualified in mem.page_size_sysconf:
            if type(first) is Const and str(first.value) in mem.page_size_sysconf_names:
                return True, self.ev.arith.page_size()
            return True, None
        if qualified in mem.aligned or qualified in mem.unaligned:
            return True, self.new_buffer(node, qualified.partition(".")[0] in mem.view_modules)
        if qualified in mem.views:
            # a view of the object's own attribute: its address is the caller's (re-rooted at the call)
            return True, first if self.is_buffer(first) or type(first) is Field else None
        if type(node.func) is cst.BinaryOperation and type(node.func.operator) is cst.Multiply:
            element = self.fa.names.qualify(node.func.left) or ""
            if element.partition(".")[0] in mem.array_type_modules:
                return True, self.new_buffer(node, False)
        if method and last in mem.read_only_methods and self.is_buffer(receiver):
            return True, self.new_buffer(node, False)
        if method and last in mem.view_methods and self.keeps_views(receiver):
            return True, receiver
        holder = node.func.value if type(node.func) is cst.Attribute else None
        if type(holder) is cst.Attribute and f"{holder.attr.value}.{last}" in mem.address_methods:
            inner = self.ev.expr(holder.value)  # `arr.ctypes.data_as(T)`: arr's address
            if self.is_buffer(inner) or type(inner) is Param:
                return True, Addr(inner, ())
        if method and last in mem.from_buffer_methods and self.is_buffer(first):
            return True, BufRef(first)
        if qualified in mem.char_pointer and self.is_buffer(first):
            return True, BufRef(first)
        if qualified in mem.addressof and args:
            if type(first) is BufRef:
                return True, Addr(first.buffer, ())
            if self.is_buffer(first):
                return True, Addr(first, ())
            if type(first) is Struct:
                key = self.key_of(args[0][0].value)
                return True, Ref(key, first, "addressof")
            return True, None
        if mem.descriptor_re is not None and mem.descriptor_re.search(last):
            fields = tuple(sorted(((a.keyword.value, v) for a, v in args if a.keyword is not None), key=_by_name))
            return True, Struct(last, fields)
        if (
            type(node.func) is cst.Attribute
            and last in mem.close_methods
            and (self.is_buffer(receiver) or type(receiver) is Field)
        ):
            self.release_buffer(receiver, node, "closed")
            return True, None
        return False, None

    def key_of(self, expr: cst.BaseExpression) -> str | None:
        return target_key(expr, self.fa.self_name, self.ev.st.env)

    def is_buffer(self, v: Val) -> bool:
        return isinstance(v, Obj) and is_buffer_tag(self.ev.st.heap.get(v, LIVE_STATE).tag)

    def keeps_views(self, v: Val) -> bool:
        """Whether `v` is a buffer whose slices and view methods are views of it
        (an array of a `view-modules` module; a bytes or bytearray slice is a copy)."""
        return isinstance(v, Obj) and self.ev.st.heap.get(v, LIVE_STATE).tag == ARRAY

    def new_buffer(self, node: cst.CSTNode, views: bool) -> Obj:
        """Host memory the call made (`views`: its slices are views of it)."""
        obj = self.fa.site_object(node, "result")
        self.ev.names.forget(obj)
        step = self.fa.step_of(node, "the buffer is made here")
        self.ev.st.heap[obj] = HState(OWNER, False, (step,), tag=ARRAY if views else BUFFER)
        return obj

    # -- attributes and subscripts ----------------------------------------------------
    def memory_attribute(self, node: cst.Attribute, base: Val) -> tuple[bool, Val]:
        mem = self.models.memory
        attr = node.attr.value
        if type(base) is Struct:
            return True, base.get(attr, Const(0))  # ctypes zero-fills
        if type(base) is BufRef and attr in self.models.derive_attributes:
            return True, Addr(base.buffer, ())
        if self.is_buffer(base) and attr == mem.array_interface:
            return True, AIface(base, 0)
        for path in mem.address_attributes:
            head, _, tail = path.rpartition(".")
            if attr == tail and type(node.value) is cst.Attribute and node.value.attr.value == head:
                inner = self.ev.expr(node.value.value)
                if self.is_buffer(inner) or type(inner) in (Param, Field):
                    return True, Addr(inner, ())  # a parameter's: placed by the caller (summaries.Derived)
        return False, None

    def memory_subscript(self, base: Val, index: Val) -> tuple[bool, Val]:
        if type(base) is AIface:
            if base.depth == 0 and index == Const("data"):
                return True, AIface(base.buffer, 1)
            if base.depth == 1 and index == Const(0):
                return True, Addr(base.buffer, ())
        return False, None

    def set_field(self, target: cst.Attribute, value: Val) -> bool:
        """`desc.flags = v` on a local descriptor: a new descriptor value."""
        if type(target.value) is not cst.Name:
            return False
        name = target.value.value
        current = self.ev.st.env.get(name)
        if type(current) is not Struct:
            return False
        fields = dict(current.fields)
        fields[target.attr.value] = value
        struct = Struct(current.type, tuple(sorted(fields.items(), key=_by_name)))
        if not domain.fits(struct):
            self.ev.names.escape(struct)
            self.ev.names.bind(name, None)
            return True
        self.ev.st.env[name] = struct
        return True

    # -- mappings ------------------------------------------------------------------------
    def span_of(self, spec: MapCall, args: list[tuple[cst.Arg, Val]]) -> Span | None:
        """The address range a call maps through the descriptor its model names:
        the address and size fields of the extension structure chained to it."""
        positional = [v for a, v in args if a.keyword is None]
        if not 0 <= spec.descriptor < len(positional):
            return None
        for struct, _ in linked(positional[spec.descriptor], self.models.memory.chain_field):
            stype = struct.get(spec.type_field) if spec.type_field else None
            stype_word = stype.name.rpartition(".")[2] if type(stype) is Sym else None
            if struct.type != spec.extension and stype_word not in spec.extension_stype:
                continue
            return Span(struct.get(spec.address_field), struct.get(spec.size_field, Const(0)))
        return None

    def release_buffer(self, buf: Val, node: cst.CSTNode, how: str) -> None:
        """The buffer's memory goes away (closed, deleted, its `with` ends)."""
        if not isinstance(buf, Obj):
            return
        owner = self.ev.st.heap.get(buf)
        if owner is None and type(buf) is Field:
            # the object's own buffer: its callers release what their object holds (typestate_replay)
            self.ev.st.heap[buf] = HState(OWNER_DEAD, False, (self.fa.step_of(node, f"the buffer is {how} here"),))
        elif owner is not None and owner.kind == OWNER:
            self.ev.st.heap[buf] = owner.with_step(OWNER_DEAD, self.fa.step_of(node, f"the buffer is {how} here"))


def _by_name(field: tuple[str, Val]) -> str:
    return field[0]
