"""Issue 22 point 5 (helper arithmetic): `map_slot` maps `nslots` slots of SLOT bytes from slot `index` (offset index*SLOT, size nslots*SLOT); slots [0, 2) and [2, 4) are adjacent, but a later call for slots [3, 5) overlaps the live [2, 4): OWN301 at that call."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
SLOT = 2 * PAGE


def map_slot(hctx, base, index, nslots):
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=base + index * SLOT, size=nslots * SLOT)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), ext.size, PAGE, ctypes.byref(ptr))
    return ptr


def ring(hctx):
    buf = mmap.mmap(-1, 10 * SLOT)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    a = map_slot(hctx, base, 0, 2)
    b = map_slot(hctx, base, 2, 2)
    c = map_slot(hctx, base, 3, 2)  # E: OWN301
    zeMemFree(hctx, c)
    zeMemFree(hctx, b)
    zeMemFree(hctx, a)
    buf.close()
