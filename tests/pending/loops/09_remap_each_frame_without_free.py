"""Issue 22 point 1 (loop-carried overlap): each frame maps the same window again and the previous frame's mapping is never freed (only the last is, after the loop); with more than one frame the second mapping overlaps the first: OWN301."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
FRAME = 4 * PAGE
UINT64_MAX = 2**64 - 1


def map_range(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


def present(hctx, hq, hcl, dst, frames):
    fb = mmap.mmap(-1, FRAME)
    base = ctypes.addressof(ctypes.c_char.from_buffer(fb))
    for pixels in frames:
        fb[:FRAME] = pixels
        ptr = map_range(hctx, base, FRAME)  # E: OWN301
        zeCommandListAppendMemoryCopy(hcl, dst, ptr, FRAME, None, 0, None)
        zeCommandListClose(hcl)
        zeCommandQueueExecuteCommandLists(hq, 1, ctypes.byref(hcl), None)
        zeCommandQueueSynchronize(hq, UINT64_MAX)
        zeCommandListReset(hcl)
    return fb
