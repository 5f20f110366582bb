"""OWN303 memmap-readonly-without-flag."""

from ownlint.checks.base import Check, via_suffix
from ownlint.engine.violations import Violation
from ownlint.rule import Rule

RULE = Rule(
    code="OWN303",
    name="memmap-readonly-without-flag",
    severity="error",
    summary="Read-only system memory is mapped without `ZE_HOST_MEM_ALLOC_FLAG_MEM_READ_ONLY`.",
    what_it_does="""
Reports a `zeMemAllocHost` that maps read-only system memory (`bytes`, a
read-only `memoryview`, an `mmap` opened with `access=mmap.ACCESS_READ` or
`prot=mmap.PROT_READ`, a numpy array from `numpy.frombuffer(bytes_obj)`)
while the `ze_host_mem_alloc_desc_t` given to it does not have
`ZE_HOST_MEM_ALLOC_FLAG_MEM_READ_ONLY` in its `flags`. A descriptor built
without `flags` has `flags == 0`.
""",
    why_bad="""
Without the flag the driver maps the pages for device writes. The extension
requires the flag for memory the host may not write: the mapping then fails,
or the device is allowed to write into a read-only file mapping or an
immutable `bytes` object that other Python code shares.
""",
    invalid=(
        """
import ctypes
import mmap

import numpy as np
from ze import *

PAGE = mmap.PAGESIZE


def map_weights(hctx, f, npages):
    blob = mmap.mmap(f.fileno(), npages * PAGE, access=mmap.ACCESS_READ)
    ext = ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC,
        pSystemMemory=np.frombuffer(blob, dtype=np.uint8).ctypes.data, size=npages * PAGE)
    desc = ze_host_mem_alloc_desc_t(
        stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p))
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), ext.size, PAGE, ctypes.byref(ptr))  # E: OWN303
    return blob, ptr
""",
    ),
    valid=(
        """
import ctypes
import mmap

import numpy as np
from ze import *

PAGE = mmap.PAGESIZE


def map_weights(hctx, f, npages):
    blob = mmap.mmap(f.fileno(), npages * PAGE, access=mmap.ACCESS_READ)
    ext = ze_external_memmap_sysmem_ext_desc_t(
        stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC,
        pSystemMemory=np.frombuffer(blob, dtype=np.uint8).ctypes.data, size=npages * PAGE)
    desc = ze_host_mem_alloc_desc_t(
        stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p),
        flags=ZE_HOST_MEM_ALLOC_FLAG_MEM_READ_ONLY)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), ext.size, PAGE, ctypes.byref(ptr))
    return blob, ptr
""",
    ),
    known_limits="""
Only memory ownlint sees made read-only (the sources above) counts; a buffer
received from a caller is not known to be read-only. `flags` it cannot
compute give no finding.
""",
    references="""
Level Zero external memory mapping extension (`ZE_extension_external_memmap_sysmem`);
`ZE_HOST_MEM_ALLOC_FLAG_MEM_READ_ONLY` (`ZE_BIT(4)`).
""",
    cwe=(758,),
    security_severity=5.0,
)


def describe(v: Violation) -> tuple[str, str, str]:
    source = v.fact("source")
    memory = f"read-only memory ({source})" if source else "read-only memory"
    return (
        f"{memory} is mapped without `ZE_HOST_MEM_ALLOC_FLAG_MEM_READ_ONLY`{via_suffix(v)}",
        "mapped without the read-only flag",
        "set `flags=ZE_HOST_MEM_ALLOC_FLAG_MEM_READ_ONLY` in the `ze_host_mem_alloc_desc_t`, or map a writable copy",
    )


CHECK = Check(RULE, describe)
