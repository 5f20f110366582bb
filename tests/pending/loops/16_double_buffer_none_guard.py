"""Issue 22 point 1 (clean look-alike, a false alarm today): double buffering that starts from `prev = None` and frees `prev` behind an `is not None` guard; windows are adjacent (step = size) and every mapping is freed before the buffer is closed."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
WINDOW = 2 * PAGE


def map_range(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


def upload_windows(hctx, hcl, dst):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    prev = None
    for i in range(4):
        cur = map_range(hctx, base + i * WINDOW, WINDOW)
        zeCommandListAppendMemoryCopy(hcl, dst, cur, WINDOW, None, 0, None)
        if prev is not None:
            zeMemFree(hctx, prev)
        prev = cur
    if prev is not None:
        zeMemFree(hctx, prev)
    buf.close()
