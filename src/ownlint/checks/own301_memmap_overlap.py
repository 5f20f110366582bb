"""OWN301 memmap-overlap."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN301",
    name="memmap-overlap",
    severity="error",
    summary="An external memory mapping overlaps another mapping of the same buffer that is still live.",
    what_it_does="""
Reports a `zeMemAllocHost` that maps system memory (a
`ze_external_memmap_sysmem_ext_desc_t` chained into its descriptor) over a
range `[pSystemMemory, pSystemMemory + size)` that overlaps a mapping made
earlier on the same path and not yet released with `zeMemFree`. Ranges are
compared symbolically in units of the page size `P`, so
`[base + 2*P, base + 6*P)` overlaps `[base, base + 4*P)`.

The same meaning carries over to CUDA (issue 24): a host registration
(`cudaHostRegister(ptr, size, flags)`, `cuMemHostRegister`) over a range
that overlaps a live registration, not yet ended by `cudaHostUnregister` /
`cuMemHostUnregister`, and a virtual-memory map (`cuMemMap(ptr, size, ...)`)
over a live map not yet ended by `cuMemUnmap`. These are the `[[map]]`
entries given by `address` and `size` (rules/README.md); only mappings of
one kind are compared, and two that start at the same address overlap
whatever their sizes.
""",
    why_bad="""
Each mapping pins the pages and sets up the device's page tables for them.
Two live mappings of the same pages share that state: releasing one tears
down the other's device page tables, and the device then faults, or reads
and writes pages the driver no longer considers mapped.
""",
    invalid=(
        """
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def map_range(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(
        stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p))
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


def map_halves(hctx):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    lo = map_range(hctx, base, 4 * PAGE)
    hi = map_range(hctx, base + 2 * PAGE, 4 * PAGE)  # E: OWN301 (overlaps lo)
    return buf, lo, hi
""",
        """
import ctypes
import mmap

from cuda.bindings import runtime

PAGE = mmap.PAGESIZE


def register_halves():
    buf = mmap.mmap(-1, 4 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    (first,) = runtime.cudaHostRegister(base, 2 * PAGE, 0)
    (second,) = runtime.cudaHostRegister(base + PAGE, 2 * PAGE, 0)  # E: OWN301 (overlaps the first)
    (done,) = runtime.cudaHostUnregister(base)
    return buf, first, second, done
""",
    ),
    valid=(
        """
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def map_range(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(
        stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p))
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


def map_halves(hctx):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    lo = map_range(hctx, base, 4 * PAGE)
    hi = map_range(hctx, base + 4 * PAGE, 4 * PAGE)  # disjoint: [base + 4 pages, base + 8 pages)
    return buf, lo, hi
""",
        """
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def map_range(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(
        stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p))
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


def remap(hctx):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    lo = map_range(hctx, base, 4 * PAGE)
    zeMemFree(hctx, lo)  # release the first mapping before mapping its pages again
    hi = map_range(hctx, base + 2 * PAGE, 4 * PAGE)
    return buf, hi
""",
        """
import ctypes
import mmap

from cuda.bindings import runtime

PAGE = mmap.PAGESIZE


def register_again():
    buf = mmap.mmap(-1, 4 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    (first,) = runtime.cudaHostRegister(base, 2 * PAGE, 0)
    (ended,) = runtime.cudaHostUnregister(base)  # end the first registration before registering again
    (second,) = runtime.cudaHostRegister(base + PAGE, 2 * PAGE, 0)
    (done,) = runtime.cudaHostUnregister(base + PAGE)
    return buf, first, ended, second, done
""",
    ),
    known_limits="""
Ranges are compared only when both derive from the same base buffer;
mappings of two different buffers never overlap. An address or size the
analysis cannot compute, or a relation between two ranges it cannot decide,
gives no finding. A mapping made inside a helper is seen through the helper's
summary and reported at the call site, with the caller's offset and size
substituted (`map_window(ctx, base, 2 * P, P)` maps `[base + 2*P, base + 3*P)`).
A mapping is compared with the one the previous iteration of a `for` loop
made and left live, where the offset moves by a `range(a, b, step)` variable
or an accumulator (`off += d` once in every iteration, no `continue`).
An offset a `while` loop moves, or one advanced in a branch, is not related
to the previous iteration's, nor is a mapping made two iterations earlier:

    while off < end:
        map_range(ctx, base + off, 2 * P); off += P  # overlap not reported

A constant imported from another module of the project (`from mapping import
PAGE`) is folded; a module-level constant the importing module computes from
it (`SIZE = 8 * PAGE`) is not, and sizes using it are unknown.
Mappings made by methods of one object (`s.map_header(); s.map_body()`) are
compared where their addresses are inside a buffer the object's `__init__`
(or an earlier method) stored in an attribute, at `self.<attr> + d` (`d` a
constant or a linear form over the page size); an object passed to a call, or
a method that is not found, forgets what is known of its attributes.
A CUDA registration or map made inside a helper is not compared with the
caller's.
""",
    references="""
Level Zero external memory mapping extension (`ZE_extension_external_memmap_sysmem`),
`ze_external_memmap_sysmem_ext_desc_t`.
""",
    cwe=(119,),
    security_severity=7.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    new = v.fact("range")
    other = v.fact("other")
    mapping = f"the new mapping `{v.handle}`" if v.handle else "this mapping"
    new_text = f" over `{new}`" if new else ""
    other_text = f"the live mapping over `{other}`" if other else "a mapping of the same memory that is still live"
    return (
        f"{mapping}{new_text} overlaps {other_text}{via_suffix(v)}",
        "overlaps a live mapping",
        (
            "end the earlier mapping (its unregister or unmap call) before mapping these pages again, or map disjoint ranges"
            if v.fact("reference")  # a model that names its API (CUDA): not Level Zero's zeMemFree
            else "release the earlier mapping with `zeMemFree` before mapping these pages again, or map disjoint page ranges"
        ),
    )


CHECK = Check(RULE, describe)
