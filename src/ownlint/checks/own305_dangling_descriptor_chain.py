"""OWN305 dangling-descriptor-chain."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN305",
    name="dangling-descriptor-chain",
    severity="error",
    summary="A descriptor's `pNext` holds the address of a ctypes structure that is gone before the chain is read.",
    what_it_does="""
Reports a `ze*` call (`zeMemAllocHost`, `zeContextCreate`, ...) given a
descriptor whose `pNext` was set to `ctypes.byref(T(...))` or
`ctypes.addressof(T(...))` of a temporary structure (built in the same
expression and bound to no name), and a helper that returns a descriptor
whose `pNext` points at one of its own locals (reported at that `return`).
Any descriptor type counts, not only the external memory mapping one.
""",
    why_bad="""
`pNext` is a raw address: it does not keep the structure alive. The temporary
is freed as soon as the statement ends, so the driver reads the extension
descriptor from freed memory, which may already hold something else. The
extension is then silently ignored or misread (a mapping becomes an ordinary
allocation, or gets a garbage address or size).
""",
    invalid=(
        """
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def import_pages(hctx, addr, nbytes):
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
    desc.pNext = ctypes.cast(ctypes.byref(ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pSystemMemory=addr, size=nbytes)), ctypes.c_void_p)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))  # E: OWN305
    return ptr
""",
    ),
    valid=(
        """
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def import_pages(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC)
    desc.pNext = ctypes.cast(ctypes.byref(ext), ctypes.c_void_p)  # ext lives until after the call
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr
""",
    ),
    known_limits="""
`ctypes.cast(ctypes.pointer(T(...)), c_void_p)` stored into a structure field
is not a finding: ctypes keeps the pointed-to object alive in the field's
`_objects` (checked on CPython 3.11). A structure bound to a name is assumed
alive while the name is.
""",
    references="""
Level Zero specification: extension structures chained through `pNext`;
external memory mapping extension (`ze_external_memmap_sysmem_ext_desc_t`).
""",
    cwe=(825,),
    security_severity=7.5,
)


def describe(v: Violation) -> tuple[str, str, str]:
    struct = v.fact("struct")
    target = f"a `{struct}`" if struct else "a structure"
    field = f"`{v.handle}.pNext`" if v.handle else "the descriptor's `pNext`"
    name = f"ext = {struct}(...)" if struct else "ext = T(...)"
    return (
        f"{field} holds the address of {target} that is gone before the chain is read{via_suffix(v)}",
        "`pNext` dangles here",
        f"bind the chained structure to a name that outlives the call (`{name}`), then chain `ctypes.pointer(ext)`",
    )


CHECK = Check(RULE, describe)
