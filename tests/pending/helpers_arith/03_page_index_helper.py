"""Issue 22 point 5 (helper arithmetic): `map_pages` maps `count` pages from page `first` (offset first*P, size count*P, linear in its arguments); pages 0-3 then pages 2-3 overlap (OWN301 at that call), pages 4-5 after them do not, and a caller's odd byte offset is misaligned (OWN302 at the call)."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE


def map_pages(hctx, base, first, count):
    ext = ze_external_memmap_sysmem_ext_desc_t()
    ext.stype = ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC
    ext.pSystemMemory = base + first * PAGE
    ext.size = count * PAGE
    desc = ze_host_mem_alloc_desc_t()
    desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC
    desc.pNext = ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), ext.size, PAGE, ctypes.byref(ptr))
    return ptr


def pages(hctx):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    low = map_pages(hctx, base, 0, 4)
    again = map_pages(hctx, base, 2, 2)  # E: OWN301
    high = map_pages(hctx, base, 4, 2)
    zeMemFree(hctx, high)
    zeMemFree(hctx, again)
    zeMemFree(hctx, low)
    buf.close()


def header_skipped(hctx):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    body = map_pages(hctx, base + 64, 1, 2)  # E: OWN302
    zeMemFree(hctx, body)
    buf.close()
