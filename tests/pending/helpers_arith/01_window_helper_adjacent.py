"""Issue 22 point 5 (clean): `map_window` maps `base + offset` for `nbytes`, all three from the caller; the calls map [0, 2*P) and [2*P, 4*P), then [4*P, 4*P + 4*P), adjacent windows, so nothing overlaps."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def map_window(hctx, base, offset, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=base + offset, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


def split(hctx):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    head = map_window(hctx, base, 0, 2 * PAGE)
    mid = map_window(hctx, base, 2 * PAGE, 2 * PAGE)
    tail = map_window(hctx, base, 4 * PAGE, 4 * PAGE)
    zeMemFree(hctx, tail)
    zeMemFree(hctx, mid)
    zeMemFree(hctx, head)
    buf.close()
