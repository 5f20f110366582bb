"""Issue 22 point 1 (clean look-alike, a false alarm today): mappings collected in a list (a literal, or appended in a loop) are all freed by a loop over that list before the buffer is closed."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
TILE = 2 * PAGE


def map_range(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


def header_and_body(hctx):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    header = map_range(hctx, base, PAGE)
    body = map_range(hctx, base + PAGE, 4 * PAGE)
    for ptr in [header, body]:
        zeMemFree(hctx, ptr)
    buf.close()


def tiles(hctx, hcl, dst):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    mapped = []
    for i in range(4):
        mapped.append(map_range(hctx, base + i * TILE, TILE))
    for ptr in mapped:
        zeCommandListAppendMemoryCopy(hcl, dst, ptr, TILE, None, 0, None)
    for ptr in mapped:
        zeMemFree(hctx, ptr)
    buf.close()
