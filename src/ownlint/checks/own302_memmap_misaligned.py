"""OWN302 memmap-misaligned."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN302",
    name="memmap-misaligned",
    severity="error",
    summary="System memory is mapped with an address or size that is not a multiple of the page size.",
    what_it_does="""
Reports a `zeMemAllocHost` that maps system memory whose `pSystemMemory` or
`size` is not a multiple of the host page size, or whose memory comes from an
allocator with no page-alignment guarantee (`ctypes.create_string_buffer`,
`(c_char * n)()`, `bytearray`, `bytes`, `array.array`, `numpy.empty` /
`zeros` / `ones` / `array`). The page size is a symbol `P` (the value of
`mmap.PAGESIZE`, `os.sysconf("SC_PAGE_SIZE")`, `resource.getpagesize()`):
`base + k*P` over an `mmap.mmap(...)` is aligned, `base + k*P + 100` is not.
""",
    why_bad="""
The extension maps whole host pages into the device's address space, so it
requires both the address and the size to be page multiples. A misaligned
range makes `zeMemAllocHost` fail, or on a lenient driver maps the
neighbouring bytes too, so the device reads and writes memory outside the
buffer. Python allocators other than `mmap` align to 16 bytes or so, never
to a page.
""",
    invalid=(
        """
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def upload(hctx, npages):
    staging = bytearray(npages * PAGE)  # no page-alignment guarantee
    ext = ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC,
        pSystemMemory=ctypes.addressof(ctypes.c_char.from_buffer(staging)), size=npages * PAGE)
    desc = ze_host_mem_alloc_desc_t(
        stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p))
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), ext.size, PAGE, ctypes.byref(ptr))  # E: OWN302
    return staging, ptr
""",
    ),
    valid=(
        """
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def upload(hctx, npages):
    staging = mmap.mmap(-1, npages * PAGE)  # anonymous memory is page-aligned
    ext = ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC,
        pSystemMemory=ctypes.addressof(ctypes.c_char.from_buffer(staging)), size=npages * PAGE)
    desc = ze_host_mem_alloc_desc_t(
        stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p))
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), ext.size, PAGE, ctypes.byref(ptr))
    return staging, ptr
""",
    ),
    known_limits="""
A size or offset the analysis cannot compute gives no finding. A literal
multiple of 4096 is accepted as page-aligned (hard-coding the page size is a
portability matter, not this rule) unless the `page-size` setting says
otherwise; a literal that is not a multiple of 4096 is a finding. A view
keeps the alignment of what it views, plus its offset.
""",
    references="""
Level Zero external memory mapping extension (`ZE_extension_external_memmap_sysmem`):
`pSystemMemory` and `size` must be page-aligned.
""",
    cwe=(758,),
    security_severity=5.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    what = v.fact("what", "address")
    value = v.fact("value")
    shown = f" `{value}`" if value else ""
    if what == "size":
        return (
            f"the mapped size{shown} is not a multiple of the page size{via_suffix(v)}",
            "size is not a page multiple",
            "round the size up to a multiple of `mmap.PAGESIZE`",
        )
    if what == "source":
        source = v.fact("source")
        if source:
            message = f"`{source}` memory has no page-alignment guarantee and cannot be mapped"
            label = f"maps `{source}` memory here"
        else:
            message = "memory with no page-alignment guarantee is mapped"
            label = "maps memory that may not be page-aligned"
        return (
            f"{message}{via_suffix(v)}",
            label,
            "map memory from `mmap.mmap(...)`, which is page-aligned, and offset it only by multiples of `mmap.PAGESIZE`",
        )
    return (
        f"the mapped address{shown or ' (`pSystemMemory`)'} is not a multiple of the page size{via_suffix(v)}",
        "address is not page-aligned",
        "map from a page-aligned base (`mmap.mmap(...)`) plus a multiple of `mmap.PAGESIZE`",
    )


CHECK = Check(RULE, describe)
