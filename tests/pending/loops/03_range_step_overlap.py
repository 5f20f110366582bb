"""Issue 22 point 1 (loop-carried overlap): `range(P, 8*P, P)` steps one page while each double-buffered row is 3*P long, so the row mapped in one iteration overlaps the previous row, still live: OWN301."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
ROW = 3 * PAGE


def map_range(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


def stencil_rows(hctx, hcl, dst):
    grid = mmap.mmap(-1, 11 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(grid))
    prev = map_range(hctx, base, ROW)
    for off in range(PAGE, 8 * PAGE, PAGE):
        row = map_range(hctx, base + off, ROW)  # E: OWN301
        zeCommandListAppendMemoryCopy(hcl, dst, row, ROW, None, 0, None)
        zeMemFree(hctx, prev)
        prev = row
    zeMemFree(hctx, prev)
    grid.close()
