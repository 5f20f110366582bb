"""OWN304 memmap-source-released."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN304",
    name="memmap-source-released",
    severity="error",
    summary="The system memory behind a live external mapping is closed, deleted or dropped.",
    what_it_does="""
Reports, while a mapping of a buffer made by `zeMemAllocHost` is not yet
released with `zeMemFree`: closing the buffer (`buf.close()`), deleting or
rebinding its last reference, the end of a `with mmap.mmap(...) as buf:`
block (which closes it), a `return` that lets a live mapping of a local
buffer out of the function where the buffer dies, and the mapping of a
temporary buffer that no name keeps alive.
""",
    why_bad="""
The mapping does not own the system memory: the device reads and writes the
buffer's pages directly. Once the buffer is closed or collected, its pages
are unmapped or reused by the host allocator while the device still
addresses them, which is undefined behaviour: device faults, or silent
corruption of whatever the host puts there next.
""",
    invalid=(
        """
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def stage(hctx, hcl, dst, npages):
    buf = mmap.mmap(-1, npages * PAGE)
    ext = ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC,
        pSystemMemory=ctypes.addressof(ctypes.c_char.from_buffer(buf)), size=npages * PAGE)
    desc = ze_host_mem_alloc_desc_t(
        stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p))
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), ext.size, PAGE, ctypes.byref(ptr))
    zeCommandListAppendMemoryCopy(hcl, dst, ptr, ext.size, None, 0, None)
    buf.close()  # E: OWN304 (ptr still maps buf)
    zeMemFree(hctx, ptr)
""",
    ),
    valid=(
        """
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def stage(hctx, hcl, dst, npages):
    buf = mmap.mmap(-1, npages * PAGE)
    ext = ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC,
        pSystemMemory=ctypes.addressof(ctypes.c_char.from_buffer(buf)), size=npages * PAGE)
    desc = ze_host_mem_alloc_desc_t(
        stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p))
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), ext.size, PAGE, ctypes.byref(ptr))
    zeCommandListAppendMemoryCopy(hcl, dst, ptr, ext.size, None, 0, None)
    zeMemFree(hctx, ptr)  # release the mapping first
    buf.close()
""",
    ),
    known_limits="""
A buffer passed to a call that may retain it is no longer known to die. A
mapping that is never released, or whose buffer dies at the end of a function
that neither frees nor returns it, is a leak, which this catalogue does not
report yet. A `for` loop that frees its variable in every iteration frees
each element of what it iterates: the mappings of a list or tuple literal are
known; for a list built by `append`, which mappings it holds is not followed,
so every live mapping is forgotten there, and a buffer closed with a mapping
still live after such a loop is missed. A method that closes a buffer held in
an attribute of its object (`self.blob.close()`) releases, at `x.m()`, what
`x`'s attribute holds: a mapping of it held in another attribute (made by
another method) is reported there. Where the call cannot tell what the
attribute holds (the object was passed to a call), nothing is reported.
""",
    references="""
Level Zero external memory mapping extension (`ZE_extension_external_memmap_sysmem`):
the system memory must outlive the mapping.
""",
    cwe=(416,),
    security_severity=8.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    how = v.fact("how")
    name = v.fact("buffer")
    buf = f"`{name}`" if name else "the mapped buffer"
    mapping = f"the mapping `{v.handle}`" if v.handle and v.handle != name else "a mapping of it"
    free_first = "release the mapping with `zeMemFree` before the buffer is closed or dropped"
    via = via_suffix(v)
    if how == "closed":
        return (f"{buf} is closed while {mapping} is still live{via}", "closed here while still mapped", free_first)
    if how == "deleted":
        return (f"{buf} is deleted while {mapping} is still live{via}", "deleted here while still mapped", free_first)
    if how == "rebound":
        return (
            f"{buf} is rebound while {mapping} is still live: the mapped memory loses its last reference{via}",
            "rebound here while still mapped",
            f"{free_first}, or keep the buffer under another name",
        )
    if how == "with block ends":
        return (
            f"the `with` block closes {buf} when it ends, while {mapping} is still live{via}",
            "the buffer is closed when this block ends",
            "call `zeMemFree` on the mapping inside the `with` block",
        )
    if how == "returned":
        return (
            f"{mapping} is returned, but {buf} is local and dies when the function returns{via}",
            "the mapping escapes here; its buffer dies",
            "return the buffer together with the mapping, or free the mapping before returning",
        )
    if how == "temporary":
        return (
            f"a temporary buffer is mapped: nothing keeps its memory alive after this call{via}",
            "maps a temporary here",
            "bind the buffer to a name that outlives the mapping, and free the mapping before dropping it",
        )
    return (f"{buf} is released while {mapping} is still live{via}", "released here while still mapped", free_first)


CHECK = Check(RULE, describe)
