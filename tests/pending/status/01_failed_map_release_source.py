"""Issue 22 point 4 (clean, a false alarm today): when zeMemAllocHost returns an error nothing was mapped, so closing the mmap on that branch (spelled `!= ZE_RESULT_SUCCESS`, `!= 0`, or a bare truth test of the status) releases no live mapping."""
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
    zeCommandListAppendMemoryCopy(hcl, dst, ptr, SIZE, None, 0, None)
    zeMemFree(hctx, ptr)
    buf.close()


def stage_zero(hctx, hcl, dst):
    buf = mmap.mmap(-1, SIZE)
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=ctypes.addressof(ctypes.c_char.from_buffer(buf)), size=SIZE)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    rc = zeMemAllocHost(hctx, ctypes.byref(desc), SIZE, PAGE, ctypes.byref(ptr))
    if rc != 0:
        buf.close()
        return None
    zeCommandListAppendMemoryCopy(hcl, dst, ptr, SIZE, None, 0, None)
    zeMemFree(hctx, ptr)
    buf.close()
    return dst


def stage_truthy(hctx, hcl, dst):
    buf = mmap.mmap(-1, SIZE)
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=ctypes.addressof(ctypes.c_char.from_buffer(buf)), size=SIZE)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    if zeMemAllocHost(hctx, ctypes.byref(desc), SIZE, PAGE, ctypes.byref(ptr)):
        buf.close()
        return None
    zeCommandListAppendMemoryCopy(hcl, dst, ptr, SIZE, None, 0, None)
    zeMemFree(hctx, ptr)
    buf.close()
    return dst
