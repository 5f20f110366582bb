"""External memory mappings (OWN301-OWN305): what a new mapping, a released
buffer, a returned mapping and a dangling descriptor link mean."""

from __future__ import annotations

from ownlint.engine import linear
from ownlint.engine.events import (
    BufferReleased,
    Checker,
    DanglingLink,
    Facts,
    Findings,
    MappingMade,
    ReturnMapping,
)


class MemmapChecker(Checker):
    def on_mapping_made(self, e: MappingMade, out: Findings) -> None:
        facts: Facts = (("via", e.via.name),) if e.via is not None else ()
        # OWN302 size: a size that may be one of several is misaligned only if every one is
        if e.sizes is not None and e.size_aligned and all(a is False for a in e.size_aligned):
            shown = " or ".join(linear.show(form) for form in e.sizes)
            out.report("OWN302", e.node, None, (*facts, ("what", "size"), ("value", shown)))
        if e.overlap is not None:  # OWN301
            overlap = (*facts, ("range", e.overlap.range), ("other", e.overlap.other))
            out.report("OWN301", e.node, None, overlap, e.overlap.story)
        buffer = e.buffer
        if buffer is None:
            return
        if not buffer.aligned:
            out.report("OWN302", e.node, None, (*facts, ("what", "source"), ("source", buffer.source)))
        elif e.offset is not None and e.offset_aligned is False:
            value = "base + " + linear.show(e.offset)
            out.report("OWN302", e.node, None, (*facts, ("what", "address"), ("value", value)))
        if buffer.read_only and e.read_only_flag is False:
            out.report("OWN303", e.node, None, (*facts, ("source", buffer.source)))
        if buffer.temporary:
            out.report("OWN304", e.node, None, (*facts, ("how", "temporary")))

    def on_buffer_released(self, e: BufferReleased, out: Findings) -> None:
        out.report("OWN304", e.node, e.name, (("how", e.how), ("buffer", e.name)), e.mapping.story[:1])

    def on_return_mapping(self, e: ReturnMapping, out: Findings) -> None:
        out.report("OWN304", e.node, e.spelled, (("how", "returned"),), e.mapping.story[:1])

    def on_dangling_link(self, e: DanglingLink, out: Findings) -> None:
        out.report("OWN305", e.node, e.target)
