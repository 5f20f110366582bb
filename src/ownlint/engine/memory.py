"""Host memory and its external mappings (rules OWN301-OWN305).

Values this adds to the evaluator (state.py lists the others):
  ("lin", form)              an integer as a linear form over the page size
  ("addr", buffer, form)     an address inside a buffer object, at an offset
  ("bufref", buffer)         a ctypes view of a buffer (`c_char.from_buffer(b)`)
  ("aiface", buffer, depth)  `arr.__array_interface__`, indexed `depth` times
  ("struct", type, fields)   a ctypes descriptor and its fields, by value
  ("flags", names)           `A | B` of flag symbols

A buffer is an owner object (it dies when its last name goes, unless
something else may hold it) whose tag says where it came from:
`buffer:<aligned|unaligned>:<ro|rw>:<source>`. A mapping is the memory
handle `zeMemAllocHost` writes, carrying `HState.mapping`:
(address value, size value, has read-only flag, address checked, size checked).
A mapping whose address or size is a parameter of the function is checked
where a caller supplies them (through the summary), the rest where it is made.

Known limits:
- Offsets that depend on a loop variable are forgotten when the loop makes
  the next one: mappings made in a loop are never compared with each other.
      for i in range(4): map_range(ctx, base + i * P, 2 * P)   # overlap missed
- Aliases of a descriptor are copies: `d2 = desc; d2.flags = RO` does not
  change `desc`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from ownlint.engine import domain, linear
from ownlint.engine.cfg import source_of
from ownlint.engine.memvalues import addr_value, buffer_tag, lin_options, parse_tag
from ownlint.engine.memvalues import as_lin as as_lin  # re-exported: other modules import them from here
from ownlint.engine.memvalues import lin_value as lin_value
from ownlint.engine.models import MapCall
from ownlint.engine.state import FREED, OWNER, OWNER_DEAD, HState, Step, Val
from ownlint.engine.typestate_base import RawViolation, target_key

if TYPE_CHECKING:
    from ownlint.engine.models import ModelSet
    from ownlint.engine.state import PathState
    from ownlint.engine.summaries import Summary
    from ownlint.engine.typestate_base import Analysis


class MemoryEval:
    """The memory half of `_Eval` (mixed in; `self` is the evaluator)."""

    if TYPE_CHECKING:  # what the evaluator (typestate_eval._Eval) provides
        fa: Analysis
        st: PathState
        models: ModelSet

        def bind(self, key: str, value: Val) -> None: ...
        def escape(self, value: Val) -> None: ...
        def expr(self, node: cst.BaseExpression) -> Val: ...
        def forget(self, obj: int) -> None: ...
        def refs(self, obj: int) -> bool: ...

    # -- integers and addresses -------------------------------------------------
    def page_size(self) -> Val:
        size = self.fa.page_size
        return ("const", size) if size else ("lin", linear.sym(linear.P))

    def symbol_for(self, v: Val) -> linear.Lin | None:
        """An unknown integer as a symbol (by the object holding it), or None."""
        if isinstance(v, int):
            return linear.sym(f"#{v}")
        return None

    def arith(self, op: cst.BaseBinaryOp, left: Val, right: Val) -> Val | None:
        """`left op right` on forms and addresses; None when not about memory."""
        if type(op) is cst.BitOr:
            names: set[str] = set()
            for side in (left, right):
                if isinstance(side, tuple) and side and side[0] == "sym":
                    names.add(side[1])
                elif isinstance(side, tuple) and side and side[0] == "flags":
                    names.update(side[1])
                else:
                    return None
            return ("flags", tuple(sorted(names)))
        if isinstance(left, tuple) and left and left[0] == "addr" and type(op) in (cst.Add, cst.Subtract):
            delta = as_lin(right)
            if delta is None or left[2] is None:
                return ("addr", left[1], None)
            return addr_value(left[1], linear.add(left[2], delta, 1 if type(op) is cst.Add else -1))
        a, b = as_lin(left), as_lin(right)
        if a is None and b is None:
            return None
        if type(op) is cst.Multiply:
            a = a if a is not None else self.symbol_for(left)
            b = b if b is not None else self.symbol_for(right)
            if a is None or b is None:
                return None
            product = linear.mul(a, b)
            return lin_value(product) if product is not None else None
        if a is None or b is None:
            return None
        if type(op) is cst.Add:
            return lin_value(linear.add(a, b))
        if type(op) is cst.Subtract:
            return lin_value(linear.add(a, b, -1))
        return None

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
            return True, self.page_size()
        if qualified in mem.page_size_sysconf:
            if isinstance(first, tuple) and first and first[0] == "const" and str(first[1]).startswith("SC_PAGE"):
                return True, self.page_size()
            return True, None
        if qualified in mem.aligned or qualified in mem.unaligned:
            ro = qualified in mem.read_only
            source = qualified
            for a, v in args:
                if a.keyword is None:
                    continue
                word = v[1].rpartition(".")[2] if isinstance(v, tuple) and v and v[0] == "sym" else None
                if f"{a.keyword.value}={word}" in mem.read_only_keywords:
                    ro, source = True, f"{qualified} opened with {a.keyword.value}={word}"
            return True, self.new_buffer(node, qualified in mem.aligned, ro, source)
        if qualified in mem.views:
            return True, first if self.is_buffer(first) else None
        if type(node.func) is cst.BinaryOperation and type(node.func.operator) is cst.Multiply:
            element = self.fa.names.qualify(node.func.left) or ""
            if element.partition(".")[0] in mem.array_type_modules:
                return True, self.new_buffer(node, False, False, f"a ctypes array `{source_of(node.func)}`")
        if method and last in mem.read_only_methods and self.is_buffer(receiver):
            aligned, _, _ = parse_tag(self.st.heap[receiver].tag)  # type: ignore[index,misc]
            return True, self.new_buffer(node, aligned, True, f"a read-only view (`{last}()`)")
        if method and last in mem.from_buffer_methods and self.is_buffer(first):
            return True, ("bufref", first)
        if qualified in mem.char_pointer and self.is_buffer(first):
            return True, ("bufref", first)
        if qualified in mem.addressof and args:
            if isinstance(first, tuple) and first and first[0] == "bufref":
                return True, ("addr", first[1], ())
            if self.is_buffer(first):
                return True, ("addr", first, ())
            if isinstance(first, tuple) and first and first[0] == "struct":
                key = self.key_of(args[0][0].value)
                return True, ("ref", key, first, "addressof")
            return True, None
        if mem.descriptor_re is not None and mem.descriptor_re.search(last):
            fields = tuple(sorted((a.keyword.value, v) for a, v in args if a.keyword is not None))
            return True, ("struct", last, fields)
        if method and last in mem.close_methods and self.is_buffer(receiver):
            self.release_buffer(receiver, node, "closed", source_of(node.func.value))  # type: ignore[attr-defined]
            return True, None
        return False, None

    def key_of(self, expr: cst.BaseExpression) -> str | None:
        return target_key(expr, self.fa.self_name)

    def is_buffer(self, v: Val) -> bool:
        return isinstance(v, int) and parse_tag(self.st.heap.get(v, HState(OWNER)).tag) is not None

    def new_buffer(self, node: cst.CSTNode, aligned: bool, read_only: bool, source: str) -> int:
        obj = self.fa.site_object(node, 0)
        self.forget(obj)
        step = self.fa.step_of(node, "the buffer is made here")
        self.st.heap[obj] = HState(OWNER, False, (step,), tag=buffer_tag(aligned, read_only, source))
        return obj

    # -- attributes and subscripts ----------------------------------------------------
    def memory_attribute(self, node: cst.Attribute, base: Val) -> tuple[bool, Val]:
        mem = self.models.memory
        attr = node.attr.value
        if isinstance(base, tuple) and base and base[0] == "struct":
            return True, dict(base[2]).get(attr, ("const", 0))  # ctypes zero-fills
        if isinstance(base, tuple) and base and base[0] == "bufref" and attr in self.models.derive_attributes:
            return True, ("addr", base[1], ())
        if self.is_buffer(base) and attr == mem.array_interface:
            return True, ("aiface", base, 0)
        for path in mem.address_attributes:
            head, _, tail = path.rpartition(".")
            if attr == tail and type(node.value) is cst.Attribute and node.value.attr.value == head:
                inner = self.expr(node.value.value)
                if self.is_buffer(inner):
                    return True, ("addr", inner, ())
        return False, None

    def memory_subscript(self, base: Val, index: Val) -> tuple[bool, Val]:
        if isinstance(base, tuple) and base and base[0] == "aiface":
            if base[2] == 0 and index == ("const", "data"):
                return True, ("aiface", base[1], 1)
            if base[2] == 1 and index == ("const", 0):
                return True, ("addr", base[1], ())
        return False, None

    def set_field(self, target: cst.Attribute, value: Val) -> bool:
        """`desc.flags = v` on a local descriptor: a new descriptor value."""
        if type(target.value) is not cst.Name:
            return False
        name = target.value.value
        current = self.st.env.get(name)
        if not (isinstance(current, tuple) and current and current[0] == "struct"):
            return False
        fields = dict(current[2])
        fields[target.attr.value] = value
        struct = ("struct", current[1], tuple(sorted(fields.items(), key=lambda kv: kv[0])))
        if not domain.fits(struct):
            self.escape(struct)
            self.bind(name, None)
            return True
        self.st.env[name] = struct
        return True

    # -- the descriptor chain (OWN305) -------------------------------------------------
    def chain(self, v: Val) -> list[tuple[Val, Val]]:
        """The structures a value points into, following `pNext`: (struct, the ref to it)."""
        out: list[tuple[Val, Val]] = []
        seen = 0
        ref: Val = None
        while seen < 16:
            seen += 1
            if isinstance(v, tuple) and v and v[0] == "ref":
                ref, v = v, v[2]
                continue
            if not (isinstance(v, tuple) and v and v[0] == "struct"):
                break
            out.append((v, ref))
            ref = None
            v = dict(v[2]).get(self.models.memory.chain_field)
        return out

    def check_chain(self, node: cst.Call, args: list[tuple[cst.Arg, Val]]) -> None:
        """A call reads each descriptor passed to it, through `pNext`: a link to a
        temporary that no name keeps alive dangles (OWN305)."""
        field = self.models.memory.chain_field
        if not field:
            return
        for _, v in args:
            for struct, _ in self.chain(v):
                link = dict(struct[2]).get(field)  # type: ignore[index]
                if self.dangling_link(link, None):
                    self.report_plain("OWN305", node, _struct_name(link))
                    return

    def dangling_link(self, link: Val, leaving: set[str] | None) -> bool:
        """A `byref`/`addressof` link to a temporary, or (when a function returns,
        `leaving` = its locals) to a local that dies with the frame."""
        if not (isinstance(link, tuple) and link and link[0] == "ref" and len(link) > 3):
            return False
        if link[3] == "pointer":
            return False  # ctypes keeps the pointee alive in the field's _objects
        key = link[1]
        if key is None:
            return True
        return leaving is not None and key in leaving

    # -- mappings ------------------------------------------------------------------------
    def mapping_of(self, spec: MapCall, args: list[tuple[cst.Arg, Val]]) -> tuple[Any, ...] | None:
        positional = [v for a, v in args if a.keyword is None]
        if not 0 <= spec.descriptor < len(positional):
            return None
        for struct, _ in self.chain(positional[spec.descriptor]):
            fields = dict(struct[2])  # type: ignore[index]
            stype = fields.get("stype")
            stype_word = (
                stype[1].rpartition(".")[2] if isinstance(stype, tuple) and stype and stype[0] == "sym" else None
            )
            if struct[1] != spec.extension and stype_word not in spec.extension_stype:  # type: ignore[index]
                continue
            host = self.chain(positional[spec.descriptor])[0][0]
            flags = dict(host[2]).get(spec.flags_field, ("const", 0))  # type: ignore[index]
            return (
                fields.get(spec.address_field),
                fields.get(spec.size_field, ("const", 0)),
                self.has_flag(flags, spec),
                False,
                False,
            )
        return None

    def has_flag(self, flags: Val, spec: MapCall) -> bool | None:
        if isinstance(flags, tuple) and flags:
            if flags[0] == "const" and isinstance(flags[1], int):
                return bool(flags[1] & spec.read_only_bit)
            if flags[0] == "sym":
                symbol: str = flags[1]
                return symbol.rpartition(".")[2] == spec.read_only_flag
            if flags[0] == "flags":
                return any(n.rpartition(".")[2] == spec.read_only_flag for n in flags[1])
        return None

    def check_mapping(self, node: cst.CSTNode, mapping: tuple[Any, ...], via: Summary | None = None) -> tuple[Any, ...]:
        """Check a new mapping where its address and size are known; returns the
        mapping with what was checked marked."""
        addr, size, ro_flag, addr_done, size_done = mapping
        facts = (("via", via.name),) if via is not None else ()
        sizes = lin_options(size)
        if not size_done and sizes is not None:
            size_done = True
            # a size that may be one of several: a finding only if every one is misaligned
            if all(linear.aligned(form, self.fa.page_size) is False for form in sizes):
                shown = " or ".join(linear.show(form) for form in sizes)
                self.report_plain("OWN302", node, None, (*facts, ("what", "size"), ("value", shown)))
        if not addr_done and isinstance(addr, tuple) and addr and addr[0] == "addr":
            addr_done = True
            buf, offset = addr[1], addr[2]
            hs = self.st.heap.get(buf, HState(OWNER))
            info = parse_tag(hs.tag)
            if info is not None:
                aligned, read_only, source = info
                if not aligned:
                    self.report_plain("OWN302", node, None, (*facts, ("what", "source"), ("source", source)))
                elif offset is not None and linear.aligned(offset, self.fa.page_size) is False:
                    self.report_plain(
                        "OWN302", node, None, (*facts, ("what", "address"), ("value", "base + " + linear.show(offset)))
                    )
                if read_only and ro_flag is False:
                    self.report_plain("OWN303", node, None, (*facts, ("source", source)))
                if hs.kind == OWNER and not hs.escaped and not self.refs(buf):
                    self.report_plain("OWN304", node, None, (*facts, ("how", "temporary")))
                if offset is not None and sizes is not None:
                    self.check_overlap(node, buf, offset, sizes, facts)
        return (addr, size, ro_flag, addr_done, size_done)

    def check_overlap(
        self,
        node: cst.CSTNode,
        buf: int,
        offset: linear.Lin,
        sizes: list[linear.Lin],
        facts: tuple[tuple[str, str], ...],
    ) -> None:
        for hs in list(self.st.heap.values()):
            m = hs.mapping
            if m is None or hs.kind == FREED or not (isinstance(m[0], tuple) and m[0] and m[0][0] == "addr"):
                continue
            if m[0][1] != buf or m[0][2] is None:
                continue
            other_off, other_sizes = m[0][2], lin_options(m[1])
            if other_sizes is None:
                continue
            # [a, a+s) and [b, b+t) overlap iff a < b+t and b < a+s, for every possible size
            if all(
                linear.sign(linear.add(linear.add(other_off, t), offset, -1)) == 1
                and linear.sign(linear.add(linear.add(offset, s), other_off, -1)) == 1
                for s in sizes
                for t in other_sizes
            ):
                story = hs.story[:1]
                rng = f"[base + {linear.show(offset)}, base + {' or '.join(linear.show(linear.add(offset, s)) for s in sizes)})"
                other = f"[base + {linear.show(other_off)}, base + {' or '.join(linear.show(linear.add(other_off, t)) for t in other_sizes)})"
                self.report_plain("OWN301", node, None, (*facts, ("range", rng), ("other", other)), story)
                return

    def release_buffer(self, buf: Val, node: cst.CSTNode, how: str, name: str) -> None:
        """The buffer's memory goes away (closed, deleted, its `with` ends)."""
        if not isinstance(buf, int):
            return
        for hs in self.st.heap.values():
            m = hs.mapping
            if m is None or hs.kind == FREED or hs.reported:
                continue
            if isinstance(m[0], tuple) and m[0] and m[0][0] == "addr" and m[0][1] == buf:
                self.report_plain("OWN304", node, name, (("how", how), ("buffer", name)), hs.story[:1])
                break
        owner = self.st.heap.get(buf)
        if owner is not None and owner.kind == OWNER:
            self.st.heap[buf] = owner.with_step(OWNER_DEAD, self.fa.step_of(node, f"the buffer is {how} here"))

    def report_plain(
        self,
        code: str,
        node: cst.CSTNode,
        handle: str | None,
        facts: tuple[tuple[str, str], ...] = (),
        story: tuple[Step, ...] = (),
    ) -> None:
        """A finding about a call's arguments rather than a handle's state."""
        if self.fa.violations is not None:
            self.fa.violations.append(
                RawViolation(code, self.fa.unit.index, node, handle, facts, story, stmt=self.fa.at)
            )


def _struct_name(link: Val) -> str | None:
    if isinstance(link, tuple) and len(link) > 2 and isinstance(link[2], tuple) and link[2] and link[2][0] == "struct":
        return str(link[2][1])
    return None
