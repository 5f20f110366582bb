"""Issue 22 point 4 (clean, a false alarm today): when mapping the whole buffer fails nothing was mapped, so the fallback that maps the first half of the same pages overlaps no live mapping."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
SIZE = 8 * PAGE
HALF = 4 * PAGE


def map_as_much_as_possible(hctx):
    buf = mmap.mmap(-1, SIZE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=base, size=SIZE)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    mapped = SIZE
    if zeMemAllocHost(hctx, ctypes.byref(desc), SIZE, PAGE, ctypes.byref(ptr)) != ZE_RESULT_SUCCESS:
        half = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=base, size=HALF)
        desc.pNext = ctypes.cast(ctypes.pointer(half), ctypes.c_void_p)
        mapped = HALF
        zeMemAllocHost(hctx, ctypes.byref(desc), mapped, PAGE, ctypes.byref(ptr))
    return buf, ptr, mapped
