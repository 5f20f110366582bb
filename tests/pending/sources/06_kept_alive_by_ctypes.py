"""Issue 22 point 3 (clean look-alike): the mmap is created inline but a ctypes object bound to a name keeps it alive (`from_buffer` keeps its source in `_objects`; a `pointer()` object keeps its pointee; a structure field set to `pointer(...)` keeps it too), so the mapped memory outlives the mapping."""
import ctypes
import mmap

from ze import *

PAGE = mmap.PAGESIZE
SIZE = 4 * PAGE


class Pinned(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ctypes.c_char * SIZE)), ("size", ctypes.c_size_t)]


def map_range(hctx, addr, nbytes):
    ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=addr, size=nbytes)
    desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=0)
    ptr = ctypes.c_void_p()
    zeMemAllocHost(hctx, ctypes.byref(desc), nbytes, PAGE, ctypes.byref(ptr))
    return ptr


def view_keeps_mmap(hctx):
    view = (ctypes.c_char * SIZE).from_buffer(mmap.mmap(-1, SIZE))
    ptr = map_range(hctx, ctypes.addressof(view), SIZE)
    zeMemFree(hctx, ptr)
    return view


def pointer_keeps_view(hctx):
    holder = ctypes.pointer((ctypes.c_char * SIZE).from_buffer(mmap.mmap(-1, SIZE)))
    ptr = map_range(hctx, ctypes.addressof(holder.contents), SIZE)
    zeMemFree(hctx, ptr)
    return holder


def field_keeps_view(hctx):
    rec = Pinned(data=ctypes.pointer((ctypes.c_char * SIZE).from_buffer(mmap.mmap(-1, SIZE))), size=SIZE)
    ptr = map_range(hctx, ctypes.addressof(rec.data.contents), SIZE)
    zeMemFree(hctx, ptr)
    return rec
