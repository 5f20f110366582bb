"""Issue 22 point 4 (status codes): the failure branch of the mapping releases the buffer correctly, but the failure branch of the later copy closes it while the mapping, which succeeded, is still live: OWN304 at that close only."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
SIZE = 4 * PAGE


def stage(hctx, hcl, dst):
    buf = mmap.mmap(-1, SIZE)
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=ctypes.addressof(ctypes.c_char.from_buffer(buf)), size=SIZE)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    rc = zeMemAllocHost(hctx, ctypes.byref(desc), SIZE, PAGE, ctypes.byref(ptr))
    if rc != ZE_RESULT_SUCCESS:
        buf.close()
        raise RuntimeError(f"zeMemAllocHost failed: {rc:#x}")
    rc = zeCommandListAppendMemoryCopy(hcl, dst, ptr, SIZE, None, 0, None)
    if rc != ZE_RESULT_SUCCESS:
        buf.close()  # E: OWN304
        raise RuntimeError(f"copy failed: {rc:#x}")
    zeMemFree(hctx, ptr)
    buf.close()
