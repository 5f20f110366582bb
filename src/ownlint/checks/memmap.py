"""External memory mappings (OWN301-OWN305), from the generic events.

What the engine gives: host memory as owner objects tagged as buffers (made by
the calls the `[memory]` models name), the handles a call's map effects made (`CallPost.mapped`),
each standing for an address range (`HState.span`: a start, a length, as
values: an address inside a buffer object at an offset that is a linear form
over the page size); a buffer's memory going away (`CallPost` of a close
method, `Death` of its last name, `WithExit` of its `with` block, `Replayed`
of a helper that closed it); a `return` (`FrameEnd` with the value). What a
mapping means is this module's:

- a mapping must not overlap a live mapping of the same memory (OWN301):
  ranges inside one buffer compared for every size each may have; mappings
  of an address range (`MapRange` effects) also when they start at the same
  place, and only with mappings of their own kind;
- its address and size are page multiples, and its memory comes from an
  allocator that aligns to pages (OWN302);
- read-only memory is mapped with the read-only flag of its descriptor (OWN303);
- the buffer outlives the mapping (OWN304): not closed, deleted, rebound,
  ended by its `with` or returned from under a live mapping, nor a temporary;
- a descriptor chain read by a call links no temporary structure, and one
  returned links no local of the frame (OWN305).

Its facts: `HostMemory` on each buffer a call made (whether its allocator
aligns it to pages, whether it is read-only, where it comes from), set at
the call that made it; `Mapped` on each mapping handle (the read-only flag its
descriptor asked for, and which of its address and size were checked: one
whose address or size is a parameter of a helper is checked at the caller,
where the helper's summary replays it with the caller's values), and
`FieldClosed` on an attribute's buffer a method closed (its callers replay
it on their object's buffer).

Known limits: a returned mapping or descriptor is looked at where the frame
ends (`FrameEnd`), after any `finally` body ran, so a mapping that body
frees is no longer live there (the engine before this checker looked at the
`return` itself, and reported it):

    try: return ptr
    finally: zeMemFree(ctx, ptr)   # returned, its buffer local: not reported
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ownlint.engine.events import (
    CallPost,
    Checker,
    Death,
    Facts,
    Findings,
    FrameEnd,
    Replayed,
    WithExit,
)
from ownlint.engine.frontend.cfg import source_of
from ownlint.engine.modelling.effects import MapDescriptor, MapRange
from ownlint.engine.program.summaries import Summary
from ownlint.engine.values import linear
from ownlint.engine.values.memvalues import is_buffer_tag, lin_options, linked
from ownlint.engine.values.state import FREED, OWNER, HState, Step
from ownlint.engine.values.values import Addr, Const, Field, Flags, Obj, Param, Ref, Span, Struct, Sym, Val, objects_in


@dataclass(frozen=True, slots=True)
class Mapped:
    """A mapping handle: the read-only flag its descriptor asked for (None:
    unknown or no descriptor), and whether its address and size were checked."""

    read_only_flag: bool | None
    address_checked: bool
    size_checked: bool


@dataclass(frozen=True, slots=True)
class HostMemory:
    """A buffer: whether its allocator aligns it to pages, whether the host may
    not write it, and where it comes from (for messages)."""

    aligned: bool
    read_only: bool
    source: str


@dataclass(frozen=True, slots=True)
class FieldClosed:
    """A method closed the buffer an attribute of its object holds."""


class MemmapChecker(Checker):
    def on_call_post(self, e: CallPost, out: Findings) -> None:
        mem = out.models.memory
        result = e.result
        if isinstance(result, Obj) and _is_buffer(result, out) and type(out.fact(result)) is not HostMemory:
            made = host_memory(e, out)  # a buffer the call made: what memory it is
            if made is not None:
                out.set_fact(result, made)
        if mem.chain_field and e.model is not None and not e.model.record:
            self.check_chain(e, mem.chain_field, out)
        func = e.node.func
        if type(func) is cst.Attribute and func.attr.value in mem.close_methods:
            receiver = e.receiver
            if _is_buffer(receiver, out) or type(receiver) is Field:
                assert isinstance(receiver, Obj)
                released(receiver, e.node, "closed", source_of(func.value), out)
                if type(receiver) is Field:
                    out.set_fact(receiver, FieldClosed())  # the callers' object's buffer (on_replayed)
        if not e.mapped or e.model is None:
            return
        descriptor = next((x for x in e.model.effects if type(x) is MapDescriptor), None)
        ranged = any(type(x) is MapRange for x in e.model.effects)
        for obj in e.mapped:
            hs = out.state(obj)
            if hs is None or hs.span is None:
                continue
            if ranged and hs.tag.startswith("map:"):
                overlap = range_overlap(obj, hs, out)
                if overlap is not None:
                    out.report("OWN301", e.node, None, overlap[:2], overlap[2])
                out.set_fact(obj, Mapped(None, True, True))
            elif descriptor is not None:
                flag = _read_only_flag(e, descriptor)
                out.set_fact(obj, check_mapping(e.node, obj, hs.span, Mapped(flag, False, False), None, out))

    def check_chain(self, e: CallPost, field: str, out: Findings) -> None:
        """A call reads each descriptor passed to it, through its links: a link
        to a temporary that no name keeps alive dangles."""
        for _, v in e.args:
            for struct, _ in linked(v, field):
                link = struct.get(field)
                if _dangles(link, None, out):
                    out.report("OWN305", e.node, _struct_name(link))
                    return

    def on_replayed(self, e: Replayed, out: Findings) -> None:
        fact = out.fact_in(e.facts)
        if type(fact) is Mapped:
            hs = out.state(e.obj)
            if hs is not None and hs.span is not None and out.fact(e.obj) == fact:
                # the helper mapped what this caller passed: checked here, with the caller's values
                out.set_fact(e.obj, check_mapping(e.node, e.obj, hs.span, fact, e.via, out))
        elif type(fact) is FieldClosed and _is_buffer(e.obj, out):
            spelled = source_of(e.spelled) if isinstance(e.spelled, cst.CSTNode) else e.spelled
            released(e.obj, e.node, f"closed inside `{e.via.name}`", spelled, out)

    def on_death(self, e: Death, out: Findings) -> None:
        if e.cause not in ("deleted", "rebound") or e.state.kind != OWNER or e.state.escaped:
            return
        if is_buffer_tag(e.state.tag):
            released(e.obj, e.node, e.cause, e.name or "", out)

    def on_with_exit(self, e: WithExit, out: Findings) -> None:
        if _is_buffer(e.value, out):
            assert isinstance(e.value, Obj)
            released(e.value, e.node, "with block ends", source_of(e.spelled), out)

    def on_frame_end(self, e: FrameEnd, out: Findings) -> None:
        if e.how != "return" or e.value is None or type(e.node) is not cst.Return:
            return
        returned_value(e.value, e.node, out)


def host_memory(e: CallPost, out: Findings) -> HostMemory | None:
    """What the buffer a call made is: from an allocator the models name
    (aligned or not, read-only by its name or by a keyword it was opened
    with), a read-only view of another buffer, or a ctypes array."""
    mem = out.models.memory
    if e.callee in mem.aligned or e.callee in mem.unaligned:
        read_only, source = e.callee in mem.read_only, e.callee
        for a, v in e.args:
            if a.keyword is None:
                continue
            word = v.name.rpartition(".")[2] if type(v) is Sym else None
            if f"{a.keyword.value}={word}" in mem.read_only_keywords:
                read_only, source = True, f"{e.callee} opened with {a.keyword.value}={word}"
        return HostMemory(e.callee in mem.aligned, read_only, source)
    func = e.node.func
    if type(func) is cst.BinaryOperation:
        return HostMemory(False, False, f"a ctypes array `{source_of(func)}`")
    if type(func) is cst.Attribute and func.attr.value in mem.read_only_methods and isinstance(e.receiver, Obj):
        of = out.fact(e.receiver)
        if type(of) is HostMemory:
            return HostMemory(of.aligned, True, f"a read-only view (`{func.attr.value}()`)")
    return None


def returned_value(value: Val, node: cst.Return, out: Findings) -> None:
    """A returned descriptor whose link points at a local (OWN305), or a
    returned live mapping of a local buffer that dies with the frame (OWN304)."""
    field = out.models.memory.chain_field
    if field:
        for struct, _ in linked(value, field):
            if _dangles(struct.get(field), out.local, out):
                out.report("OWN305", node, node.value)
                break
    returned = set(objects_in(value))
    for obj in returned:
        hs = out.state(obj)
        m = hs.span if hs is not None else None
        if hs is None or m is None or hs.kind == FREED or hs.reported:
            continue
        if type(m.address) is Addr and isinstance(m.address.buffer, Obj):
            buf = m.address.buffer
            bh = out.state(buf)
            if bh is not None and bh.kind == OWNER and not bh.escaped and not buf.on_entry and buf not in returned:
                out.report("OWN304", node, node.value, (("how", "returned"),), hs.story[:1])


def released(buf: Obj, node: cst.CSTNode, how: str, name: str, out: Findings) -> None:
    """The memory of `buf` goes away (`how`): a live mapping of it is a finding."""
    for _, hs in out.spans():
        m = hs.span
        assert m is not None
        if hs.kind == FREED or hs.reported:
            continue
        if type(m.address) is Addr and m.address.buffer is buf:
            out.report("OWN304", node, name, (("how", how), ("buffer", name)), hs.story[:1])
            break


def check_mapping(
    node: cst.CSTNode, obj: Obj, span: Span, mapped: Mapped, via: Summary | None, out: Findings
) -> Mapped:
    """Check a mapping where its address and size are known; returns its fact
    with what was checked marked."""
    facts: Facts = (("via", via.name),) if via is not None else ()
    addr, size = span.address, span.size
    addr_done, size_done = mapped.address_checked, mapped.size_checked
    page = out.page_size
    sizes = lin_options(size)
    if not size_done and sizes is not None:
        size_done = True
        # a size that may be one of several is misaligned only if every one is
        aligned = [linear.aligned(form, page) for form in sizes]
        if aligned and all(a is False for a in aligned):
            shown = " or ".join(linear.show(form) for form in sizes)
            out.report("OWN302", node, None, (*facts, ("what", "size"), ("value", shown)))
    if (
        addr_done
        or type(addr) is not Addr
        or not isinstance(addr.buffer, Obj)
        or type(addr.buffer) is Param
        or type(addr.buffer) is Field
    ):
        return Mapped(mapped.read_only_flag, addr_done, size_done)
    buf, offset = addr.buffer, addr.offset
    hs = out.state(buf)
    info = out.fact(buf)
    if hs is not None and type(info) is HostMemory:
        aligned_source, read_only, source = info.aligned, info.read_only, info.source
        if offset is not None and sizes is not None:
            overlap = buffer_overlap(obj, buf, offset, sizes, out)
            if overlap is not None:
                out.report("OWN301", node, None, (*facts, *overlap[:2]), overlap[2])
        if not aligned_source:
            out.report("OWN302", node, None, (*facts, ("what", "source"), ("source", source)))
        elif offset is not None and linear.aligned(offset, page) is False:
            value = "base + " + linear.show(offset)
            out.report("OWN302", node, None, (*facts, ("what", "address"), ("value", value)))
        if read_only and mapped.read_only_flag is False:
            out.report("OWN303", node, None, (*facts, ("source", source)))
        if hs.kind == OWNER and not hs.escaped and not out.held(buf):
            out.report("OWN304", node, None, (*facts, ("how", "temporary")))
    return Mapped(mapped.read_only_flag, True, size_done)


Overlap = tuple[tuple[str, str], tuple[str, str], tuple[Step, ...]]


def buffer_overlap(obj: Obj, buf: Obj, offset: linear.Lin, sizes: list[linear.Lin], out: Findings) -> Overlap | None:
    """A live mapping of `buf` that `[offset, offset + size)` overlaps for every size it may have."""
    for other, hs in out.spans():
        m = hs.span
        assert m is not None
        if other is obj or hs.kind == FREED or type(m.address) is not Addr:
            continue
        if m.address.buffer is not buf or m.address.offset is None:
            continue
        other_off, other_sizes = m.address.offset, lin_options(m.size)
        if other_sizes is None:
            continue
        if _overlaps(offset, sizes, other_off, other_sizes):
            return ("range", _shown(offset, sizes)), ("other", _shown(other_off, other_sizes)), hs.story[:1]
    return None


def range_overlap(obj: Obj, new: HState, out: Findings) -> Overlap | None:
    """A live mapping of the kind of `new` (its tag) that its range overlaps:
    two ranges of one base overlap when they start at the same offset, or
    when, for every size each may have, each starts before the other ends."""
    assert new.span is not None
    start = _start(new.span.address)
    if start is None:
        return None
    base, offset = start
    sizes = lin_options(new.span.size) if new.span.size is not None else None
    for other, hs in out.spans():
        m = hs.span
        assert m is not None
        if other is obj or hs.kind == FREED or hs.tag != new.tag:
            continue
        at = _start(m.address)
        if at is None or at[0] is not base:
            continue
        other_sizes = lin_options(m.size) if m.size is not None else None
        if linear.sign(linear.add(offset, at[1], -1)) == 0 or (
            sizes is not None and other_sizes is not None and _overlaps(offset, sizes, at[1], other_sizes)
        ):
            return ("range", _shown(offset, sizes)), ("other", _shown(at[1], other_sizes)), hs.story[:1]
    return None


def _start(address: Val) -> tuple[Obj, linear.Lin] | None:
    """A range's start as a base object and an offset from it (an object
    stands for itself, at offset 0); None: unknown."""
    if type(address) is Addr and isinstance(address.buffer, Obj) and address.offset is not None:
        return address.buffer, address.offset
    return (address, linear.const(0)) if isinstance(address, Obj) else None


def _overlaps(a: linear.Lin, sizes: list[linear.Lin], b: linear.Lin, other_sizes: list[linear.Lin]) -> bool:
    """[a, a+s) and [b, b+t) overlap iff a < b+t and b < a+s, for every possible size."""
    return all(
        linear.sign(linear.add(linear.add(b, t), a, -1)) == 1 and linear.sign(linear.add(linear.add(a, s), b, -1)) == 1
        for s in sizes
        for t in other_sizes
    )


def _shown(offset: linear.Lin, sizes: list[linear.Lin] | None) -> str:
    if sizes is None:
        return f"[base + {linear.show(offset)}, ...)"
    ends = " or ".join(linear.show(linear.add(offset, s)) for s in sizes)
    return f"[base + {linear.show(offset)}, base + {ends})"


def _read_only_flag(e: CallPost, spec: MapDescriptor) -> bool | None:
    """Whether the descriptor the call maps through asks for a read-only mapping (None: unknown)."""
    positional = [v for a, v in e.args if a.keyword is None]
    if not 0 <= spec.descriptor < len(positional):
        return None
    chain = linked(positional[spec.descriptor], "")
    if not chain:
        return None
    flags = chain[0][0].get(spec.flags_field, Const(0))
    if type(flags) is Const and isinstance(flags.value, int):
        return bool(flags.value & spec.read_only_bit)
    if type(flags) is Sym:
        return flags.name.rpartition(".")[2] == spec.read_only_flag
    if type(flags) is Flags:
        return any(n.rpartition(".")[2] == spec.read_only_flag for n in flags.names)
    return None


def _dangles(link: Val, local: object, out: Findings) -> bool:
    """A `byref`/`addressof` link to a temporary, or (when a function returns,
    `local` tells its locals) to a local that dies with the frame."""
    if type(link) is not Ref or not link.how:
        return False
    if link.how == "pointer":
        return False  # ctypes keeps the pointee alive in the field's _objects
    if link.key is None:
        return True
    return local is not None and out.local(link.key)


def _struct_name(link: Val) -> str | None:
    if type(link) is Ref and type(link.value) is Struct:
        return link.value.type
    return None


def _is_buffer(v: Val, out: Findings) -> bool:
    if not isinstance(v, Obj):
        return False
    hs = out.state(v)
    return hs is not None and is_buffer_tag(hs.tag)
