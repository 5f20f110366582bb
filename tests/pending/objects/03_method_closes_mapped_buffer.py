"""Issue 22 point 2 (objects): `refresh` closes the object's read-only mmap and `close` closes it too, while the mapping `map` made of it (stored in `self.ptr`) is still live; called on the same object, each is OWN304 at the call site."""
import ctypes
import mmap

import numpy as np
from ze import *

PAGE = mmap.PAGESIZE
SIZE = 16 * PAGE


class WeightFile:
    def __init__(self, hctx, path):
        self.hctx = hctx
        self.f = open(path, "rb")
        self.blob = mmap.mmap(self.f.fileno(), SIZE, access=mmap.ACCESS_READ)
        self.ptr = ctypes.c_void_p()

    def map(self):
        ext = ze_external_memmap_sysmem_ext_desc_t(stype=ZE_STRUCTURE_TYPE_EXTERNAL_MEMMAP_SYSMEM_EXT_DESC, pNext=None, pSystemMemory=np.frombuffer(self.blob, dtype=np.uint8).ctypes.data, size=SIZE)
        desc = ze_host_mem_alloc_desc_t(stype=ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC, pNext=ctypes.cast(ctypes.pointer(ext), ctypes.c_void_p), flags=ZE_HOST_MEM_ALLOC_FLAG_MEM_READ_ONLY)
        zeMemAllocHost(self.hctx, ctypes.byref(desc), SIZE, PAGE, ctypes.byref(self.ptr))

    def unmap(self):
        zeMemFree(self.hctx, self.ptr)

    def refresh(self):
        self.blob.close()
        self.blob = mmap.mmap(self.f.fileno(), SIZE, access=mmap.ACCESS_READ)

    def close(self):
        self.blob.close()
        self.f.close()


def reload_while_mapped(hctx, path, hcl, dst):
    w = WeightFile(hctx, path)
    w.map()
    zeCommandListAppendMemoryCopy(hcl, dst, w.ptr, SIZE, None, 0, None)
    w.refresh()  # E: OWN304
    w.unmap()
    w.close()


def close_before_unmap(hctx, path):
    w = WeightFile(hctx, path)
    w.map()
    w.close()  # E: OWN304
    w.unmap()
