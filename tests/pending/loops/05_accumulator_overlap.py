"""Issue 22 point 1 (loop-carried overlap): the offset accumulator advances one page (`off += PAGE`) while each batch maps 2*P and the previous batch is freed only after the next is mapped: OWN301."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
BATCH = 2 * PAGE


def stream_batches(hctx, hcl, dst):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    off = 0
    prev = None
    for _ in range(4):
        ext = ze_external_memmap_sysmem_ext_desc_t()
        ext.stype = ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC
        ext.pSystemMemory = base + off
        ext.size = BATCH
        desc = ze_host_mem_alloc_desc_t()
        desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC
        desc.pNext = ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p)
        ptr = ctypes.c_void_p()
        zeMemAllocHost(hctx, ctypes.byref(desc), ext.size, PAGE, ctypes.byref(ptr))  # E: OWN301
        zeCommandListAppendMemoryCopy(hcl, dst, ptr, BATCH, None, 0, None)
        if prev is not None:
            zeMemFree(hctx, prev)
        prev = ptr
        off += PAGE
