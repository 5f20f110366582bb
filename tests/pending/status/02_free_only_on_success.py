"""Issue 22 point 4 (clean, a false alarm today): the mapping is used and freed only on the branch where zeMemAllocHost succeeded (`== ZE_RESULT_SUCCESS`); on the failure branch there is nothing to free, so closing the buffer after the branches join is correct."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
SIZE = 4 * PAGE


def try_stage(hctx, hcl, dst):
    buf = mmap.mmap(-1, SIZE)
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=ctypes.addressof(ctypes.c_char.from_buffer(buf)), size=SIZE)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    rc = zeMemAllocHost(hctx, ctypes.byref(desc), SIZE, PAGE, ctypes.byref(ptr))
    ok = rc == ZE_RESULT_SUCCESS
    if rc == ZE_RESULT_SUCCESS:
        zeCommandListAppendMemoryCopy(hcl, dst, ptr, SIZE, None, 0, None)
        zeMemFree(hctx, ptr)
    buf.close()
    return ok
