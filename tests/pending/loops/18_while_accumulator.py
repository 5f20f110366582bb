"""Issue 22 point 1 (clean look-alike, today the analysis runs out of budget): a `while off < END` loop whose accumulator advances by the mapped size; each window is freed in the same iteration."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
BATCH = 2 * PAGE
END = 8 * PAGE


def map_range(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


def stream_batches(hctx, hcl, dst):
    buf = mmap.mmap(-1, END)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    off = 0
    while off < END:
        ptr = map_range(hctx, base + off, BATCH)
        zeCommandListAppendMemoryCopy(hcl, dst, ptr, BATCH, None, 0, None)
        zeMemFree(hctx, ptr)
        off = off + BATCH
    buf.close()
