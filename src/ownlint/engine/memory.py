"""Host memory and its external mappings: the values, and the events the
memory-mapping checkers read (`MappingMade`, `BufferReleased`, `DanglingLink`).

The values it adds to the evaluator (values.py describes them all): `Lin`
(an integer as a linear form over the page size), `Addr` (an address inside
a buffer object), `BufRef` (a ctypes view of a buffer), `AIface`
(`arr.__array_interface__`), `Struct` (a ctypes descriptor, by value) and
`Flags` (`A | B` of flag symbols).

A buffer is an owner object (it dies when its last name goes, unless
something else may hold it) whose tag says where it came from:
`buffer:<aligned|unaligned>:<ro|rw>:<source>`. A mapping is the memory
handle a mapping call writes, carrying `HState.mapping` (`values.Mapping`).
A mapping whose address or size is a parameter of the function is checked
where a caller supplies them (through the summary), the rest where it is made.

Known limits:
- Mappings made in a loop are compared with the previous iteration's (kept by
  iteration.py) only where the offset moves by a `for ... in range(...)`
  variable or an accumulator the loop advances once per iteration; a `while`
  loop's offsets, and mappings two iterations back, are forgotten.
      while off < end: map_range(ctx, base + off, 2 * P); off += P   # overlap missed
- A method's mappings over `self.<field>` and a method closing a field's
  buffer are not seen by the caller (summaries describe objects, not fields' memory).
      s.map_header(); s.map_body()                              # overlap missed
- A constant imported from another module of the project is not folded.
      from mapping import PAGE; map_window(ctx, base, PAGE, 4 * PAGE)  # size unknown
- Aliases of a descriptor are copies: `d2 = desc; d2.flags = RO` does not
  change `desc`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ownlint.engine import domain, linear
from ownlint.engine.cfg import source_of
from ownlint.engine.eval_shared import EvalShared
from ownlint.engine.events import Buffer, BufferReleased, DanglingLink, MappingMade, Overlap
from ownlint.engine.memvalues import as_lin as as_lin  # re-exported: other modules import them from here
from ownlint.engine.memvalues import buffer_tag, lin_options, parse_tag
from ownlint.engine.memvalues import lin_value as lin_value
from ownlint.engine.models import MapCall
from ownlint.engine.state import FREED, OWNER, OWNER_DEAD, HState
from ownlint.engine.typestate_base import target_key
from ownlint.engine.values import (
    Addr,
    AIface,
    BufRef,
    Const,
    Field,
    Flags,
    Mapping,
    Obj,
    Param,
    Ref,
    Struct,
    Sym,
    Val,
)

if TYPE_CHECKING:
    from ownlint.engine.summaries import Summary


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
            ro = qualified in mem.read_only
            source = qualified
            for a, v in args:
                if a.keyword is None:
                    continue
                word = v.name.rpartition(".")[2] if type(v) is Sym else None
                if f"{a.keyword.value}={word}" in mem.read_only_keywords:
                    ro, source = True, f"{qualified} opened with {a.keyword.value}={word}"
            return True, self.new_buffer(node, qualified in mem.aligned, ro, source)
        if qualified in mem.views:
            # a view of the object's own attribute: its address is the caller's (re-rooted at the call)
            return True, first if self.is_buffer(first) or type(first) is Field else None
        if type(node.func) is cst.BinaryOperation and type(node.func.operator) is cst.Multiply:
            element = self.fa.names.qualify(node.func.left) or ""
            if element.partition(".")[0] in mem.array_type_modules:
                return True, self.new_buffer(node, False, False, f"a ctypes array `{source_of(node.func)}`")
        info = self.buffer_info(receiver) if method and last in mem.read_only_methods else None
        if info is not None:
            return True, self.new_buffer(node, info[0], True, f"a read-only view (`{last}()`)")
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
            self.release_buffer(receiver, node, "closed", source_of(node.func.value))
            return True, None
        return False, None

    def key_of(self, expr: cst.BaseExpression) -> str | None:
        return target_key(expr, self.fa.self_name, self.ev.st.env)

    def is_buffer(self, v: Val) -> bool:
        return isinstance(v, Obj) and parse_tag(self.ev.st.heap.get(v, HState(OWNER)).tag) is not None

    def buffer_info(self, v: Val) -> tuple[bool, bool, str] | None:
        """(aligned, read-only, source) of a buffer; None for any other value."""
        return parse_tag(self.ev.st.heap.get(v, HState(OWNER)).tag) if isinstance(v, Obj) else None

    def keeps_views(self, v: Val) -> bool:
        """Whether `v` is a buffer whose slices and view methods are views of it
        (numpy's: a bytes or bytearray slice is a copy)."""
        info = self.buffer_info(v)
        return info is not None and info[2].partition(".")[0] in self.models.memory.view_modules

    def new_buffer(self, node: cst.CSTNode, aligned: bool, read_only: bool, source: str) -> Obj:
        obj = self.fa.site_object(node, "result")
        self.ev.names.forget(obj)
        step = self.fa.step_of(node, "the buffer is made here")
        self.ev.st.heap[obj] = HState(OWNER, False, (step,), tag=buffer_tag(aligned, read_only, source))
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

    # -- the descriptor chain -------------------------------------------------------
    def chain(self, v: Val) -> list[tuple[Struct, Val]]:
        """The structures a value points into, following `pNext`: (struct, the ref to it)."""
        out: list[tuple[Struct, Val]] = []
        seen = 0
        ref: Val = None
        while seen < 16:
            seen += 1
            if type(v) is Ref:
                ref, v = v, v.value
                continue
            if type(v) is not Struct:
                break
            out.append((v, ref))
            ref = None
            v = v.get(self.models.memory.chain_field)
        return out

    def check_chain(self, node: cst.Call, args: list[tuple[cst.Arg, Val]]) -> None:
        """A call reads each descriptor passed to it, through `pNext`: a link to a
        temporary that no name keeps alive dangles (`DanglingLink`)."""
        field = self.models.memory.chain_field
        if not field:
            return
        for _, v in args:
            for struct, _ in self.chain(v):
                link = struct.get(field)
                if self.dangling_link(link, None):
                    event = DanglingLink(node, _struct_name(link), returned=False)
                    for handler in self.on["dangling_link"]:
                        handler(event, self.ev)
                    return

    def dangling_link(self, link: Val, leaving: set[str] | None) -> bool:
        """A `byref`/`addressof` link to a temporary, or (when a function returns,
        `leaving` = its locals) to a local that dies with the frame."""
        if type(link) is not Ref or not link.how:
            return False
        if link.how == "pointer":
            return False  # ctypes keeps the pointee alive in the field's _objects
        key = link.key
        if key is None:
            return True
        return leaving is not None and key in leaving

    # -- mappings ------------------------------------------------------------------------
    def mapping_of(self, spec: MapCall, args: list[tuple[cst.Arg, Val]]) -> Mapping | None:
        positional = [v for a, v in args if a.keyword is None]
        if not 0 <= spec.descriptor < len(positional):
            return None
        for struct, _ in self.chain(positional[spec.descriptor]):
            stype = struct.get(spec.type_field) if spec.type_field else None
            stype_word = stype.name.rpartition(".")[2] if type(stype) is Sym else None
            if struct.type != spec.extension and stype_word not in spec.extension_stype:
                continue
            host = self.chain(positional[spec.descriptor])[0][0]
            flags = host.get(spec.flags_field, Const(0))
            return Mapping(
                struct.get(spec.address_field), struct.get(spec.size_field, Const(0)), self.has_flag(flags, spec)
            )
        return None

    def has_flag(self, flags: Val, spec: MapCall) -> bool | None:
        if type(flags) is Const and isinstance(flags.value, int):
            return bool(flags.value & spec.read_only_bit)
        if type(flags) is Sym:
            return flags.name.rpartition(".")[2] == spec.read_only_flag
        if type(flags) is Flags:
            return any(n.rpartition(".")[2] == spec.read_only_flag for n in flags.names)
        return None

    def check_mapping(self, node: cst.CSTNode, mapping: Mapping, via: Summary | None = None) -> Mapping:
        """Check a new mapping where its address and size are known; returns the
        mapping with what was checked marked."""
        addr, size, ro_flag = mapping.address, mapping.size, mapping.read_only_flag
        addr_done, size_done = mapping.address_checked, mapping.size_checked
        page = self.fa.page_size
        sizes = lin_options(size)
        new_sizes: tuple[linear.Lin, ...] | None = None
        if not size_done and sizes is not None:
            size_done = True
            new_sizes = tuple(sizes)
        buffer: Buffer | None = None
        offset: linear.Lin | None = None
        overlap: Overlap | None = None
        if (
            not addr_done
            and type(addr) is Addr
            and isinstance(addr.buffer, Obj)
            and type(addr.buffer) not in (Param, Field)
        ):
            addr_done = True
            buf, offset = addr.buffer, addr.offset
            hs = self.ev.st.heap.get(buf, HState(OWNER))
            info = parse_tag(hs.tag)
            if info is not None:
                aligned, read_only, source = info
                temporary = hs.kind == OWNER and not hs.escaped and not self.ev.names.refs(buf)
                buffer = Buffer(aligned, read_only, source, temporary)
                if offset is not None and sizes is not None:
                    overlap = self.overlap(buf, offset, sizes)
        if new_sizes is None and buffer is None:
            return Mapping(addr, size, ro_flag, addr_done, size_done)
        event = MappingMade(
            node,
            via,
            new_sizes,
            tuple(linear.aligned(form, page) for form in new_sizes or ()),
            buffer,
            offset if buffer is not None else None,
            linear.aligned(offset, page) if buffer is not None and offset is not None else None,
            ro_flag,
            overlap,
        )
        for handler in self.on["mapping_made"]:
            handler(event, self.ev)
        return Mapping(addr, size, ro_flag, addr_done, size_done)

    def overlap(self, buf: Obj, offset: linear.Lin, sizes: list[linear.Lin]) -> Overlap | None:
        """A live mapping of `buf` that `[offset, offset + size)` overlaps for every size it may have."""
        for hs in list(self.ev.st.heap.values()):
            m = hs.mapping
            if m is None or hs.kind == FREED or type(m.address) is not Addr:
                continue
            if m.address.buffer is not buf or m.address.offset is None:
                continue
            other_off, other_sizes = m.address.offset, lin_options(m.size)
            if other_sizes is None:
                continue
            # [a, a+s) and [b, b+t) overlap iff a < b+t and b < a+s, for every possible size
            if all(
                linear.sign(linear.add(linear.add(other_off, t), offset, -1)) == 1
                and linear.sign(linear.add(linear.add(offset, s), other_off, -1)) == 1
                for s in sizes
                for t in other_sizes
            ):
                rng = f"[base + {linear.show(offset)}, base + {' or '.join(linear.show(linear.add(offset, s)) for s in sizes)})"
                other = f"[base + {linear.show(other_off)}, base + {' or '.join(linear.show(linear.add(other_off, t)) for t in other_sizes)})"
                return Overlap(rng, other, hs.story[:1])
        return None

    def release_buffer(self, buf: Val, node: cst.CSTNode, how: str, name: str) -> None:
        """The buffer's memory goes away (closed, deleted, its `with` ends)."""
        if not isinstance(buf, Obj):
            return
        for hs in self.ev.st.heap.values():
            m = hs.mapping
            if m is None or hs.kind == FREED or hs.reported:
                continue
            if type(m.address) is Addr and m.address.buffer is buf:
                event = BufferReleased(node, name, how, hs)
                for handler in self.on["buffer_released"]:
                    handler(event, self.ev)
                break
        owner = self.ev.st.heap.get(buf)
        if owner is None and type(buf) is Field:
            # the object's own buffer: its callers release what their object holds (typestate_replay)
            self.ev.st.heap[buf] = HState(OWNER_DEAD, False, (self.fa.step_of(node, f"the buffer is {how} here"),))
        elif owner is not None and owner.kind == OWNER:
            self.ev.st.heap[buf] = owner.with_step(OWNER_DEAD, self.fa.step_of(node, f"the buffer is {how} here"))


def _struct_name(link: Val) -> str | None:
    if type(link) is Ref and type(link.value) is Struct:
        return link.value.type
    return None


def _by_name(field: tuple[str, Val]) -> str:
    return field[0]
