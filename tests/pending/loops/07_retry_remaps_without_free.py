"""Issue 22 point 1 (retry loop): when zeMemAllocHost succeeds but the check of the mapping fails, the loop retries and maps the same range again while the previous attempt's mapping is still live: OWN301 on the second attempt."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
STAGING = 16 * PAGE


def pin_staging(hctx):
    staging = mmap.mmap(-1, STAGING)
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=ctypes.addressof(ctypes.c_char.from_buffer(staging)), size=STAGING)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    props = ze_memory_allocation_properties_t(stype=ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES)
    for attempt in range(3):
        ptr = ctypes.c_void_p()
        rc = zeMemAllocHost(hctx, ctypes.byref(desc), STAGING, PAGE, ctypes.byref(ptr))  # E: OWN301
        if rc != ZE_RESULT_SUCCESS:
            continue
        if zeMemGetAllocProperties(hctx, ptr, ctypes.byref(props), None) == ZE_RESULT_SUCCESS and props.type == ZE_MEMORY_TYPE_HOST:
            return staging, ptr
    raise RuntimeError("could not pin the staging buffer")
