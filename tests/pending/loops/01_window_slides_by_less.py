"""Issue 22 point 1 (loop-carried overlap): double-buffered windows of 2*P at base + i*P; the previous window is freed only after the next is mapped, so each new mapping overlaps the live previous one (range(1, 4) runs): OWN301."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
WINDOW = 2 * PAGE


def upload_windows(hctx, hcl, dst):
    buf = mmap.mmap(-1, 8 * PAGE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=base, size=WINDOW)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    prev = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), WINDOW, PAGE, ctypes.byref(prev))
    for i in range(1, 4):
        ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=base + i * PAGE, size=WINDOW)
        desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
        cur = ctypes.c_void_p()
        zeMemAllocHost(hctx, ctypes.byref(desc), WINDOW, PAGE, ctypes.byref(cur))  # E: OWN301
        zeCommandListAppendMemoryCopy(hcl, dst, cur, WINDOW, None, 0, None)
        zeMemFree(hctx, prev)
        prev = cur
    zeMemFree(hctx, prev)
    buf.close()
